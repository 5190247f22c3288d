/* reports/: the writers of a computed study (rp_study.h). Each file writes one format; none of
 * them computes a metric: they read the study's trees and summaries. */
#ifndef RP_OUTPUT_H
#define RP_OUTPUT_H
#include <limits.h>
#include <stdio.h>
#include "rp_study.h"
#include "pm_file.h"

/* ------------------------------------------------------------------- plots (rp_plot.c, gnuplot) */
#define RP_MAX_PLOTS 4
typedef struct {
  char name[32]; /* file stem under plots/: efficiency, speedup, load, critical_path */
  char title[96];
  int svg, png; /* the file was produced */
} rp_plot;

typedef struct {
  char dir[PATH_MAX]; /* where the plot files are ("" when none were made) */
  int n;
  rp_plot plot[RP_MAX_PLOTS];
  char note[512]; /* why some or all plots are missing ("" if none is) */
} rp_plots;

/* Writes plots/<name>.gp (the data inline, so the script reproduces the plot) and runs gnuplot on
 * it for SVG and PNG (pngcairo, else png). gnuplot NULL: found in PATH. A missing gnuplot or a
 * failed plot is not an error: it is told in out->note. Returns 0, or -1 when a file cannot be
 * written (err says which). */
int rp_plots_make(const rp_study *s, const char *dir, const char *gnuplot, int force, rp_plots *out, char *err,
                  size_t errlen);

/* ------------------------------------------------------------------- rows shared by MD and HTML */
typedef struct {
  char *path;             /* ids below the root joined by '/' */
  int depth;              /* 0: a child of the root */
  const pm_metric *label; /* gives name and unit */
} rp_row;
/* The rows of trees[0..n-1] (NULL trees skipped): the first tree's in depth-first order, then
 * those only later trees have. Returns the count, or -1 out of memory. */
int rp_rows_collect(pm_metric *const *trees, int n, rp_row **rows);
void rp_rows_free(rp_row *rows, int n);
/* "0.83", "n/a", "-" (missing); with repeats and a spread: "0.83 (0.80-0.85)" using sep between
 * min and max. Seconds get three decimals. Returns buf. */
const char *rp_cell_text(const rp_config *c, pm_metric *const *stat_trees, const char *path, const char *sep, char *buf,
                         size_t n);

/* ----------------------------------------------------------------- two-run comparison (rp_diff.c) */
typedef enum { RP_DIFF_SLOWER, RP_DIFF_FASTER, RP_DIFF_NEW, RP_DIFF_GONE } rp_diff_kind;
typedef struct {
  int region;
  rp_diff_kind kind;
  double time_a, time_b; /* the region's time in the reference and in the other run (s) */
  double speedup;        /* from the region's scaling tree (metrics/); 0 for new/gone */
} rp_diff_entry;
#define RP_DIFF_THRESHOLD 0.05   /* |speedup - 1| below this: unchanged */
#define RP_DIFF_MIN_SECONDS 1e-3 /* regions shorter than this in both runs are noise */
/* Regions of the last configuration that changed against the reference, largest time change
 * first. *out is malloc'd. Returns the count, or -1 out of memory. */
int rp_diff_regions(const rp_study *s, double threshold, rp_diff_entry **out);
const char *rp_diff_kind_name(rp_diff_kind k); /* "slowed down", "sped up", "new", "gone" */

/* ---------------------------------------------------------------------------------- formats */
typedef struct {
  int width;       /* text table width (0: 100) */
  int max_regions; /* regions in the text/Markdown/HTML tables (0: all); CSV/JSON: all */
  double diff_threshold;
} rp_write_options;

int rp_write_text(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o);
int rp_write_csv(FILE *out, const rp_study *s);
int rp_write_markdown(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o);
int rp_write_json(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o);
int rp_write_html(FILE *out, const rp_study *s, const rp_plots *plots, const rp_write_options *o);

/* All of the above into dir (created if needed): report.txt, scaling.csv, scaling.md,
 * scaling.json, plots/, report.html. Existing files are refused unless force (then replaced
 * atomically). plots = 0 skips gnuplot. Returns 0, or -1 with err set. */
int rp_write_all(const rp_study *s, const char *dir, int force, int plots, const char *gnuplot,
                 const rp_write_options *o, char *err, size_t errlen);

/* ------------------------------------------------------------------- files (rp_file.c) */
typedef pm_afile rp_file; /* written atomically (lib/base/pm_file.h): f, path */
/* mkdir -p; the last component may exist but must be a directory (not a symlink). */
int rp_make_dirs(const char *dir, char *err, size_t errlen);
/* dir/name, written through a temporary and published whole at close (never over an existing file
 * unless force); rp_file_abort drops it. */
int rp_file_open(rp_file *of, const char *dir, const char *name, int force, char *err, size_t errlen);
int rp_file_close(rp_file *of, char *err, size_t errlen);
void rp_file_abort(rp_file *of);
/* snprintf for paths: 0, or -1 when the result did not fit (the caller treats it as an error
 * instead of using a truncated path). */
int rp_path(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Whole file into a malloc'd buffer; NULL on error. */
char *rp_read_all(const char *path, size_t *len);

/* --------------------------------------------------------------------- escaping (rp_escape.c) */
/* Each writes s with invalid UTF-8 replaced by U+FFFD and control characters by blanks. */
void rp_put_html(FILE *out, const char *s);
void rp_put_csv(FILE *out, const char *s); /* quoted (RFC 4180) when it needs to be */
void rp_put_md(FILE *out, const char *s);  /* Markdown table cell: | \ ` * _ < > [ ] escaped */
void rp_put_base64(FILE *out, const unsigned char *data, size_t n);
/* A malloc'd copy with invalid UTF-8 replaced by U+FFFD (JSON strings must be valid UTF-8). */
char *rp_utf8_clean(const char *s);
#endif
