/* Per codelet and worker type, over every task of the trace: exact quartiles of the durations, the
 * fit log10(duration) ~ log10(flops) with its 95 % prediction band (metrics/pm_regress.h, the
 * formula of the run's online outlier test), and the outliers by both rules of the task statistics
 * (lib/tasks/pm_task_stats.h): slower than Q3 + 1.5 IQR, and above the band. The run itself
 * estimated its quartiles online (P-square) and fitted as the tasks came, so its counts in
 * popmeter.json may differ slightly from these, which see all the tasks at once. */
#include "vw.h"
#include "pm_regress.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sample quantile with linear interpolation between order statistics (h = (n - 1) p). */
static double quantile(const double *v, size_t n, double p) {
  double h = (double)(n - 1) * p;
  size_t lo = (size_t)h;
  if (lo + 1 >= n) return v[n - 1];
  return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

static double dur(const vw_task *k) { return (double)(k->end - k->start) * 1e-9; }

/* Keeps the VW_WORST largest ratios duration / threshold, sorted decreasing. */
static void note_worst(vw_codelet *c, const vw_trace *t, size_t task, double thr, int kind) {
  double r = dur(&t->task[task]) / thr;
  size_t i = c->nworst;
  if (i == VW_WORST) {
    if (r <= dur(&t->task[c->worst[VW_WORST - 1]]) / c->worst_thr[VW_WORST - 1]) return;
    i--;
  } else {
    c->nworst++;
  }
  while (i > 0 && dur(&t->task[c->worst[i - 1]]) / c->worst_thr[i - 1] < r) {
    c->worst[i] = c->worst[i - 1];
    c->worst_thr[i] = c->worst_thr[i - 1];
    c->worst_kind[i] = c->worst_kind[i - 1];
    i--;
  }
  c->worst[i] = task;
  c->worst_thr[i] = thr;
  c->worst_kind[i] = kind;
}

static int group(vw_trace *t, vw_codelet *c, const size_t *idx, size_t n, double *d) {
  for (size_t i = 0; i < n; i++) d[i] = dur(&t->task[idx[i]]);
  qsort(d, n, sizeof *d, by_double);
  c->count = n;
  c->total = 0;
  for (size_t i = 0; i < n; i++) c->total += d[i];
  c->min = d[0];
  c->max = d[n - 1];
  c->q1 = quantile(d, n, 0.25);
  c->median = quantile(d, n, 0.5);
  c->q3 = quantile(d, n, 0.75);
  pm_reg r = {0};
  c->x0 = INFINITY;
  c->x1 = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    const vw_task *k = &t->task[idx[i]];
    if (k->flops <= 0 || k->end <= k->start) continue;
    double x = log10(k->flops);
    pm_reg_add(&r, x, log10(dur(k)));
    c->x0 = fmin(c->x0, x);
    c->x1 = fmax(c->x1, x);
    c->with_flops++;
  }
  double fit, half;
  c->has_fit = pm_reg_band(&r, c->x0, &fit, &half);
  if (c->has_fit) {
    c->b = r.sxx > 1e-12 * (double)r.n ? r.sxy / r.sxx : 0;
    c->a = r.my - c->b * r.mx;
    for (int j = 0; j < VW_BAND_POINTS; j++) {
      double x = c->x0 + (c->x1 - c->x0) * j / (VW_BAND_POINTS - 1);
      pm_reg_band(&r, x, &fit, &half);
      c->band[j][0] = x;
      c->band[j][1] = fit - half;
      c->band[j][2] = fit + half;
    }
  }
  double iqr_thr = c->q3 + 1.5 * (c->q3 - c->q1);
  for (size_t i = 0; i < n; i++) {
    vw_task *k = &t->task[idx[i]];
    double up;
    if (dur(k) > iqr_thr) {
      k->flags |= VW_F_IQR;
      c->iqr++;
      note_worst(c, t, idx[i], iqr_thr, VW_F_IQR);
    }
    if (c->has_fit && k->flops > 0 && k->end > k->start && pm_reg_upper(&r, log10(k->flops), &up) &&
        log10(dur(k)) > up) {
      k->flags |= VW_F_REG;
      c->reg++;
      if (!(k->flags & VW_F_IQR)) note_worst(c, t, idx[i], pow(10, up), VW_F_REG);
    }
  }
  for (size_t i = 0; i < c->nworst; i++) t->task[c->worst[i]].flags |= VW_F_KEEP; /* listed: drawn alone */
  return 0;
}

int vw_codelets_build(vw_trace *t, vw_codelet **out, int *nout) {
  *out = NULL;
  *nout = 0;
  if (t->ntasks == 0) return 0;
  /* tasks grouped by (codelet, worker type): one counting pass, then the groups' index lists */
  size_t ng = (size_t)t->ncodelets * 2;
  size_t *count = calloc(ng + 1, sizeof *count), *idx = malloc(t->ntasks * sizeof *idx);
  double *d = malloc(t->ntasks * sizeof *d);
  vw_codelet *c = calloc(ng, sizeof *c);
  int rc = -1;
  if (!count || !idx || !d || !c) goto out;
  for (size_t i = 0; i < t->ntasks; i++)
    count[(size_t)t->task[i].codelet * 2 + (size_t)t->lane[t->task[i].lane].wtype + 1]++;
  for (size_t g = 1; g <= ng; g++) count[g] += count[g - 1];
  for (size_t i = 0; i < t->ntasks; i++)
    idx[count[(size_t)t->task[i].codelet * 2 + (size_t)t->lane[t->task[i].lane].wtype]++] = i;
  /* count[g] is now the end of group g (the start of g + 1) */
  size_t start = 0;
  int n = 0;
  for (size_t g = 0; g < ng; g++) {
    size_t end = count[g];
    if (end > start) {
      c[n].codelet = (int)(g / 2);
      c[n].wtype = (int)(g % 2);
      group(t, &c[n], idx + start, end - start, d);
      n++;
    }
    start = end;
  }
  *out = c;
  *nout = n;
  c = NULL;
  rc = 0;
out:
  free(count);
  free(idx);
  free(d);
  free(c);
  return rc;
}

double vw_codelet_predict(const vw_codelet *c, int n, const vw_trace *t, const vw_task *k) {
  if (k->flops <= 0) return 0;
  int wtype = t->lane[k->lane].wtype;
  for (int i = 0; i < n; i++)
    if (c[i].codelet == k->codelet && c[i].wtype == wtype)
      return c[i].has_fit ? pow(10, c[i].a + c[i].b * log10(k->flops)) : 0;
  return 0;
}
