/*
 * mfs_mapping.c — proportional mapping of the assembly tree onto MPI ranks (Pothen & Sun). Ranks
 * are treated as the interval [0, nranks): the roots share it in proportion to their subtree
 * flops, and each front passes its interval on to its children the same way. A front whose
 * interval spans several ranks is shared by them (its tiles can later be spread over them; its
 * owner is the rank covering most of the interval); a front whose interval is at most one rank
 * wide gets its whole subtree on one rank, so no communication happens below it.
 * Such an interval usually straddles two ranks. Taking the rank that covers most of it, as the
 * textbook does, lets the rounding errors pile up on one side (lap3d:40 with METIS on 4 ranks:
 * one rank at 1.44 times the mean flops). The subtree goes instead to the rank of its interval
 * that has the least work so far, counting whole subtrees given and the shares of the shared
 * fronts, cut evenly by rows as mfs_dist does (1.25 on that problem).
 */
#include "mfs_internal.h"

#include <math.h>
#include <string.h>

mfs_status mfs_map_proportional(const mfs_symbolic *S, int nranks, int32_t *owner, int32_t *rank_lo, int32_t *rank_hi,
                                double *load, mfs_error *err) {
  if (nranks < 1) return err__set(err, MFS_ERR_ARG, 0, -1, "number of ranks must be positive");
  const int32_t nf = S->nfronts;
  double *a = mem__alloc(((size_t)nf + 1) * sizeof *a), *b = mem__alloc(((size_t)nf + 1) * sizeof *b);
  uint8_t *single = mem__alloc((size_t)nf + 1);
  double *given = mem__alloc((size_t)nranks * sizeof *given);
  if (!a || !b || !single || !given) {
    mem__free(a);
    mem__free(b);
    mem__free(single);
    mem__free(given);
    return err__nomem(err);
  }
  memset(given, 0, (size_t)nranks * sizeof *given);
  const double eps = 1e-9;
  double total = 0;
  for (int32_t f = 0; f < nf; f++)
    if (S->fronts[f].parent < 0) total += S->fronts[f].subtree_flops;
  double acc = 0;
  for (int32_t f = 0; f < nf; f++)
    if (S->fronts[f].parent < 0) {
      a[f] = acc / total * nranks;
      acc += S->fronts[f].subtree_flops;
      b[f] = acc / total * nranks;
    }
  if (load) memset(load, 0, (size_t)nranks * sizeof *load);
  for (int32_t f = nf - 1; f >= 0; f--) { /* parents have larger indices */
    const mfs_front *F = &S->fronts[f];
    int32_t p = F->parent;
    int32_t lo, hi, own;
    if (p >= 0 && single[p]) {
      own = owner[p];
      lo = own;
      hi = own + 1;
      single[f] = 1;
    } else {
      double x = a[f], y = b[f];
      lo = (int32_t)floor(x + eps);
      hi = (int32_t)ceil(y - eps);
      if (lo < 0) lo = 0;
      if (hi > nranks) hi = nranks;
      if (lo >= nranks) lo = nranks - 1;
      if (hi <= lo) hi = lo + 1;
      /* owner: the rank covering most of [x, y) (the lowest on ties) */
      own = lo;
      double best = -1;
      for (int32_t r = lo; r < hi; r++) {
        double ov = fmin(y, r + 1.0) - fmax(x, (double)r);
        if (ov > best + eps) {
          best = ov;
          own = r;
        }
      }
      single[f] = (y - x <= 1.0 + eps) || hi - lo == 1;
      if (single[f]) {
        for (int32_t r = lo; r < hi; r++) /* the least loaded rank of the interval */
          if (given[r] < given[own] * (1 - 1e-12)) own = r;
        given[own] += F->subtree_flops;
        lo = own;
        hi = own + 1;
      } else { /* split [x, y) among the children by subtree flops */
        for (int32_t r = lo; r < hi; r++) given[r] += F->flops / (hi - lo);
        double cs = 0, t = x;
        for (int32_t q = 0; q < F->nchild; q++) cs += S->fronts[S->child[F->child0 + q]].subtree_flops;
        for (int32_t q = 0; q < F->nchild; q++) {
          int32_t c = S->child[F->child0 + q];
          a[c] = t;
          t += (y - x) * (cs > 0 ? S->fronts[c].subtree_flops / cs : 1.0 / F->nchild);
          b[c] = t;
        }
      }
    }
    owner[f] = own;
    if (rank_lo) rank_lo[f] = lo;
    if (rank_hi) rank_hi[f] = hi;
    if (load) {
      if (hi - lo > 1) /* a shared front's rows are cut evenly by flops (mfs_dist) */
        for (int32_t r = lo; r < hi; r++) load[r] += F->flops / (hi - lo);
      else
        load[own] += F->flops;
    }
  }
  mem__free(a);
  mem__free(b);
  mem__free(single);
  mem__free(given);
  return MFS_OK;
}
