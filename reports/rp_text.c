/* The text report: the same renderer as the end-of-run table (pm_render_text), one column per
 * configuration, split into as many tables as the width needs; then the regions, where they
 * lose efficiency first, a two-run comparison's changes, and the notes. */
#include "rp_output.h"
#include <stdlib.h>
#include <string.h>

static void rule(FILE *out, int width, char c, const char *title) {
  int i, n = width - (title ? (int)strlen(title) + 2 : 0);
  for (i = 0; i < n; i++) fputc(c, out);
  if (title) fprintf(out, " %s", title); /* no trailing blank */
  fputc('\n', out);
}

/* One column per configuration, in chunks that fit the width. */
static int render_columns(FILE *out, pm_metric **trees, const char **headers, int n, int width) {
  size_t done = 0;
  while (done < (size_t)n) {
    const pm_metric *const *t = (const pm_metric *const *)trees + done;
    size_t k = pm_render_text_columns_fit(t, (size_t)n - done, headers + done, width);
    if (done) fputc('\n', out);
    if (pm_render_text(out, t, k, headers + done, width) != 0) return -1;
    done += k;
  }
  return 0;
}

static void header(FILE *out, const rp_study *s) {
  int c, runs = 0;
  for (c = 0; c < s->ncfg; c++) runs += s->cfg[c].nruns;
  fprintf(out, " %s: %s, %d run%s in %d configuration%s\n", s->app,
          s->diff ? "comparison of two runs" : "scaling study", runs, runs == 1 ? "" : "s", s->ncfg,
          s->ncfg == 1 ? "" : "s");
  fprintf(out, " %s scaling (%s), reference %s\n", s->mode == PM_SCALING_WEAK ? "Weak" : "Strong",
          s->mode_declared ? "declared" : "detected", s->cfg[s->ref].label);
  for (c = 0; c < s->ncfg; c++)
    if (s->cfg[c].nruns > 1) {
      fprintf(out, " Repeated configurations show the median (min-max in the CSV, Markdown and "
                   "HTML).\n");
      break;
    }
}

static void first_below(FILE *out, const rp_study *s, const int *order, int n) {
  int i, shown = 0;
  for (i = 0; i < n; i++) {
    int c = rp_region_first_below(s, order[i], RP_AMBER_BELOW);
    if (c < 0) continue;
    if (!shown++)
      fprintf(out, " Regions losing efficiency (global efficiency below %.2f), worst first:\n", RP_AMBER_BELOW);
    fprintf(out, "   %-40.40s from %s\n", s->regions[order[i]].name, s->cfg[c].label);
  }
}

static void changes(FILE *out, const rp_study *s, double threshold) {
  rp_diff_entry *d;
  int n = rp_diff_regions(s, threshold, &d), i;
  const char *other = s->cfg[rp_diff_other(s)].label;
  if (n < 0) return;
  fprintf(out, " Regions that changed from %s to %s (speedup beyond 1 +- %.2f):\n", s->cfg[s->ref].label, other,
          threshold);
  if (n == 0) fprintf(out, "   none\n");
  for (i = 0; i < n; i++) {
    fprintf(out, "   %-12s %-36.36s %10.3f s -> %10.3f s", rp_diff_kind_name(d[i].kind), s->regions[d[i].region].name,
            d[i].time_a, d[i].time_b);
    if (d[i].kind <= RP_DIFF_FASTER) fprintf(out, "  speedup %.2f", d[i].speedup);
    fputc('\n', out);
  }
  free(d);
}

int rp_write_text(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o) {
  int width = o->width > 0 ? o->width : PM_TEXT_WIDTH, c, n, i, rc = 0;
  pm_metric **trees = calloc((size_t)s->ncfg + 1, sizeof *trees);
  const char **headers = calloc((size_t)s->ncfg + 1, sizeof *headers);
  int *order = calloc((size_t)s->nregions + 1, sizeof *order);
  if (!trees || !headers || !order) {
    rc = -1;
    goto out;
  }
  if (width < 60) width = 60;
  rule(out, width, '=', "popmeter-report");
  header(out, s);
  rule(out, width, '-', NULL);
  for (c = 0; c < s->ncfg; c++) {
    trees[c] = s->cfg[c].tree[RP_MEDIAN];
    headers[c] = s->cfg[c].label;
  }
  if (render_columns(out, trees, headers, s->ncfg, width) != 0) rc = -1;
  n = rp_regions_ranked(s, order, o->max_regions);
  if (n > 0) {
    rule(out, width, '-', NULL);
    for (c = 0; c < s->ncfg; c++) trees[c] = rp_tree_regions_table(s, c, RP_MEDIAN, order, n);
    if (render_columns(out, trees, headers, s->ncfg, width) != 0) rc = -1;
    for (c = 0; c < s->ncfg; c++) pm_metric_free(trees[c]);
    if (n < s->nregions)
      fprintf(out, " (%d region%s with the most time shown; all are in the CSV and JSON)\n", n, n == 1 ? "" : "s");
    first_below(out, s, order, n);
  }
  if (s->diff) {
    rule(out, width, '-', NULL);
    changes(out, s, o->diff_threshold);
  }
  if (s->nproblems || s->nnotes || (plots && plots->note[0])) {
    rule(out, width, '-', NULL);
    fprintf(out, " Notes:\n");
    for (i = 0; i < s->nnotes; i++) fprintf(out, "   - %s\n", s->notes[i]);
    for (i = 0; i < s->nproblems; i++) fprintf(out, "   - skipped: %s\n", s->problems[i]);
    if (plots && plots->note[0]) fprintf(out, "   - %s\n", plots->note);
  }
  rule(out, width, '=', NULL);
out:
  free(trees);
  free(headers);
  free(order);
  return rc || ferror(out) ? -1 : 0;
}
