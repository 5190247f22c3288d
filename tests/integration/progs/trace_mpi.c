/* Known MPI traffic for the trace read-back test (tests/integration/test_trace_mpi.sh), on 2 ranks
 * (more ranks only join the collectives):
 *   10 ping-pongs on MPI_COMM_WORLD: rank 0 MPI_Send (tag 1, 100 int) then MPI_Recv (tag 2, 50 int);
 *      rank 1 the converse
 *   5 rounds on a dup of MPI_COMM_WORLD: MPI_Irecv + MPI_Isend both ways (tag 3, 64 double), MPI_Waitall
 *   1 MPI_Sendrecv on MPI_COMM_WORLD both ways (tag 4, 8 char)
 *   collectives on MPI_COMM_WORLD: 2 MPI_Barrier, 1 MPI_Bcast (root 0), 3 MPI_Allreduce, 1 MPI_Reduce
 *      (root 1), 1 MPI_Gather (root 0), 1 MPI_Allgather, 1 MPI_Alltoall; 1 MPI_Allreduce on a split of
 *      MPI_COMM_WORLD (color rank % 2: every rank alone with 2 ranks)
 *   trace_mpi [exit]: with "exit", leaves with exit(0) without MPI_Finalize, inside a user region. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "popmeter.h"
#pragma weak pm_region_begin /* provided by the preloaded libpopmeter; absent otherwise */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int a[100] = {0}, b[50] = {0};
  if (rank < 2) {
    int peer = 1 - rank;
    for (int i = 0; i < 10; i++) {
      if (rank == 0) {
        MPI_Send(a, 100, MPI_INT, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 50, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(a, 100, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, 50, MPI_INT, peer, 2, MPI_COMM_WORLD);
      }
    }
  }
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  if (rank < 2) {
    double out[64] = {0}, in[64];
    for (int i = 0; i < 5; i++) {
      MPI_Request r[2];
      MPI_Irecv(in, 64, MPI_DOUBLE, 1 - rank, 3, dup, &r[0]);
      MPI_Isend(out, 64, MPI_DOUBLE, 1 - rank, 3, dup, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    char s[8] = "abcdefg", t[8];
    MPI_Sendrecv(s, 8, MPI_CHAR, 1 - rank, 4, t, 8, MPI_CHAR, 1 - rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double x = rank, y;
  int v[10] = {0}, *all = calloc((size_t)size * 10, sizeof *all);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(v, 10, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 3; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 1 % size, MPI_COMM_WORLD);
  MPI_Gather(v, 10, MPI_INT, all, 10, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(v, 10, MPI_INT, all, 10, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(all, 10, MPI_INT, all, 10, MPI_INT, MPI_COMM_WORLD);
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, split);
  MPI_Barrier(MPI_COMM_WORLD);
  free(all);
  if (argc > 1 && !strcmp(argv[1], "exit")) {
    if (pm_region_begin) pm_region_begin("leaving"); /* left open: the trace closes it at exit */
    exit(0);
  }
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
