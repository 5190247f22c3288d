/* popmeter view: one run seen as one self-contained HTML page (docs/reports.md "Seeing one run").
 *
 *   vw_trace.c      the OTF2 trace read into lanes, tasks (with their attributes), states, messages
 *   vw_critical.c   the task DAG's critical path rebuilt from the tasks' clocks
 *   vw_codelets.c   per codelet and worker type: quantiles, the log-log fit and its band, outliers
 *   vw_series.c     quantities over time as bin envelopes (submitted, ready, active, published)
 *   vw_tree.c       the published tag tree, measured per node, laid out as an icicle
 *   vw_aggregate.c  what the page holds task by task, and what it holds as density bins
 *   vw_json.c       the page's data (JSON written as a stream: the arrays can be large)
 *   vw_page.c       the page: the POP table, the data, the script and style (view.js, view.css)
 *   vw_main.c       all of it for one run (pm_view.h; the command is tools/popmeter_main.c)
 * Times are nanoseconds from the view's origin (the trace's first timestamp). */
#ifndef VW_H
#define VW_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "pm_profile.h"
#include "pm_view.h"

/* ----------------------------------------------------------------------------------- the run */
enum { VW_K_MPI, VW_K_RUNTIME, VW_K_WAIT, VW_K_IO, VW_K_TOOL, VW_K_USER, VW_NKINDS };
const char *vw_kind_name(int kind); /* "MPI", "runtime", ... */

enum { VW_F_CP = 1, VW_F_IQR = 2, VW_F_REG = 4, VW_F_KEEP = 8 };
#define VW_NONE UINT64_MAX

typedef struct {
  char name[64];
  int process; /* the trace's location group (popmeter: the rank) */
  int thread;  /* location id modulo 4096 (popmeter's thread index within the process) */
  int role;    /* pm_loc_role, from popmeter.json when the location is found there */
  int wtype;   /* 0 CPU, 1 accelerator worker */
  int loc;     /* index into the profile's locations, -1 */
} vw_lane;

typedef struct {
  uint64_t start, end;
  uint64_t submit, ready, pop; /* VW_NONE when not recorded */
  uint64_t tag;                /* VW_NONE without a tag */
  uint64_t cp_in, cp_out;      /* VW_NONE without critical-path clocks */
  double flops;                /* 0: none */
  int lane, codelet;
  unsigned flags; /* VW_F_* */
} vw_task;

typedef struct {
  uint64_t start, end;
  int lane, kind;
} vw_state;

typedef struct {
  uint64_t t_send, t_recv, bytes;
  int from, to; /* lanes */
} vw_msg;

typedef struct {
  uint64_t span; /* last timestamp - first */
  int nlanes;
  vw_lane *lane;
  int ncodelets;
  char **codelet;
  size_t ntasks, nstates, nmsgs;
  vw_task *task; /* sorted by (lane, start) once read */
  vw_state *state;
  vw_msg *msg;
  uint64_t msgs_unmatched;
  uint64_t clock0; /* the origin on the measurement clock (the trace's global offset) */
} vw_trace;

/* Reads path (traces.otf2). 0, or -1 with err naming the problem; the profile (may be NULL) gives
 * the lanes their roles. Without OTF2 built in, -1 and err says so. */
int vw_trace_read(const char *path, const pm_profile *p, vw_trace *t, char *err, size_t errlen);
void vw_trace_free(vw_trace *t);
/* Sorts tasks and states by (lane, start): what every other step expects. */
void vw_trace_sort(vw_trace *t);
/* Index of codelet name (added when new); -1 out of memory. */
int vw_codelet_index(vw_trace *t, const char *name);

/* ------------------------------------------------------------------------- critical path */
typedef struct {
  size_t *task; /* indices of the path's tasks, first to last */
  size_t n;
  uint64_t length; /* cp_out of the last task (ns of useful time) */
  uint64_t before; /* cp_in of the first: time of application threads before it */
} vw_path;
/* Rebuilds the path: from the task with the largest cp_out, back to the task whose cp_out is the
 * current one's cp_in (any process), until none is (the rest is application-thread time). Marks
 * the tasks VW_F_CP. 0, or -1 out of memory. */
int vw_path_build(vw_trace *t, vw_path *p);
void vw_path_free(vw_path *p);

/* ------------------------------------------------------------------------------- codelets */
#define VW_BAND_POINTS 24
#define VW_WORST 50
typedef struct {
  int codelet, wtype;
  size_t count, with_flops;
  double total, min, q1, median, q3, max; /* seconds */
  int has_fit;
  double a, b;                    /* log10(d) = a + b log10(flops) */
  double x0, x1;                  /* log10 flops range */
  double band[VW_BAND_POINTS][3]; /* x, lower, upper (log10) */
  size_t iqr, reg;                /* outliers */
  size_t worst[VW_WORST], nworst; /* the worst outliers (task indices), by duration / threshold */
  double worst_thr[VW_WORST];     /* their thresholds (s) */
  int worst_kind[VW_WORST];       /* VW_F_IQR or VW_F_REG */
} vw_codelet;
/* Per (codelet, worker type): exact quantiles, the fit log(d) ~ log(flops) with its 95 % prediction
 * band (metrics/pm_regress.h), outliers (IQR: slower than Q3 + 1.5 IQR; regression: above the
 * band), flagged on the tasks. 0, or -1 out of memory. */
