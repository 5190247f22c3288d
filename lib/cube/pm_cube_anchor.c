/* anchor.xml: the metric, call and system trees of profile.cubex.
 *
 * CubeLib parses the anchor with literal tokens, so this file writes exactly the element order and
 * spelling of cubew (docs/cube-format.md §2): XML declaration first, the literal <cube version="4.4">
 * (4.7 when a GPU location exists), double-quoted attributes, no comments, escaped text, ids 0..k-1.
 * Metric ids are table indices and cnode ids are profile call-path indices; both trees are nested
 * in pre-order with children in id order, which is what pm_cube_preorder assumes. */
#include "pm_cube_internal.h"
#include "pm_metric.h"
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char *paradigm_name(int p) {
  static const char *const names[PM_PARADIGM_COUNT] = {[PM_PARADIGM_USER] = "user",
                                                       [PM_PARADIGM_MPI] = "mpi",
                                                       [PM_PARADIGM_OPENMP] = "openmp",
                                                       [PM_PARADIGM_STARPU] = "starpu",
                                                       [PM_PARADIGM_IO] = "io",
                                                       [PM_PARADIGM_CUDA] = "cuda",
                                                       [PM_PARADIGM_MEASUREMENT] = "measurement"};
  return p >= 0 && p < PM_PARADIGM_COUNT ? names[p] : "unknown";
}

/* Score-P's role vocabulary, which the Cube GUI and its advisor recognise. */
static const char *role_name(int r) {
  static const char *const names[PM_ROLE_COUNT] = {
      [PM_ROLE_FUNCTION] = "function", [PM_ROLE_POINT2POINT] = "point2point", [PM_ROLE_COLLECTIVE] = "collective other",
      [PM_ROLE_BARRIER] = "barrier",   [PM_ROLE_PARALLEL] = "parallel",       [PM_ROLE_TASK] = "task",
      [PM_ROLE_FILE_IO] = "file io",   [PM_ROLE_WRAPPER] = "wrapper",         [PM_ROLE_ARTIFICIAL] = "artificial"};
  return r >= 0 && r < PM_ROLE_COUNT ? names[r] : "function";
}

static void attr(pm_cube_buf *b, const char *key, const char *value) {
  pm_cube_buf_puts(b, "<attr key=\"");
  pm_cube_buf_escaped(b, key);
  pm_cube_buf_puts(b, "\" value=\"");
  pm_cube_buf_escaped(b, value);
  pm_cube_buf_puts(b, "\"/>\n");
}

static void element(pm_cube_buf *b, const char *tag, const char *text) {
  pm_cube_buf_printf(b, "<%s>", tag);
  pm_cube_buf_escaped(b, text);
  pm_cube_buf_printf(b, "</%s>\n", tag);
}

/* The computed models as attributes "popmeter::model::<root>/<id>/...": the run-level values the
 * end-of-run table printed, next to the per-call-path derived metrics. */
static void model_attrs(pm_cube_buf *b, const pm_metric *m, char *path, size_t len, size_t cap) {
  size_t n = strlen(m->id);
  if (len + n + 2 >= cap) return; /* absurdly deep tree: drop the branch rather than truncate a key */
  if (len > 0) path[len++] = '/';
  memcpy(path + len, m->id, n + 1);
  len += n;
  char key[600], value[600];
  snprintf(key, sizeof key, "popmeter::model::%s", path);
  if (m->state == PM_METRIC_VALUE) {
    snprintf(value, sizeof value, "%.10g", m->value);
    attr(b, key, value);
  } else if (m->state == PM_METRIC_NA) {
    snprintf(value, sizeof value, "n/a: %s", m->na_reason ? m->na_reason : "not available");
    attr(b, key, value);
  }
  for (size_t i = 0; i < m->nchildren; i++) model_attrs(b, m->children[i], path, len, cap);
}

