/* Metric-tree plumbing for the report: copying, composing the scaling tree shown per run, the
 * per-region trees and the node-by-node summaries of repeated runs. Values are only copied or
 * summarised here; every one of them was computed by metrics/. */
#include "rp_study.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A detached copy of one node (no children); id replaced by id when non-NULL. */
static pm_metric *copy_node(const pm_metric *src, const char *id) {
  pm_metric *m = pm_metric_new(id ? id : src->id, src->name, src->unit, src->description);
  if (!m) return NULL;
  if (src->state == PM_METRIC_VALUE)
    pm_metric_set_value(m, src->value);
  else if (src->state == PM_METRIC_NA)
    pm_metric_set_na(m, src->na_reason);
  pm_metric_set_warning(m, src->warning);
  pm_metric_set_combine(m, src->combine);
  pm_metric_set_may_exceed_one(m, src->may_exceed_one);
  return m;
}

static pm_metric *copy_prefixed(const pm_metric *src, const char *prefix) {
  char id[256];
  if (!prefix) return copy_node(src, NULL);
  snprintf(id, sizeof id, "%s%s", prefix, src->id);
  return copy_node(src, id);
}

pm_metric *rp_tree_copy(const pm_metric *src, const char *prefix) {
  pm_metric *m;
  size_t i;
  if (!src || !(m = copy_prefixed(src, prefix))) return NULL;
  for (i = 0; i < src->nchildren; i++) pm_metric_add(m, rp_tree_copy(src->children[i], prefix));
  if (!pm_metric_ok(m)) {
    pm_metric_free(m);
    return NULL;
  }
  return m;
}

static pm_metric *finish(pm_metric *root) {
  if (root && !pm_metric_ok(root)) {
    pm_metric_free(root);
    return NULL;
  }
  return root;
}

static void add_time(pm_metric *parent, const char *id, const char *name, const char *desc, double seconds) {
  pm_metric *t = pm_metric_add_new(parent, id, name, "s", desc);
  if (t) pm_metric_set_value(t, seconds);
}

pm_metric *rp_tree_scaling(const pm_metric *scaling, const pm_metric *basic, double runtime, const pm_metric *task) {
  const pm_metric *bpe = basic ? pm_metric_find(basic, "pe") : NULL;
  pm_metric *root;
  size_t i, j;
  if (!scaling || !(root = copy_node(scaling, NULL))) return NULL;
  for (i = 0; i < scaling->nchildren; i++) {
    const pm_metric *c = scaling->children[i];
    pm_metric *cc;
    if (strcmp(c->id, "ge") != 0) {
      pm_metric_add(root, rp_tree_copy(c, NULL));
      continue;
    }
    /* the run's own hierarchy (LB, CommE, SerE, TE) instead of the bare PE leaf */
    cc = pm_metric_add(root, copy_node(c, NULL));
    for (j = 0; cc && j < c->nchildren; j++) {
      const pm_metric *g = c->children[j];
      pm_metric_add(cc, rp_tree_copy(strcmp(g->id, "pe") == 0 && bpe ? bpe : g, NULL));
    }
  }
  /* the task efficiency and its four factors, when reference runs were given */
  const pm_metric *e = task ? pm_metric_find(task, "e") : NULL;
  if (e) pm_metric_add(root, rp_tree_copy(e, NULL));
  add_time(root, "runtime", "Runtime", "Measured runtime of the run (R).", runtime);
  return finish(root);
}

pm_metric *rp_tree_region(const char *name, const pm_metric *scaling, const pm_metric *basic, double runtime) {
  const pm_metric *ge = pm_metric_find(scaling, "ge"), *cs = pm_metric_find(scaling, "ge/compscal");
  const pm_metric *sp = pm_metric_find(scaling, "speedup");
  const pm_metric *pe = basic ? pm_metric_find(basic, "pe") : NULL;
  pm_metric *root, *nge, *npe;
  if (!ge || !cs || !sp || !pe) return NULL;
  root = pm_metric_new("region", name && name[0] ? name : "(unnamed)", "",
                       "Scalability of the region, from its inclusive time on the locations "
                       "that entered it.");
  if (!root) return NULL;
  /* Only what a region can have: SerE and TE from its time on an ideal network (n/a without the
   * transfer time), no counters per region. */
  nge = pm_metric_add(root, copy_node(ge, NULL));
  npe = pm_metric_add(nge, copy_node(pe, NULL));
  if (npe) {
    const pm_metric *lb = pm_metric_find(pe, "lb"), *ce = pm_metric_find(pe, "comme");
    if (lb) pm_metric_add(npe, copy_node(lb, NULL));
    if (ce) pm_metric_add(npe, rp_tree_copy(ce, NULL));
  }
  pm_metric_add(nge, copy_node(cs, NULL));
  pm_metric_add(root, copy_node(sp, NULL));
  add_time(root, "time", "Time in region", "Longest inclusive time of a location in the region.", runtime);
  return finish(root);
}

