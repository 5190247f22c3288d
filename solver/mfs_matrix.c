/*
 * mfs_matrix.c — the symmetric CSC storage (lower triangle), its construction from triplets and the
 * few operations the solver needs on A itself (product, norm, validation).
 */
#include "mfs_internal.h"
#include "mfs_matrix_build.h"

#include <math.h>
#include <string.h>

void mfs_matrix_free(mfs_matrix *A) {
  if (!A) return;
  mem__free(A->colptr);
  mem__free(A->rowind);
  mem__free(A->val);
  memset(A, 0, sizeof *A);
}

/* Two counting sorts (by row, then stably by column) give rows ascending inside each column in
 * O(n + nz) without comparisons; duplicates are then adjacent and summed. */
mfs_status csc__build(int32_t n, int64_t nz, const int32_t *ri, const int32_t *ci, const double *v, const long *line,
                      mfs_matrix *A, long **line_out, mfs_error *err) {
  memset(A, 0, sizeof *A);
  if (line_out) *line_out = NULL;
  int64_t *rcnt = mem__calloc((size_t)n + 1, sizeof *rcnt);
  int64_t *order = mem__alloc((size_t)(nz ? nz : 1) * sizeof *order);
  int64_t *colptr = mem__calloc((size_t)n + 1, sizeof *colptr);
  int64_t *next = mem__alloc(((size_t)n + 1) * sizeof *next);
  int32_t *rowind = NULL;
  double *val = NULL;
  long *lines = NULL;
  if (!rcnt || !order || !colptr || !next) goto nomem;

  /* pass 1: bucket by row */
  for (int64_t e = 0; e < nz; e++) rcnt[ri[e] + 1]++;
  for (int32_t i = 0; i < n; i++) rcnt[i + 1] += rcnt[i];
  memcpy(next, rcnt, ((size_t)n + 1) * sizeof *next);
  for (int64_t e = 0; e < nz; e++) order[next[ri[e]]++] = e;
  /* pass 2: stable bucket by column, reading entries in row order */
  for (int64_t e = 0; e < nz; e++) colptr[ci[e] + 1]++;
  for (int32_t j = 0; j < n; j++) colptr[j + 1] += colptr[j];
  memcpy(next, colptr, ((size_t)n + 1) * sizeof *next);
  mem__free(rcnt); /* order holds the row sort now */
  rcnt = NULL;
  int64_t *sorted = mem__alloc((size_t)(nz ? nz : 1) * sizeof *sorted);
  if (!sorted) goto nomem;
  for (int64_t t = 0; t < nz; t++) {
    int64_t e = order[t];
    sorted[next[ci[e]]++] = e;
  }
  mem__free(order);
  order = sorted;

  /* merge duplicates in place while compacting */
  rowind = mem__alloc((size_t)(nz ? nz : 1) * sizeof *rowind);
  val = mem__alloc((size_t)(nz ? nz : 1) * sizeof *val);
  if (line_out) lines = mem__alloc((size_t)(nz ? nz : 1) * sizeof *lines);
  if (!rowind || !val || (line_out && !lines)) goto nomem;
  int64_t out = 0;
  for (int32_t j = 0; j < n; j++) {
    int64_t start = out;
    for (int64_t t = colptr[j]; t < colptr[j + 1]; t++) {
      int64_t e = order[t];
      if (out > start && rowind[out - 1] == ri[e]) {
        val[out - 1] += v[e];
        continue;
      }
      rowind[out] = ri[e];
      val[out] = v[e];
      if (lines) lines[out] = line ? line[e] : 0;
      out++;
    }
    colptr[j] = start;
  }
  colptr[n] = out;
  mem__free(order);
  mem__free(next);
  A->n = n;
  A->nnz = out;
  A->colptr = colptr;
  A->rowind = rowind;
  A->val = val;
  if (line_out) *line_out = lines;
  return MFS_OK;
nomem:
  mem__free(rcnt);
  mem__free(order);
  mem__free(colptr);
  mem__free(next);
  mem__free(rowind);
  mem__free(val);
  mem__free(lines);
  return err__nomem(err);
}

