/* One self-contained HTML page (opens from a laptop, no network): the efficiency table colour-
 * scaled (red < 0.5 <= amber < 0.8 <= green), the regions, the changes of a two-run comparison,
 * the plots inlined as base64 data URIs (PNG, or SVG when only that was drawn) and the runs. No
 * script, no external style sheet, font or image. The tables are built by rp_rows.c; this file
 * only formats them. */
#include "rp_output.h"
#include <stdlib.h>
#include <string.h>

static const char *const css =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:70em;color:#222;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}"
    "table{border-collapse:collapse;font-size:.92em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em}td.v{text-align:right;white-space:nowrap}"
    "th{background:#f0f0f0}td.g{background:#b7e1a1}td.a{background:#ffe08a}td.r{background:#f4a3a3}"
    "td.na{color:#888}.legend span{padding:.1em .5em;margin-right:.5em}"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}"
    "p.meta{color:#555}ul.notes li{color:#555;font-size:.9em}ul.problems li{color:#a00}";

/* A list of the study's messages (none: nothing), each after prefix. */
static void list(FILE *out, const char *cls, const char *prefix, char *const *msg, int n) {
  if (!n) return;
  fprintf(out, "<ul class=\"%s\">\n", cls);
  for (int i = 0; i < n; i++) {
    fprintf(out, "<li>%s", prefix);
    rp_put_html(out, msg[i]);
    fputs("</li>\n", out);
  }
  fputs("</ul>\n", out);
}

/* Efficiencies (no unit) get the traffic-light class; speedup, seconds and n/a do not. */
static const char *colour(const pm_metric *m) {
  if (!m || m->state != PM_METRIC_VALUE || m->unit[0]) return "";
  if (m->value < RP_RED_BELOW) return " r";
  if (m->value < RP_AMBER_BELOW) return " a";
  return " g";
}

static int table(FILE *out, const rp_study *s, const rp_table *t) {
  int r, c;
  if (t->failed) return -1;
  fputs("<table>\n<thead><tr><th>Metric</th>", out);
  for (c = 0; c < s->ncfg; c++) fprintf(out, "<th>%s</th>", s->cfg[c].label);
  fputs("</tr></thead>\n<tbody>\n", out);
  for (r = 0; r < t->nrows; r++) {
    const rp_row *row = &t->row[r];
    fprintf(out, "<tr><td style=\"padding-left:%.1fem\" title=\"", 0.6 + 1.2 * row->depth);
    rp_put_html(out, row->label->description);
    fputs("\">", out);
    rp_put_html(out, row->label->name);
    if (row->label->unit[0]) {
      fputs(" [", out);
      rp_put_html(out, row->label->unit);
      fputc(']', out);
    }
    fputs("</td>", out);
    for (c = 0; c < t->ncols; c++) {
      const rp_cell *x = &t->cell[r * t->ncols + c];
      const pm_metric *m = x->median;
      fprintf(out, "<td class=\"v%s%s\"", colour(m), m && m->state == PM_METRIC_NA ? " na" : "");
      if (m && m->state == PM_METRIC_NA) {
        fputs(" title=\"", out);
        rp_put_html(out, m->na_reason);
        fputc('"', out);
      }
      fputc('>', out);
      rp_put_html(out, x->text);
      fputs("</td>", out);
    }
    fputs("</tr>\n", out);
  }
  fputs("</tbody>\n</table>\n", out);
  return 0;
}

