/*
 * mfs_runtime.h — the StarPU (+MPI) runtime of libmfsolve, shared by the task-based executor and the
 * distributed solve. Internal; only built when configure found StarPU and StarPU-MPI.
 */
#ifndef MFS_RUNTIME_H
#define MFS_RUNTIME_H

#include <mpi.h>
#include <stdatomic.h>
#include <starpu.h>
#include <starpu_mpi.h>

#include "mfs_arena.h"
#include "mfs_internal.h"

/* State of the runtime started by mfs_runtime_start (one per process). */
typedef struct {
  int started;
  int mpi;      /* MPI and StarPU-MPI are up */
  int mpi_ours; /* we called MPI_Init_thread, so we finalize */
  int rank, nranks, workers;
  MPI_Comm comm; /* our own communicator (a dup of MPI_COMM_WORLD) for the solve's collectives */
  char sched[32];
  int paused; /* mfs_runtime_pause: workers stopped */
  /* placement of the workers (mfs_placement.c): worker k runs on CPU pin_cpu[k] for k < npin (none
   * pinned: npin = 0 and pin_why says why; pinned: pin_why NULL); npinned: workers whose binding
   * took; pinned_procs: the processes that pinned all theirs */
  int npin, pin_cpu[64], pinned_procs;
  _Atomic int npinned;
  const char *pin_why;
  int nobind_ours; /* STARPU_WORKERS_NOBIND is set by an earlier start, not by the user */
  /* set by placement__plan: the processes of the machine whose CPU sets intersect this one's (this
   * one included: 1 when a launcher bound each process to CPUs of its own), the CPUs of their sets
   * together */
  int node_procs, node_cpus;
  /* StarPU-MPI's progression (mfs_mpi_progress.c): run by worker 0 (1) or by its own thread (0) */
  int progress_worker;
  const char *progress_why;
} runtime_state;

/* Under MPI, before StarPU starts (collective over R->comm): decides this process's placement, and
 * keeps StarPU from pinning the workers itself unless the user chose a binding (STARPU_WORKERS_*). */
void placement__plan(runtime_state *R, int workers);
/* After StarPU started (collective over R->comm): pins each worker to its CPU, when placement__plan
 * chose CPUs, and counts the processes whose workers are pinned. */
void placement__apply(runtime_state *R);

/* Under MPI, after placement__plan and before StarPU starts (workers per process): decides who runs
 * StarPU-MPI's progression (sets the STARPU_MPI_DRIVER_* variables StarPU-MPI reads at its start). */
void progress__plan(runtime_state *R, int workers, mfs_mpi_progress asked);
/* In the worker mode, the progression loop runs tasks only while a transfer is pending: a receive
 * from this process itself is kept posted while the runtime runs (post: at the start and when it
 * resumes; end: when it pauses or stops). No-ops in the thread mode. */
void progress__keepalive_post(runtime_state *R);
void progress__keepalive_end(runtime_state *R);
/* Before StarPU-MPI shuts down: ends the keep-alive, unregisters its data, unsets our variables. */
void progress__stop(runtime_state *R);

extern runtime_state runtime__state;

/* Bytes the runtime currently holds / has held at most in buffers for data received from other
 * processes (StarPU allocates them through our malloc hooks, so they are tracked memory too). */
int64_t runtime__recv_bytes(void);
int64_t runtime__recv_peak(void);
int64_t runtime__recv_heap_peak(void); /* the same for those outside the window (below) */
void runtime__recv_reset_peak(void);
/* While a is set, those buffers come from a's window (its high end; the task-based executor takes
 * contribution blocks from the low end) when it has room, else from the heap. Returns 0 when a is
 * now the hooks' window, else how many buffers the window set before still holds: while any does,
 * the hooks keep that window (its owner must then keep it mapped) and the call changes nothing. */
int64_t runtime__recv_arena_set(mfs_arena *a);
/* StarPU's malloc / free hooks (starpu_malloc_set_hooks): the accounting above */
int runtime__recv_malloc(unsigned node, void **p, size_t dim, int flags);
int runtime__recv_free(unsigned node, void *p, size_t dim, int flags);

/* Sleep (us) of StarPU-MPI's progression thread after a run of fruitless MPI_Tests (mfs_mpi_poll.c);
 * 0: it polls without sleeping. */
int mfs_mpi_poll_sleep_us(void);

/* The value of environment variable name, a number of microseconds in 0..max; def when it is unset
 * or empty, and (with a message naming it on standard error) when it is not such a number. */
long runtime__env_us(const char *name, long def, long max);

/* An idle worker naps instead of spinning (mfs_idle.c): registered once StarPU runs, removed before
 * it stops. Codelets count each task a worker ran in mfs_idle_tasks_ran (a busy worker never naps). */
void runtime__idle_start(void);
void runtime__idle_stop(void);
extern __thread unsigned long mfs_idle_tasks_ran;

#endif
