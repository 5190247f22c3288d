/*
 * mfs_solve_dist.c — forward and backward substitution on a factor spread over processes (the
 * factor of mfs_factorize_starpu on several processes). Collective: every process passes the whole
 * right-hand side and receives the whole solution.
 *
 * Fronts held by one process are solved there with the sequential front kernels; below a shared
 * front every front is on one process (proportional mapping), so these need nothing from elsewhere,
 * and their updates to the shared fronts' columns accumulate in each process's copy of x. Shared
 * fronts (the top of the tree) are solved together, in postorder: their columns first receive the sum
 * of every process's updates (one allreduce), then each diagonal block is solved by the process
 * holding its tile row (the distribution keeps a whole tile row and its updates on one process) and
 * broadcast; off-diagonal updates are applied by the row's holder. The backward
 * sweep mirrors it with a reduction of the partial products to the diagonal block's holder. Finally
 * every column's value comes from the one process that solved it (an allreduce of a vector that is
 * zero elsewhere, so the result is exact).
 */
#include "mfs_dist.h"
#include "mfs_runtime.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

typedef struct {
  const mfs_factor *F;
  const mfs_symbolic *S;
  const mfs_dist *D;
  MPI_Comm comm;
  int me, nrhs;
  int32_t n;
  double *x, *base, *w, *tmp;
} dsolve;

/* Allreduce of long vectors in pieces an int can count. */
static void allreduce_sum(double *v, int64_t len, MPI_Comm comm) {
  for (int64_t at = 0; at < len; at += INT_MAX / 2) {
    int64_t k = len - at < INT_MAX / 2 ? len - at : INT_MAX / 2;
    MPI_Allreduce(MPI_IN_PLACE, v + at, (int)k, MPI_DOUBLE, MPI_SUM, comm);
  }
}

static const double *tile_of(const dsolve *Q, int32_t f, int32_t i, int32_t j) {
  const mfs_front *Fr = &Q->S->fronts[f];
  return Q->F->tile[Fr->tile0 + mfs_tile_index(Fr->nbt, i, j)];
}

/* Broadcast rows [r0, r0+len) of the work vector (every right-hand side) from root. */
static void bcast_rows(dsolve *Q, int32_t m, int32_t r0, int32_t len, int root) {
  for (int c = 0; c < Q->nrhs; c++)
    memcpy(Q->tmp + (int64_t)c * len, Q->w + (int64_t)c * m + r0, (size_t)len * sizeof(double));
  MPI_Bcast(Q->tmp, len * Q->nrhs, MPI_DOUBLE, root, Q->comm);
  for (int c = 0; c < Q->nrhs; c++)
    memcpy(Q->w + (int64_t)c * m + r0, Q->tmp + (int64_t)c * len, (size_t)len * sizeof(double));
}

