/* Internal helpers shared by the model files: values that carry their own "n/a" reason, location
 * classification, per-process bookkeeping and node builders. Not part of the public API. */
#ifndef PM_MODEL_UTIL_H
#define PM_MODEL_UTIL_H
#include "pm_input.h"
#include "pm_metric.h"
#include "popmetrics.h"

/* A number or "n/a because <na>". Arithmetic propagates the first reason, so a model is written as
 * plain formulas and every undefined step (division by zero, missing input) surfaces as n/a.
 * Reasons are static strings. */
typedef struct {
  double v;
  const char *na; /* NULL: v is valid */
} pm_val;

pm_val pm_v(double v);
pm_val pm_v_na(const char *why);
/* a / b; n/a with why_zero when b == 0 (or the quotient is not finite) */
pm_val pm_v_div(pm_val a, pm_val b, const char *why_zero);
pm_val pm_v_mul(pm_val a, pm_val b);
pm_val pm_v_sub(pm_val a, pm_val b);

/* Common n/a reasons (one wording everywhere). */
#define PM_NA_NO_INPUT "no run input"
#define PM_NA_NO_LOCATIONS "no locations measured"
#define PM_NA_ZERO_RUNTIME "zero runtime"
#define PM_NA_NO_COMPUTE "no thread, worker or accelerator locations"
#define PM_NA_NO_USEFUL "no useful time measured"
#define PM_NA_NO_CP "no critical path measured"
/* io_as_useful differs from what the run's critical path (CUE) counted as useful: why, else NULL */
const char *pm__cue_mismatch(const pm_run_input *in);
#define PM_NA_NONFINITE "invalid input: a time or count is not a finite number"

/* Thread, worker or accelerator worker: the locations whose time is "application" time. Progress
 * threads and device streams are not. */
int pm__is_compute(const pm_location_input *l);
/* Task-runtime worker (CPU worker or accelerator worker). */
int pm__is_worker(const pm_location_input *l);
/* useful time of a location, plus its I/O time when the run counts I/O as useful. */
double pm__useful(const pm_run_input *in, const pm_location_input *l);

/* MPI time of a location (a pm_loc_value). */
double pm__mpi(const pm_run_input *in, const pm_location_input *l);
/* Progress thread (communication progress, runtime service). */
int pm__is_progress(const pm_location_input *l);

/* Sum, largest value and count of a per-location quantity over a set of locations. */
typedef struct {
  int n;      /* locations taken */
  double sum; /* in array order */
  double max; /* the first value taken, replaced by any larger one; 0 when n == 0 */
} pm_agg;
/* A location's quantity (pm__useful, its MPI time, its thread-local critical path, ...). */
typedef double (*pm_loc_value)(const pm_run_input *in, const pm_location_input *l);
/* Aggregates value over the locations select accepts, in array order: over the run into *all (may
 * be NULL) and, when per_process is not NULL, over each process p into per_process[p]
 * (in->nprocesses entries, overwritten). Requires pm__input_problem(in) == NULL. */
void pm__aggregate(const pm_run_input *in, int (*select)(const pm_location_input *), pm_loc_value value, pm_agg *all,
                   pm_agg *per_process);

/* Adds "progress_mpi", the share of the runtime the progress threads spent in MPI, under root when
 * the run has progress threads (docs/metrics.md §1). Requires pm__input_problem(in) == NULL. */
void pm__progress_mpi_leaf(pm_metric *root, const pm_run_input *in);

/* Checks what every model needs (input present, location array, process indices in range, at least
 * one location, positive runtime). Returns NULL when fine, else the reason (static string). */
const char *pm__input_problem(const pm_run_input *in);

/* Application thread (main or OpenMP thread): the locations with a serial / parallel-region
 * structure. */
int pm__is_thread(const pm_location_input *l);

/* Per-process view of the locations a selector accepts (pm__is_compute or pm__is_thread).
 * master[p] is the first selected location of process p in array order (the measurement side lists
 * the main thread of a process first); -1 if none. */
typedef struct {
  int nproc;
  int *nloc;   /* selected locations per process (t_p) */
  int *master; /* location index of the master thread of p, or -1 */
} pm_procs;

/* Returns 0 on allocation failure. Requires pm__input_problem(in) == NULL. */
int pm__procs_init(pm_procs *pp, const pm_run_input *in, int (*select)(const pm_location_input *));
void pm__procs_free(pm_procs *pp);

/* A model root (heading). */
pm_metric *pm__root(const char *id, const char *name, const char *description);
/* Adds a child with the value v (or n/a with v.na) and returns it (NULL on allocation failure). */
pm_metric *pm__leaf(pm_metric *parent, const char *id, const char *name, const char *unit, const char *description,
                    pm_val v);
/* Sets value or n/a from v. */
void pm__set(pm_metric *m, pm_val v);
/* Returns root when the tree was built completely, else frees it and returns NULL. */
pm_metric *pm__finish(pm_metric *root);

/* The reference-run match of every codelet name of a run (task_reference.c, docs/metrics.md §6.3):
 * for each name, its totals in the three runs and whether it is matched, in O(n log n) over the
 * three runs' entries (one entry per name, process and worker type: a scan per entry was quadratic). */
typedef struct {
  int n;                /* entries of in->codelets */
  int *name_of;         /* [n]: the entry's name, an index into the arrays below; -1: unnamed */
  unsigned char *first; /* [n]: 1 at the first entry of each name */
  int nnames;
  double *w, *one, *seq; /* [nnames]: the name's totals here, on one worker, in the sequential run */
  unsigned char *ok;     /* [nnames]: matched (the same task count in all three) */
  char (*why)[96];       /* [nnames]: why not */
} pm__task_ref_names;
void pm__task_ref_names_free(pm__task_ref_names *t);
/* pm_task_reference (popmetrics.h), keeping the table it builds in *t for the per-codelet figures
 * (empty without reference runs or memory); the caller frees it. */
int pm__task_reference_names(const pm_run_input *in, pm__task_ref_names *t, pm_task_ref *r);

#endif
