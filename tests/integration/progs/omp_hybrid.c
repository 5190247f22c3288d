/* MPI + OpenMP with known imbalance at both levels (MPI_THREAD_FUNNELED). With the unit U (seconds,
 * argument 1, default 0.1), rank r and thread t, every phase busy-waits on the wall clock:
 *   MPI_Barrier | serial U | hybrid_region: thread t waits (t+1)(r+1)U | MPI_Barrier | end
 * tests/integration/test_openmp_hybrid.sh derives the expected models for 2 ranks x 2 threads. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin(double s) {
  double end = now() + s;
  while (now() < end) {}
}

__attribute__((noinline)) void hybrid_region(double u) {
#pragma omp parallel
  spin((omp_get_thread_num() + 1) * u);
}

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double u = argc > 1 ? atof(argv[1]) : 0.1;
  MPI_Barrier(MPI_COMM_WORLD);
  spin(u);
  hybrid_region(u * (rank + 1));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("omp_hybrid done (%d ranks x %d threads)\n", size, omp_get_max_threads());
  MPI_Finalize();
  return 0;
}
