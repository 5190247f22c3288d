/* Quantities over time, as the page draws them: a fixed number of bins over the time they cover, each the
 * envelope of the step function over the bin (its smallest and largest value, and the last), so a
 * peak shorter than a bin is never lost and the size does not grow with the run. From the trace:
 * tasks submitted and not started, ready and not started, running; from popmeter.json: what the
 * program published (pm_quantity_set), moved onto the same time axis. */
#include "vw.h"
#include "pm_profile_published.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_time(const void *a, const void *b) {
  const vw_change *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t;
}

int vw_series_envelope(vw_change *ch, size_t n, uint64_t t0, uint64_t t1, int nbins, vw_series *s) {
  if (nbins < 1) nbins = 1;
  uint64_t span = t1 > t0 ? t1 - t0 : 1;
  s->start = t0;
  s->bin = span / (uint64_t)nbins + (span % (uint64_t)nbins != 0);
  if (s->bin == 0) s->bin = 1;
  s->nbins = nbins;
  if (!(s->v = malloc(sizeof *s->v * (size_t)nbins))) return -1;
  if (n) qsort(ch, n, sizeof *ch, by_time);
  double cur = 0;
  size_t k = 0;
  for (int b = 0; b < nbins; b++) {
    uint64_t b0 = t0 + (uint64_t)b * s->bin, b1 = b0 + s->bin;
    while (k < n && ch[k].t <= b0) cur += (double)ch[k++].d; /* the value the bin begins with */
    double lo = cur, hi = cur;
    while (k < n && ch[k].t < b1) { /* every change at one instant, then the value */
      uint64_t at = ch[k].t;
      while (k < n && ch[k].t == at) cur += (double)ch[k++].d;
      lo = fmin(lo, cur);
      hi = fmax(hi, cur);
    }
    s->v[b][0] = lo;
    s->v[b][1] = hi;
    s->v[b][2] = cur;
  }
  return 0;
}

static int add(vw_series **s, int *n, const vw_series *x) {
  vw_series *g = realloc(*s, sizeof *g * (size_t)(*n + 1));
  if (!g) return -1;
  *s = g;
  g[(*n)++] = *x;
  return 0;
}

int vw_series_tasks(const vw_trace *t, vw_series **s, int *n) {
  static const char *const names[3] = {"submitted tasks (not started)", "ready tasks (not started)",
                                       "running tasks (busy workers)"};
  vw_change *ch = malloc(sizeof *ch * (t->ntasks ? 2 * t->ntasks : 1));
  if (!ch) return -1;
  for (int which = 0; which < 3; which++) {
    size_t m = 0;
    for (size_t i = 0; i < t->ntasks; i++) {
      const vw_task *k = &t->task[i];
      uint64_t from = which == 0 ? k->submit : which == 1 ? k->ready : k->start;
      uint64_t to = which == 2 ? k->end : k->start;
      if (from == VW_NONE || from > to) continue;
      ch[m++] = (vw_change){from, 1};
      ch[m++] = (vw_change){to, -1};
    }
    if (m == 0) continue;
    /* over the part of the run the tasks occupy: finer bins than over the whole run */
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t j = 0; j < m; j++) {
      first = ch[j].t < first ? ch[j].t : first;
      last = ch[j].t > last ? ch[j].t : last;
    }
    vw_series x = {.process = -1};
    snprintf(x.name, sizeof x.name, "%s", names[which]);
    if (vw_series_envelope(ch, m, first, last + 1, VW_SERIES_BINS, &x) != 0 || add(s, n, &x) != 0) {
      free(x.v);
      free(ch);
      return -1;
    }
  }
  free(ch);
  return 0;
}

int vw_series_published(const pm_profile *p, uint64_t clock0, vw_series **s, int *n) {
  const pm_prof_published *pub = p->published;
  for (int i = 0; pub && i < pub->nseries; i++) {
    const pm_prof_series *q = &pub->series[i];
    /* the first bin on the view's axis: from the measurement clock with a trace (its origin is on
     * that clock), else from the process's window start */
    double first = clock0 ? ((double)q->clock - (double)clock0) : q->start * 1e9;
    double bin = q->bin * 1e9;
    int skip = 0;
    while (skip < q->nbins && first + bin * skip < 0) skip++; /* before the origin: not drawn */
    if (skip == q->nbins || !(bin >= 1)) continue;
    vw_series x = {.process = q->process < p->nprocesses ? p->proc[q->process].rank : -1};
    snprintf(x.name, sizeof x.name, "%s", q->name);
    x.unit_bytes = strstr(q->name, "bytes") != NULL;
    x.start = (uint64_t)llround(first + bin * skip);
    x.bin = (uint64_t)llround(bin);
    x.nbins = q->nbins - skip;
    if (!(x.v = malloc(sizeof *x.v * (size_t)x.nbins))) return -1;
    for (int b = 0; b < x.nbins; b++) {
      const pm_prof_bin *v = &q->bins[b + skip];
      x.v[b][0] = v->min;
      x.v[b][1] = v->max;
      x.v[b][2] = v->last;
    }
    if (add(s, n, &x) != 0) {
      free(x.v);
      return -1;
    }
  }
  return 0;
}

void vw_series_free(vw_series *s, int n) {
  for (int i = 0; i < n; i++) free(s[i].v);
  free(s);
}
