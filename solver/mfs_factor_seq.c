/*
 * mfs_factor_seq.c — the factor object, execution of one tile operation, and the sequential
 * executor that runs S->ops in order. A task-based executor replaces only the loop in
 * mfs_factorize_seq: operations and kernels are shared.
 */
#include "mfs_arena.h"
#include "mfs_dist.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "popmeter.h"

/* Blocks come from an arena, or from the tracked heap when the arena could not be mapped or is
 * full (never in a sequential run: its window is the replayed footprint). *zero_from:
 * where the block's part known to be zero begins (its end when nothing is known). */
static double *block_alloc(mfs_arena *a, int64_t bytes, int end, double **zero_from) {
  size_t dirty = (size_t)bytes;
  double *p = arena__alloc(a, (size_t)bytes, end, &dirty);
  if (!p) {
    p = mem__alloc((size_t)bytes);
    dirty = (size_t)bytes;
  }
  *zero_from = p ? (double *)((char *)p + dirty) : NULL;
  return p;
}

static void block_free(mfs_arena *a, double *p, int64_t bytes) {
  if (!p) return;
  if (arena__owns(a, p))
    arena__free(a, p, (size_t)bytes);
  else
    mem__free(p);
}

static void release_arena(mfs_arena **a) {
  if (!*a) return;
  arena__destroy(*a);
  mem__free(*a);
  *a = NULL;
}

void mfs_factor_free(mfs_factor *F) {
  if (!F) return;
  if (F->S) {
    for (int32_t f = 0; f < F->S->nfronts; f++) {
      if (F->lblock && F->lblock[f] && !(F->arena_l && arena__owns(F->arena_l, F->lblock[f]))) mem__free(F->lblock[f]);
      if (F->cbblock && F->cbblock[f] && !(F->arena_cb && arena__owns(F->arena_cb, F->cbblock[f])))
        mem__free(F->cbblock[f]);
    }
  }
  release_arena(&F->arena_l);
  release_arena(&F->arena_cb);
  dist__free(F->dist);
  mem__free(F->tile);
  mem__free(F->lblock);
  mem__free(F->cbblock);
  mem__free(F);
}

void factor__release_cb_arena(mfs_factor *F) { release_arena(&F->arena_cb); }

int64_t factor__table_bytes(const mfs_symbolic *S) {
  return (int64_t)sizeof(mfs_factor) + S->ntiles * (int64_t)sizeof(double *) +
         2 * (int64_t)S->nfronts * (int64_t)sizeof(double *) + 2 * (int64_t)sizeof(mfs_arena);
}

mfs_status mfs_factor_create(const mfs_symbolic *S, mfs_factor **Fout, mfs_error *err) {
  return factor__create(S, S->mem_factor, S->mem_cb_region, Fout, err);
}

mfs_status factor__create(const mfs_symbolic *S, int64_t factor_bytes, int64_t cb_bytes, mfs_factor **Fout,
                          mfs_error *err) {
  *Fout = NULL;
  mfs_factor *F = mem__calloc(1, sizeof *F);
  if (!F) return err__nomem(err);
  F->S = S;
  F->tile = mem__calloc((size_t)(S->ntiles ? S->ntiles : 1), sizeof *F->tile);
  F->lblock = mem__calloc((size_t)(S->nfronts ? S->nfronts : 1), sizeof *F->lblock);
  F->cbblock = mem__calloc((size_t)(S->nfronts ? S->nfronts : 1), sizeof *F->cbblock);
  F->arena_l = mem__calloc(1, sizeof *F->arena_l); /* zeroed: an unmapped arena is safe to destroy */
  F->arena_cb = mem__calloc(1, sizeof *F->arena_cb);
  if (!F->tile || !F->lblock || !F->cbblock || !F->arena_l || !F->arena_cb) {
    mfs_factor_free(F);
    return err__nomem(err);
  }
  /* an arena that cannot be mapped stays empty and every block falls back to the heap */
  size_t lsize = (size_t)factor_bytes, cbsize = (size_t)cb_bytes;
  if (arena__create(F->arena_l, lsize, 0) != MFS_OK) memset(F->arena_l, 0, sizeof *F->arena_l);
  /* the CB window is the planned footprint; the room behind it is address space only, for other
   * execution orders than the planned one */
  size_t room = cbsize > ((size_t)64 << 20) ? cbsize : (size_t)64 << 20;
  if (arena__create(F->arena_cb, cbsize, room) != MFS_OK) memset(F->arena_cb, 0, sizeof *F->arena_cb);
  *Fout = F;
  return MFS_OK;
}

