/*
 * mfs_mpi_poll.c — backs off StarPU-MPI's progression thread while it has nothing to do.
 *
 * StarPU-MPI 1.3's progression thread (named "MPI") calls MPI_Test in a tight loop as long as any
 * transfer is posted: during the whole distributed part of the factorization, with every receive
 * posted at submission. It then takes a core's worth of CPU: on a machine with one core per worker
 * (2 ranks x 1 worker on 2 cores) the two pollers halve the workers' speed. This MPI_Test, linked
 * into the program, forwards every call to the next MPI_Test (popmeter's when it is preloaded, else
 * the MPI library's) and, on the progression thread only, sleeps a little after a run of tests that
 * found nothing: the poller then costs a few percent of a core, and a transfer's completion is seen
 * at most one sleep later. Sleeps start at 20 us and double while nothing completes, up to
 * MFS_MPI_POLL_SLEEP_US (default 200 us; 0: poll without sleeping, as StarPU does); any test that
 * completes a request starts over.
 * Measured on 2 cores (2 ranks x 1 worker, factorization operations, 8 runs each): lap3d:40 median
 * 0.400 -> 0.368 s, lap3d27:30 0.176 -> 0.117 s; the poller's CPU time fell from 0.28 s to 0.03 s.
 * When worker 0 runs the progression instead (mfs_mpi_progress.c), the thread is named after the
 * worker and is left alone here: it polls between tasks, and naps when idle (mfs_idle.c).
 */
#define _GNU_SOURCE
#include "mfs_runtime.h"

#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define DEFAULT_SLEEP_US 200
#define MAX_SLEEP_US 100000
#define MISSES_BEFORE_SLEEP 16
#define FIRST_SLEEP_NS 20000L

typedef int (*mpi_test_fn)(MPI_Request *, int *, MPI_Status *);

static mpi_test_fn next_test;
static long sleep_ns = -1;
static __thread int thread_kind; /* 0: not known yet, 1: the progression thread, 2: another */
static __thread unsigned misses;
static __thread long next_sleep_ns;

static void poll_init(void) {
  mpi_test_fn f = (mpi_test_fn)dlsym(RTLD_NEXT, "MPI_Test");
  sleep_ns = runtime__env_us("MFS_MPI_POLL_SLEEP_US", DEFAULT_SLEEP_US, MAX_SLEEP_US) * 1000;
  __atomic_store_n(&next_test, f ? f : PMPI_Test, __ATOMIC_RELEASE);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

int mfs_mpi_poll_sleep_us(void) {
  pthread_once(&once, poll_init);
  return (int)(sleep_ns / 1000);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  pthread_once(&once, poll_init);
  int rc = next_test(request, flag, status);
  if (thread_kind == 0) {
    char name[16] = "";
    thread_kind = pthread_getname_np(pthread_self(), name, sizeof name) == 0 && strcmp(name, "MPI") == 0 ? 1 : 2;
  }
  if (thread_kind != 1 || sleep_ns == 0) return rc;
  if (rc != MPI_SUCCESS || *flag) {
    misses = 0;
    next_sleep_ns = 0;
  } else if (++misses >= MISSES_BEFORE_SLEEP) {
    misses = 0;
    next_sleep_ns = next_sleep_ns ? 2 * next_sleep_ns : FIRST_SLEEP_NS;
    if (next_sleep_ns > sleep_ns) next_sleep_ns = sleep_ns;
    struct timespec ts = {0, next_sleep_ns};
    nanosleep(&ts, NULL);
  }
  return rc;
}