int vw_codelets_build(vw_trace *t, vw_codelet **out, int *n);
/* The fit's prediction for a task (seconds), or 0 when its group has no fit or it has no flops. */
double vw_codelet_predict(const vw_codelet *c, int n, const vw_trace *t, const vw_task *k);

/* ---------------------------------------------------------------------------------- series */
#define VW_SERIES_BINS 2048
typedef struct {
  char name[80];
  int process; /* -1: the whole run */
  int unit_bytes;
  uint64_t start, bin; /* the first bin's start and the width (ns) */
  int nbins;
  double (*v)[3]; /* min, max, last per bin; NaN before the first value */
} vw_series;
/* The envelope of a step function starting at 0, given as (time, delta) changes, over [t0, t1) in
 * nbins bins of equal width (rounded up to whole ns); changes are sorted here. 0, or -1 out of
 * memory. */
typedef struct {
  uint64_t t;
  int64_t d;
} vw_change;
int vw_series_envelope(vw_change *ch, size_t n, uint64_t t0, uint64_t t1, int nbins, vw_series *s);
/* submitted (submit <= t < start), ready (ready <= t < start) and running tasks over the trace.
 * Appends to *s (n updated); series without data are not added. 0, or -1 out of memory. */
int vw_series_tasks(const vw_trace *t, vw_series **s, int *n);
/* The profile's published series, moved onto the view's time axis (clock0: the origin on the
 * measurement clock; 0: no trace, the process's window start is the origin). */
int vw_series_published(const pm_profile *p, uint64_t clock0, vw_series **s, int *n);
void vw_series_free(vw_series *s, int n);

/* ------------------------------------------------------------------------------------ tree */
#define VW_TREE_DRAWN_MAX 20000
typedef struct {
  uint64_t tag;
  int parent; /* index, -1 root */
  int depth, rank;
  int64_t order;
  double flops;               /* published */
  double time, tflops;        /* measured: tasks' time (s) and flops, tasks.tags[] */
  double predicted, timed;    /* the trace's tasks with flops: predicted and measured seconds */
  double x[2], w[2];          /* icicle: offset and width in [0, 1], sized by flops (0) or time (1) */
  int on_path, drawn, folded; /* a task on the critical path; drawn; nodes folded into it */
} vw_node;
typedef struct {
  int n;
  vw_node *node;
  int maxdepth, hidden; /* deepest drawn level; nodes not drawn (folded) */
  uint64_t dropped;     /* nodes the program published beyond the bound */
} vw_tree;
/* From the profile's tag_tree and tasks.tags; with a trace, the path's fronts and the fit's
 * predictions (codelets may be NULL). 0 (tree->n 0 when nothing was published), -1 out of memory. */
int vw_tree_build(const pm_profile *p, const vw_trace *t, const vw_codelet *c, int nc, vw_tree *tree);
/* The icicle layout of both sizings and the folding beyond max_drawn nodes. */
void vw_tree_layout(vw_tree *tree, int max_drawn);
void vw_tree_free(vw_tree *tree);

/* ------------------------------------------------------------------------------ aggregation */
typedef struct {
  int lane, cls; /* cls: a codelet, or ncodelets + kind for a state */
  uint64_t idx;  /* bin start = idx * beta */
  uint32_t count;
  uint64_t busy; /* summed durations */
} vw_bin;
typedef struct {
  uint64_t beta; /* 0: everything kept */
  size_t budget;
  size_t kept_tasks, kept_states, merged_tasks, merged_states;
  size_t nbins;
  vw_bin *bin;
} vw_agg;
/* Chooses the smallest beta = span / 2^k such that the tasks and states lasting at least beta
 * (and the tasks flagged VW_F_CP / outliers) plus the bins of the others, per (lane, class, beta
 * interval), number at most budget; marks kept tasks VW_F_KEEP. 0, or -1 out of memory. */
int vw_aggregate(vw_trace *t, size_t budget, vw_agg *a);
/* The number of items for a given beta (kept + bins): what vw_aggregate minimises. */
size_t vw_aggregate_items(const vw_trace *t, uint64_t beta);
void vw_agg_free(vw_agg *a);

/* ------------------------------------------------------------------------------------ page */
typedef struct {
  const pm_profile *p;
  const char *summary;  /* the POP table, as `popmeter show` prints it */
  const vw_trace *t;    /* NULL: no trace */
  const char *no_trace; /* why (when t is NULL) */
  const vw_path *path;
  const vw_codelet *cod;
  int ncod;
  const vw_series *series;
  int nseries;
  const vw_tree *tree;
  const vw_agg *agg;
} vw_page;
/* The page's data as JSON (into f). 0, or -1 on a write error. */
int vw_json_write(FILE *f, const vw_page *pg);
/* The whole page. 0, or -1 on a write error. */
int vw_page_write(FILE *f, const vw_page *pg);

#endif
