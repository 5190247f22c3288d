/*
 * mfs_solve.c — forward and backward substitution on the factor tiles, the scaled residual, and
 * iterative refinement.
 *
 * Each front is solved densely on a gathered work vector: its own unknowns, then its CB rows, which
 * the forward sweep scatters back as updates (x[rows] -= L21 y1) and the backward sweep reads
 * (y1 -= L21^T x[rows]). With several right-hand sides the tile products are BLAS-3.
 */
#include "mfs_internal.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void solve__forward_front(const mfs_factor *F, int32_t f, int nrhs, double *x, int64_t ldx, double *w) {
  const mfs_symbolic *S = F->S;
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk, *rows = S->rowind + Fr->rows;
  double *const *T = F->tile + Fr->tile0;
  const int m = Fr->nrow;
  for (int c = 0; c < nrhs; c++) {
    memcpy(w + (int64_t)c * m, x + Fr->col0 + c * ldx, (size_t)Fr->ncol * sizeof *w);
    memset(w + (int64_t)c * m + Fr->ncol, 0, (size_t)(m - Fr->ncol) * sizeof *w);
  }
  for (int32_t k = 0; k < Fr->nbp; k++) {
    int bk = b[k + 1] - b[k];
    const double *lkk = T[mfs_tile_index(Fr->nbt, k, k)];
    double *wk = w + b[k];
    if (nrhs == 1)
      cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, bk, lkk, bk, wk, 1);
    else
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, bk, nrhs, 1.0, lkk, bk, wk, m);
    for (int32_t i = k + 1; i < Fr->nbt; i++) {
      int bi = b[i + 1] - b[i];
      const double *lik = T[mfs_tile_index(Fr->nbt, i, k)];
      if (nrhs == 1)
        cblas_dgemv(CblasColMajor, CblasNoTrans, bi, bk, -1.0, lik, bi, wk, 1, 1.0, w + b[i], 1);
      else
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, bi, nrhs, bk, -1.0, lik, bi, wk, m, 1.0, w + b[i], m);
    }
  }
  for (int c = 0; c < nrhs; c++) {
    const double *wc = w + (int64_t)c * m;
    double *xc = x + c * ldx;
    memcpy(xc + Fr->col0, wc, (size_t)Fr->ncol * sizeof *w);
    for (int32_t r = Fr->ncol; r < m; r++) xc[rows[r]] += wc[r];
  }
}

void solve__backward_front(const mfs_factor *F, int32_t f, int nrhs, double *x, int64_t ldx, double *w) {
  const mfs_symbolic *S = F->S;
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk, *rows = S->rowind + Fr->rows;
  double *const *T = F->tile + Fr->tile0;
  const int m = Fr->nrow;
  for (int c = 0; c < nrhs; c++) {
    double *wc = w + (int64_t)c * m;
    const double *xc = x + c * ldx;
    memcpy(wc, xc + Fr->col0, (size_t)Fr->ncol * sizeof *w);
    for (int32_t r = Fr->ncol; r < m; r++) wc[r] = xc[rows[r]];
  }
  for (int32_t k = Fr->nbp - 1; k >= 0; k--) {
    int bk = b[k + 1] - b[k];
    double *wk = w + b[k];
    for (int32_t i = k + 1; i < Fr->nbt; i++) {
      int bi = b[i + 1] - b[i];
      const double *lik = T[mfs_tile_index(Fr->nbt, i, k)];
      if (nrhs == 1)
        cblas_dgemv(CblasColMajor, CblasTrans, bi, bk, -1.0, lik, bi, w + b[i], 1, 1.0, wk, 1);
      else
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, bk, nrhs, bi, -1.0, lik, bi, w + b[i], m, 1.0, wk, m);
    }
    const double *lkk = T[mfs_tile_index(Fr->nbt, k, k)];
    if (nrhs == 1)
      cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, bk, lkk, bk, wk, 1);
    else
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, bk, nrhs, 1.0, lkk, bk, wk, m);
  }
  for (int c = 0; c < nrhs; c++) memcpy(x + c * ldx + Fr->col0, w + (int64_t)c * m, (size_t)Fr->ncol * sizeof *w);
}

