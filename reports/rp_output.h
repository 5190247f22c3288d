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

/* ------------------------------------------------------- tables shared by MD and HTML (rp_rows.c) */
typedef struct {
  char *path;             /* ids below the root joined by '/' */
  int depth;              /* 0: a child of the root */
  const pm_metric *label; /* gives name, unit and description */
} rp_row;
typedef struct {
  const pm_metric *median; /* the configuration's median node on this row; NULL: it has none */
  char text[128];          /* "0.83", "n/a", "-" (missing); repeated: "0.83 (0.80-0.85)", an en dash */
} rp_cell;
/* One row per metric of the median trees (the first tree's in depth-first order, then those only
 * later trees have), one column per configuration. Seconds get three decimals, the rest two. */
typedef struct {
  int nrows, ncols;
  rp_row *row;
  rp_cell *cell; /* row r, configuration c: cell[r * ncols + c] */
  int failed;    /* out of memory while building: nothing to show */
} rp_table;
/* trees[c * RP_NSTATS + k]: configuration c, statistic k (NULL: missing); the table points into
 * them, so they must outlive it. Returns 0, or -1 (failed set) out of memory. */
int rp_table_build(rp_table *t, const rp_study *s, pm_metric *const *trees);
void rp_table_free(rp_table *t);

/* The tables of a Markdown or HTML report: the POP efficiencies and the regions. */
typedef struct {
  rp_table pop;     /* the configurations' scaling trees */
  rp_table regions; /* built when nregions > 0 */
  int *order;       /* the regions shown (rp_regions_ranked), order[0..nregions-1] */
  int nregions;
  pm_metric **trees; /* the region tables' trees, owned (ntrees = ncfg * RP_NSTATS) */
  int ntrees;
} rp_tables;
/* max_regions as rp_regions_ranked's max. Returns -1 when out of memory before any table was
 * built; a table that could not be built has failed set. */
int rp_tables_build(rp_tables *t, const rp_study *s, int max_regions);
void rp_tables_free(rp_tables *t);

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
/* Regions of the compared configuration (rp_diff_other) that changed against the reference,
 * largest time change first. *out is malloc'd. Returns the count, or -1 out of memory. */
int rp_diff_regions(const rp_study *s, double threshold, rp_diff_entry **out);
/* The configuration compared with the reference: the last one, or the first when the last is the
 * reference. */
int rp_diff_other(const rp_study *s);
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
