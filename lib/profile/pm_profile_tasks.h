/* Task-runtime part of the run profile (StarPU adapter; filled from lib/tasks/pm_taskgraph,
 * pm_task_stats and pm_task_comm by lib/tasks/pm_profile_build_tasks.c). A profile of a run without
 * tasks has no such part (pm_profile.tasks == NULL) and its JSON no "tasks" key. Times in seconds.
 * Indices (process, location) refer to the enclosing profile's arrays. */
#ifndef PM_PROFILE_TASKS_H
#define PM_PROFILE_TASKS_H
#include <jansson.h>
#include "pm_profile.h"
#include "pm_input.h"

#define PM_PROF_COMP_N 6
#define PM_PROF_APP_HASH 0xffffffffu /* composition part of application threads (not a codelet) */
#define PM_PROF_TOP 3

typedef struct {
  int rank;
  uint32_t hash;
  double time;
} pm_prof_cp_part;
typedef struct {
  int process;
  uint64_t tasks, bodyless; /* tasks ended with a body; body-less tasks completed */
  pm_prof_cp dag_pl, dag_g; /* longest dependency path (task DAG) ending in this process */
  double coo_mpi;           /* MPI transfer share of dag_g.coo along its path */
  int ncomp;                /* composition of dag_g.cue: (rank, codelet hash) -> time */
  pm_prof_cp_part comp[PM_PROF_COMP_N];
  double comp_other;
  uint64_t clocks_sent, clocks_received, clocks_lost; /* StarPU-MPI clock side channel */
  uint64_t peak_tasks;                                /* most task records alive at once (memory bound check) */
  uint64_t tags_dropped, handles_untracked;
  int runtime_unobserved; /* runtime overhead outside bodies not observable (tool interface) */
} pm_prof_taskproc;
typedef struct {
  double duration, threshold, start; /* start: seconds after the window start */
  uint64_t tag;
  int has_tag, kind; /* kind: 0 IQR rule, 1 flops regression */
  int location;      /* index into the profile's locations */
} pm_prof_outlier;
typedef struct {
  char name[64];
  int process;
  int worker_type; /* 0 CPU, 1 accelerator */
  uint32_t hash;   /* FNV-1a 32 of the name (composition keys) */
  uint64_t count, with_flops, with_prediction, outliers_iqr, outliers_reg;
  double total, min, max, flops, predicted, bytes, q1, q3;
  uint64_t with_waits;          /* tasks whose submission and ready times were seen */
  double wait_deps, wait_sched; /* summed over them: submit -> ready, ready -> body start (s) */
  int ntop;
  pm_prof_outlier top[PM_PROF_TOP];
} pm_prof_codelet;
typedef struct {
  int process;
  uint64_t tag, count;
  double total, min, max, flops;
} pm_prof_tag;
typedef struct {
  int process, node;
  char kind[16];
  uint64_t count, bytes;
} pm_prof_transfer;
typedef struct {
  int process, peer, dir;
  uint64_t count, bytes;
  double time;
} pm_prof_mpicomm; /* dir 0 send */
typedef struct {
  int process, peer, dir;
  int64_t data_tag;
  uint64_t count, bytes;
} pm_prof_mpihandle;

typedef struct pm_prof_tasks {
  int ntaskprocs;
  pm_prof_taskproc *taskproc;
  int ncodelets;
  pm_prof_codelet *codelet;
  int ntags;
  pm_prof_tag *tag;
  int ntransfers;
  pm_prof_transfer *transfer;
  int nmpicomms;
  pm_prof_mpicomm *mpicomm;
  int nmpihandles;
  pm_prof_mpihandle *mpihandle;
} pm_prof_tasks;

void pm_prof_tasks_free(pm_prof_tasks *t);
/* Appends src to *dst (allocated when NULL), shifting process indices by p0, locations by l0. */
int pm_prof_tasks_merge(pm_prof_tasks **dst, const pm_prof_tasks *src, int p0, int l0);
json_t *pm_prof_tasks_to_json(const pm_prof_tasks *t);
/* Validating reader; nprocesses / nlocations bound the indices. NULL with err filled on error. */
pm_prof_tasks *pm_prof_tasks_from_json(const json_t *o, int nprocesses, int nlocations, char *err, size_t errlen);

/* The global task critical path, resolved: the process where the longest DAG path ends, its
 * lengths, and its composition by codelet name and by rank. */
#define PM_PROF_CP_MAXRANKS 64
typedef struct {
  int valid;
  int process;    /* where the path ends */
  pm_prof_cp len; /* global DAG clocks: cue (= CPB), com, coo */
  double coo_mpi;
  int nparts;
  struct {
    char name[64];
    int rank;
    double time;
  } part[PM_PROF_COMP_N + 1]; /* + "other" */
  int nranks;                 /* per rank (first PM_PROF_CP_MAXRANKS ranks met) */
  struct {
    int rank;
    double time;
  } rank[PM_PROF_CP_MAXRANKS];
  uint64_t clocks_lost;
} pm_prof_task_cp;
int pm_prof_tasks_cp(const pm_profile *p, pm_prof_task_cp *out);

/* Model input: codelet totals (malloc'd array, names point into p) and the CPB. */
/* 1 when some process's runtime overhead was not observable (StarPU's tool interface). */
int pm_prof_tasks_runtime_unobserved(const pm_prof_tasks *t);
int pm_prof_tasks_input(const pm_profile *p, pm_codelet_input **codelets, int *ncodelets, double *cp_bound,
                        int *runtime_unobserved);
#endif
