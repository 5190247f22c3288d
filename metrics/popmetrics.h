/* libpopmetrics: the POP efficiency models of docs/metrics.md as pure functions over plain structs.
 *
 * Each model takes the run profile (pm_run_input) and returns a freshly allocated metric tree whose
 * root is named after the model; free it with pm_metric_free(). A model returns NULL only when
 * memory ran out. Metrics that cannot be computed from the run are present in the tree as "n/a" with
 * the reason, so two runs of the same model give trees of the same shape (except the per-region and
 * per-process children, whose number follows the run). No value is ever NaN or infinite.
 *
 * No MPI, no StarPU, no clock: only libc and libm. */
#ifndef POPMETRICS_H
#define POPMETRICS_H
#include <stddef.h>
#include <stdio.h>
#include "pm_input.h"
#include "pm_metric.h"

/* ------------------------------------------------------------------ models (one per file) */
pm_metric *pm_model_basic(const pm_run_input *in);          /* §1, root id "basic" */
pm_metric *pm_model_multiplicative(const pm_run_input *in); /* §2, root id "multiplicative" */
pm_metric *pm_model_additive(const pm_run_input *in);       /* §3, root id "additive" */
pm_metric *pm_model_critical_path(const pm_run_input *in);  /* §4, root id "critical_path" */
pm_metric *pm_model_talp(const pm_run_input *in);           /* §5, root id "talp" */
pm_metric *pm_model_task(const pm_run_input *in);           /* §6, root id "task" */
pm_metric *pm_model_io(const pm_run_input *in);             /* §7, root id "io" */
pm_metric *pm_model_vectorization(const pm_run_input *in);  /* §7, root id "vectorization" */

/* Area bound of a task run (§6): the least makespan T such that each codelet's work, split over the
 * worker types, fits on w0 CPU workers and w1 accelerator workers. Exact for one or two worker
 * types (greedy by acceleration ratio, see task_area_bound.c). Returns 1 and stores T, or 0 and
 * stores a static reason in *why. */
int pm_task_area_bound(const pm_codelet_input *codelets, int ncodelets, int w0, int w1, double *T, const char **why);

/* Reference runs of the task model (§6.3): in's codelets matched by name and task count with
 * in->ref_one and in->ref_seq. Returns 1 (r->valid) when some codelet matched. */
typedef struct {
  int valid;
  double w_total, w_matched; /* the W-worker run's task time: all codelets, the matched ones */
  double one, seq;           /* the references' time of the matched codelets */
  int nmatched, nunmatched;
  char unmatched[512]; /* "name (why), ..." */
} pm_task_ref;
int pm_task_reference(const pm_run_input *in, pm_task_ref *r);

/* ------------------------------------------------------------------ scalability across runs (§8) */
typedef enum {
  PM_SCALING_AUTO = 0, /* detect from the runs (pm_scaling_detect) */
  PM_SCALING_STRONG,
  PM_SCALING_WEAK
} pm_scaling_mode;

/* Weak when the per-location work (instructions, or useful time without counters) of the run whose
 * location count differs most from the reference is >= 0.75x the reference's; else strong. */
pm_scaling_mode pm_scaling_detect(const pm_scaling_run *runs, int nruns, int ref);
/* The scalability tree of runs[run] against runs[ref] (ref < 0: 0), root id "scaling". */
pm_metric *pm_model_scaling(const pm_scaling_run *runs, int nruns, int run, int ref, pm_scaling_mode mode);

/* ------------------------------------------------------------------ model selection */
enum {
  PM_MODEL_BASIC = 1u << 0,
  PM_MODEL_MULTIPLICATIVE = 1u << 1,
  PM_MODEL_ADDITIVE = 1u << 2,
  PM_MODEL_CRITICAL_PATH = 1u << 3,
  PM_MODEL_TALP = 1u << 4,
  PM_MODEL_TASK = 1u << 5,
  PM_MODEL_IO = 1u << 6,
  PM_MODEL_VECTORIZATION = 1u << 7
};
#define PM_MODELS_ALL 0xffu
#define PM_MODEL_COUNT 8

/* "basic", "multiplicative", "additive", "critical-path", "talp", "task", "io", "vectorization"
 * for one model bit; NULL otherwise. */
const char *pm_model_name(unsigned model);
/* Parses a comma-separated list of those names (case-insensitive, blanks around names ignored) or
 * "all" into *mask. Returns 0 on success; on an unknown or empty name returns -1, leaves *mask
 * unchanged and copies the offending token (truncated to badsize-1) into bad when non-NULL. */
int pm_models_parse(const char *list, unsigned *mask, char *bad, size_t badsize);
/* The models worth showing for this run (see pm_models.c). */
unsigned pm_models_default(const pm_run_input *in);
/* Runs one model (exactly one bit of the mask); NULL for an unknown bit or no memory. */
pm_metric *pm_model_compute(unsigned model, const pm_run_input *in);

/* ------------------------------------------------------------------ renderers */
#define PM_TEXT_WIDTH 100   /* default table width */
#define PM_TEXT_MIN_NAME 20 /* the name column never gets narrower than this */

/* Text table of one or several trees of the same model: one value column per tree, headed by
 * headers[i] (NULL: "value" for one tree, "#1", "#2"... otherwise). Rows follow the first tree,
 * rows only present in later trees are inserted under their parent; a node missing in a tree shows
 * "-". Two decimals; units in brackets after the name; n/a as "n/a[k]" and warnings as "[k]" with
 * the texts as numbered footnotes; may-exceed-1 values end in "*". Lines fit in width (0: 100)
 * as long as the value columns leave PM_TEXT_MIN_NAME columns for the names (see
 * pm_render_text_columns_fit). Returns 0, or -1 on error (NULL argument, no memory, write error). */
int pm_render_text(FILE *out, const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width);
char *pm_render_text_string(const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width);
/* How many of the trees, starting from the first, fit side by side in width (at least 1 when
 * ntrees > 0): a caller with many runs renders them in chunks of this size. */
size_t pm_render_text_columns_fit(const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width);

/* JSON of a tree: {"id","name","value"(number|null),"na_reason"(only when n/a),"warning"(only when
 * set),"unit","description","combine":"none"|"product"|"additive","may_exceed_one":bool,
 * "children":[...]}. A heading has "value": null and no "na_reason". */
#define PM_JSON_PRETTY 1
int pm_render_json(FILE *out, const pm_metric *tree, int flags);
char *pm_render_json_string(const pm_metric *tree, int flags);

#endif
