/* Fixed-size object pools for per-event state (task records, handle entries): objects come from
 * chunks that are never returned to malloc while the process measures, and freed objects are
 * recycled, so the per-task hot path does no malloc (docs/runtime-facts.md §2.5: malloc + hashing dominated the
 * cost of a naive StarPU hook set).
 * Objects are typically allocated on one thread (the application submits tasks) and freed on
 * another (a worker ends them), so each thread keeps a small cache of free objects and exchanges
 * them with the global list in batches of PM_SLAB_BATCH under a lock: one lock round trip per
 * batch instead of two per task, and no cache-line ping-pong on the per-task path. A full batch
 * moves as one unit (taken and given back in O(1) under the lock; tests/bench/bench_slab.c).
 * A thread's cache (at most 2 * PM_SLAB_BATCH objects) is not returned when the thread exits. */
#ifndef PM_SLAB_H
#define PM_SLAB_H
#include <stddef.h>
#include <stdint.h>
#include "pm_core.h"

/* Test-and-test-and-set spin lock for critical sections of a few instructions; it yields the CPU
 * after a while, so that a holder preempted on an oversubscribed machine can finish. */
typedef struct {
  volatile int v;
} pm_spin;
PM_HIDDEN void pm_spin_wait(pm_spin *s);
static inline void pm_spin_lock(pm_spin *s) {
  if (PM_UNLIKELY(__atomic_exchange_n(&s->v, 1, __ATOMIC_ACQUIRE))) pm_spin_wait(s);
}
static inline void pm_spin_unlock(pm_spin *s) { __atomic_store_n(&s->v, 0, __ATOMIC_RELEASE); }

#define PM_SLAB_BATCH 64
#define PM_SLAB_MAX 8 /* distinct pools in the process (each has a per-thread cache slot) */

typedef struct pm_slab {
  size_t size;      /* object size, rounded up to 16 bytes */
  size_t per_chunk; /* objects per chunk */
  pm_spin lock;
  int id;          /* 1 + index of the per-thread cache slot (0: not yet assigned) */
  uint64_t epoch;  /* bumped by pm_slab_destroy: stale per-thread caches are dropped */
  void *free_list; /* singly linked through the first word of each free object */
  /* Whole batches of PM_SLAB_BATCH objects that caches gave back: each a chain through the first
   * words ending in NULL, the batches chained through the second word of their first object, whose
   * third word names the batch's last object. A refill takes one in O(1) instead of walking a batch
   * of objects other threads freed (a cache miss each) while it holds the lock. */
  void *batches;
  uint64_t nfree;        /* objects on free_list and in batches */
  char *bump, *bump_end; /* never-used part of the newest chunk (handed out without a pass) */
  void **chunks;         /* every chunk, freed by pm_slab_destroy */
  size_t nchunks, cap_chunks;
  uint64_t high_water; /* most objects out of the global list at once (includes caches) */
} pm_slab;

PM_HIDDEN void pm_slab_init(pm_slab *s, size_t size, size_t per_chunk);
/* A zeroed object, or NULL when memory runs out. */
PM_HIDDEN void *pm_slab_alloc(pm_slab *s);
/* The same, not zeroed (not even its first three words, which linked it while free): for a caller
 * that writes the whole object at once. */
PM_HIDDEN void *pm_slab_alloc_uninit(pm_slab *s);
PM_HIDDEN void pm_slab_free(pm_slab *s, void *obj);
/* Objects allocated and not freed, as seen from the global list (objects in other threads'
 * caches count as allocated); the calling thread's cache is returned first. */
PM_HIDDEN uint64_t pm_slab_live(pm_slab *s);
/* Releases every chunk (all objects become invalid). */
PM_HIDDEN void pm_slab_destroy(pm_slab *s);
#endif
