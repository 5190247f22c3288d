/*
 * mfs_memory.c — the memory estimate of the numeric phase: replay the operation list the way the
 * sequential executor runs it, through the same arena placement code (mfs_arena.c) it uses. INIT
 * takes a front's factor tiles from the factor arena (never freed) and its CB tiles from the CB
 * arena while the children's CBs are still alive — the classic multifrontal peak; CLEANUP returns a
 * child's CB once assembled. The CBs come from one end of the arena's window, or from both
 * (mfs_cb_end) when that replay commits less. The committed footprint of the CB arena includes the
 * holes first fit leaves, so the prediction is what the executor really touches, not an idealised
 * stack.
 */
#include "mfs_arena.h"

#include <stdlib.h>

/* One replay of the CB allocations of fronts first..last's operations (front skip's own CB left out),
 * every CB at the low end or, with two, at its depth's end (mfs_cb_end_of_depth); off[g - first]
 * gets each front's offset as the simulation gives it, *sim_window the simulation's window. */
static int64_t replay_cb(const mfs_symbolic *S, int32_t first, int32_t last, int32_t skip, int two, size_t *off,
                         size_t *sim_window) {
  mfs_arena a;
  arena__init_sim(&a);
  *sim_window = a.window;
  for (int64_t o = S->fronts[first].op_begin; o < S->fronts[last].op_end; o++) {
    const mfs_op *op = &S->ops[o];
    int32_t g = op->front;
    size_t len = (size_t)S->fronts[g].cb_bytes;
    if (g == skip || len == 0) continue;
    if (op->type == MFS_OP_INIT)
      off[g - first] = arena__alloc_off(&a, len, two ? mfs_cb_end_of_depth(S->fronts[g].depth) : ARENA_LOW);
    else if (op->type == MFS_OP_CLEANUP)
      arena__free_off(&a, off[g - first], len);
  }
  int64_t footprint = (int64_t)a.hwm;
  arena__destroy(&a);
  return footprint;
}

int64_t memory__cb_footprint(const mfs_symbolic *S, int32_t first, int32_t last, int32_t skip, int64_t *cb_off,
                             int *two_ends) {
  if (two_ends) *two_ends = 0;
  if (last < first) return 0;
  size_t *off = mem__alloc(((size_t)(last - first) + 1) * sizeof *off), window;
  if (!off) return -1;
  int64_t one = replay_cb(S, first, last, skip, 0, off, &window);
  int64_t two = replay_cb(S, first, last, skip, 1, off, &window);
  int two_won = two < one;
  int64_t footprint = two_won ? two : one;
  if (cb_off) {
    if (!two_won) replay_cb(S, first, last, skip, 0, off, &window); /* the offsets of the layout kept */
    for (int32_t g = first; g <= last; g++) {
      size_t len = (size_t)S->fronts[g].cb_bytes;
      if (g == skip || !len) continue;
      /* the high end counts down from the simulation's window: place it at the region's end */
      int high = two_won && mfs_cb_end_of_depth(S->fronts[g].depth) == ARENA_HIGH;
      cb_off[g] = (int64_t)(high ? off[g - first] - (window - (size_t)footprint) : off[g - first]);
    }
  }
  if (two_ends) *two_ends = two_won;
  mem__free(off);
  return footprint;
}

void memory__predict(mfs_symbolic *S) {
  /* what mfs_factor_create allocates up front: the factor object, its tables and arenas */
  S->mem_fixed = factor__table_bytes(S);
  int64_t factor = 0, live = 0, live_peak = 0;
  for (int64_t o = 0; o < S->nops; o++) {
    const mfs_op *op = &S->ops[o];
    const mfs_front *F = &S->fronts[op->front];
    if (op->type == MFS_OP_INIT) {
      factor += F->l_bytes;
      live += F->l_bytes + F->cb_bytes;
      if (live > live_peak) live_peak = live;
    } else if (op->type == MFS_OP_CLEANUP) {
      live -= F->cb_bytes;
    }
  }
  S->mem_factor = factor;
  S->mem_peak_live = S->mem_fixed + live_peak;
  /* two ends where they commit less than one (on 3D problems: the live peak, against 12-25 % more) */
  int two_ends;
  int64_t region = memory__cb_footprint(S, 0, S->nfronts - 1, -1, NULL, &two_ends);
  S->cb_two_ends = two_ends;
  /* without bookkeeping memory, fall back to an upper bound */
  S->mem_cb_region = region >= 0 ? region : live_peak;
  S->mem_peak = S->mem_fixed + factor + S->mem_cb_region;
}