static void forward_shared(dsolve *Q, int32_t f) {
  const mfs_front *Fr = &Q->S->fronts[f];
  const int32_t *b = Q->S->blkptr + Fr->blk, *rows = Q->S->rowind + Fr->rows;
  const int32_t m = Fr->nrow, nc = Fr->ncol, n = Q->n;
  const int nrhs = Q->nrhs;
  /* own columns: the right-hand side plus every process's updates */
  for (int c = 0; c < nrhs; c++)
    for (int32_t q = 0; q < nc; q++)
      Q->tmp[q + (int64_t)c * nc] = Q->x[Fr->col0 + q + (int64_t)c * n] - Q->base[Fr->col0 + q + (int64_t)c * n];
  allreduce_sum(Q->tmp, (int64_t)nc * nrhs, Q->comm);
  for (int c = 0; c < nrhs; c++) {
    double *wc = Q->w + (int64_t)c * m;
    for (int32_t q = 0; q < nc; q++) wc[q] = Q->base[Fr->col0 + q + (int64_t)c * n] + Q->tmp[q + (int64_t)c * nc];
    memset(wc + nc, 0, (size_t)(m - nc) * sizeof *wc);
  }
  for (int32_t k = 0; k < Fr->nbp; k++) {
    int bk = b[k + 1] - b[k];
    int ok = dist__tile_owner(Q->D, f, k);
    double *wk = Q->w + b[k];
    if (ok == Q->me) {
      const double *lkk = tile_of(Q, f, k, k);
      if (nrhs == 1)
        cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, bk, lkk, bk, wk, 1);
      else
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, bk, nrhs, 1.0, lkk, bk, wk, m);
    }
    bcast_rows(Q, m, b[k], bk, ok);
    for (int32_t i = k + 1; i < Fr->nbt; i++) {
      if (dist__tile_owner(Q->D, f, i) != Q->me) continue;
      int bi = b[i + 1] - b[i];
      const double *lik = tile_of(Q, f, i, k);
      if (nrhs == 1)
        cblas_dgemv(CblasColMajor, CblasNoTrans, bi, bk, -1.0, lik, bi, wk, 1, 1.0, Q->w + b[i], 1);
      else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, bi, nrhs, bk, -1.0, lik, bi, wk, m, 1.0, Q->w + b[i], m);
    }
  }
  for (int c = 0; c < nrhs; c++) {
    const double *wc = Q->w + (int64_t)c * m;
    double *xc = Q->x + (int64_t)c * n;
    memcpy(xc + Fr->col0, wc, (size_t)nc * sizeof *wc);
    for (int32_t i = Fr->nbp; i < Fr->nbt; i++)
      if (dist__tile_owner(Q->D, f, i) == Q->me)
        for (int32_t r = b[i]; r < b[i + 1]; r++) xc[rows[r]] += wc[r];
  }
}

static void backward_shared(dsolve *Q, int32_t f) {
  const mfs_front *Fr = &Q->S->fronts[f];
  const int32_t *b = Q->S->blkptr + Fr->blk, *rows = Q->S->rowind + Fr->rows;
  const int32_t m = Fr->nrow, nc = Fr->ncol, n = Q->n;
  const int nrhs = Q->nrhs;
  for (int c = 0; c < nrhs; c++) {
    double *wc = Q->w + (int64_t)c * m;
    const double *xc = Q->x + (int64_t)c * n;
    memcpy(wc, xc + Fr->col0, (size_t)nc * sizeof *wc);
    for (int32_t r = nc; r < m; r++) wc[r] = xc[rows[r]];
  }
  for (int32_t k = Fr->nbp - 1; k >= 0; k--) {
    int bk = b[k + 1] - b[k];
    int ok = dist__tile_owner(Q->D, f, k);
    double *part = Q->tmp; /* bk x nrhs: sum of L(i,k)^T w_i over this process's rows i > k */
    memset(part, 0, (size_t)bk * nrhs * sizeof *part);
    for (int32_t i = k + 1; i < Fr->nbt; i++) {
      if (dist__tile_owner(Q->D, f, i) != Q->me) continue;
      int bi = b[i + 1] - b[i];
      const double *lik = tile_of(Q, f, i, k);
      if (nrhs == 1)
        cblas_dgemv(CblasColMajor, CblasTrans, bi, bk, 1.0, lik, bi, Q->w + b[i], 1, 1.0, part, 1);
      else
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, bk, nrhs, bi, 1.0, lik, bi, Q->w + b[i], m, 1.0, part, bk);
    }
    double *sum = Q->tmp + (int64_t)bk * nrhs;
    MPI_Reduce(part, sum, bk * nrhs, MPI_DOUBLE, MPI_SUM, ok, Q->comm);
    double *wk = Q->w + b[k];
    if (ok == Q->me) {
      for (int c = 0; c < nrhs; c++)
        for (int t = 0; t < bk; t++) wk[t + (int64_t)c * m] -= sum[t + (int64_t)c * bk];
      const double *lkk = tile_of(Q, f, k, k);
      if (nrhs == 1)
        cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, bk, lkk, bk, wk, 1);
      else
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, bk, nrhs, 1.0, lkk, bk, wk, m);
    }
    bcast_rows(Q, m, b[k], bk, ok);
  }
  for (int c = 0; c < nrhs; c++)
    memcpy(Q->x + (int64_t)c * n + Fr->col0, Q->w + (int64_t)c * m, (size_t)nc * sizeof(double));
}

