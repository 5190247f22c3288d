/*
 * mfs_arena.h — address-range allocator for front tiles (see mfs_arena.c). Internal.
 */
#ifndef MFS_ARENA_H
#define MFS_ARENA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mfs_internal.h"

#define ARENA_FAIL SIZE_MAX

typedef struct {
  size_t off, len;
} arena_extent;

typedef struct mfs_arena mfs_arena;
struct mfs_arena {
  char *base; /* NULL for a simulation */
  void *map;  /* the mapping (base aligned inside it) */
  size_t maplen;
  size_t reserve;    /* usable bytes from base */
  size_t top;        /* end of the highest allocation */
  size_t hwm;        /* highest top so far: the committed footprint */
  size_t used;       /* bytes currently allocated */
  arena_extent *ext; /* free extents below top, address order */
  int next, cap;
  pthread_mutex_t lock; /* executors may allocate from several workers */
};

void arena__init_sim(mfs_arena *a);
/* Reserves reserve bytes of address space (rounded up to whole 2 MiB, the base 2 MiB aligned; no
 * huge pages asked for: mfs_arena.c says why); nothing is faulted in until written. */
mfs_status arena__create(mfs_arena *a, size_t reserve);
void arena__destroy(mfs_arena *a);
size_t arena__alloc_off(mfs_arena *a, size_t len); /* ARENA_FAIL when the reservation is full */
void arena__free_off(mfs_arena *a, size_t off, size_t len);
/* NULL when full: caller falls back to mem__alloc. *dirty (when dirty is not NULL): how many leading
 * bytes of the block earlier allocations may have written; the rest is zero (never touched: the
 * arena gives no memory back to the kernel before it is destroyed). */
void *arena__alloc(mfs_arena *a, size_t len, size_t *dirty);
/* Like arena__alloc, but NULL with *over_cap = 1 when the committed footprint would pass cap. */
void *arena__alloc_capped(mfs_arena *a, size_t len, size_t cap, int *over_cap, size_t *dirty);
void arena__free(mfs_arena *a, void *p, size_t len);
int arena__owns(const mfs_arena *a, const void *p);

#endif
