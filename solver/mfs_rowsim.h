/*
 * mfs_rowsim.h — a list-scheduling simulation of a task graph spread over processes, used to choose
 * which process factors each tile row of a shared front (mfs_dist_rows.c). Internal.
 *
 * Model: every process runs its tasks on `workers` identical workers; a task starts when its
 * predecessors are done — a predecessor on another process `latency` later (the tile's transfer) —
 * and a worker of its process is free; among the ready tasks of a process the one with the longest
 * path to the end of the graph (its bottom level) starts first, as the executor's priorities make
 * StarPU do. No preemption, no contention between processes.
 */
#ifndef MFS_ROWSIM_H
#define MFS_ROWSIM_H

#include "mfs_internal.h"

typedef struct {
  int32_t proc;   /* 0 .. nproc-1 */
  int32_t ndep;   /* 0 .. 3 */
  int32_t dep[3]; /* indices of earlier tasks this one waits for */
  double dur;     /* seconds */
} rowsim_task;

/* Work space for graphs of up to `cap` tasks on up to `nproc` processes. */
typedef struct rowsim rowsim;
rowsim *rowsim__create(int32_t cap, int nproc);
void rowsim__free(rowsim *W);

/* The makespan (seconds from 0, when every task without predecessors is ready) of tasks t[0..n),
 * topologically ordered (deps point backwards), on nproc processes of `workers` workers each; the
 * workers of process p start at start[p] (busy with other work until then; start NULL: all at 0).
 * The bottom levels depend on t[].proc (a dependency between processes includes the latency), so
 * they are recomputed at each call. Deterministic: ties go to the lower task index. A dependency
 * that does not point to an earlier task makes the result infinite. */
double rowsim__makespan(rowsim *W, const rowsim_task *t, int32_t n, int nproc, int workers, double latency,
                        const double *start);

#endif
