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

/* The two ends of the window a contribution block can be taken from (mfs_arena.c: why two). */
enum { ARENA_LOW = 0, ARENA_HIGH = 1 };

/* One end: offsets count from its anchor (the window's start for the low end, growing upwards, the
 * window's end for the high end, growing downwards). */
typedef struct {
  size_t top;        /* end of the highest allocation, from the anchor */
  size_t hwm;        /* highest top so far: what this region has touched */
  arena_extent *ext; /* free extents below top, in order from the anchor */
  int next, cap;
} arena_region;

typedef struct mfs_arena mfs_arena;
struct mfs_arena {
  char *base; /* NULL for a simulation */
  void *map;  /* the mapping (base aligned inside it) */
  size_t maplen;
  size_t window;  /* bytes the low and the high end share: [0, window) from base */
  size_t reserve; /* usable bytes from base: the window, then room the low end may grow into */
  arena_region low, high;
  size_t hwm;           /* the committed footprint: the most bytes the two ends held at once (their tops) */
  size_t used;          /* bytes currently allocated */
  pthread_mutex_t lock; /* executors may allocate from several workers */
};

/* The end the sequential run takes a front's contribution block from: its depth's parity, so that a
 * parent and its children sit at opposite ends (mfs_arena.c), when the analysis chose two ends. */
static inline int mfs_cb_end_of_depth(int32_t depth) { return depth % 2 ? ARENA_HIGH : ARENA_LOW; }
static inline int mfs_cb_end(const mfs_symbolic *S, int32_t f) {
  return S->cb_two_ends ? mfs_cb_end_of_depth(S->fronts[f].depth) : ARENA_LOW;
}

/* A simulation: offsets only, the window unbounded, hwm is the footprint of the replayed sequence. */
void arena__init_sim(mfs_arena *a);
/* Maps a window of window bytes (nothing is faulted in until written; no huge pages asked for:
 * mfs_arena.c says why; the base 2 MiB aligned) and extra bytes of address space behind it, which
 * the low end may grow into while the high end holds nothing. */
mfs_status arena__create(mfs_arena *a, size_t window, size_t extra);
void arena__destroy(mfs_arena *a);
/* An offset from base at the given end of the window (else at the other end, else past the window
 * while the high end holds nothing); ARENA_FAIL when none holds len bytes. */
size_t arena__alloc_off(mfs_arena *a, size_t len, int end);
void arena__free_off(mfs_arena *a, size_t off, size_t len);
/* Bytes of memory the arena has touched: what the two ends' high-water marks cover. */
size_t arena__touched(const mfs_arena *a);
/* NULL when full: caller falls back to mem__alloc. *dirty (when dirty is not NULL): how many leading
 * bytes of the block earlier allocations may have written; the rest is zero (never touched: the
 * arena gives no memory back to the kernel before it is destroyed). */
void *arena__alloc(mfs_arena *a, size_t len, int end, size_t *dirty);
/* Like arena__alloc, but only inside the window: NULL with *over_window = 1 when it does not fit. */
void *arena__alloc_in_window(mfs_arena *a, size_t len, int end, int *over_window, size_t *dirty);
/* Exactly [off, off + len) of the low end, inside the window, when that range is free; else NULL.
 * *dirty as for arena__alloc. */
void *arena__alloc_at(mfs_arena *a, size_t off, size_t len, size_t *dirty);
/* First fit in the low end at offset floor or above: in its holes (which lie past the window only
 * after the low end grew past it), else on its top while that stays inside the window; else NULL. */
void *arena__alloc_above(mfs_arena *a, size_t floor, size_t len, size_t *dirty);
void arena__free(mfs_arena *a, void *p, size_t len);
int arena__owns(const mfs_arena *a, const void *p);

#endif
