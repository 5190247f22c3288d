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
#define ARENA_MAX_POPULATE_THREADS 64
/* Threads that fault in the populated part of the next arenas (the executor's workers per process;
 * default 1). */
void arena__set_populate_threads(int n);
/* Huge pages or not, for the next arenas (until set again; 0 restores "always huge pages"): the
 * operations the memory is for are expected to take ops_s seconds, and the arenas will populate
 * total_bytes in all. See mfs_arena.c (huge_pages_too_slow). */
void arena__set_huge_page_budget(double ops_s, double total_bytes);
/* What the executors assume a worker computes per second when they set that budget (mfsolve ran
 * at 24-31 GFlop/s per core on these machines' problems; on a faster machine the budget is too
 * generous, which only keeps huge pages more often). */
#define MFS_EXPECTED_FLOPS_PER_WORKER 25e9
/* 1 when the last arenas hold 4 KiB pages after all: huge pages were too slow to fault in. */
int arena__small_pages(void);
/* The rule: 4 KiB pages for the rest when populating bytes in huge pages (seconds per byte) would
 * cost more than populating them in 4 KiB pages plus the operations' slowdown on 4 KiB pages
 * (ARENA_SMALL_PAGE_SLOWDOWN x ops_s: operations took 1.5-1.9x as long here). */
#define ARENA_SMALL_PAGE_SLOWDOWN 0.8
int arena__huge_pages_too_slow(double huge_s_per_byte, double small_s_per_byte, double bytes, double ops_s);
mfs_status arena__create(mfs_arena *a, size_t reserve, size_t populate);
void arena__destroy(mfs_arena *a);
size_t arena__alloc_off(mfs_arena *a, size_t len); /* ARENA_FAIL when the reservation is full */
void arena__free_off(mfs_arena *a, size_t off, size_t len);
void *arena__alloc(mfs_arena *a, size_t len); /* NULL when full: caller falls back to mem__alloc */
/* Like arena__alloc, but NULL with *over_cap = 1 when the committed footprint would pass cap. */
void *arena__alloc_capped(mfs_arena *a, size_t len, size_t cap, int *over_cap);
void arena__free(mfs_arena *a, void *p, size_t len);
int arena__owns(const mfs_arena *a, const void *p);

#endif
