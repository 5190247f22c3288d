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
 * fronts, cut evenly by rows as mfs_dist does (1.25 on that problem). Last, a local search moves
 * the one-rank subtrees hanging from shared fronts between the ranks of those fronts' groups
 * (rebalance_under_shared: 1.09 on that problem).
 */
#include "mfs_internal.h"

#include <math.h>
#include <string.h>

/* Children of a shared front that live on one rank each may go to any rank of the front's group:
 * their contribution blocks reach the shared front's rows wherever they are. The proportional
 * intervals put them where their flops fall, which can leave a group's ranks with unequal work:
 * lap3d:60 on 2 ranks had both children of the lower shared front on rank 0 (6.84e10 flops of
 * one-rank work there against 6.19e10 on rank 1), and rank 1, done first, waited for rank 0's
 * subtrees before its share of that front could start. A local search moves one such child to
 * another rank of its parent's group, or swaps two of them, while that lowers the largest load
 * (the flops of the one-rank fronts plus an even share of the shared ones, as `load` counts), or
 * keeps it and lowers the sum of squared loads: never a worse mapping than the intervals'. On
 * lap3d:60, 2 ranks: 6.37e10 / 6.66e10, a child of the lower shared front on each rank; 2
 * processes x 1 worker faster in 16 of 22 interleaved pairs (-0.09 s of 3.3 s), lap3d:50 -0.04 s of
 * 1.3 (6 of 10), lap3d27:40 unchanged (5 of 10). max/mean load on 3 / 8 / 16 ranks: lap3d:60 1.43 /
 * 1.65 / 1.57 before, 1.09 / 1.26 / 1.18 after. */
typedef struct {
  int32_t front;  /* the top of a one-rank subtree under a shared front */
  int32_t lo, hi; /* the ranks it may go to: its parent's group */
  int32_t group;  /* that group's index in the search's lists */
  double w;       /* its subtree's flops */
} movable;

/* The loads' largest value and sum of squares, and the three largest loads (to find the largest
 * of the others after a change on two ranks in O(1)). */
typedef struct {
  double mx, sq;
  int top[3];
} load_summary;

static load_summary summarize(const double *work, int nranks) {
  load_summary L = {0, 0, {-1, -1, -1}};
  for (int r = 0; r < nranks; r++) {
    L.sq += work[r] * work[r];
    for (int k = 0; k < 3; k++)
      if (L.top[k] < 0 || work[r] > work[L.top[k]]) {
        for (int m = 2; m > k; m--) L.top[m] = L.top[m - 1];
        L.top[k] = r;
        break;
      }
  }
  L.mx = L.top[0] >= 0 ? work[L.top[0]] : 0;
  return L;
}

/* (largest, sum of squares) after moving w from rank a to rank b and w2 from b to a */
static void after_change(const double *work, const load_summary *L, int a, int b, double w, double w2, double *mx,
                         double *sq) {
  const double la = work[a] - w + w2, lb = work[b] + w - w2;
  *sq = L->sq - work[a] * work[a] - work[b] * work[b] + la * la + lb * lb;
  *mx = la > lb ? la : lb;
  for (int k = 0; k < 3; k++) /* the largest load of the other ranks */
    if (L->top[k] >= 0 && L->top[k] != a && L->top[k] != b) {
      if (work[L->top[k]] > *mx) *mx = work[L->top[k]];
      break;
    }
}

/* A strictly lower largest load, or the same one and a lower sum of squares (a relative margin
 * against rounding): each step improves the mapping, which never gets worse than the intervals'. */
static int better(double mx, double sq, double best_mx, double best_sq) {
  const double eps = 1e-9;
  return mx < best_mx * (1 - eps) || (mx <= best_mx && sq < best_sq * (1 - eps));
}

/* Bounds on the search (thousands of ranks, flat trees): steps, and the candidates beyond which
 * swaps (every pair, at each step) are not tried. A move needs no search over its group: the least
 * loaded other rank of the group is its best target, since both the largest load and the sum of
 * squares after the move grow with the target's load. */
#define REBALANCE_MAX_STEPS 512
#define REBALANCE_MAX_SWAPPED 128

static void move_subtree(int32_t top, const int32_t *first, int32_t to, int32_t *owner, double *lo, double *hi) {
  for (int32_t d = first[top]; d <= top; d++) {
    owner[d] = to;
    lo[d] = to;
    hi[d] = to + 1;
  }
}

/* lo/hi: each front's range of ranks (in and out); work (in and out): each rank's load, as the
 * mapping's pass computed it (the flops of its one-rank subtrees plus an even share of its shared
 * fronts); the loads after the moves on return. */
