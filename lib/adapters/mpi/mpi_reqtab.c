/* Request / message table of the MPI adapter.
 *
 * Why: at completion (MPI_Wait*, MPI_Test*) the handle alone does not say whether a request is a
 * receive (bytes and critical-path clock to account) or something else; for persistent sends the
 * arguments are needed again at each MPI_Start. Entries are added when a receive, persistent
 * request or matched message is created and removed when it is completed / freed.
 *
 * How: one global open-addressing table, lock-free (a request may be posted on one thread and
 * completed on another under MPI_THREAD_MULTIPLE). Probing is bounded to PM_REQTAB_WINDOW slots,
 * so a lookup costs at most that many loads whatever the history; deleted slots become tombstones
 * that inserts reuse. When the window of a key is full the entry goes to a small mutex-protected
 * overflow array (only looked at while it is non-empty). No malloc per message.
 * A given key is only ever manipulated by one thread at a time (MPI's rule for request handles),
 * so per-key operations need no further synchronisation; slot claiming uses CAS. */
#include "mpi_adapter.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PM_REQTAB_BITS 15
#define PM_REQTAB_SIZE (1u << PM_REQTAB_BITS)
#define PM_REQTAB_WINDOW 32

enum { K_EMPTY = 0, K_LOCKED = 1, K_TOMB = 2 };

typedef struct {
  uintptr_t key;
  pm_mpi_reqinfo info;
} slot_t;

static slot_t table[PM_REQTAB_SIZE];
int pm_mpi_reqtab_live;

static pthread_mutex_t ovf_lock = PTHREAD_MUTEX_INITIALIZER;
static slot_t *ovf;
static int ovf_n, ovf_cap;
static int ovf_used; /* atomic mirror of ovf_n for the lock-free fast path */

static inline uint32_t hash_key(uintptr_t k) {
  return (uint32_t)(((uint64_t)(k >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - PM_REQTAB_BITS));
}

static void ovf_put(uintptr_t key, const pm_mpi_reqinfo *info) {
  pthread_mutex_lock(&ovf_lock);
  for (int i = 0; i < ovf_n; i++)
    if (ovf[i].key == key) {
      ovf[i].info = *info;
      pthread_mutex_unlock(&ovf_lock);
      return;
    }
  if (ovf_n == ovf_cap) {
    int ncap = ovf_cap ? 2 * ovf_cap : 256;
    slot_t *n = realloc(ovf, (size_t)ncap * sizeof *n);
    if (!n) { /* out of memory: the request is not tracked (bytes / clock of one message lost) */
      pthread_mutex_unlock(&ovf_lock);
      if (info->sh) pm_mpi_shadow_unref(info->sh);
      free(info->ps);
      return;
    }
    ovf = n;
    ovf_cap = ncap;
  }
  ovf[ovf_n].key = key;
  ovf[ovf_n].info = *info;
  ovf_n++;
  __atomic_store_n(&ovf_used, ovf_n, __ATOMIC_RELEASE);
  __atomic_add_fetch(&pm_mpi_reqtab_live, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&ovf_lock);
}

static int ovf_find(uintptr_t key, pm_mpi_reqinfo *out, int remove) {
  if (!__atomic_load_n(&ovf_used, __ATOMIC_ACQUIRE)) return 0;
  int found = 0;
  pthread_mutex_lock(&ovf_lock);
  for (int i = 0; i < ovf_n; i++) {
    if (ovf[i].key != key) continue;
    if (out) *out = ovf[i].info;
    if (remove) {
      ovf[i] = ovf[--ovf_n];
      __atomic_store_n(&ovf_used, ovf_n, __ATOMIC_RELEASE);
      __atomic_sub_fetch(&pm_mpi_reqtab_live, 1, __ATOMIC_RELAXED);
    }
    found = 1;
    break;
  }
  pthread_mutex_unlock(&ovf_lock);
  return found;
}

void pm_mpi_reqtab_put(const void *keyp, const pm_mpi_reqinfo *info) {
  uintptr_t key = (uintptr_t)keyp;
  if (key <= K_TOMB) return;
  uint32_t h = hash_key(key);
  /* A stale entry for the same handle (a receive completed outside our wrappers): replace it. */
  for (uint32_t i = 0; i < PM_REQTAB_WINDOW; i++) {
    slot_t *s = &table[(h + i) & (PM_REQTAB_SIZE - 1)];
    uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
    if (k == K_EMPTY) break;
    if (k == key) {
      pm_mpi_reqinfo old = s->info;
      s->info = *info;
      __atomic_thread_fence(__ATOMIC_RELEASE);
      if (old.sh) pm_mpi_shadow_unref(old.sh);
      free(old.ps);
      return;
    }
  }
  for (uint32_t i = 0; i < PM_REQTAB_WINDOW; i++) {
    slot_t *s = &table[(h + i) & (PM_REQTAB_SIZE - 1)];
    uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
    while (k == K_EMPTY || k == K_TOMB) {
      if (__atomic_compare_exchange_n(&s->key, &k, (uintptr_t)K_LOCKED, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        s->info = *info;
        __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
        __atomic_add_fetch(&pm_mpi_reqtab_live, 1, __ATOMIC_RELAXED);
        return;
      }
    }
  }
  ovf_put(key, info);
}

static int find(uintptr_t key, pm_mpi_reqinfo *out, int remove) {
  if (key <= K_TOMB || pm_mpi_reqtab_empty()) return 0;
  uint32_t h = hash_key(key);
  for (uint32_t i = 0; i < PM_REQTAB_WINDOW; i++) {
    slot_t *s = &table[(h + i) & (PM_REQTAB_SIZE - 1)];
    uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
    if (k == key) {
      if (out) *out = s->info;
      if (remove) {
        __atomic_store_n(&s->key, (uintptr_t)K_TOMB, __ATOMIC_RELEASE);
        __atomic_sub_fetch(&pm_mpi_reqtab_live, 1, __ATOMIC_RELAXED);
      }
      return 1;
    }
    if (k == K_EMPTY) break;
  }
  return ovf_find(key, out, remove);
}

int pm_mpi_reqtab_get(const void *key, pm_mpi_reqinfo *out) { return find((uintptr_t)key, out, 0); }
int pm_mpi_reqtab_take(const void *key, pm_mpi_reqinfo *out) { return find((uintptr_t)key, out, 1); }

void pm_mpi_reqtab_reset(void) {
  memset(table, 0, sizeof table);
  pthread_mutex_lock(&ovf_lock);
  free(ovf);
  ovf = NULL;
  ovf_n = ovf_cap = 0;
  __atomic_store_n(&ovf_used, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&ovf_lock);
  __atomic_store_n(&pm_mpi_reqtab_live, 0, __ATOMIC_RELAXED);
}