static void header(pm_cube_buf *b, const pm_profile *p, const pm_cube_layout *lay,
                   const struct pm_metric *const *models, int nmodels) {
  const char *version = lay->has_gpu ? "4.7" : "4.4";
  char num[64];
  pm_cube_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  pm_cube_buf_printf(b, "<cube version=\"%s\">\n", version);
  attr(b, "CubePL Version", "1.1");
  attr(b, "Cube anchor.xml syntax version", version);
  attr(b, "CUBE_CT_AGGR", "SUM");
  attr(b, "popmeter::version", PACKAGE_VERSION);
  attr(b, "popmeter::app", p->app);
  attr(b, "popmeter::command", p->command);
  attr(b, "popmeter::start_time", p->start_time);
  snprintf(num, sizeof num, "%.17g", p->runtime);
  attr(b, "popmeter::runtime", num);
  snprintf(num, sizeof num, "%d", lay->ncompute);
  attr(b, "popmeter::compute_locations", num);
  for (int i = 0; i < nmodels; i++) {
    char path[512] = "";
    if (models && models[i]) model_attrs(b, models[i], path, 0, sizeof path);
  }
}

/* One derived metric's CubePL: <cubepl>, the <cubeplinit> that fills ${pop_compute}, and the
 * aggregation expressions. CubeLib entity-decodes these texts, but its CubePL parser rejects a
 * literal '<' however it is written, so the expressions avoid '<' and '&' (a unit test checks);
 * they are written raw. The cubeplaggrtype value is unquoted: CubeLib's grammar for this element. */
static void derived_expressions(pm_cube_buf *b, const pm_cube_metric_def *m, const pm_profile *p,
                                const pm_cube_layout *lay) {
  char *e = pm_cube_expression(m, lay->ncompute);
  char *init = m->init ? pm_cube_init_expression(p, lay) : NULL;
  if (!e || (m->init && !init)) {
    b->failed = 1;
  } else {
    pm_cube_buf_printf(b, "<cubepl>%s</cubepl>\n", e);
    if (init) pm_cube_buf_printf(b, "<cubeplinit>%s</cubeplinit>\n", init);
    if (m->aggr) pm_cube_buf_printf(b, "<cubeplaggr cubeplaggrtype=aggr>%s</cubeplaggr>\n", m->aggr);
    if (m->plus) pm_cube_buf_printf(b, "<cubeplaggr cubeplaggrtype=plus>%s</cubeplaggr>\n", m->plus);
    if (m->minus) pm_cube_buf_printf(b, "<cubeplaggr cubeplaggrtype=minus>%s</cubeplaggr>\n", m->minus);
  }
  free(e);
  free(init);
}

static void metrics(pm_cube_buf *b, const pm_profile *p, const pm_cube_layout *lay, const pm_cube_counter_metrics *cm) {
  int stack[64], sp = 0;          /* open <metric> elements; the table is shallow (checked by a unit test) */
  int ncounters = cm ? cm->n : 0; /* hardware counters: roots after the table (pm_cube_counters.c) */
  pm_cube_buf_puts(b, "<metrics title=\"popmeter\">\n");
  int nfixed = pm_cube_nmetrics_of(p); /* the transfer rows only when measured */
  for (int i = 0; i < nfixed + ncounters; i++) {
    const pm_cube_metric_def *m = i < nfixed ? &pm_cube_metrics[i] : &cm->m[i - nfixed];
    while (sp > 0 && stack[sp - 1] != m->parent) {
      pm_cube_buf_puts(b, "</metric>\n");
      sp--;
    }
    static const char *const types[] = {[PM_CUBE_EXCLUSIVE] = "EXCLUSIVE",
                                        [PM_CUBE_POSTDERIVED] = "POSTDERIVED",
                                        [PM_CUBE_PREDERIVED_INCLUSIVE] = "PREDERIVED_INCLUSIVE",
                                        [PM_CUBE_PREDERIVED_EXCLUSIVE] = "PREDERIVED_EXCLUSIVE"};
    pm_cube_buf_printf(b, "<metric id=\"%d\" type=\"%s\"%s%s>\n", i, types[m->type],
                       m->ghost ? " viztype=\"GHOST\"" : "",
                       m->src == PM_CUBE_SRC_DERIVED ? " convertible=\"false\"" : "");
    element(b, "disp_name", m->disp);
    element(b, "uniq_name", m->uniq);
    element(b, "dtype", m->dtype == PM_CUBE_UINT64 ? "UINT64" : "DOUBLE");
    element(b, "uom", m->uom);
    element(b, "descr", m->descr);
    if (m->src == PM_CUBE_SRC_DERIVED) derived_expressions(b, m, p, lay);
    if (b->failed) return;
    if (sp < (int)(sizeof stack / sizeof stack[0])) stack[sp++] = i;
  }
  while (sp-- > 0) pm_cube_buf_puts(b, "</metric>\n");
  pm_cube_buf_puts(b, "</metrics>\n");
}

