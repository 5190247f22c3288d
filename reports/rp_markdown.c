/* Markdown report (for a merge request, a wiki, a CI summary): the same tables as the text report,
 * one column per configuration, min-max of repeats in brackets, then the regions, changes, plots
 * (linked, relative to the report directory) and the runs. */
#define _GNU_SOURCE
#include "rp_output.h"
#include <stdlib.h>
#include <string.h>

static void label(FILE *out, const rp_row *r) {
  int i;
  for (i = 0; i < r->depth; i++) fputs("&nbsp;&nbsp;", out);
  rp_put_md(out, r->label->name);
  if (r->label->unit[0]) {
    fputs(" \\[", out);
    rp_put_md(out, r->label->unit);
    fputs("\\]", out);
  }
}

/* trees[c * RP_NSTATS + k]: configuration c, statistic k. */
static int table(FILE *out, const rp_study *s, pm_metric **trees) {
  pm_metric **med = calloc((size_t)s->ncfg + 1, sizeof *med);
  rp_row *rows;
  int n, i, c;
  char cell[96];
  if (!med) return -1;
  for (c = 0; c < s->ncfg; c++) med[c] = trees[c * RP_NSTATS + RP_MEDIAN];
  n = rp_rows_collect(med, s->ncfg, &rows);
  free(med);
  if (n < 0) return -1;
  fputs("| Metric |", out);
  for (c = 0; c < s->ncfg; c++) fprintf(out, " %s |", s->cfg[c].label);
  fputs("\n|:---|", out);
  for (c = 0; c < s->ncfg; c++) fputs("---:|", out);
  fputc('\n', out);
  for (i = 0; i < n; i++) {
    fputs("| ", out);
    label(out, &rows[i]);
    fputs(" |", out);
    for (c = 0; c < s->ncfg; c++)
      fprintf(out, " %s |",
              rp_cell_text(&s->cfg[c], &trees[c * RP_NSTATS], rows[i].path, "\xE2\x80\x93", cell, sizeof cell));
    fputc('\n', out);
  }
  rp_rows_free(rows, n);
  return 0;
}

/* Why values are n/a, once per (metric, reason), from the median trees. */
static void na_notes_rec(FILE *out, const pm_metric *m, char ***seen, int *nseen) {
  size_t i;
  int k;
  if (m->state == PM_METRIC_NA) {
    char *key = NULL;
    if (asprintf(&key, "%s: %s", m->name, m->na_reason) >= 0) {
      for (k = 0; k < *nseen && strcmp((*seen)[k], key); k++)
        ;
      if (k == *nseen) {
        char **w = realloc(*seen, (size_t)(*nseen + 1) * sizeof *w);
        if (w) {
          *seen = w;
          w[(*nseen)++] = key;
          fputs("- ", out);
          rp_put_md(out, key);
          fputc('\n', out);
          key = NULL;
        }
      }
      free(key);
    }
  }
  for (i = 0; i < m->nchildren; i++) na_notes_rec(out, m->children[i], seen, nseen);
}

static void na_notes(FILE *out, pm_metric **trees, int n) {
  char **seen = NULL;
  int nseen = 0, c;
  for (c = 0; c < n; c++)
    if (trees[c * RP_NSTATS]) na_notes_rec(out, trees[c * RP_NSTATS], &seen, &nseen);
  if (nseen) fputc('\n', out);
  for (c = 0; c < nseen; c++) free(seen[c]);
  free(seen);
}

