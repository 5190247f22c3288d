/* CHOLMOD set up the way the solver benchmarks compare against it: supernodal, mfsolve's permutation
 * given (CHOLMOD_GIVEN), postordered. Header-only (the benchmarks are separate programs). */
#ifndef BENCH_CHOLMOD_H
#define BENCH_CHOLMOD_H
#include <cholmod.h>
#include <stdlib.h>
#include "mfs.h"

/* Starts *c, copies A (lower triangle, CSC) into a CHOLMOD matrix and perm into *P (malloc'd; the
 * caller frees it and the matrix). */
static inline cholmod_sparse *bench_cholmod_setup(const mfs_matrix *A, const int32_t *perm, cholmod_common *c,
                                                  SuiteSparse_long **P) {
  cholmod_l_start(c);
  c->supernodal = CHOLMOD_SUPERNODAL;
  c->nmethods = 1;
  c->method[0].ordering = CHOLMOD_GIVEN;
  c->postorder = 1;
  cholmod_sparse *Ac = cholmod_l_allocate_sparse(A->n, A->n, A->nnz, 1, 1, -1, CHOLMOD_REAL, c);
  *P = malloc((size_t)A->n * sizeof **P);
  SuiteSparse_long *Ap = Ac->p, *Ai = Ac->i;
  double *Ax = Ac->x;
  for (int32_t j = 0; j <= A->n; j++) Ap[j] = A->colptr[j];
  for (int64_t p = 0; p < A->nnz; p++) {
    Ai[p] = A->rowind[p];
    Ax[p] = A->val[p];
  }
  for (int32_t k = 0; k < A->n; k++) (*P)[k] = perm[k];
  return Ac;
}
#endif
