/* Area bound of a task-based run (docs/metrics.md §6.2): the least T such that all the observed task
 * work fits on the workers when it may be split freely (a fractional relaxation, so T is a lower
 * bound of any schedule's makespan).
 *
 * One worker type (w0 or w1 zero): T = sum exec / W.
 * Two worker types (CPU type 0, accelerator type 1), the LP
 *     minimise T  s.t.  sum_c x_c d0_c <= w0 T,  sum_c (n_c - x_c) d1_c <= w1 T,  0 <= x_c <= n_c
 * where a codelet c observed on both types has n_c tasks and mean durations d0_c, d1_c. A codelet
 * observed on one type only (or without task counts) has no known duration elsewhere and stays on
 * its type (forced work). Solved exactly by a greedy: start with every flexible codelet on the CPUs
 * and move codelets to the accelerators in decreasing order of acceleration d0/d1 until the two
 * loads per worker meet (moving the last codelet fractionally). Why this is optimal: for a target T
 * the question is whether the CPU load can drop to w0 T while the accelerator load stays under w1 T,
 * i.e. a fractional knapsack (gain d0 per cost d1), which the ratio order solves optimally; the
 * greedy walks that optimal trade-off curve, so its crossing point is the least T.
 * Entries with the same non-NULL name and different worker types form one codelet. */
#include "popmetrics.h"
#include "pm_util.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  double exec[2];
  double count[2];
  double ratio; /* d0 / d1, the acceleration */
} ab_codelet;

static int by_ratio_desc(const void *a, const void *b) {
  double ra = ((const ab_codelet *)a)->ratio, rb = ((const ab_codelet *)b)->ratio;
  return (ra < rb) - (ra > rb);
}

int pm_task_area_bound(const pm_codelet_input *codelets, int ncodelets, int w0, int w1, double *T, const char **why) {
  ab_codelet *g;
  int i, j, ng = 0, nflex = 0;
  double L0 = 0.0, L1 = 0.0, total = 0.0;
  *T = 0.0;
  *why = NULL;
  if (w0 < 0 || w1 < 0 || w0 + w1 == 0) {
    *why = "no task workers";
    return 0;
  }
  if (ncodelets <= 0 || !codelets) {
    *why = "no per-codelet execution totals";
    return 0;
  }
  for (i = 0; i < ncodelets; i++) {
    int t = codelets[i].worker_type;
    if (t != 0 && t != 1) {
      *why = "unknown worker type in codelet totals";
      return 0;
    }
    if ((t == 0 && w0 == 0) || (t == 1 && w1 == 0)) {
      *why = "codelet executed on a worker type without workers";
      return 0;
    }
    total += codelets[i].exec;
  }
  if (w1 == 0 || w0 == 0) { /* one worker type */
    *T = total / (w0 + w1);
    return 1;
  }
  g = pm__calloc((size_t)ncodelets, sizeof *g);
  if (!g) {
    *why = "out of memory";
    return 0;
  }
  for (i = 0; i < ncodelets; i++) {
    const pm_codelet_input *c = &codelets[i];
    int t = c->worker_type;
    for (j = 0; j < ng; j++)
      if (c->name && g[j].name && strcmp(c->name, g[j].name) == 0) break;
    if (j == ng) g[ng++].name = c->name;
    g[j].exec[t] += c->exec;
    g[j].count[t] += (double)c->count;
  }
  /* forced work stays on its type; flexible codelets start on the CPUs */
  for (j = 0; j < ng; j++) {
    ab_codelet *c = &g[j];
    if (c->count[0] > 0 && c->count[1] > 0) {
      double n = c->count[0] + c->count[1];
      double d0 = c->exec[0] / c->count[0], d1 = c->exec[1] / c->count[1];
      c->ratio = d1 > 0.0 ? d0 / d1 : 1e300; /* free on accelerators: move first */
      c->exec[0] = n * d0;                   /* all n tasks on the CPUs */
      c->exec[1] = n * d1;                   /* all n tasks on the accelerators */
      L0 += c->exec[0];
      g[nflex++] = *c; /* compact flexible codelets to the front (nflex <= j) */
    } else {
      L0 += c->exec[0];
      L1 += c->exec[1];
    }
  }
  qsort(g, (size_t)nflex, sizeof *g, by_ratio_desc);
  for (j = 0; j < nflex; j++) {
    double a0 = L0 / w0, a1 = L1 / w1, f;
    if (a1 >= a0) break;
    if ((L1 + g[j].exec[1]) / w1 <= (L0 - g[j].exec[0]) / w0) {
      L0 -= g[j].exec[0];
      L1 += g[j].exec[1];
      continue;
    }
    /* move the fraction f of this codelet that equalises the two loads per worker */
    f = (a0 - a1) / (g[j].exec[1] / w1 + g[j].exec[0] / w0);
    L0 -= f * g[j].exec[0];
    L1 += f * g[j].exec[1];
    break;
  }
  free(g);
  *T = L0 / w0 > L1 / w1 ? L0 / w0 : L1 / w1;
  return 1;
}