static void changes(FILE *out, const rp_study *s, double threshold) {
  rp_diff_entry *d;
  int n = rp_diff_regions(s, threshold, &d), i;
  if (n < 0) return;
  fprintf(out, "## Changes from %s to %s\n\n", s->cfg[s->ref].label,
          s->cfg[s->ref == s->ncfg - 1 ? 0 : s->ncfg - 1].label);
  if (n == 0)
    fprintf(out, "No region changed by more than %.0f %%.\n\n", 100 * threshold);
  else
    fputs("| Change | Region | Time A [s] | Time B [s] | Speedup |\n|:---|:---|---:|---:|---:|\n", out);
  for (i = 0; i < n; i++) {
    fprintf(out, "| %s | ", rp_diff_kind_name(d[i].kind));
    rp_put_md(out, s->regions[d[i].region].name);
    fprintf(out, " | %.3f | %.3f | ", d[i].time_a, d[i].time_b);
    if (d[i].kind <= RP_DIFF_FASTER) fprintf(out, "%.2f", d[i].speedup);
    fputs(" |\n", out);
  }
  if (n > 0) fputc('\n', out);
  free(d);
}

int rp_write_markdown(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o) {
  pm_metric **trees = calloc((size_t)s->ncfg * RP_NSTATS + 1, sizeof *trees);
  int *order = calloc((size_t)s->nregions + 1, sizeof *order);
  int c, k, n, i, rc = 0;
  if (!trees || !order) {
    free(trees);
    free(order);
    return -1;
  }
  fputs("# popmeter scaling report: ", out);
  rp_put_md(out, s->app);
  fprintf(out,
          "\n\n%s scaling (%s), reference **%s**. Repeated configurations show the median "
          "with the min\xE2\x80\x93max range in brackets.\n\n",
          s->mode == PM_SCALING_WEAK ? "Weak" : "Strong", s->mode_declared ? "declared" : "detected",
          s->cfg[s->ref].label);
  fputs("## POP efficiencies\n\n", out);
  for (c = 0; c < s->ncfg; c++)
    for (k = 0; k < RP_NSTATS; k++) trees[c * RP_NSTATS + k] = s->cfg[c].tree[k];
  if (table(out, s, trees) != 0) rc = -1;
  fputc('\n', out);
  na_notes(out, trees, s->ncfg);
  n = rp_regions_ranked(s, order, o->max_regions);
  if (n > 0) {
    fputs("## Regions (inclusive time)\n\n", out);
    for (c = 0; c < s->ncfg; c++)
      for (k = 0; k < RP_NSTATS; k++) trees[c * RP_NSTATS + k] = rp_tree_regions_table(s, c, k, order, n);
    if (table(out, s, trees) != 0) rc = -1;
    for (i = 0; i < s->ncfg * RP_NSTATS; i++) pm_metric_free(trees[i]);
    fputc('\n', out);
    for (i = 0; i < n; i++) {
      int f = rp_region_first_below(s, order[i], RP_AMBER_BELOW);
      if (f < 0) continue;
      fputs("- ", out);
      rp_put_md(out, s->regions[order[i]].name);
      fprintf(out, ": global efficiency below %.2f from %s\n", RP_AMBER_BELOW, s->cfg[f].label);
    }
    fputc('\n', out);
  }
  if (s->diff) changes(out, s, o->diff_threshold);
  if (plots && plots->n > 0) {
    fputs("## Plots\n\n", out);
    for (i = 0; i < plots->n; i++)
      if (plots->plot[i].svg || plots->plot[i].png)
        fprintf(out, "![%s](plots/%s.%s)\n\n", plots->plot[i].title, plots->plot[i].name,
                plots->plot[i].svg ? "svg" : "png");
  }
  fputs("## Runs\n\n", out);
  for (c = 0; c < s->ncfg; c++)
    for (i = 0; i < s->cfg[c].nruns; i++) {
      fprintf(out, "- %s: ", s->cfg[c].label);
      rp_put_md(out, s->runs[s->cfg[c].runs[i]].path);
      fputc('\n', out);
    }
  if (s->nproblems || (plots && plots->note[0])) {
    fputs("\n## Notes\n\n", out);
    for (i = 0; i < s->nproblems; i++) {
      fputs("- skipped: ", out);
      rp_put_md(out, s->problems[i]);
      fputc('\n', out);
    }
    if (plots && plots->note[0]) {
      fputs("- ", out);
      rp_put_md(out, plots->note);
      fputc('\n', out);
    }
  }
  free(trees);
  free(order);
  return rc || ferror(out) ? -1 : 0;
}
