/*
 * mfs_ordering.c — fill-reducing orderings: METIS nested dissection (METIS_NodeND), AMD
 * (SuiteSparse), natural, or a permutation given by the caller. All return perm[k] = input column
 * eliminated k-th, the convention of the rest of the solver (and of CHOLMOD's Perm).
 */
#include "mfs_internal.h"

#include <string.h>

#include "config.h"
#ifdef PM_HAVE_METIS
#include <metis.h>
#endif
#ifdef PM_HAVE_SUITESPARSE
#include <amd.h>
#endif

const char *mfs_ordering_name(mfs_ordering o) {
  switch (o) {
  case MFS_ORDER_METIS: return "metis";
  case MFS_ORDER_AMD: return "amd";
  case MFS_ORDER_NATURAL: return "natural";
  case MFS_ORDER_GIVEN: return "given";
  }
  return "?";
}

int mfs_ordering_available(mfs_ordering o) {
  switch (o) {
#ifdef PM_HAVE_METIS
  case MFS_ORDER_METIS: return 1;
#endif
#ifdef PM_HAVE_SUITESPARSE
  case MFS_ORDER_AMD: return 1;
#endif
  case MFS_ORDER_NATURAL:
  case MFS_ORDER_GIVEN: return 1;
  default: return 0;
  }
}

#if defined(PM_HAVE_METIS) || defined(PM_HAVE_SUITESPARSE)
/* Adjacency of the full symmetric pattern without the diagonal, rows sorted (both orderings take
 * this graph form; 32-bit pointers, hence the overflow check). */
static mfs_status full_graph(const mfs_matrix *A, int32_t **xadj_out, int32_t **adj_out, mfs_error *err) {
  int32_t n = A->n;
  int64_t offd = A->nnz;
  for (int32_t j = 0; j < n; j++)
    if (A->colptr[j] < A->colptr[j + 1] && A->rowind[A->colptr[j]] == j) offd--;
  if (2 * offd >= INT32_MAX)
    return err__set(err, MFS_ERR_OVERFLOW, 0, -1, "graph with %lld edges exceeds the 32-bit ordering API",
                    (long long)offd);
  int32_t *xadj = mem__calloc((size_t)n + 1, sizeof *xadj);
  int32_t *adj = mem__alloc((size_t)(2 * offd + 1) * sizeof *adj);
  int32_t *fill = mem__alloc(((size_t)n + 1) * sizeof *fill);
  if (!xadj || !adj || !fill) {
    mem__free(xadj);
    mem__free(adj);
    mem__free(fill);
    return err__nomem(err);
  }
  for (int32_t j = 0; j < n; j++)
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++)
      if (A->rowind[p] != j) {
        xadj[A->rowind[p] + 1]++;
        xadj[j + 1]++;
      }
  for (int32_t i = 0; i < n; i++) xadj[i + 1] += xadj[i];
  memcpy(fill, xadj, ((size_t)n + 1) * sizeof *fill);
  /* column order j ascending puts each row's neighbours in ascending order */
  for (int32_t j = 0; j < n; j++)
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      int32_t i = A->rowind[p];
      if (i == j) continue;
      adj[fill[i]++] = j;
      adj[fill[j]++] = i;
    }
  mem__free(fill);
  *xadj_out = xadj;
  *adj_out = adj;
  return MFS_OK;
}
#endif

mfs_status mfs_order(const mfs_matrix *A, mfs_ordering kind, int32_t *perm, mfs_error *err) {
  int32_t n = A->n;
  if (kind == MFS_ORDER_NATURAL || n <= 1) {
    for (int32_t k = 0; k < n; k++) perm[k] = k;
    return MFS_OK;
  }
  if (kind == MFS_ORDER_GIVEN)
    return err__set(err, MFS_ERR_ARG, 0, -1, "a given ordering is passed through mfs_options.given_perm");
  if (!mfs_ordering_available(kind))
    return err__set(err, MFS_ERR_ORDERING, 0, -1, "ordering '%s' is not built into this mfsolve",
                    mfs_ordering_name(kind));
#if defined(PM_HAVE_METIS) || defined(PM_HAVE_SUITESPARSE)
  int32_t *xadj = NULL, *adj = NULL;
  mfs_status st = full_graph(A, &xadj, &adj, err);
  if (st != MFS_OK) return st;
  if (xadj[n] == 0) { /* no edges: any order is fill-free; METIS dislikes empty graphs */
    for (int32_t k = 0; k < n; k++) perm[k] = k;
    mem__free(xadj);
    mem__free(adj);
    return MFS_OK;
  }
#ifdef PM_HAVE_METIS
  if (kind == MFS_ORDER_METIS) {
    idx_t nv = n, options[METIS_NOPTIONS];
    idx_t *iperm = mem__alloc((size_t)n * sizeof *iperm);
    if (!iperm) {
      st = err__nomem(err);
    } else {
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_NUMBERING] = 0;
      /* METIS names perm the new-to-old map (row k of PAP^T is row perm[k] of A) */
      int rc = METIS_NodeND(&nv, xadj, adj, NULL, options, perm, iperm);
      if (rc != METIS_OK) st = err__set(err, MFS_ERR_ORDERING, 0, -1, "METIS_NodeND failed (code %d)", rc);
      mem__free(iperm);
    }
  }
#endif
#ifdef PM_HAVE_SUITESPARSE
  if (kind == MFS_ORDER_AMD) {
    double control[AMD_CONTROL], info[AMD_INFO];
    amd_defaults(control);
    int rc = amd_order(n, xadj, adj, perm, control, info);
    if (rc != AMD_OK && rc != AMD_OK_BUT_JUMBLED)
      st = err__set(err, rc == AMD_OUT_OF_MEMORY ? MFS_ERR_NOMEM : MFS_ERR_ORDERING, 0, -1,
                    "amd_order failed (code %d)", rc);
  }
#endif
  mem__free(xadj);
  mem__free(adj);
  return st;
#else
  return MFS_ERR_ORDERING;
#endif
}
