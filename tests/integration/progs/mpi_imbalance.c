/* MPI program with a known load imbalance: in each of ITER iterations rank r busy-waits
 * (r+1) * UNIT seconds, then all ranks meet in MPI_Barrier.
 * Analytic POP values for N ranks (ignoring the tiny MPI cost):
 *   useful(r) = ITER (r+1) UNIT, runtime R = ITER N UNIT
 *   LB = avg/max = (N+1)/(2N)   -> 0.75 for N = 2, 0.625 for N = 4
 *   CommE = max(useful)/R = 1, and the critical path runs through the slowest rank: SerE = TE = 1.
 * Usage: mpi_imbalance [UNIT_SECONDS=0.05] [ITER=4] [--no-finalize] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "busy_wait.h"

int main(int argc, char **argv) {
  double unit = argc > 1 ? atof(argv[1]) : 0.05;
  int iter = argc > 2 ? atoi(argv[2]) : 4;
  int finalize = !(argc > 3 && strcmp(argv[3], "--no-finalize") == 0);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double sink = 0;
  for (int it = 0; it < iter; it++) {
    sink += busy_compute((rank + 1) * unit);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double local = sink, total = 0;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_imbalance: %d ranks, %d iterations of %g s units, checksum %.3f\n", size, iter, unit,
           total > 0 ? 1.0 : 0.0);
  if (finalize) MPI_Finalize();
  return 0;
}
