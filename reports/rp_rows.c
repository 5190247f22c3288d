/* The rows of a wide table (one column per configuration) for the Markdown and HTML writers, and
 * the text of one cell: the median, and the min-max range when the configuration was repeated. */
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

int rp_rows_collect(pm_metric *const *trees, int n, rp_row **out) {
  rows r = {0};
  int k;
  size_t i;
  for (k = 0; k < n; k++)
    for (i = 0; trees[k] && i < trees[k]->nchildren; i++) add(&r, trees[k]->children[i], "", 0);
  if (r.oom) {
    rp_rows_free(r.v, r.n);
    return -1;
  }
  *out = r.v;
  return r.n;
}

void rp_rows_free(rp_row *rows, int n) {
  int i;
  for (i = 0; i < n; i++) free(rows[i].path);
  free(rows);
}

static void number(char *buf, size_t n, const pm_metric *m, double v) {
  snprintf(buf, n, strcmp(m->unit, "s") == 0 ? "%.3f" : "%.2f", v);
}

const char *rp_cell_text(const rp_config *c, pm_metric *const *stat_trees, const char *path, const char *sep, char *buf,
                         size_t n) {
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
      snprintf(buf, n, "%s (%s%s%s)", x, a, sep, b);
    } else {
      snprintf(buf, n, "%s", x);
    }
  }
  return buf;
}