/* Carve the tiles out of the front's two allocations, in the order and with the padding that
 * mfs_front_bytes counts (the prediction must match the allocation to the byte). */
static mfs_status activate_front(mfs_factor *F, int32_t f, double **l_zero, double **cb_zero, mfs_error *err) {
  const mfs_symbolic *S = F->S;
  const mfs_front *Fr = &S->fronts[f];
  *cb_zero = NULL;
  double *L = block_alloc(F->arena_l, Fr->l_bytes, ARENA_LOW, l_zero);
  double *C = Fr->cb_bytes ? block_alloc(F->arena_cb, Fr->cb_bytes, mfs_cb_end(S, f), cb_zero) : NULL;
  if (!L || (Fr->cb_bytes && !C)) {
    block_free(F->arena_l, L, Fr->l_bytes);
    block_free(F->arena_cb, C, Fr->cb_bytes);
    return err__nomem(err);
  }
  F->lblock[f] = L;
  F->cbblock[f] = C;
  int64_t lb, cb;
  dist__carve(S, NULL, f, L, C, F->tile + Fr->tile0, &lb, &cb);
  if (lb != Fr->l_bytes || cb != Fr->cb_bytes)
    return err__set(err, MFS_ERR_INTERNAL, 0, -1, "front %d: tile sizes disagree with the analysis", f);
  return MFS_OK;
}

static void release_cb(mfs_factor *F, int32_t f) {
  const mfs_front *Fr = &F->S->fronts[f];
  block_free(F->arena_cb, F->cbblock[f], Fr->cb_bytes);
  F->cbblock[f] = NULL;
  double **tiles = F->tile + Fr->tile0;
  for (int32_t j = Fr->nbp; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) tiles[mfs_tile_index(Fr->nbt, i, j)] = NULL;
}

/* The computing operations (ASSEMBLE .. GEMM) on the tiles F->tile points at; INIT and CLEANUP, which
 * allocate and free, belong to each executor. Touches nothing shared but the tiles themselves, so
 * workers may run it concurrently on disjoint tiles. */
mfs_status factor__compute_op(const mfs_factor *F, const mfs_op *op, mfs_error *err) {
  const mfs_symbolic *S = F->S;
  const mfs_front *Fr = &S->fronts[op->front];
  const int32_t *b = S->blkptr + Fr->blk;
  double *const *T = F->tile + Fr->tile0;
#define TILE(i, j) T[mfs_tile_index(Fr->nbt, (i), (j))]
#define BS(t) (b[(t) + 1] - b[(t)])
  switch (op->type) {
  case MFS_OP_ASSEMBLE: {
    const mfs_front *C = &S->fronts[op->child];
    const double *ct = F->tile[C->tile0 + mfs_tile_index(C->nbt, op->ci, op->cj)];
    mfs_kernel_assemble(S, op, ct, TILE(op->i, op->j));
    return MFS_OK;
  }
  case MFS_OP_POTRF: return factor__potrf(S, op->front, op->k, TILE(op->k, op->k), err);
  case MFS_OP_TRSM:
    mfs_kernel_trsm(BS(op->i), BS(op->k), TILE(op->k, op->k), BS(op->k), TILE(op->i, op->k), BS(op->i));
    return MFS_OK;
  case MFS_OP_SYRK:
    mfs_kernel_syrk(BS(op->i), BS(op->k), TILE(op->i, op->k), BS(op->i), TILE(op->i, op->i), BS(op->i));
    return MFS_OK;
  case MFS_OP_GEMM:
    mfs_kernel_gemm(BS(op->i), BS(op->j), BS(op->k), TILE(op->i, op->k), BS(op->i), TILE(op->j, op->k), BS(op->j),
                    TILE(op->i, op->j), BS(op->i));
    return MFS_OK;
  }
#undef TILE
#undef BS
  return err__set(err, MFS_ERR_INTERNAL, 0, -1, "operation type %d is not a computation", op->type);
}