static void changes(FILE *out, const rp_study *s, double threshold) {
  rp_diff_entry *d;
  int n = rp_diff_regions(s, threshold, &d), i;
  if (n < 0) return;
  fprintf(out, "<h2>Changes from %s to %s</h2>\n", s->cfg[s->ref].label, s->cfg[rp_diff_other(s)].label);
  if (n == 0) {
    fprintf(out, "<p>No region changed by more than %.0f %%.</p>\n", 100 * threshold);
    return;
  }
  fputs("<table>\n<thead><tr><th>Change</th><th>Region</th><th>Time A [s]</th><th>Time B [s]</th>"
        "<th>Speedup</th></tr></thead>\n<tbody>\n",
        out);
  for (i = 0; i < n; i++) {
    fprintf(out, "<tr><td class=\"%s\">%s</td><td>",
            d[i].kind == RP_DIFF_SLOWER   ? "r"
            : d[i].kind == RP_DIFF_FASTER ? "g"
                                          : "a",
            rp_diff_kind_name(d[i].kind));
    rp_put_html(out, s->regions[d[i].region].name);
    fprintf(out, "</td><td class=\"v\">%.3f</td><td class=\"v\">%.3f</td><td class=\"v\">", d[i].time_a, d[i].time_b);
    if (d[i].kind <= RP_DIFF_FASTER) fprintf(out, "%.2f", d[i].speedup);
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody>\n</table>\n", out);
  free(d);
}

static void figure(FILE *out, const rp_plots *plots, const rp_plot *p) {
  char path[PATH_MAX];
  size_t len = 0;
  unsigned char *data;
  const char *ext = p->png ? "png" : "svg", *mime = p->png ? "image/png" : "image/svg+xml";
  if (!p->png && !p->svg) return;
  if (rp_path(path, sizeof path, "%s/%s.%s", plots->dir, p->name, ext) != 0 ||
      !(data = (unsigned char *)rp_read_all(path, &len)))
    return;
  fputs("<figure><img alt=\"", out);
  rp_put_html(out, p->title);
  fprintf(out, "\" src=\"data:%s;base64,", mime);
  rp_put_base64(out, data, len);
  fputs("\"><figcaption>", out);
  rp_put_html(out, p->title);
  fputs("</figcaption></figure>\n", out);
  free(data);
}

int rp_write_html(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o) {
  rp_tables t;
  int c, k, i, rc = 0;
  if (rp_tables_build(&t, s, o->max_regions) != 0) return -1;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>popmeter "
        "report: ",
        out);
  rp_put_html(out, s->app);
  fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Scaling report: ", css);
  rp_put_html(out, s->app);
  fprintf(out,
          "</h1>\n<p class=\"meta\">%s scaling (%s), reference %s. Repeated configurations "
          "show the median with the min&ndash;max range in brackets.</p>\n",
          s->mode == PM_SCALING_WEAK ? "Weak" : "Strong", s->mode_declared ? "declared" : "detected",
          s->cfg[s->ref].label);
  list(out, "notes", "", s->notes, s->nnotes);
  list(out, "problems", "skipped: ", s->problems, s->nproblems);
  fputs("<h2>POP efficiencies</h2>\n<p class=\"legend\"><span class=\"r\" style=\"background:"
        "#f4a3a3\">&lt; 0.5</span><span style=\"background:#ffe08a\">0.5 &ndash; 0.8</span>"
        "<span style=\"background:#b7e1a1\">&ge; 0.8</span></p>\n",
        out);
  if (table(out, s, &t.pop) != 0) rc = -1;
  if (t.nregions > 0) {
    fputs("<h2>Regions (inclusive time)</h2>\n", out);
    if (table(out, s, &t.regions) != 0) rc = -1;
    for (i = k = 0; i < t.nregions; i++) {
      int f = rp_region_first_below(s, t.order[i], RP_AMBER_BELOW);
      if (f < 0) continue;
      fputs(k++ ? "" : "<p>Regions losing efficiency, worst first:</p>\n<ul>\n", out);
      fputs("<li>", out);
      rp_put_html(out, s->regions[t.order[i]].name);
      fprintf(out, ": global efficiency below %.2f from %s</li>\n", RP_AMBER_BELOW, s->cfg[f].label);
    }
    if (k) fputs("</ul>\n", out);
  }
  if (s->diff) changes(out, s, o->diff_threshold);
  if (plots && plots->n > 0) {
    fputs("<h2>Plots</h2>\n", out);
    for (i = 0; i < plots->n; i++) figure(out, plots, &plots->plot[i]);
  }
  if (plots && plots->note[0]) {
    fputs("<p class=\"meta\">", out);
    rp_put_html(out, plots->note);
    fputs("</p>\n", out);
  }
  fputs("<h2>Runs</h2>\n<ul>\n", out);
  for (c = 0; c < s->ncfg; c++)
    for (i = 0; i < s->cfg[c].nruns; i++) {
      fprintf(out, "<li>%s: ", s->cfg[c].label);
      rp_put_html(out, s->runs[s->cfg[c].runs[i]].path);
      fputs("</li>\n", out);
    }
  fputs("</ul>\n<p class=\"meta\">Generated by popmeter-report from popmeter.json files.</p>\n"
        "</body>\n</html>\n",
        out);
  rp_tables_free(&t);
  return rc || ferror(out) ? -1 : 0;
}
