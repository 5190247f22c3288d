/*
 * mfs_supernode_order.c — the order of the columns inside each fundamental supernode.
 *
 * Why: the extend-add of a child's contribution block into its parent goes run by run, a run being
 * child rows that land on consecutive parent rows (mfs_kernel_assemble); rows that do not form
 * runs cost an indexed add each, about twice the time per entry. The fill-reducing ordering leaves
 * the vertices of a separator in an order of its own (METIS: the order its refinement found them
 * in), so the part of a separator a descendant's CB holds is scattered over the separator's
 * columns. On lap3d:50, 47 % of the extend-add's entries went through the indexed path; lap3d27:40,
 * 60 %.
 *
 * What: inside each fundamental supernode, the columns are sorted by the first front (in the
 * postorder, children first) whose CB holds them. The CBs of the fronts below a separator hold
 * nested parts of it (a front's part is within its parent's), so in that order the part each of
 * them holds is a range of consecutive columns, or few ranges. Ties (and columns no CB holds) keep
 * their order. A reordering of the same idea for supernodal solvers: Pichon, Faverge, Ramet and
 * Roman, "Reordering strategy for blocking optimization in sparse linear solvers", SIAM J. Matrix
 * Anal. Appl. 38(1), 2017.
 *
 * Why the factor stays the same: the columns of a fundamental supernode form a clique with one
 * structure below it, and its first column is adjacent to all the others and to that structure
 * when it is eliminated. Keeping the first column first, its elimination makes the supernode and
 * its structure one clique, as before, and the others follow in any order with the same counts:
 * the elimination tree, the column counts, the supernodes and the fronts' row sets are unchanged
 * (a front's rows are reordered only among its own columns and its ancestors' supernodes). Any
 * solver given the permutation (CHOLMOD, MUMPS in the comparison benchmark) factors the same L.
 */
#include "mfs_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The first front whose CB holds column j is the front of the lowest column k with L(j,k) != 0 in
 * another front: row j of L is a subtree of the elimination tree whose lowest node (the columns
 * are postordered) is one of its leaves, a k with A(j,k) != 0. So one pass over A finds it for
 * every column, before any front's rows are built. */
int supernode__column_order(const mfs_matrix *A, const mfs_symbolic *S, int32_t ns, const int32_t *sn_col0,
                            const int32_t *sn_ncol, int32_t *order) {
  const int32_t n = S->n;
  int32_t longest = 0;
  for (int32_t s = 0; s < ns; s++)
    if (sn_ncol[s] > longest) longest = sn_ncol[s];
  int32_t *lowest = mem__alloc((size_t)n * sizeof *lowest);
  uint64_t *keyed = mem__alloc((size_t)(longest ? longest : 1) * sizeof *keyed);
  if (!lowest || !keyed) {
    mem__free(lowest);
    mem__free(keyed);
    return -1;
  }
  for (int32_t j = 0; j < n; j++) {
    lowest[j] = INT32_MAX; /* held by no CB: after the others */
    order[j] = j;
  }
  for (int32_t c = 0; c < n; c++)
    for (int64_t e = A->colptr[c]; e < A->colptr[c + 1]; e++) {
      int32_t a = S->iperm[A->rowind[e]], b = S->iperm[c];
      int32_t lo = a < b ? a : b, hi = a < b ? b : a;
      if (lo < lowest[hi] && S->col2front[lo] != S->col2front[hi]) lowest[hi] = lo;
    }
  for (int32_t s = 0; s < ns; s++) {
    /* the first column stays first (the clique argument above); the others by (front, column) */
    const int32_t c0 = sn_col0[s] + 1, len = sn_ncol[s] - 1;
    if (len < 2) continue;
    for (int32_t i = 0; i < len; i++) {
      int32_t k = lowest[c0 + i];
      uint32_t front = k == INT32_MAX ? UINT32_MAX : (uint32_t)S->col2front[k];
      keyed[i] = (uint64_t)front << 32 | (uint32_t)(c0 + i);
    }
    qsort(keyed, (size_t)len, sizeof *keyed, cmp_u64);
    for (int32_t i = 0; i < len; i++) order[c0 + i] = (int32_t)(keyed[i] & 0xffffffffu);
  }
  mem__free(lowest);
  mem__free(keyed);
  return 0;
}
