/*
 * mfs_mpi_progress.c — which thread runs StarPU-MPI's progression: its own thread, or a worker.
 *
 * StarPU-MPI 1.3 posts and tests every transfer from a progression thread of its own. When the
 * machine has a CPU for each worker of each process and none to spare (2 processes x 1 worker on 2
 * CPUs), that thread, the submitting thread and the worker of each process share the CPUs: the
 * progression thread waits for a CPU while the workers compute (its MPI_Isend / MPI_Irecv of a panel
 * tile took 2-30 ms in traces of lap3d:60), and each of its wake-ups preempts a worker. The tasks of
 * 2 x 1 then ran ~13 % longer than the same tasks of 1 process x 2 workers, with idle gaps of 20-120 ms
 * at the shared fronts.
 *
 * StarPU-MPI can instead let the progression thread drive one CPU worker itself
 * (STARPU_MPI_DRIVER_CALL_FREQUENCY > 0: worker 0 is not started; the progression loop runs up to
 * STARPU_MPI_DRIVER_TASK_FREQUENCY of its tasks between two rounds of polls). A process then has one
 * thread computing and communicating, as an MPI program without tasks would: a transfer waits at most
 * for the end of the task running, and nothing preempts the tasks. This is the "worker" mode; the
 * default picks it when the machine has no CPU to spare for a progression thread per process.
 * Measured on the 2-CPU development VM, 2 processes x 1 worker, factorization, interleaved pairs:
 * lap3d:50 1.24 against 1.42 s (4 pairs), lap3d:60 3.29 against 3.85 s (4 pairs); with tiles sent
 * synchronously (mfs_factor_starpu.c) 1.137 against 1.325 s and 3.142 against 3.530 s (5 pairs each,
 * faster in all). Four tasks per round of polls instead of one: lap3d:60 +0.37 s (a transfer waits
 * for the receiver's next round).
 *
 * Two things StarPU-MPI 1.3 leaves to us in that mode:
 * - the progression thread sleeps on a condition variable whenever no transfer is pending, and then
 *   runs no task either (a subtree task, with no communication, would never run). While the runtime
 *   runs, a receive from this process itself is kept posted ("keep-alive"): it is only completed when
 *   the runtime pauses or stops, or before starpu_mpi_barrier (whose wait for pending requests ends
 *   on a signal the loop gives when it goes to sleep), by a send to self; the loop goes on polling
 *   and running tasks meanwhile.
 * - STARPU_MPI_DRIVER_TASK_FREQUENCY defaults to 0, which runs no task at all: 1 is set unless the
 *   user chose a positive value.
 * Both variables are read by starpu_mpi_init_conf; one the user set takes precedence over the mode
 * asked for (a value > 0 of STARPU_MPI_DRIVER_CALL_FREQUENCY is the worker mode, else the thread's).
 */
#define _GNU_SOURCE
#include "mfs_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A data tag no tile uses (tiles are tagged with their index, from 0) */
#define KEEPALIVE_TAG ((starpu_mpi_tag_t)INT64_MAX - 1)

/* the STARPU_MPI_DRIVER_* variables this module set (unset again at stop: a later start decides anew) */
static int call_env_ours, task_env_ours;
static double keep_in, keep_out;
static starpu_data_handle_t keep_recv_h, keep_send_h;
static starpu_mpi_req keep_req;
static int keep_posted;

static char user_task[32]; /* the user's STARPU_MPI_DRIVER_TASK_FREQUENCY we replaced, restored at stop */

static void unset_ours(void) {
  if (call_env_ours) unsetenv("STARPU_MPI_DRIVER_CALL_FREQUENCY");
  if (task_env_ours && user_task[0])
    setenv("STARPU_MPI_DRIVER_TASK_FREQUENCY", user_task, 1);
  else if (task_env_ours)
    unsetenv("STARPU_MPI_DRIVER_TASK_FREQUENCY");
  call_env_ours = task_env_ours = 0;
  user_task[0] = '\0';
}

/* The worker mode needs at least one task per round of polls: StarPU-MPI's default (0), or a value
 * the user set that is not a positive number, would run none (and hang the first task). */
static void set_task_frequency(void) {
  const char *t = getenv("STARPU_MPI_DRIVER_TASK_FREQUENCY");
  if (t && *t) {
    char *end = NULL;
    long v = strtol(t, &end, 10);
    if (*end == '\0' && v > 0) return;
    fprintf(stderr,
            "mfsolve: STARPU_MPI_DRIVER_TASK_FREQUENCY='%s' would let the progression loop run no task; "
            "using 1\n",
            t);
    snprintf(user_task, sizeof user_task, "%s", t);
  }
  setenv("STARPU_MPI_DRIVER_TASK_FREQUENCY", "1", 1);
  task_env_ours = 1;
}

void progress__plan(runtime_state *R, int workers, mfs_mpi_progress asked) {
  unset_ours();
  const char *user = getenv("STARPU_MPI_DRIVER_CALL_FREQUENCY");
  if (user && *user) {
    R->progress_worker = atoi(user) > 0;
    R->progress_why = "STARPU_MPI_DRIVER_CALL_FREQUENCY set";
    if (R->progress_worker) set_task_frequency();
    return;
  }
  /* each process needs a CPU for its progression thread beside those of its workers */
  int spare = R->node_cpus - R->node_procs * workers;
  if (R->nranks == 1) { /* nothing to transfer: the thread sleeps throughout */
    R->progress_worker = 0;
    R->progress_why = "one process";
  } else if (asked == MFS_MPI_PROGRESS_THREAD) {
    R->progress_worker = 0;
    R->progress_why = "asked for";
  } else if (asked == MFS_MPI_PROGRESS_WORKER) {
    R->progress_worker = 1;
    R->progress_why = "asked for";
  } else {
    R->progress_worker = spare < R->node_procs;
    R->progress_why = R->progress_worker ? "no CPU to spare for a progression thread per process"
                                         : "a CPU to spare for each process's progression thread";
  }
  if (R->progress_worker) {
    setenv("STARPU_MPI_DRIVER_CALL_FREQUENCY", "1", 1);
    call_env_ours = 1;
    set_task_frequency();
  }
}

void progress__keepalive_post(runtime_state *R) {
  if (!R->mpi || !R->progress_worker || keep_posted) return;
  if (!keep_recv_h) {
    starpu_variable_data_register(&keep_recv_h, STARPU_MAIN_RAM, (uintptr_t)&keep_in, sizeof keep_in);
    starpu_variable_data_register(&keep_send_h, STARPU_MAIN_RAM, (uintptr_t)&keep_out, sizeof keep_out);
  }
  if (starpu_mpi_irecv(keep_recv_h, &keep_req, R->rank, KEEPALIVE_TAG, MPI_COMM_WORLD) == 0) keep_posted = 1;
}

void progress__keepalive_end(runtime_state *R) {
  if (keep_posted) {
    starpu_mpi_req send_req;
    if (starpu_mpi_isend(keep_send_h, &send_req, R->rank, KEEPALIVE_TAG, MPI_COMM_WORLD) == 0)
      starpu_mpi_wait(&send_req, MPI_STATUS_IGNORE);
    starpu_mpi_wait(&keep_req, MPI_STATUS_IGNORE);
    keep_posted = 0;
  }
}

void progress__stop(runtime_state *R) {
  progress__keepalive_end(R);
  if (keep_recv_h) {
    starpu_data_unregister(keep_recv_h);
    starpu_data_unregister(keep_send_h);
    keep_recv_h = keep_send_h = NULL;
  }
  unset_ours();
}
