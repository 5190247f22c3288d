/* The page of one run (pm_view.h, vw.h, docs/reports.md): popmeter.json read, the trace next to it
 * (traces.otf2) when the run was traced, everything analysed, the page written atomically. Without
 * a trace, or with one that cannot be read, the page holds what popmeter.json gives and says what
 * is missing: a page is never refused for want of a trace. */
#define _GNU_SOURCE
#include "vw.h"
#include "pm_view.h"
#include "pm_file.h"
#include "pm_report_summary.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *summary_text(const pm_profile *p, const char *dir) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return NULL;
  pm_summary_options so = {.width = 100, .color = 0, .where = dir};
  int rc = pm_report_write_summary(m, p, &so);
  fclose(m);
  if (rc != 0) {
    free(text);
    return NULL;
  }
  return text;
}

typedef struct {
  vw_trace t;
  vw_path path;
  vw_codelet *cod;
  int ncod;
  vw_series *series;
  int nseries;
  vw_tree tree;
  vw_agg agg;
  int traced;
} analysis;

/* Everything the page shows, from the profile and (when readable) the trace. -1 out of memory. */
static int analyse(const pm_profile *p, const char *trace, size_t budget, analysis *a, char *why, size_t whylen) {
  memset(a, 0, sizeof *a);
  if (access(trace, R_OK) != 0) {
    snprintf(why, whylen, "the run was not traced (no %s: run it with POPMETER_TRACE=1)", trace);
  } else if (vw_trace_read(trace, p, &a->t, why, whylen) == 0) {
    a->traced = 1;
  } else {
    fprintf(stderr, "popmeter view: %s; the page shows what popmeter.json holds\n", why);
  }
  int rc = 0;
  if (a->traced) {
    rc |= vw_path_build(&a->t, &a->path);
    rc |= vw_codelets_build(&a->t, &a->cod, &a->ncod);
    rc |= vw_series_tasks(&a->t, &a->series, &a->nseries);
  }
  rc |= vw_series_published(p, a->traced ? a->t.clock0 : 0, &a->series, &a->nseries);
  rc |= vw_tree_build(p, a->traced ? &a->t : NULL, a->cod, a->ncod, &a->tree);
  vw_tree_layout(&a->tree, VW_TREE_DRAWN_MAX);
  if (a->traced) rc |= vw_aggregate(&a->t, budget, &a->agg);
  return rc ? -1 : 0;
}

static void analysis_free(analysis *a) {
  vw_agg_free(&a->agg);
  vw_tree_free(&a->tree);
  vw_series_free(a->series, a->nseries);
  free(a->cod);
  vw_path_free(&a->path);
  vw_trace_free(&a->t);
}

int pm_view_write(const char *json, const char *dir, const char *out, int force, size_t budget) {
  char trace[PATH_MAX + 32], page[PATH_MAX + 32], err[PATH_MAX + 512];
  snprintf(trace, sizeof trace, "%s/traces.otf2", dir);
  if (out)
    snprintf(page, sizeof page, "%s", out);
  else
    snprintf(page, sizeof page, "%s/view.html", dir);
  pm_profile *p = pm_profile_read_file(json, err, sizeof err);
  if (!p) {
    fprintf(stderr, "popmeter view: %s\n", err);
    return 1;
  }
  analysis a;
  char why[PATH_MAX + 512] = "";
  char *summary = summary_text(p, dir);
  int rc = 1;
  if (analyse(p, trace, budget, &a, why, sizeof why) != 0 || !summary) {
    fprintf(stderr, "popmeter view: out of memory\n");
    goto done;
  }
  vw_page pg = {p, summary, a.traced ? &a.t : NULL, why, &a.path, a.cod, a.ncod, a.series, a.nseries, &a.tree, &a.agg};
  pm_afile f;
  if (pm_afile_open(&f, page, force, err, sizeof err) != 0) {
    fprintf(stderr, "popmeter view: %s\n", err);
    goto done;
  }
  if (vw_page_write(f.f, &pg) != 0) {
    pm_afile_abort(&f);
    fprintf(stderr, "popmeter view: writing %s failed\n", page);
    goto done;
  }
  long size = ftell(f.f);
  if (pm_afile_commit(&f, err, sizeof err) != 0) {
    fprintf(stderr, "popmeter view: %s\n", err);
    goto done;
  }
  printf("popmeter view: %s (%.1f MB)", page, size / 1e6);
  if (a.traced)
    printf(": %zu tasks (%zu drawn one by one), %d lanes, critical path of %zu tasks%s\n", a.t.ntasks, a.agg.kept_tasks,
           a.t.nlanes, a.path.n, a.tree.n ? ", tag tree" : "");
  else
    printf(", without a trace: %s\n", why);
  rc = 0;
done:
  analysis_free(&a);
  free(summary);
  pm_profile_free(p);
  return rc;
}
