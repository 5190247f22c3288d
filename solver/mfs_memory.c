/*
 * mfs_memory.c — the memory estimate of the numeric phase: replay the operation list the way the
 * sequential executor runs it, through the same arena placement code (mfs_arena.c) it uses. INIT
 * takes a front's factor tiles from the factor arena (never freed) and its CB tiles from the CB
 * arena while the children's CBs are still alive — the classic multifrontal peak; CLEANUP returns a
 * child's CB once assembled. The committed footprint of the CB arena includes the holes first fit
 * leaves, so the prediction is what the executor really touches, not an idealised stack.
 */
#include "mfs_arena.h"

#include <stdlib.h>

void memory__predict(mfs_symbolic *S) {
  /* what mfs_factor_create allocates up front: the factor object, its tables and arenas */
  S->mem_fixed = factor__table_bytes(S);
  mfs_arena cb;
  arena__init_sim(&cb);
  size_t *cboff = mem__alloc(((size_t)S->nfronts + 1) * sizeof *cboff);
  int64_t factor = 0, live = 0, live_peak = 0;
  for (int64_t o = 0; o < S->nops; o++) {
    const mfs_op *op = &S->ops[o];
    const mfs_front *F = &S->fronts[op->front];
    if (op->type == MFS_OP_INIT) {
      factor += F->l_bytes;
      live += F->l_bytes + F->cb_bytes;
      if (live > live_peak) live_peak = live;
      if (cboff && F->cb_bytes) cboff[op->front] = arena__alloc_off(&cb, (size_t)F->cb_bytes);
    } else if (op->type == MFS_OP_CLEANUP) {
      live -= F->cb_bytes;
      if (cboff && F->cb_bytes) arena__free_off(&cb, cboff[op->front], (size_t)F->cb_bytes);
    }
  }
  S->mem_factor = factor;
  S->mem_peak_live = S->mem_fixed + live_peak;
  /* without bookkeeping memory, fall back to an upper bound */
  S->mem_cb_region = cboff ? (int64_t)cb.hwm : live_peak;
  S->mem_peak = S->mem_fixed + factor + S->mem_cb_region;
  mem__free(cboff);
  free(cb.ext);
}
