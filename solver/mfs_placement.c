/*
 * mfs_placement.c — where the CPU workers of several processes on one machine run.
 *
 * StarPU pins worker k to CPU k in every process, so processes sharing a machine would all pile
 * their workers onto its first CPUs; under an MPI launcher mfs_runtime.c therefore starts StarPU
 * with STARPU_WORKERS_NOBIND. Left to the scheduler, though, the workers of different processes
 * float and meet on one CPU now and then, while StarPU-MPI's progression threads wake up between
 * them. 2 processes x 1 worker on the 2-CPU development VM, factorization, interleaved pairs:
 * lap3d27:40 pinned faster in 12 of 14 pairs (medians 0.69-0.75 s against 0.74-0.80); lap3d:50 in
 * 11 of 14 (medians 1.54 / 1.77 s against 1.64 / 1.72; a third series of 6 each: 1.75 against
 * 1.79): a small gain on that noisy machine, with the placement MPI + threads programs are usually
 * given by hand.
 *
 * So when the launcher left the processes unbound (each may run on every CPU of the machine) and
 * the machine has a CPU for every worker of every process on it, worker k of the i-th process of
 * the machine is pinned to the (i * W + k)-th CPU of the process's CPU set (W workers per process).
 * Otherwise nothing is pinned: a launcher's binding stands (the process may only use its CPUs, and
 * StarPU's workers stay unbound inside them), and more workers than CPUs are the scheduler's to
 * share. A binding the user asked StarPU for (STARPU_WORKERS_CPUID, STARPU_WORKERS_COREID,
 * STARPU_WORKERS_NOBIND) takes precedence.
 */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include "mfs_runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

void placement__plan(runtime_state *R, int workers) {
  R->npin = 0;
  /* collective first, so that no process can skip it on a setting of its own */
  MPI_Comm node;
  int lrank = 0, lsize = 1;
  cpu_set_t cs;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int have_cs = sched_getaffinity(0, sizeof cs, &cs) == 0;
  if (!have_cs) {
    CPU_ZERO(&cs);
    for (long c = 0; c < online && c < CPU_SETSIZE; c++) CPU_SET(c, &cs);
  }
  R->node_cpus = CPU_COUNT(&cs);
  R->node_procs = 1;
  int have_node = MPI_Comm_split_type(R->comm, MPI_COMM_TYPE_SHARED, R->rank, MPI_INFO_NULL, &node) == MPI_SUCCESS;
  if (have_node) {
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_size(node, &lsize);
    /* what mfs_mpi_progress.c needs: the processes that share CPUs with this one, and the CPUs they
     * may run on together. A launcher's binding gives each process CPUs of its own; unbound, or in
     * a CPU set given to the whole job (a container, a batch allocation), they share them. */
    cpu_set_t *all = malloc((size_t)lsize * sizeof *all);
    if (!all) { /* every process of the machine must take part in the collective below */
      fprintf(stderr, "mfsolve: out of memory for %d CPU sets\n", lsize);
      MPI_Abort(R->comm, 1);
      abort();
    }
    if (MPI_Allgather(&cs, (int)sizeof cs, MPI_BYTE, all, (int)sizeof cs, MPI_BYTE, node) == MPI_SUCCESS) {
      cpu_set_t together = cs;
      R->node_procs = 0;
      for (int q = 0; q < lsize; q++) {
        cpu_set_t common;
        CPU_AND(&common, &cs, &all[q]);
        if (CPU_COUNT(&common) == 0) continue;
        R->node_procs++;
        CPU_OR(&together, &together, &all[q]);
      }
      R->node_cpus = CPU_COUNT(&together);
    }
    free(all);
    MPI_Comm_free(&node);
  }
  int user = getenv("STARPU_WORKERS_CPUID") || getenv("STARPU_WORKERS_COREID") ||
             (getenv("STARPU_WORKERS_NOBIND") && !R->nobind_ours);
  if (!user) { /* StarPU must not pin the workers itself: to CPUs 0 .. W-1 in every process */
    setenv("STARPU_WORKERS_NOBIND", "1", 0);
    R->nobind_ours = 1;
  }
  if (user)
    R->pin_why = "STARPU_WORKERS_* set";
  else if (!have_cs)
    R->pin_why = "the process's CPU set is unknown";
  else if (!have_node) /* each would take the first CPUs */
    R->pin_why = "the processes of the machine are unknown";
  else if (CPU_COUNT(&cs) < online)
    R->pin_why = "the launcher bound the process";
  else if ((long)lsize * workers > CPU_COUNT(&cs) || workers > (int)(sizeof R->pin_cpu / sizeof *R->pin_cpu))
    R->pin_why = "more workers than CPUs on the machine";
  else {
    int k = 0, first = lrank * workers;
    for (int c = 0; c < CPU_SETSIZE && R->npin < workers; c++)
      if (CPU_ISSET(c, &cs) && k++ >= first) R->pin_cpu[R->npin++] = c;
    R->pin_why = NULL;
  }
}

/* On each worker: its own CPU (worker ids are 0 .. workers - 1 in a process with CPU workers only),
 * counted when the thread's CPU set is that CPU afterwards. */
static void pin_self(void *arg) {
  runtime_state *R = arg;
  int id = starpu_worker_get_id();
  if (id < 0 || id >= R->npin) return;
  cpu_set_t one, now;
  CPU_ZERO(&one);
  CPU_SET(R->pin_cpu[id], &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0 &&
      pthread_getaffinity_np(pthread_self(), sizeof now, &now) == 0 && CPU_EQUAL(&one, &now))
    atomic_fetch_add(&R->npinned, 1);
}

void placement__apply(runtime_state *R) {
  atomic_store(&R->npinned, 0);
  if (R->npin > 0) starpu_execute_on_each_worker(pin_self, R, STARPU_CPU);
  /* a refusal leaves the workers floating, as without a plan: no harm, but not reported as pinned */
  int pinned = R->npin > 0 && atomic_load(&R->npinned) == (int)starpu_cpu_worker_get_count();
  if (R->npin > 0 && !pinned) R->pin_why = "the system refused the CPU binding";
  if (!pinned) R->npin = 0;
  MPI_Allreduce(&pinned, &R->pinned_procs, 1, MPI_INT, MPI_SUM, R->comm);
}