/* The value of the pivot t that made the factorization of the nk x nk tile a fail: recomputed from
 * the tile's diagonal before the kernel (diag) and the row of L the kernel left, because the
 * kernel flushed a denormal pivot to 0 before rejecting it. Without diag (no memory for it) or for
 * a pivot that is not finite, the value the kernel left. Runs with denormals kept. */
static double failed_pivot(const double *a, int nk, int t, const double *diag) {
  double kept = a[t + (int64_t)t * nk];
  if (!diag || !isfinite(kept)) return kept;
  double p = diag[t];
  for (int s = 0; s < t; s++) p -= a[t + (int64_t)s * nk] * a[t + (int64_t)s * nk];
  return p;
}

/* What is wrong with a pivot the kernel rejected, with its value (a denormal with the digits it
 * holds). Runs with denormals kept: flushed, a denormal compares as 0. */
static void describe_pivot(double p, char *buf, size_t size) {
  if (isnan(p))
    snprintf(buf, size, "is not a number");
  else if (isinf(p))
    snprintf(buf, size, "is infinite");
  else if (p <= 0)
    snprintf(buf, size, "is not positive: %.6g", p);
  else if (p < DBL_MIN)
    snprintf(buf, size,
             "is too small: %.*g is a denormal number (below %.6g, the smallest normal double), which the "
             "factorization flushes to zero",
             (int)fmax(1, floor(log10(p / DBL_TRUE_MIN))), p, DBL_MIN);
  else /* the kernel's rounding made it <= 0 */
    snprintf(buf, size, "is not positive or too small: %.6g", p);
}

/* Cholesky of diagonal tile k of front f. A rejected pivot (not positive, a denormal flushed to
 * zero, or NaN) names its input column and its value. */
mfs_status factor__potrf(const mfs_symbolic *S, int32_t f, int32_t k, double *a, mfs_error *err) {
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk;
  int nk = b[k + 1] - b[k];
  /* the diagonal before the kernel overwrites it, for the value of a failed pivot: O(nk) against
   * the kernel's O(nk^3), on the stack for tiles up to 4 times the default size (16 KiB: the
   * largest fronts' tiles of the sequential executor), so that no heap block outside the memory
   * prediction is taken while the workers run */
  double small[4 * MFS_DEFAULT_NB], *diag = nk <= 4 * MFS_DEFAULT_NB ? small : mem__alloc((size_t)nk * sizeof *diag);
  if (diag)
    for (int t = 0; t < nk; t++) diag[t] = a[t + (int64_t)t * nk];
  int info = mfs_kernel_potrf(nk, a, nk);
  if (info == 0) /* dpotrf lets NaN through (NaN <= 0 is false): check the pivots */
    for (int t = 0; t < nk; t++)
      if (!isfinite(a[t + (int64_t)t * nk])) {
        info = t + 1;
        break;
      }
  mfs_status st = MFS_OK;
  if (info != 0) {
    int32_t pc = Fr->col0 + b[k] + info - 1;
    int32_t oc = S->perm[pc];
    char what[200];
    unsigned csr = fpu__keep_denormals();
    describe_pivot(failed_pivot(a, nk, info - 1, diag), what, sizeof what);
    mfs_fpu_restore(csr);
    st = err__set(err, MFS_ERR_NOT_SPD, 0, oc,
                  "matrix is not positive definite: the pivot of column %d (1-based, input numbering) %s "
                  "(elimination step %d of %d)",
                  oc + 1, what, pc + 1, S->n);
  }
  if (diag != small) mem__free(diag);
  return st;
}

