/* CSV (RFC 4180, long format: one row per metric and configuration, so that a spreadsheet or a
 * script can filter and pivot it). Columns:
 *   section   study | scaling | region | load
 *   region    the region name (section region), else empty
 *   config    configuration label ("4x2"); processes, threads, repeats: its shape and run count
 *   metric    path of metric ids ("ge/pe/lb"; load: "rank_<r>"; study: "mode", "reference")
 *   name      the metric's name; value, min, max: six decimals (min/max empty with one run)
 *   note      why the value is n/a, or the study's mode
 * Fixed decimals make the file reproducible and comparable byte for byte across runs. */
#include "rp_output.h"
#include <string.h>

static void num(FILE *out, int ok, double v) {
  if (ok) fprintf(out, "%.6f", v);
}

static void begin(FILE *out, const char *section, const char *region, const rp_config *c) {
  fprintf(out, "%s,", section);
  rp_put_csv(out, region);
  if (c)
    fprintf(out, ",%s,%d,%d,%d,", c->label, c->nprocesses, c->nthreads, c->nruns);
  else
    fputs(",,,,,", out);
}

static void node_rows(FILE *out, const char *section, const char *region, const rp_config *c, pm_metric *const *t,
                      const pm_metric *m, const char *parent) {
  char path[512];
  const pm_metric *lo, *hi;
  size_t i;
  snprintf(path, sizeof path, "%s%s%s", parent, parent[0] ? "/" : "", m->id);
  lo = t[RP_MIN] ? pm_metric_find(t[RP_MIN], path) : NULL;
  hi = t[RP_MAX] ? pm_metric_find(t[RP_MAX], path) : NULL;
  begin(out, section, region, c);
  fprintf(out, "%s,", path);
  rp_put_csv(out, m->name);
  fputc(',', out);
  num(out, m->state == PM_METRIC_VALUE, m->value);
  fputc(',', out);
  num(out, c->nruns > 1 && lo && lo->state == PM_METRIC_VALUE, lo ? lo->value : 0);
  fputc(',', out);
  num(out, c->nruns > 1 && hi && hi->state == PM_METRIC_VALUE, hi ? hi->value : 0);
  fputc(',', out);
  if (m->state == PM_METRIC_NA) rp_put_csv(out, m->na_reason);
  fputc('\n', out);
  for (i = 0; i < m->nchildren; i++) node_rows(out, section, region, c, t, m->children[i], path);
}

static void tree_rows(FILE *out, const char *section, const char *region, const rp_config *c, pm_metric *const *t) {
  size_t i;
  for (i = 0; t[RP_MEDIAN] && i < t[RP_MEDIAN]->nchildren; i++)
    node_rows(out, section, region, c, t, t[RP_MEDIAN]->children[i], "");
}

int rp_write_csv(FILE *out, const rp_study *s) {
  int c, g, p, k;
  fputs("section,region,config,processes,threads,repeats,metric,name,value,min,max,note\n", out);
  begin(out, "study", "", NULL);
  fprintf(out, "mode,Scaling mode,,,,%s (%s)\n", rp_mode_name(s->mode), s->mode_declared ? "declared" : "detected");
  begin(out, "study", "", &s->cfg[s->ref]);
  fputs("reference,Reference configuration,,,,\n", out);
  for (c = 0; c < s->ncfg; c++) tree_rows(out, "scaling", "", &s->cfg[c], s->cfg[c].tree);
  for (g = 0; g < s->nregions; g++)
    for (c = 0; c < s->ncfg; c++) {
      pm_metric *t[RP_NSTATS];
      for (k = 0; k < RP_NSTATS; k++) t[k] = s->cfg[c].rtree[k][g];
      if (t[RP_MEDIAN]) tree_rows(out, "region", s->regions[g].name, &s->cfg[c], t);
    }
  for (c = 0; c < s->ncfg; c++) {
    const rp_config *cf = &s->cfg[c];
    for (p = 0; p < cf->nprocesses; p++) {
      begin(out, "load", "", cf);
      fprintf(out, "rank_%d,Parallel efficiency of rank %d,", p, p);
      num(out, 1, cf->rank_pe[RP_MEDIAN][p]);
      fputc(',', out);
      num(out, cf->nruns > 1, cf->rank_pe[RP_MIN][p]);
      fputc(',', out);
      num(out, cf->nruns > 1, cf->rank_pe[RP_MAX][p]);
      fputs(",\n", out);
    }
  }
  return ferror(out) ? -1 : 0;
}