mfs_status mfs_solve(const mfs_factor *F, int nrhs, double *bx, int ldb, mfs_error *err) {
  if (!F || nrhs < 0 || (nrhs > 0 && (!bx || ldb < F->S->n)))
    return err__set(err, MFS_ERR_ARG, 0, -1, "invalid solve arguments");
  if (nrhs == 0) return MFS_OK;
  if (F->dist) return solve__distributed(F, nrhs, bx, ldb, err);
  const mfs_symbolic *S = F->S;
  for (int32_t f = 0; f < S->nfronts; f++)
    if (!F->lblock[f]) return err__set(err, MFS_ERR_ARG, 0, -1, "the factorization is incomplete");
  int32_t maxrow = 0;
  for (int32_t f = 0; f < S->nfronts; f++)
    if (S->fronts[f].nrow > maxrow) maxrow = S->fronts[f].nrow;
  const int32_t n = S->n;
  double *x = mem__alloc((size_t)n * nrhs * sizeof *x);
  double *w = mem__alloc((size_t)maxrow * nrhs * sizeof *w);
  if (!x || !w) {
    mem__free(x);
    mem__free(w);
    return err__nomem(err);
  }
  mfs_kernels_init();
  unsigned csr = mfs_fpu_flush_denormals();
  for (int c = 0; c < nrhs; c++)
    for (int32_t k = 0; k < n; k++) x[k + (int64_t)c * n] = bx[S->perm[k] + (int64_t)c * ldb];
  for (int32_t f = 0; f < S->nfronts; f++) solve__forward_front(F, f, nrhs, x, n, w);
  for (int32_t f = S->nfronts - 1; f >= 0; f--) solve__backward_front(F, f, nrhs, x, n, w);
  for (int c = 0; c < nrhs; c++)
    for (int32_t k = 0; k < n; k++) bx[S->perm[k] + (int64_t)c * ldb] = x[k + (int64_t)c * n];
  mfs_fpu_restore(csr);
  mem__free(x);
  mem__free(w);
  return MFS_OK;
}

static double norm_inf(const double *v, int32_t n) {
  double m = 0;
  for (int32_t i = 0; i < n; i++)
    if (fabs(v[i]) > m || isnan(v[i])) m = isnan(v[i]) ? NAN : fabs(v[i]);
  return m;
}

double mfs_residual(const mfs_matrix *A, const double *x, const double *b) {
  double *r = mem__alloc((size_t)(A->n ? A->n : 1) * sizeof *r);
  if (!r) return NAN;
  mfs_matrix_symv(A, x, r);
  for (int32_t i = 0; i < A->n; i++) r[i] -= b[i];
  double num = norm_inf(r, A->n);
  double den = mfs_matrix_norm_inf(A) * norm_inf(x, A->n) + norm_inf(b, A->n);
  mem__free(r);
  return den > 0 ? num / den : num;
}

mfs_status mfs_solve_refine(const mfs_factor *F, const mfs_matrix *A, const double *b, double *x, int maxiter,
                            double *resid, int *iters, mfs_error *err) {
  const int32_t n = A->n;
  if (iters) *iters = 0;
  memcpy(x, b, (size_t)n * sizeof *x);
  mfs_status st = mfs_solve(F, 1, x, n, err);
  if (st != MFS_OK) return st;
  double res = mfs_residual(A, x, b);
  if (resid) resid[0] = res;
  if (maxiter <= 0) return MFS_OK;
  double *r = mem__alloc((size_t)n * sizeof *r), *xn = mem__alloc((size_t)n * sizeof *xn);
  if (!r || !xn) {
    mem__free(r);
    mem__free(xn);
    return err__nomem(err);
  }
  for (int it = 1; it <= maxiter; it++) {
    mfs_matrix_symv(A, x, r);
    for (int32_t i = 0; i < n; i++) r[i] = b[i] - r[i];
    if ((st = mfs_solve(F, 1, r, n, err)) != MFS_OK) break;
    for (int32_t i = 0; i < n; i++) xn[i] = x[i] + r[i];
    double rn = mfs_residual(A, xn, b);
    if (!(rn < res)) break; /* no further progress: keep the better x */
    memcpy(x, xn, (size_t)n * sizeof *x);
    res = rn;
    if (resid) resid[it] = rn;
    if (iters) *iters = it;
  }
  mem__free(r);
  mem__free(xn);
  return st;
}
