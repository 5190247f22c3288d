/* Per-codelet and per-tag task statistics with online outlier detection (bounded memory).
 *
 * Each thread that ends tasks (a worker) owns its statistics: no lock on the per-task path, and a
 * worker has one worker type, so "per codelet and worker type" is the merge of its workers.
 * Per codelet: count, total/min/max duration, flops (when the application declares them), the
 * scheduler's predicted total, bytes accessed, and two outlier tests made when the task ends,
 * against the estimates from the tasks before it on the same worker:
 *  - IQR: duration > Q3 + 1.5 (Q3 - Q1), with Q1 and Q3 from the extended P-square algorithm
 *    (Jain & Chlamtac 1985, Raatikainen 1987: 7 markers at 0, 1/8, 1/4, 1/2, 3/4, 7/8, 1 --
 *    constant memory), after PM_TS_WARMUP tasks;
 *  - regression (tasks with flops): log(duration) above the upper bound of the 95 % prediction
 *    interval of the online least-squares fit log(duration) ~ a + b log(flops), after PM_TS_WARMUP
 *    tasks (with a single flops value the fit degenerates to the mean, and the interval is the
 *    prediction interval of a new observation around it).
 * The worst PM_TS_TOP outliers of each codelet (by duration over threshold) are kept with their
 * tag and start time. Per tag (task->tag_id, e.g. set with STARPU_TAG_ONLY): count, total/min/max,
 * flops; at most PM_TS_MAX_TAGS tags per thread, the rest summed into one overflow entry. */
#ifndef PM_TASK_STATS_H
#define PM_TASK_STATS_H
#include "pm_core.h"
#include "pm_regress.h"

#define PM_TS_WARMUP 20
#define PM_TS_TOP 3
#define PM_TS_MAX_TAGS 65536

/* ---------------------------------------------------------------- estimators (unit-tested alone) */
typedef struct {
  uint64_t n;
  double q[7];   /* marker heights */
  double pos[7]; /* marker positions, 1-based */
} pm_p2;
PM_HIDDEN void pm_p2_add(pm_p2 *e, double x);
/* Estimate of the quantile 0.25 (which = 1) or 0.75 (which = 3) -- also 0: min, 2: median,
 * 4: max. Exact (sample quantile, linear interpolation) while n <= 7. */
PM_HIDDEN double pm_p2_quantile(const pm_p2 *e, int which);

/* the online regression log(duration) ~ log(flops): pm_reg (metrics/pm_regress.h) */

/* ------------------------------------------------------------------------------------ codelets */
/* Global registry by name (thread-safe; names are copied). */
PM_HIDDEN uint32_t pm_ts_codelet(const char *name, pm_region_id region);
PM_HIDDEN uint32_t pm_ts_ncodelets(void);
PM_HIDDEN const char *pm_ts_codelet_name(uint32_t id);
PM_HIDDEN uint32_t pm_ts_codelet_hash(uint32_t id); /* pm_tg_name_hash of the name */
PM_HIDDEN pm_region_id pm_ts_codelet_region(uint32_t id);

typedef struct {
  uint64_t duration;   /* ns */
  uint64_t t_start;    /* ns (clock of the process) */
  double flops;        /* 0: unknown */
  double predicted_us; /* scheduler's prediction; <= 0 or NaN: none */
  uint64_t bytes;
  uint64_t tag;
  int has_tag;
  int has_waits;       /* submission and ready times known (not through StarPU 1.4's tool interface) */
  uint64_t wait_deps;  /* ns from submission to ready (dependencies) */
  uint64_t wait_sched; /* ns from ready to the body's start (scheduler queue, data fetch) */
} pm_ts_sample;

typedef struct {
  double duration, threshold; /* seconds */
  double start;               /* seconds since the window start */
  uint64_t tag;
  int has_tag, kind; /* kind: 0 IQR, 1 regression */
  int location;      /* location index in the process */
} pm_ts_outlier;

typedef struct pm_ts_thread pm_ts_thread;
/* The calling thread's statistics (created on first use; worker_type 0 CPU, 1 accelerator). */
PM_HIDDEN pm_ts_thread *pm_ts_self(int worker_type, int location);
/* Records one ended task; returns a bit mask: 1 IQR outlier, 2 regression outlier. */
PM_HIDDEN int pm_ts_record(pm_ts_thread *T, uint32_t codelet, const pm_ts_sample *s);

/* ----------------------------------------------------------------------------- merged results */
typedef struct {
  uint32_t codelet;
  int worker_type;
  uint64_t count, with_flops, with_prediction, outliers_iqr, outliers_reg;
  double total, min, max, flops, predicted, bytes; /* seconds, flops, seconds, bytes */
  uint64_t with_waits;                             /* tasks whose waits are known */
  double wait_deps, wait_sched;                    /* seconds, summed over those */
  double q1, q3;                                   /* count-weighted mean of the workers' estimates */
  int ntop;
  pm_ts_outlier top[PM_TS_TOP];
} pm_ts_codelet_result;
typedef struct {
  uint64_t tag;
  uint64_t count;
  double total, min, max, flops;
} pm_ts_tag_result;
typedef struct {
  int ncodelets;
  pm_ts_codelet_result *codelet;
  int ntags;
  pm_ts_tag_result *tag; /* sorted by tag */
  uint64_t tags_dropped; /* tasks whose tag did not fit in the per-thread bound */
} pm_ts_results;
/* Merges every thread's statistics; t0 is the window start (for outlier start times). 0 or -1. */
PM_HIDDEN int pm_ts_collect(pm_ts_results *r, uint64_t t0);
PM_HIDDEN void pm_ts_results_free(pm_ts_results *r);
PM_HIDDEN void pm_ts_reset(void);
#endif