mfs_status mfs_op_execute(mfs_factor *F, const mfs_matrix *A, const mfs_op *op, mfs_error *err) {
  const mfs_symbolic *S = F->S;
  double **T = F->tile + S->fronts[op->front].tile0;
  switch (op->type) {
  case MFS_OP_INIT: {
    double *l_zero, *cb_zero;
    mfs_status st = activate_front(F, op->front, &l_zero, &cb_zero, err);
    if (st != MFS_OK) return st;
    kernel__init_front(S, op->front, A->val, T, l_zero, cb_zero);
    break;
  }
  case MFS_OP_ASSEMBLE:
  case MFS_OP_POTRF:
  case MFS_OP_TRSM:
  case MFS_OP_SYRK:
  case MFS_OP_GEMM: {
    mfs_status st = factor__compute_op(F, op, err);
    if (st != MFS_OK) return st;
    break;
  }
  case MFS_OP_CLEANUP: release_cb(F, op->front); break;
  default: return err__set(err, MFS_ERR_INTERNAL, 0, -1, "unknown operation type %d", op->type);
  }
  F->flops_done += op->flops;
  return MFS_OK;
}

/* The sequential kernels, declared to popmeter when it measures the run (preloaded or linked): each
 * operation runs inside a user region named like its codelet in the task-based executor
 * ("mfs_gemm"...), so that this run is the sequential reference of the task model (docs/metrics.md
 * §6.3: popmeter show --ref-seq). Without popmeter the weak references are NULL and cost a test. */
#pragma weak pm_region_begin
#pragma weak pm_region_end
static const char *kernel_region(int type) {
  static char names[MFS_NOPTYPES][24];
  if (type < 0 || type >= MFS_NOPTYPES) return NULL;
  if (!names[type][0]) snprintf(names[type], sizeof names[type], "mfs_%s", mfs_task_name(type));
  return names[type];
}

mfs_status mfs_factorize_seq(const mfs_symbolic *S, const mfs_matrix *A, mfs_factor **Fout, mfs_progress_fn progress,
                             void *ctx, mfs_error *err) {
  *Fout = NULL;
  if (!S || !A || A->n != S->n) return err__set(err, MFS_ERR_ARG, 0, -1, "matrix does not match the analysis");
  mfs_kernels_init();
  pub__tree(S, NULL, 0);
  unsigned csr = mfs_fpu_flush_denormals();
  double t0 = time__now();
  int64_t base = mfs_mem_current();
  mfs_mem_reset_peak();
  mfs_factor *F;
  mfs_status st = mfs_factor_create(S, &F, err);
  if (st != MFS_OK) {
    mfs_fpu_restore(csr);
    return st;
  }
  F->mem_base = base;
  F->exec.time_setup = time__now() - t0;
  double total = S->flops + S->flops_type[MFS_OP_ASSEMBLE], step = total / 200, next = step;
  int declare = pm_region_begin && pm_region_end;
  for (int64_t o = 0; o < S->nops; o++) {
    const char *kernel = declare ? kernel_region(S->ops[o].type) : NULL;
    if (kernel) pm_region_begin(kernel);
    st = mfs_op_execute(F, A, &S->ops[o], err);
    if (kernel) pm_region_end(kernel);
    if (st != MFS_OK) break;
    if (progress && F->flops_done >= next) {
      progress(ctx, F->flops_done, total);
      next = F->flops_done + step;
    }
  }
  F->mem_peak = mfs_mem_peak() - base;
  F->exec.nranks = 1;
  F->exec.workers = 1;
  F->exec.flops_local = F->exec.flops_tasks = F->flops_done;
  F->exec.mem_tables = S->mem_fixed;
  F->exec.mem_factor = S->mem_factor;
  F->exec.mem_cb_min = F->exec.mem_window = S->mem_cb_region;
  F->exec.mem_predicted = F->exec.mem_predicted_max = S->mem_peak;
  F->exec.mem_peak_max = F->mem_peak;
  F->exec.mem_ratio_max = S->mem_peak > 0 ? (double)F->mem_peak / (double)S->mem_peak : 0;
  /* every CB has been assembled: give the CB arena's pages back now */
  if (st == MFS_OK) release_arena(&F->arena_cb);
  F->time = F->exec.time_max = time__now() - t0;
  mfs_fpu_restore(csr);
  if (st != MFS_OK) {
    mfs_factor_free(F);
    return st;
  }
  if (progress) progress(ctx, total, total);
  *Fout = F;
  return MFS_OK;
}