mfs_status mfs_matrix_from_triplets(int32_t n, int64_t nz, const int32_t *ri, const int32_t *ci, const double *v,
                                    mfs_matrix *A, mfs_error *err) {
  if (n < 0 || nz < 0 || (nz && (!ri || !ci || !v)))
    return err__set(err, MFS_ERR_ARG, 0, -1, "invalid triplet arguments");
  int32_t *r = mem__alloc((size_t)(nz ? nz : 1) * sizeof *r);
  int32_t *c = mem__alloc((size_t)(nz ? nz : 1) * sizeof *c);
  if (!r || !c) {
    mem__free(r);
    mem__free(c);
    return err__nomem(err);
  }
  for (int64_t e = 0; e < nz; e++) {
    if (ri[e] < 0 || ri[e] >= n || ci[e] < 0 || ci[e] >= n) {
      mem__free(r);
      mem__free(c);
      return err__set(err, MFS_ERR_ARG, 0, -1, "triplet %lld: index (%d,%d) out of range for n = %d", (long long)e,
                      ri[e], ci[e], n);
    }
    /* the lower triangle holds the entry: row = larger index */
    r[e] = ri[e] > ci[e] ? ri[e] : ci[e];
    c[e] = ri[e] > ci[e] ? ci[e] : ri[e];
  }
  mfs_status st = csc__build(n, nz, r, c, v, NULL, A, NULL, err);
  mem__free(r);
  mem__free(c);
  return st;
}

mfs_status mfs_matrix_check(const mfs_matrix *A, mfs_error *err) {
  if (!A || A->n < 0 || (A->n > 0 && (!A->colptr || !A->rowind || !A->val)))
    return err__set(err, MFS_ERR_ARG, 0, -1, "matrix is not initialised");
  if (A->colptr[0] != 0 || A->colptr[A->n] != A->nnz)
    return err__set(err, MFS_ERR_ARG, 0, -1, "matrix column pointers are inconsistent");
  for (int32_t j = 0; j < A->n; j++) {
    if (A->colptr[j + 1] < A->colptr[j])
      return err__set(err, MFS_ERR_ARG, 0, -1, "column pointers decrease at column %d", j + 1);
    int32_t prev = j - 1;
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      int32_t i = A->rowind[p];
      if (i <= prev || i >= A->n)
        return err__set(err, MFS_ERR_ARG, 0, -1, "column %d: row %d is not in the lower triangle, sorted, or in range",
                        j + 1, i + 1);
      if (!isfinite(A->val[p])) return err__set(err, MFS_ERR_ARG, 0, -1, "entry (%d,%d) is not finite", i + 1, j + 1);
      prev = i;
    }
  }
  return MFS_OK;
}

void mfs_matrix_symv(const mfs_matrix *A, const double *x, double *y) {
  memset(y, 0, (size_t)A->n * sizeof *y);
  for (int32_t j = 0; j < A->n; j++) {
    double xj = x[j], yj = 0.0;
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      int32_t i = A->rowind[p];
      double a = A->val[p];
      y[i] += a * xj;
      if (i != j) yj += a * x[i];
    }
    y[j] += yj;
  }
}

double mfs_matrix_norm_inf(const mfs_matrix *A) {
  double *s = mem__calloc((size_t)(A->n ? A->n : 1), sizeof *s);
  if (!s) return NAN;
  for (int32_t j = 0; j < A->n; j++)
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      double a = fabs(A->val[p]);
      s[A->rowind[p]] += a;
      if (A->rowind[p] != j) s[j] += a;
    }
  double m = 0.0;
  for (int32_t i = 0; i < A->n; i++)
    if (s[i] > m) m = s[i];
  mem__free(s);
  return m;
}
