/*
 * mfs_runtime.h — the StarPU (+MPI) runtime of libmfsolve, shared by the task-based executor and the
 * distributed solve. Internal; only built when configure found StarPU and StarPU-MPI.
 */
#ifndef MFS_RUNTIME_H
#define MFS_RUNTIME_H

#include <mpi.h>
#include <starpu.h>
#include <starpu_mpi.h>

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
} runtime_state;

extern runtime_state runtime__state;

/* Bytes the runtime currently holds / has held at most in buffers for data received from other
 * processes (StarPU allocates them through our malloc hooks, so they are tracked memory too). */
int64_t runtime__recv_bytes(void);
int64_t runtime__recv_peak(void);
void runtime__recv_reset_peak(void);

/* Sleep (us) of StarPU-MPI's progression thread after a run of fruitless MPI_Tests (mfs_mpi_poll.c);
 * 0: it polls without sleeping. */
int mfs_mpi_poll_sleep_us(void);

#endif