mfs_status solve__distributed(const mfs_factor *F, int nrhs, double *bx, int ldb, mfs_error *err) {
  const mfs_symbolic *S = F->S;
  const mfs_dist *D = F->dist;
  if (!runtime__state.started || !runtime__state.mpi || runtime__state.nranks != D->nranks)
    return err__set(err, MFS_ERR_ARG, 0, -1, "a distributed factor needs the MPI runtime that computed it");
  const int32_t n = S->n;
  int32_t maxrow = 1;
  for (int32_t f = 0; f < S->nfronts; f++)
    if (S->fronts[f].nrow > maxrow) maxrow = S->fronts[f].nrow;
  dsolve Q = {F, S, D, runtime__state.comm, D->rank, nrhs, n, NULL, NULL, NULL, NULL};
  size_t vec = (size_t)(n ? n : 1) * (size_t)nrhs * sizeof(double);
  Q.x = mem__alloc(vec);
  Q.base = mem__alloc(vec);
  Q.w = mem__alloc((size_t)maxrow * nrhs * sizeof(double));
  Q.tmp = mem__alloc(2 * (size_t)maxrow * nrhs * sizeof(double));
  /* every process must take part in the collectives below, so a failure is agreed on first */
  int ok = Q.x && Q.base && Q.w && Q.tmp, all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, Q.comm);
  if (!all) {
    mem__free(Q.x);
    mem__free(Q.base);
    mem__free(Q.w);
    mem__free(Q.tmp);
    return err__nomem(err);
  }
  mfs_kernels_init();
  unsigned csr = mfs_fpu_flush_denormals();
  for (int c = 0; c < nrhs; c++)
    for (int32_t k = 0; k < n; k++) Q.x[k + (int64_t)c * n] = bx[S->perm[k] + (int64_t)c * ldb];
  memcpy(Q.base, Q.x, vec);
  for (int32_t f = 0; f < S->nfronts; f++)
    if (!dist__shared(D, f) && D->lo[f] == Q.me) solve__forward_front(F, f, nrhs, Q.x, n, Q.w);
  for (int32_t f = 0; f < S->nfronts; f++)
    if (dist__shared(D, f)) forward_shared(&Q, f);
  for (int32_t f = S->nfronts - 1; f >= 0; f--)
    if (dist__shared(D, f)) backward_shared(&Q, f);
  for (int32_t f = S->nfronts - 1; f >= 0; f--)
    if (!dist__shared(D, f) && D->lo[f] == Q.me) solve__backward_front(F, f, nrhs, Q.x, n, Q.w);
  /* each column from the process that solved it (shared fronts: their first process) */
  memset(Q.base, 0, vec);
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (D->lo[f] != Q.me) continue;
    const mfs_front *Fr = &S->fronts[f];
    for (int c = 0; c < nrhs; c++)
      memcpy(Q.base + (int64_t)c * n + Fr->col0, Q.x + (int64_t)c * n + Fr->col0, (size_t)Fr->ncol * sizeof(double));
  }
  allreduce_sum(Q.base, (int64_t)n * nrhs, Q.comm);
  for (int c = 0; c < nrhs; c++)
    for (int32_t k = 0; k < n; k++) bx[S->perm[k] + (int64_t)c * ldb] = Q.base[k + (int64_t)c * n];
  mfs_fpu_restore(csr);
  mem__free(Q.x);
  mem__free(Q.base);
  mem__free(Q.w);
  mem__free(Q.tmp);
  return MFS_OK;
}
