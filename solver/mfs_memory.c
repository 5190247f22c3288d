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

/* The CB arena's footprint of the sequential order (every front's CB at mfs_cb_end's end for
 * S->cb_two_ends as set), or -1 without memory for the bookkeeping. */
static int64_t replay_cb(const mfs_symbolic *S) {
  size_t *cboff = mem__alloc(((size_t)S->nfronts + 1) * sizeof *cboff);
  if (!cboff) return -1;
  mfs_arena cb;
  arena__init_sim(&cb);
  for (int64_t o = 0; o < S->nops; o++) {
    const mfs_op *op = &S->ops[o];
    const mfs_front *F = &S->fronts[op->front];
    if (!F->cb_bytes) continue;
    if (op->type == MFS_OP_INIT)
      cboff[op->front] = arena__alloc_off(&cb, (size_t)F->cb_bytes, mfs_cb_end(S, op->front));
    else if (op->type == MFS_OP_CLEANUP)
      arena__free_off(&cb, cboff[op->front], (size_t)F->cb_bytes);
  }
  int64_t footprint = (int64_t)cb.hwm;
  arena__destroy(&cb);
  mem__free(cboff);
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
  S->cb_two_ends = 0;
  int64_t one = replay_cb(S);
  S->cb_two_ends = 1;
  int64_t two = replay_cb(S);
  S->cb_two_ends = two >= 0 && (one < 0 || two < one);
  int64_t region = S->cb_two_ends ? two : one;
  /* without bookkeeping memory, fall back to an upper bound */
  S->mem_cb_region = region >= 0 ? region : live_peak;
  S->mem_peak = S->mem_fixed + factor + S->mem_cb_region;
}
