/* Per-parallel-region aggregates, keyed by code address (bounded memory: one record per region,
 * not per instance).
 *
 * Lookup is lock-free: an open-addressing table of (key, record) slots whose key is published
 * last, with release order, and never changes. A key not found takes the lock, resolves the
 * region's name (pm_symbol.c, possibly reading the object file: once per region) and registers
 * the call-path region. At most PM_OMP_MAX_REGIONS distinct records; further regions share the
 * record "other parallel regions" (their keys still get a slot, so later lookups stay lock-free). */
#include "pm_omp_internal.h"
#include "pm_profile.h"
#include "pm_symbol.h"
#include "pm_module.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NSLOTS (4 * PM_OMP_MAX_REGIONS) /* power of two */
#define NS 1e-9

typedef struct {
  uintptr_t key;
  pm_omp_rstat *r;
} rslot;
static rslot slots[NSLOTS];
static uint32_t nslots_used;
static pm_omp_rstat *records[PM_OMP_MAX_REGIONS + 1]; /* in creation order; +1: "other" */
static uint32_t nrecords;
static pm_omp_rstat *other;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(uintptr_t k) { return (uint32_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 40) & (NSLOTS - 1); }

static pm_omp_rstat *find(uintptr_t k, uint32_t *free_slot) {
  for (uint32_t i = slot_of(k), n = 0; n < NSLOTS; i = (i + 1) & (NSLOTS - 1), n++) {
    uintptr_t key = __atomic_load_n(&slots[i].key, __ATOMIC_ACQUIRE);
    if (key == k) return slots[i].r;
    if (key == 0) {
      if (free_slot) *free_slot = i;
      return NULL;
    }
  }
  if (free_slot) *free_slot = UINT32_MAX;
  return NULL;
}

static pm_omp_rstat *record_new(const char *name) {
  pm_omp_rstat *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->name = strdup(name);
  r->rid = pm_region_register(name, PM_PARADIGM_OPENMP, PM_ROLE_PARALLEL);
  if (!r->name) {
    free(r);
    return NULL;
  }
  records[nrecords++] = r;
  return r;
}

pm_omp_rstat *pm_omp_region_get(const void *code) {
  uintptr_t k = (uintptr_t)code;
  if (k == 0) k = 1; /* 0 marks an empty slot */
  pm_omp_rstat *r = find(k, NULL);
  if (PM_LIKELY(r != NULL)) return r;
  pthread_mutex_lock(&lock);
  uint32_t free_slot = UINT32_MAX;
  r = find(k, &free_slot);
  if (!r) {
    if (nrecords < PM_OMP_MAX_REGIONS) {
      char name[256];
      pm_symbol_name(code, name, sizeof name);
      r = record_new(name);
    }
    if (!r) {
      if (!other) other = record_new("other parallel regions");
      r = other;
    }
    if (r && free_slot != UINT32_MAX && nslots_used < NSLOTS * 3 / 4) {
      slots[free_slot].r = r;
      __atomic_store_n(&slots[free_slot].key, k, __ATOMIC_RELEASE);
      nslots_used++;
    }
  }
  pthread_mutex_unlock(&lock);
  return r;
}

void pm_omp_region_add(pm_omp_rstat *r, uint32_t nthreads, uint64_t span) {
  uint32_t n = nthreads < PM_OMP_MAX_TEAM ? nthreads : PM_OMP_MAX_TEAM;
  uint32_t cur = __atomic_load_n(&r->nthreads, __ATOMIC_RELAXED);
  while (n > cur && !__atomic_compare_exchange_n(&r->nthreads, &cur, n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
  __atomic_fetch_add(&r->instances, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&r->span, span, __ATOMIC_RELAXED);
}

void pm_omp_region_add_thread(pm_omp_rstat *r, uint32_t tid, uint64_t useful, uint64_t idle) {
  uint32_t j = tid < PM_OMP_MAX_TEAM ? tid : PM_OMP_MAX_TEAM - 1; /* huge teams fold their tail */
  __atomic_fetch_add(&r->useful[j], useful, __ATOMIC_RELAXED);
  __atomic_fetch_add(&r->idle[j], idle, __ATOMIC_RELAXED);
}

static int regions_to_profile(pm_profile *p, uint64_t t_start) {
  (void)t_start;
  return pm_omp_regions_export(p);
}
const pm_module pm_omp_module = {
    .name = "openmp", .order = PM_ORDER_OMP, .end = pm_omp_finalize, .to_profile = regions_to_profile};

int pm_omp_regions_export(pm_profile *p) {
  double u[PM_OMP_MAX_TEAM], w[PM_OMP_MAX_TEAM];
  pthread_mutex_lock(&lock);
  uint32_t n = nrecords;
  pthread_mutex_unlock(&lock);
  for (uint32_t i = 0; i < n; i++) {
    pm_omp_rstat *r = records[i];
    uint64_t inst = __atomic_load_n(&r->instances, __ATOMIC_RELAXED);
    if (inst == 0) continue;
    uint32_t nt = __atomic_load_n(&r->nthreads, __ATOMIC_RELAXED);
    for (uint32_t j = 0; j < nt; j++) {
      u[j] = (double)__atomic_load_n(&r->useful[j], __ATOMIC_RELAXED) * NS;
      w[j] = (double)__atomic_load_n(&r->idle[j], __ATOMIC_RELAXED) * NS;
    }
    pm_prof_omp_region pr = {r->name, 0, (int)nt, inst, (double)__atomic_load_n(&r->span, __ATOMIC_RELAXED) * NS, u, w};
    if (pm_profile_add_omp_region(p, &pr) < 0) return -1;
  }
  return 0;
}

void pm_omp_regions_reset(void) {
  pthread_mutex_lock(&lock);
  for (uint32_t i = 0; i < nrecords; i++) {
    free(records[i]->name);
    free(records[i]);
    records[i] = NULL;
  }
  nrecords = 0;
  other = NULL;
  memset(slots, 0, sizeof slots);
  nslots_used = 0;
  pthread_mutex_unlock(&lock);
  pm_symbol_reset();
}
