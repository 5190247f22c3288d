/* The wide tables (one row per metric, one column per configuration) of the Markdown and HTML
 * writers, built once here so that each writer only formats them: the rows, and the text of each
 * cell (the median, and the min-max range when the configuration was repeated). */
#include "rp_output.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  rp_row *v;
  int n, cap, oom;
} rows;

static int has_row(const rows *r, const char *path) {
  int i;
  for (i = 0; i < r->n; i++)
    if (strcmp(r->v[i].path, path) == 0) return 1;
  return 0;
}

static void add(rows *r, const pm_metric *m, const char *parent, int depth) {
  size_t i, len = strlen(parent) + strlen(m->id) + 2;
  char *path = malloc(len);
  if (!path) {
    r->oom = 1;
    return;
  }
  snprintf(path, len, "%s%s%s", parent, parent[0] ? "/" : "", m->id);
  if (!has_row(r, path)) {
    if (r->n == r->cap) {
      rp_row *w = realloc(r->v, (size_t)(r->cap = r->cap ? 2 * r->cap : 32) * sizeof *w);
      if (!w) {
        free(path);
        r->oom = 1;
        return;
      }
      r->v = w;
    }
    r->v[r->n++] = (rp_row){strdup(path), depth, m};
    if (!r->v[r->n - 1].path) r->oom = 1;
  }
  for (i = 0; i < m->nchildren; i++) add(r, m->children[i], path, depth + 1);
  free(path);
}

static void rows_free(rp_row *rows, int n) {
  int i;
  for (i = 0; i < n; i++) free(rows[i].path);
  free(rows);
}

/* The rows of trees[0..n-1] (NULL trees skipped): the first tree's in depth-first order, then
 * those only later trees have. Returns the count, or -1 out of memory. */
static int rows_collect(pm_metric *const *trees, int n, rp_row **out) {
  rows r = {0};
  int k;
  size_t i;
  for (k = 0; k < n; k++)
    for (i = 0; trees[k] && i < trees[k]->nchildren; i++) add(&r, trees[k]->children[i], "", 0);
  if (r.oom) {
    rows_free(r.v, r.n);
    return -1;
  }
  *out = r.v;
  return r.n;
}

static void number(char *buf, size_t n, const pm_metric *m, double v) {
  snprintf(buf, n, strcmp(m->unit, "s") == 0 ? "%.3f" : "%.2f", v);
}

/* "0.83", "n/a", "-" (missing); with repeats and a spread: "0.83 (0.80-0.85)", an en dash between
 * min and max. Seconds get three decimals. */
static void cell_text(const rp_config *c, pm_metric *const *stat_trees, const char *path, char *buf, size_t n) {
  const pm_metric *m = stat_trees[RP_MEDIAN] ? pm_metric_find(stat_trees[RP_MEDIAN], path) : NULL;
  const pm_metric *lo = stat_trees[RP_MIN] ? pm_metric_find(stat_trees[RP_MIN], path) : NULL;
  const pm_metric *hi = stat_trees[RP_MAX] ? pm_metric_find(stat_trees[RP_MAX], path) : NULL;
  char a[32], b[32], x[32];
  if (!m)
    snprintf(buf, n, "-");
  else if (m->state == PM_METRIC_NA)
    snprintf(buf, n, "n/a");
  else if (m->state != PM_METRIC_VALUE)
    buf[0] = '\0';
  else {
    number(x, sizeof x, m, m->value);
    if (c->nruns > 1 && lo && hi && lo->state == PM_METRIC_VALUE && hi->state == PM_METRIC_VALUE) {
      number(a, sizeof a, m, lo->value);
      number(b, sizeof b, m, hi->value);
      snprintf(buf, n, "%s (%s\xE2\x80\x93%s)", x, a, b);
    } else {
      snprintf(buf, n, "%s", x);
    }
  }
}

int rp_table_build(rp_table *t, const rp_study *s, pm_metric *const *trees) {
  pm_metric **med = calloc((size_t)s->ncfg + 1, sizeof *med);
  int r, c, n;
  memset(t, 0, sizeof *t);
  t->failed = 1;
  if (!med) return -1;
  for (c = 0; c < s->ncfg; c++) med[c] = trees[c * RP_NSTATS + RP_MEDIAN];
  n = rows_collect(med, s->ncfg, &t->row);
  if (n < 0 || !(t->cell = calloc((size_t)n * (size_t)s->ncfg + 1, sizeof *t->cell))) {
    if (n >= 0) rows_free(t->row, n);
    t->row = NULL;
    free(med);
    return -1;
  }
  t->nrows = n;
  t->ncols = s->ncfg;
  for (r = 0; r < n; r++)
    for (c = 0; c < s->ncfg; c++) {
      rp_cell *x = &t->cell[r * s->ncfg + c];
      x->median = med[c] ? pm_metric_find(med[c], t->row[r].path) : NULL;
      cell_text(&s->cfg[c], &trees[c * RP_NSTATS], t->row[r].path, x->text, sizeof x->text);
    }
  t->failed = 0;
  free(med);
  return 0;
}

void rp_table_free(rp_table *t) {
  rows_free(t->row, t->nrows);
  free(t->cell);
  memset(t, 0, sizeof *t);
}

int rp_tables_build(rp_tables *t, const rp_study *s, int max_regions) {
  int c, k;
  memset(t, 0, sizeof *t);
  t->ntrees = s->ncfg * RP_NSTATS;
  t->trees = calloc((size_t)t->ntrees + 1, sizeof *t->trees);
  t->order = calloc((size_t)s->nregions + 1, sizeof *t->order);
  if (!t->trees || !t->order) {
    rp_tables_free(t);
    return -1;
  }
  for (c = 0; c < s->ncfg; c++)
    for (k = 0; k < RP_NSTATS; k++) t->trees[c * RP_NSTATS + k] = s->cfg[c].tree[k];
  rp_table_build(&t->pop, s, t->trees);
  memset(t->trees, 0, (size_t)t->ntrees * sizeof *t->trees); /* from here on: the region trees, owned */
  t->nregions = rp_regions_ranked(s, t->order, max_regions);
  if (t->nregions > 0) {
    for (c = 0; c < s->ncfg; c++)
      for (k = 0; k < RP_NSTATS; k++)
        t->trees[c * RP_NSTATS + k] = rp_tree_regions_table(s, c, k, t->order, t->nregions);
    rp_table_build(&t->regions, s, t->trees);
  }
  return 0;
}

void rp_tables_free(rp_tables *t) {
  int i;
  rp_table_free(&t->pop);
  rp_table_free(&t->regions);
  for (i = 0; t->trees && i < t->ntrees; i++) pm_metric_free(t->trees[i]);
  free(t->trees);
  free(t->order);
  memset(t, 0, sizeof *t);
}
