/* scaling.json: the whole study for other tools ({"schema": "popmeter-scaling", "version": 1}).
 * Trees are metrics/' JSON form (pm_render_json), so a reader of popmeter.json's "models" reads
 * these too. See docs/reports.md for the layout. */
#include "rp_output.h"
#include <jansson.h>
#include <stdlib.h>

/* Names and paths come from the measured program and the file system: any bytes. */
static json_t *jstr(const char *s) {
  char *c = rp_utf8_clean(s);
  json_t *j = c ? json_string(c) : NULL;
  free(c);
  return j ? j : json_string("");
}

static json_t *tree_json(const pm_metric *t) {
  char *s = t ? pm_render_json_string(t, 0) : NULL;
  json_t *j = s ? json_loads(s, 0, NULL) : NULL;
  free(s);
  return j ? j : json_null();
}

/* {"median": ..., "min": ..., "max": ...} (min and max only for repeated configurations) */
static json_t *stats_json(const rp_config *c, pm_metric *const *t) {
  json_t *o = json_object();
  json_object_set_new(o, "median", tree_json(t[RP_MEDIAN]));
  if (c->nruns > 1) {
    json_object_set_new(o, "min", tree_json(t[RP_MIN]));
    json_object_set_new(o, "max", tree_json(t[RP_MAX]));
  }
  return o;
}

static json_t *doubles(const double *v, int n) {
  json_t *a = json_array();
  int i;
  for (i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
  return a;
}

static json_t *config_json(const rp_study *s, const rp_config *c) {
  json_t *o = json_object(), *runs = json_array(), *regions = json_object(), *load = json_object();
  int i, g, k;
  static const char *const stat[] = {"median", "min", "max"};
  json_object_set_new(o, "label", json_string(c->label));
  json_object_set_new(o, "processes", json_integer(c->nprocesses));
  json_object_set_new(o, "threads", json_integer(c->nthreads));
  json_object_set_new(o, "repeats", json_integer(c->nruns));
  for (i = 0; i < c->nruns; i++) json_array_append_new(runs, jstr(s->runs[c->runs[i]].path));
  json_object_set_new(o, "runs", runs);
  json_object_set_new(o, "has_critical_path", json_boolean(c->has_cp));
  json_object_set_new(o, "critical_path", json_real(c->g_cue[RP_MEDIAN]));
  json_object_set_new(o, "max_useful", json_real(c->max_useful[RP_MEDIAN]));
  json_object_set_new(o, "scaling", stats_json(c, c->tree));
  for (k = 0; k < RP_NSTATS; k++)
    if (k == RP_MEDIAN || c->nruns > 1) json_object_set_new(load, stat[k], doubles(c->rank_pe[k], c->nprocesses));
  json_object_set_new(o, "rank_efficiency", load);
  for (g = 0; g < s->nregions; g++) {
    pm_metric *t[RP_NSTATS];
    for (k = 0; k < RP_NSTATS; k++) t[k] = c->rtree[k][g];
    if (t[RP_MEDIAN]) {
      char *name = rp_utf8_clean(s->regions[g].name);
      if (name) json_object_set_new(regions, name, stats_json(c, t));
      free(name);
    }
  }
  json_object_set_new(o, "regions", regions);
  return o;
}

static json_t *diff_json(const rp_study *s, double threshold) {
  json_t *o = json_object(), *lists[4];
  rp_diff_entry *d;
  int n = rp_diff_regions(s, threshold, &d), i;
  static const char *const keys[] = {"slowed_down", "sped_up", "new", "gone"};
  json_object_set_new(o, "threshold", json_real(threshold));
  for (i = 0; i < 4; i++) lists[i] = json_array();
  for (i = 0; i < n; i++) {
    json_t *e = json_pack("{s:o,s:f,s:f}", "region", jstr(s->regions[d[i].region].name), "time_a", d[i].time_a,
                          "time_b", d[i].time_b);
    if (e && d[i].kind <= RP_DIFF_FASTER) json_object_set_new(e, "speedup", json_real(d[i].speedup));
    if (e) json_array_append_new(lists[d[i].kind], e);
  }
  for (i = 0; i < 4; i++) json_object_set_new(o, keys[i], lists[i]);
  free(d);
  return o;
}

int rp_write_json(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o) {
  json_t *root = json_object(), *cfgs = json_array(), *regs = json_array(), *pl = json_array();
  json_t *probs = json_array();
  int c, g, i, rc;
  json_object_set_new(root, "schema", json_string("popmeter-scaling"));
  json_object_set_new(root, "version", json_integer(1));
  json_object_set_new(root, "app", jstr(s->app));
  json_object_set_new(root, "mode", json_string(rp_mode_name(s->mode)));
  json_object_set_new(root, "mode_source", json_string(s->mode_declared ? "declared" : "detected"));
  json_object_set_new(root, "reference", json_string(s->cfg[s->ref].label));
  json_object_set_new(root, "diff", json_boolean(s->diff));
  for (c = 0; c < s->ncfg; c++) json_array_append_new(cfgs, config_json(s, &s->cfg[c]));
  json_object_set_new(root, "configurations", cfgs);
  for (g = 0; g < s->nregions; g++) {
    int f = rp_region_first_below(s, g, RP_AMBER_BELOW);
    json_array_append_new(regs, json_pack("{s:o,s:f,s:o}", "name", jstr(s->regions[g].name), "reference_time",
                                          s->regions[g].ref_time, "first_below_0_8",
                                          f < 0 ? json_null() : json_string(s->cfg[f].label)));
  }
  json_object_set_new(root, "regions", regs);
  if (s->diff) json_object_set_new(root, "changes", diff_json(s, o->diff_threshold));
  for (i = 0; plots && i < plots->n; i++) {
    json_t *p = json_pack("{s:s,s:s}", "name", plots->plot[i].name, "title", plots->plot[i].title);
    char f[64];
    if (plots->plot[i].svg) {
      snprintf(f, sizeof f, "plots/%s.svg", plots->plot[i].name);
      json_object_set_new(p, "svg", json_string(f));
    }
    if (plots->plot[i].png) {
      snprintf(f, sizeof f, "plots/%s.png", plots->plot[i].name);
      json_object_set_new(p, "png", json_string(f));
    }
    json_array_append_new(pl, p);
  }
  json_object_set_new(root, "plots", pl);
  for (i = 0; i < s->nproblems; i++) json_array_append_new(probs, jstr(s->problems[i]));
  json_object_set_new(root, "problems", probs);
  json_t *notes = json_array();
  for (i = 0; i < s->nnotes; i++) json_array_append_new(notes, jstr(s->notes[i]));
  json_object_set_new(root, "notes", notes);
  rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
  fputc('\n', out);
  json_decref(root);
  return rc != 0 || ferror(out) ? -1 : 0;
}
