/*
 * mfs_colcount.c — column counts of the Cholesky factor without forming it (Gilbert, Ng & Peyton
 * 1994). cc(j) = number of row subtrees T_i that contain j, where T_i (the pattern of row i of L) is
 * the union of the etree paths from the columns k < i with A(i,k) != 0 up to i. Each T_i is
 * counted with subtree sums: +1 at each of its leaves, -1 at the least common ancestor of
 * consecutive leaves (in postorder) and -1 at parent(i). Leaves are recognised in postorder and
 * the LCAs found with a union-find whose sets are the finished subtrees, so the whole computation
 * is O(nnz(A) alpha(n)) instead of the O(nnz(L)) of a symbolic factorization.
 */
#include "mfs_internal.h"

mfs_status mfs_colcounts(int32_t n, const int64_t *colptr, const int32_t *rowind, const int32_t *parent,
                         const int32_t *post, int32_t *cc) {
  int32_t *w = mem__alloc((size_t)(4 * (int64_t)n + 1) * sizeof *w);
  if (!w) return MFS_ERR_NOMEM;
  int32_t *first = w;                     /* first[j]: smallest postorder rank in the subtree of j */
  int32_t *lastrank = w + n;              /* lastrank[i]: rank of the latest column k seen with A(i,k) != 0 */
  int32_t *prevleaf = w + 2 * (int64_t)n; /* prevleaf[i]: previous leaf found for T_i */
  int32_t *uf = w + 3 * (int64_t)n;       /* union-find parent */

  for (int32_t j = 0; j < n; j++) {
    first[j] = -1;
    lastrank[j] = -1;
    prevleaf[j] = -1;
    uf[j] = j;
  }
  /* first[] and the +1 of every etree leaf (T_j = {j} contributes its only leaf j itself) */
  for (int32_t k = 0; k < n; k++) {
    int32_t j = post[k];
    cc[j] = (first[j] == -1) ? 1 : 0;
    for (; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
  }
  for (int32_t k = 0; k < n; k++) {
    int32_t j = post[k];
    if (parent[j] != -1) cc[parent[j]]--; /* T_j stops at j */
    for (int64_t p = colptr[j]; p < colptr[j + 1]; p++) {
      int32_t i = rowind[p];
      if (i <= j) continue;
      /* j is a leaf of T_i unless a column already seen for row i lies in j's subtree, i.e.
             * has a rank >= first[j] (all seen columns precede j in postorder) */
      int leaf = first[j] > lastrank[i];
      lastrank[i] = k;
      if (!leaf) continue;
      cc[j]++;
      int32_t q = prevleaf[i];
      prevleaf[i] = j;
      if (q == -1) continue;
      /* LCA of the previous leaf and j: the root of q's finished-subtree set */
      int32_t r = q;
      while (uf[r] != r) r = uf[r];
      while (uf[q] != r) { /* path compression */
        int32_t nx = uf[q];
        uf[q] = r;
        q = nx;
      }
      cc[r]--;
    }
    if (parent[j] != -1) uf[j] = parent[j];
  }
  /* subtree sums in postorder */
  for (int32_t k = 0; k < n; k++) {
    int32_t j = post[k];
    if (parent[j] != -1) cc[parent[j]] += cc[j];
  }
  mem__free(w);
  return MFS_OK;
}
