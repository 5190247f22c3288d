/* Fixed-size object pools for per-event state (task records, handle entries): objects come from
 * chunks that are never returned to malloc while the process measures, and freed objects go to a
 * free list, so the per-task hot path does no malloc (hooks.md: malloc + hashing dominated the
 * cost of a naive StarPU hook set). Objects may be freed by another thread than the allocator
 * (tasks are submitted on the application thread and end on workers): the free list is guarded by
 * a spin lock held for a few instructions. */
#ifndef PM_SLAB_H
#define PM_SLAB_H
#include <stddef.h>
#include <stdint.h>
#include "pm_core.h"

/* Test-and-test-and-set spin lock: critical sections here are a handful of loads and stores. */
typedef struct { volatile int v; } pm_spin;
static inline void pm_spin_lock(pm_spin *s) {
  while (__atomic_exchange_n(&s->v, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(&s->v, __ATOMIC_RELAXED)) __builtin_ia32_pause();
}
static inline void pm_spin_unlock(pm_spin *s) { __atomic_store_n(&s->v, 0, __ATOMIC_RELEASE); }

typedef struct pm_slab {
  size_t size;               /* object size, rounded up to 16 bytes */
  size_t per_chunk;          /* objects per chunk */
  pm_spin lock;
  void *free_list;           /* singly linked through the first word of each free object */
  void **chunks;             /* every chunk, freed by pm_slab_destroy */
  size_t nchunks, cap_chunks;
  uint64_t live;             /* allocated and not yet freed (for tests and the report) */
  uint64_t high_water;
} pm_slab;

PM_HIDDEN void pm_slab_init(pm_slab *s, size_t size, size_t per_chunk);
/* A zeroed object, or NULL when memory runs out. */
PM_HIDDEN void *pm_slab_alloc(pm_slab *s);
PM_HIDDEN void pm_slab_free(pm_slab *s, void *obj);
/* Releases every chunk (all objects become invalid). */
PM_HIDDEN void pm_slab_destroy(pm_slab *s);
#endif
