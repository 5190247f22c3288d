/* Markdown report (for a merge request, a wiki, a CI summary): the same tables as the text report,
 * one column per configuration, min-max of repeats in brackets, then the regions, changes, plots
 * (linked, relative to the report directory) and the runs. The tables are built by rp_rows.c;
 * this file only formats them. */
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

static int table(FILE *out, const rp_study *s, const rp_table *t) {
  int r, c;
  if (t->failed) return -1;
  fputs("| Metric |", out);
  for (c = 0; c < s->ncfg; c++) fprintf(out, " %s |", s->cfg[c].label);
  fputs("\n|:---|", out);
  for (c = 0; c < s->ncfg; c++) fputs("---:|", out);
  fputc('\n', out);
  for (r = 0; r < t->nrows; r++) {
    fputs("| ", out);
    label(out, &t->row[r]);
    fputs(" |", out);
    for (c = 0; c < t->ncols; c++) fprintf(out, " %s |", t->cell[r * t->ncols + c].text);
    fputc('\n', out);
  }
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

static void na_notes(FILE *out, const rp_study *s) {
  char **seen = NULL;
  int nseen = 0, c;
  for (c = 0; c < s->ncfg; c++)
    if (s->cfg[c].tree[RP_MEDIAN]) na_notes_rec(out, s->cfg[c].tree[RP_MEDIAN], &seen, &nseen);
  if (nseen) fputc('\n', out);
  for (c = 0; c < nseen; c++) free(seen[c]);
  free(seen);
}

static void changes(FILE *out, const rp_study *s, double threshold) {
  rp_diff_entry *d;
  int n = rp_diff_regions(s, threshold, &d), i;
  if (n < 0) return;
  fprintf(out, "## Changes from %s to %s\n\n", s->cfg[s->ref].label, s->cfg[rp_diff_other(s)].label);
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

/* The study's messages as list items, each after prefix. */
static void items(FILE *out, const char *prefix, char *const *msg, int n) {
  for (int i = 0; i < n; i++) {
    fprintf(out, "- %s", prefix);
    rp_put_md(out, msg[i]);
    fputc('\n', out);
  }
}

int rp_write_markdown(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o) {
  rp_tables t;
  int c, i, rc = 0;
  if (rp_tables_build(&t, s, o->max_regions) != 0) return -1;
  fputs("# popmeter scaling report: ", out);
  rp_put_md(out, s->app);
  fprintf(out,
          "\n\n%s scaling (%s), reference **%s**. Repeated configurations show the median "
          "with the min\xE2\x80\x93max range in brackets.\n\n",
          s->mode == PM_SCALING_WEAK ? "Weak" : "Strong", s->mode_declared ? "declared" : "detected",
          s->cfg[s->ref].label);
  fputs("## POP efficiencies\n\n", out);
  if (table(out, s, &t.pop) != 0) rc = -1;
  fputc('\n', out);
  na_notes(out, s);
  if (t.nregions > 0) {
    fputs("## Regions (inclusive time)\n\n", out);
    if (table(out, s, &t.regions) != 0) rc = -1;
    fputc('\n', out);
    for (i = 0; i < t.nregions; i++) {
      int f = rp_region_first_below(s, t.order[i], RP_AMBER_BELOW);
      if (f < 0) continue;
      fputs("- ", out);
      rp_put_md(out, s->regions[t.order[i]].name);
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
  if (s->nproblems || s->nnotes || (plots && plots->note[0])) {
    fputs("\n## Notes\n\n", out);
    items(out, "", s->notes, s->nnotes);
    items(out, "skipped: ", s->problems, s->nproblems);
    if (plots && plots->note[0]) {
      fputs("- ", out);
      rp_put_md(out, plots->note);
      fputc('\n', out);
    }
  }
  rp_tables_free(&t);
  return rc || ferror(out) ? -1 : 0;
}
