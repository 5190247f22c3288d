/* Global region registry: name + paradigm -> small integer id. Registration takes a mutex (it happens
 * once per region); reading a registered region is lock-free (entries never move or change). */
#include "pm_core.h"
#include "pm_lifecycle.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* At most PM_MAX_REGIONS regions; past PM_REGIONS_NAMED distinct names, new ones are merged into one
 * region per paradigm, "(more regions)" (their time stays measured; the profile counts them). */
#define PM_MAX_REGIONS 65536
#define PM_REGIONS_NAMED (PM_MAX_REGIONS - PM_PARADIGM_COUNT)
#define PM_REGION_HASH 131072 /* power of two, > 2 x PM_MAX_REGIONS */
#define PM_REGION_MORE "(more regions)"

typedef struct {
  char *name;
  pm_paradigm paradigm;
  pm_region_role role;
} region;

static region regions[PM_MAX_REGIONS];
static uint32_t nregions;                   /* published with release order */
static uint32_t hash_slots[PM_REGION_HASH]; /* id + 1; 0 = empty */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t nfolded; /* registrations merged into "(more regions)" */

static uint64_t name_hash(const char *s, pm_paradigm p) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)p; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The id of (name, paradigm), added when new and fewer than limit regions exist; with the lock held.
 * *full: set when the name is new and the limit is reached. */
static pm_region_id lookup_or_add(const char *name, pm_paradigm paradigm, pm_region_role role, uint32_t limit,
                                  int *full) {
  uint64_t h = name_hash(name, paradigm);
  pm_region_id id = PM_REGION_NONE;
  for (uint64_t i = h & (PM_REGION_HASH - 1);; i = (i + 1) & (PM_REGION_HASH - 1)) {
    uint32_t slot = hash_slots[i];
    if (slot == 0) {
      if (nregions >= limit) {
        *full = 1;
        break;
      }
      char *copy = strdup(name);
      if (!copy) break;
      id = nregions;
      regions[id] = (region){copy, paradigm, role};
      hash_slots[i] = id + 1;
      __atomic_store_n(&nregions, id + 1, __ATOMIC_RELEASE);
      break;
    }
    region *r = &regions[slot - 1];
    if (r->paradigm == paradigm && strcmp(r->name, name) == 0) {
      id = slot - 1;
      break;
    }
  }
  return id;
}

pm_region_id pm_region_register(const char *name, pm_paradigm paradigm, pm_region_role role) {
  if (!name) name = "(unnamed)";
  int full = 0;
  pthread_mutex_lock(&lock);
  pm_region_id id = lookup_or_add(name, paradigm, role, PM_REGIONS_NAMED, &full);
  uint64_t folded = 0;
  if (full) {
    id = lookup_or_add(PM_REGION_MORE, paradigm, role, PM_MAX_REGIONS, &full);
    folded = ++nfolded;
  }
  pthread_mutex_unlock(&lock);
  if (folded == 1)
    pm_warn("more than %d distinct region names: later ones are merged into \"%s\"", PM_REGIONS_NAMED, PM_REGION_MORE);
  return id;
}

uint64_t pm_region_folded(void) { return __atomic_load_n(&nfolded, __ATOMIC_RELAXED); }

uint32_t pm_region_count(void) { return __atomic_load_n(&nregions, __ATOMIC_ACQUIRE); }
const char *pm_region_name(pm_region_id id) { return id < pm_region_count() ? regions[id].name : "(unknown)"; }
pm_paradigm pm_region_paradigm(pm_region_id id) {
  return id < pm_region_count() ? regions[id].paradigm : PM_PARADIGM_USER;
}
pm_region_role pm_region_role_of(pm_region_id id) {
  return id < pm_region_count() ? regions[id].role : PM_ROLE_FUNCTION;
}

void pm_regions_reset(void) {
  pthread_mutex_lock(&lock);
  for (uint32_t i = 0; i < nregions; i++) free(regions[i].name);
  memset(hash_slots, 0, sizeof hash_slots);
  nfolded = 0;
  __atomic_store_n(&nregions, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}
