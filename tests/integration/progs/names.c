/* A program whose names are arbitrary bytes, for tests/integration/test_names.sh (and a victim for
 * tests/integration/test_faults.sh).
 *   names REGION [RANK]: enters the user region REGION (on every rank, or only on rank RANK),
 *   computes for ~20 ms inside it, then (built with -DUSE_MPI) sums one value per rank with
 *   MPI_Allreduce. Prints "result N" (N = number of ranks, 1 without MPI).
 *   NAMES_KILL_RANK=r: rank r kills itself with SIGKILL before the sum (the others wait in it). */
#ifdef USE_MPI
#include <mpi.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "popmeter.h"
#pragma weak pm_region_begin /* provided by the preloaded libpopmeter; absent otherwise */
#pragma weak pm_region_end

static double spin(double seconds) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double x = 0;
  do {
    for (int i = 0; i < 1000; i++) x += 1e-9 * i;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < seconds);
  return x;
}

int main(int argc, char **argv) {
  int rank = 0, sum = 1;
#ifdef USE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  const char *name = argc > 1 ? argv[1] : "region";
  int mine = argc <= 2 || atoi(argv[2]) == rank;
  if (mine && pm_region_begin) pm_region_begin(name);
  volatile double x = spin(0.02);
  if (mine && pm_region_end) pm_region_end(name);
  (void)x;
#ifdef USE_MPI
  const char *kill_rank = getenv("NAMES_KILL_RANK");
  if (kill_rank && atoi(kill_rank) == rank) raise(SIGKILL);
  int one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
#endif
  if (rank == 0) printf("result %d\n", sum);
  return 0;
}