static void program(pm_cube_buf *b, const pm_profile *p) {
  pm_cube_buf_puts(b, "<program>\n");
  for (int r = 0; r < p->nregions; r++) {
    pm_cube_buf_printf(b, "<region id=\"%d\" mod=\"\" begin=\"-1\" end=\"-1\">\n", r);
    element(b, "name", p->reg[r].name ? p->reg[r].name : "");
    element(b, "paradigm", paradigm_name(p->reg[r].paradigm));
    element(b, "role", role_name(p->reg[r].role));
    pm_cube_buf_puts(b, "</region>\n");
  }
  int *order = malloc(sizeof(int) * (size_t)(p->ncnodes + 1));
  int *stack = malloc(sizeof(int) * (size_t)(p->ncnodes + 1));
  if (!order || !stack || pm_cube_preorder(p->cnode, p->ncnodes, order) != 0) {
    b->failed = 1;
  } else {
    int sp = 0;
    for (int k = 0; k < p->ncnodes; k++) { /* pre-order: close until the parent is on top */
      int c = order[k];
      while (sp > 0 && stack[sp - 1] != p->cnode[c].parent) {
        pm_cube_buf_puts(b, "</cnode>\n");
        sp--;
      }
      pm_cube_buf_printf(b, "<cnode id=\"%d\" calleeId=\"%d\">\n", c, p->cnode[c].region);
      stack[sp++] = c;
    }
    while (sp-- > 0) pm_cube_buf_puts(b, "</cnode>\n");
  }
  free(order);
  free(stack);
  pm_cube_buf_puts(b, "</program>\n");
}

static void system_tree(pm_cube_buf *b, const pm_profile *p, const pm_cube_layout *lay) {
  pm_cube_buf_puts(b, "<system>\n<systemtreenode Id=\"0\">\n");
  element(b, "name", "machine");
  element(b, "class", "machine");
  int g = 0, c = 0, stn = 1;
  for (int node = 0; node < p->nnodes; node++) {
    /* groups and columns are sorted by node, so each node's share is the next contiguous run */
    if (g >= p->nprocesses || p->proc[lay->proc_of_group[g]].node != node) continue;
    pm_cube_buf_printf(b, "<systemtreenode Id=\"%d\">\n", stn++);
    element(b, "name", p->proc[lay->proc_of_group[g]].host);
    element(b, "class", "node");
    for (; g < p->nprocesses && p->proc[lay->proc_of_group[g]].node == node; g++) {
      int proc = lay->proc_of_group[g];
      char name[48];
      snprintf(name, sizeof name, "rank %d", p->proc[proc].rank);
      pm_cube_buf_printf(b, "<locationgroup Id=\"%d\">\n", g);
      element(b, "name", name);
      pm_cube_buf_printf(b, "<rank>%d</rank>\n<type>process</type>\n", p->proc[proc].rank);
      for (; c < p->nlocations && p->loc[lay->loc_of_col[c]].process == proc; c++) {
        const pm_prof_location *l = &p->loc[lay->loc_of_col[c]];
        pm_cube_buf_printf(b, "<location Id=\"%d\">\n", c);
        element(b, "name", l->name[0] ? l->name : "location");
        pm_cube_buf_printf(b, "<rank>%d</rank>\n<type>%s</type>\n</location>\n", l->thread,
                           l->role == PM_ROLE_DEVICE ? "gpu" : "thread");
      }
      pm_cube_buf_puts(b, "</locationgroup>\n");
    }
    pm_cube_buf_puts(b, "</systemtreenode>\n");
  }
  pm_cube_buf_puts(b, "</systemtreenode>\n</system>\n");
}

void pm_cube_anchor(pm_cube_buf *b, const pm_profile *p, const pm_cube_layout *lay,
                    const struct pm_metric *const *models, int nmodels, const pm_cube_counter_metrics *counters) {
  header(b, p, lay, models, nmodels);
  metrics(b, p, lay, counters);
  program(b, p);
  system_tree(b, p, lay);
  pm_cube_buf_puts(b, "</cube>\n");
}