static void rebalance_under_shared(const mfs_symbolic *S, int nranks, int32_t *owner, double *lo, double *hi,
                                   double *work) {
  const int32_t nf = S->nfronts;
  const size_t n1 = (size_t)nf + 1;
  int32_t *ints = mem__alloc(5 * n1 * sizeof *ints);
  movable *m = mem__alloc(n1 * sizeof *m);
  if (!ints || !m) { /* the mapping stays as it is: valid, only less balanced */
    mem__free(ints);
    mem__free(m);
    return;
  }
  int32_t *first = ints;          /* per front: the lowest front of its subtree */
  int32_t *group_of = ints + n1;  /* per shared front: its group, or -1 */
  int32_t *group = ints + 2 * n1; /* per group: its shared front */
  int32_t *least = ints + 3 * n1; /* per group: its two least loaded ranks */
  front__subtree_first(S, first);
  for (int32_t f = 0; f < nf; f++) group_of[f] = -1;
  int32_t nm = 0, ng = 0;
  for (int32_t f = 0; f < nf; f++) {
    int32_t p = S->fronts[f].parent;
    if (hi[f] - lo[f] == 1 && p >= 0 && hi[p] - lo[p] > 1) { /* the top of a one-rank subtree */
      if (group_of[p] < 0) {
        group_of[p] = ng;
        group[ng++] = p;
      }
      m[nm++] = (movable){f, (int32_t)lo[p], (int32_t)hi[p], group_of[p], S->fronts[f].subtree_flops};
    }
  }
  const int swaps = nm <= REBALANCE_MAX_SWAPPED;
  for (int step = 0; step < REBALANCE_MAX_STEPS && nm > 0; step++) { /* each step lowers (largest, sum of squares) */
    const load_summary L = summarize(work, nranks);
    for (int32_t g = 0; g < ng; g++) {
      int32_t p = group[g], r1 = -1, r2 = -1;
      for (int32_t r = (int32_t)lo[p]; r < (int32_t)hi[p]; r++)
        if (r1 < 0 || work[r] < work[r1]) {
          r2 = r1;
          r1 = r;
        } else if (r2 < 0 || work[r] < work[r2]) {
          r2 = r;
        }
      least[2 * g] = r1;
      least[2 * g + 1] = r2;
    }
    int32_t bi = -1, bj = -1, bto = -1;
    double best_mx = L.mx, best_sq = L.sq, mx, sq;
    for (int32_t i = 0; i < nm; i++) {
      const int a = owner[m[i].front];
      const int32_t to = least[2 * m[i].group] != a ? least[2 * m[i].group] : least[2 * m[i].group + 1];
      if (to >= 0) { /* a move */
        after_change(work, &L, a, to, m[i].w, 0, &mx, &sq);
        if (better(mx, sq, best_mx, best_sq)) bi = i, bj = -1, bto = to, best_mx = mx, best_sq = sq;
      }
      for (int32_t j = i + 1; swaps && j < nm; j++) { /* a swap: each lands in its own parent's group */
        const int b = owner[m[j].front];
        if (b == a || b < m[i].lo || b >= m[i].hi || a < m[j].lo || a >= m[j].hi) continue;
        after_change(work, &L, a, b, m[i].w, m[j].w, &mx, &sq);
        if (better(mx, sq, best_mx, best_sq)) bi = i, bj = j, bto = b, best_mx = mx, best_sq = sq;
      }
    }
    if (bi < 0) break;
    const int from = owner[m[bi].front];
    work[from] -= m[bi].w;
    work[bto] += m[bi].w;
    move_subtree(m[bi].front, first, bto, owner, lo, hi);
    if (bj >= 0) {
      work[bto] -= m[bj].w;
      work[from] += m[bj].w;
      move_subtree(m[bj].front, first, from, owner, lo, hi);
    }
  }
  mem__free(ints);
  mem__free(m);
}

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
    a[f] = lo; /* from here on, a and b hold each front's range of ranks */
    b[f] = hi;
  }
  rebalance_under_shared(S, nranks, owner, a, b, given);
  for (int32_t f = 0; f < nf; f++) {
    if (rank_lo) rank_lo[f] = (int32_t)a[f];
    if (rank_hi) rank_hi[f] = (int32_t)b[f];
  }
  /* a shared front's rows are cut evenly by flops (mfs_dist): an even share on each of its ranks */
  if (load) memcpy(load, given, (size_t)nranks * sizeof *load);
  mem__free(a);
  mem__free(b);
  mem__free(single);
  mem__free(given);
  return MFS_OK;
}
