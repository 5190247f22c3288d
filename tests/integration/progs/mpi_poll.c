/* Polling calls are MPI time (tests/integration/test_mpi_counts.sh), on 2 ranks:
 *   A. rank 1 computes 0.3 s, then sends; rank 0 waits for it in a tight MPI_Test loop: its 0.3 s
 *      are MPI time on MPI_Test's call path, not useful time.
 *   B. rank 0 computes 30 x 10 ms with an MPI_Iprobe after each chunk (the message comes later,
 *      then MPI_Recv): the computation stays useful, the 30 probes take microseconds.
 * Prints the expectations in mpi_profile.py's format (seconds; bounds wide enough for a loaded
 * machine, yet failed by a poll that is not timed and by one timed together with the computation
 * around it). */
#include <mpi.h>
#include <stdio.h>
#include "busy_wait.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0, flag = 0;
  long polls = 0;
  volatile double sink = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 2) {
    if (rank == 1) { /* A */
      sink += busy_compute(0.3);
      MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else {
      MPI_Request r;
      MPI_Irecv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
      while (!flag) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        polls++;
      }
    }
    if (rank == 0) { /* B */
      for (int i = 0; i < 30; i++) {
        sink += busy_compute(0.01);
        MPI_Iprobe(1, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      }
      MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
  }
  if (rank == 0 && size == 2) {
    printf("EXPECT 0 polls:MPI_Test == %ld\n", polls);
    /* ~0.3 s, on a loaded machine too: the time the loop spends preempted is polling (0.29-0.30 s
     * with three busy loops beside the two ranks on 2 CPUs; 0.11-0.13 when a preemption between
     * two polls, or inside a poll of a run that read no clock, counted as useful). */
    printf("EXPECT 0 mpi_sync:MPI_Test >= 0.2\n");
    printf("EXPECT 0 polls:MPI_Iprobe == 30\n");
    printf("EXPECT 0 mpi_sync:MPI_Iprobe <= 0.1\n");
    printf("EXPECT 0 useful >= 0.25\n");
    printf("data ok\n");
  }
  MPI_Finalize();
  return (int)(sink < 0);
}
