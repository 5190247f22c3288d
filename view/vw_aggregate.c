/* What the page holds one by one, and what it holds as density bins, so that its size stays bounded
 * whatever the number of tasks (docs/reports.md "Seeing one run": a run of 10^6 tasks).
 *
 * With a resolution beta, a task or state lasting at least beta is kept as it is; a shorter one is
 * merged into the bin of its lane, its class (codelet, or kind of state) and its interval
 * [i beta, (i + 1) beta) of its start, which keeps the count and the summed duration. Tasks on the
 * critical path and the worst outliers are always kept (the page draws and lists them). beta is the
 * smallest span / 2^k whose item count -- kept ones plus bins -- is at most the budget: doubling
 * beta merges bins pairwise and only moves items from kept to a bin, so the count never grows with
 * beta and a binary search over k finds it. Every number the page prints (counts, times, outliers,
 * the curves) comes from all the tasks; only the drawing is merged. */
#include "vw.h"
#include <stdlib.h>
#include <string.h>

static int forced(const vw_task *k) { return (k->flags & (VW_F_CP | VW_F_KEEP)) != 0; }

/* The walk's state: per class, the interval of its latest bin on the current lane and that bin. */
typedef struct {
  uint64_t beta;
  vw_agg *out; /* NULL: count only */
  uint64_t *last;
  size_t *bin;
  size_t items;
} walker;

/* One item of duration d starting at start: kept (keep) or merged into its bin. */
static void item(walker *w, int lane, int cls, uint64_t start, uint64_t d, int keep) {
  if (w->beta == 0 || d >= w->beta || keep) {
    w->items++;
    return;
  }
  uint64_t idx = start / w->beta;
  if (w->last[cls] != idx) { /* starts are sorted on a lane: a new interval of this class */
    w->last[cls] = idx;
    w->items++;
    if (w->out) {
      w->bin[cls] = w->out->nbins;
      w->out->bin[w->out->nbins++] = (vw_bin){lane, cls, idx, 0, 0};
    }
  }
  if (w->out) {
    vw_bin *b = &w->out->bin[w->bin[cls]];
    b->count++;
    b->busy += d;
  }
}

/* Walks every item with beta; counts them, and fills out's bins when out is given. */
static size_t walk(const vw_trace *t, uint64_t beta, vw_agg *out, uint64_t *last, size_t *bin) {
  walker w = {beta, out, last, bin, 0};
  size_t ti = 0, si = 0;
  int ncls = t->ncodelets + VW_NKINDS;
  for (int lane = 0; lane < t->nlanes; lane++) {
    for (int c = 0; c < ncls; c++) last[c] = UINT64_MAX;
    for (; ti < t->ntasks && t->task[ti].lane == lane; ti++) {
      const vw_task *k = &t->task[ti];
      item(&w, lane, k->codelet, k->start, k->end - k->start, forced(k));
    }
    for (; si < t->nstates && t->state[si].lane == lane; si++) {
      const vw_state *x = &t->state[si];
      item(&w, lane, t->ncodelets + x->kind, x->start, x->end - x->start, 0);
    }
  }
  return w.items;
}

size_t vw_aggregate_items(const vw_trace *t, uint64_t beta) {
  uint64_t *last = malloc(sizeof *last * (size_t)(t->ncodelets + VW_NKINDS));
  if (!last) return SIZE_MAX;
  size_t n = walk(t, beta, NULL, last, NULL);
  free(last);
  return n;
}

int vw_aggregate(vw_trace *t, size_t budget, vw_agg *a) {
  memset(a, 0, sizeof *a);
  size_t ncls = (size_t)(t->ncodelets + VW_NKINDS);
  uint64_t *last = malloc(sizeof *last * ncls);
  size_t *bin = malloc(sizeof *bin * ncls);
  if (!last || !bin) {
    free(last);
    free(bin);
    return -1;
  }
  uint64_t beta = 0;
  if (walk(t, 0, NULL, last, NULL) > budget && t->span > 0) {
    /* the largest k (finest beta = span >> k) still within the budget; k = 0 is one bin per class
     * and lane, the coarsest there is */
    int lo = 0, hi = 40;
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      uint64_t b = t->span >> mid;
      if (b > 0 && walk(t, b, NULL, last, NULL) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
    beta = t->span >> lo;
    if (beta == 0) beta = 1;
  }
  a->beta = beta;
  a->budget = budget;
  size_t items = walk(t, beta, NULL, last, NULL);
  if (beta > 0 && !(a->bin = malloc(sizeof *a->bin * (items ? items : 1)))) {
    free(last);
    free(bin);
    return -1;
  }
  walk(t, beta, beta ? a : NULL, last, bin);
  free(last);
  free(bin);
  for (size_t i = 0; i < t->ntasks; i++) {
    vw_task *k = &t->task[i];
    if (beta == 0 || k->end - k->start >= beta || forced(k)) {
      k->flags |= VW_F_KEEP;
      a->kept_tasks++;
    } else {
      a->merged_tasks++;
    }
  }
  for (size_t i = 0; i < t->nstates; i++) {
    if (beta == 0 || t->state[i].end - t->state[i].start >= beta)
      a->kept_states++;
    else
      a->merged_states++;
  }
  return 0;
}

void vw_agg_free(vw_agg *a) {
  free(a->bin);
  memset(a, 0, sizeof *a);
}