static const pm_metric *child_by_id(const pm_metric *m, const char *id) {
  size_t i;
  for (i = 0; m && i < m->nchildren; i++)
    if (strcmp(m->children[i]->id, id) == 0) return m->children[i];
  return NULL;
}

/* nodes[k]: the node at the same path in tree k, NULL where that tree lacks it. */
static pm_metric *summary_rec(const pm_metric **nodes, int n, int stat, double *buf) {
  const pm_metric *first = nodes[0];
  const pm_metric **sub;
  pm_metric *m = copy_node(first, NULL);
  int k, cnt = 0;
  size_t i;
  if (!m) return NULL;
  for (k = 0; k < n; k++)
    if (nodes[k] && nodes[k]->state == PM_METRIC_VALUE) buf[cnt++] = nodes[k]->value;
  if (cnt > 0) pm_metric_set_value(m, rp_stat(buf, cnt, stat));
  if (!(sub = malloc((size_t)n * sizeof *sub))) {
    pm_metric_free(m);
    return NULL;
  }
  for (i = 0; i < first->nchildren; i++) {
    for (k = 0; k < n; k++) sub[k] = k == 0 ? first->children[i] : child_by_id(nodes[k], first->children[i]->id);
    pm_metric_add(m, summary_rec(sub, n, stat, buf));
  }
  free(sub);
  return m;
}

pm_metric *rp_tree_summary(pm_metric *const *trees, int n, int stat) {
  const pm_metric **nodes;
  double *buf;
  pm_metric *m = NULL;
  int k;
  if (n <= 0 || !trees[0]) return NULL;
  nodes = malloc((size_t)n * sizeof *nodes);
  buf = malloc((size_t)n * sizeof *buf);
  if (nodes && buf) {
    for (k = 0; k < n; k++) nodes[k] = trees[k];
    m = summary_rec(nodes, n, stat, buf);
  }
  free(nodes);
  free(buf);
  return finish(m);
}

pm_metric *rp_tree_regions_table(const rp_study *s, int cfg, int stat, const int *order, int n) {
  pm_metric *root = pm_metric_new("regions", "Regions (inclusive time)", "",
                                  "Global efficiency of each region relative to the reference.");
  int i;
  size_t j;
  if (!root) return NULL;
  for (i = 0; i < n; i++) {
    const pm_metric *t = s->cfg[cfg].rtree[stat] ? s->cfg[cfg].rtree[stat][order[i]] : NULL;
    const pm_metric *ge = t ? child_by_id(t, "ge") : NULL;
    char id[32], prefix[32];
    pm_metric *r;
    if (!ge) continue;
    snprintf(id, sizeof id, "r%d", order[i]);
    snprintf(prefix, sizeof prefix, "r%d_", order[i]);
    /* the region row carries its global efficiency; below it the factors, speedup and time */
    r = pm_metric_add(root, pm_metric_new(id, t->name, "", ge->description));
    if (!r) break;
    if (ge->state == PM_METRIC_VALUE)
      pm_metric_set_value(r, ge->value);
    else if (ge->state == PM_METRIC_NA)
      pm_metric_set_na(r, ge->na_reason);
    pm_metric_set_may_exceed_one(r, ge->may_exceed_one);
    for (j = 0; j < ge->nchildren; j++) pm_metric_add(r, rp_tree_copy(ge->children[j], prefix));
    for (j = 0; j < t->nchildren; j++)
      if (t->children[j] != ge) pm_metric_add(r, rp_tree_copy(t->children[j], prefix));
  }
  return finish(root);
}
