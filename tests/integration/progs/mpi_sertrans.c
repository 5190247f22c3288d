/* Two phases with known serialization and transfer (tests/integration/test_mpi_sertrans.sh), as
 * user regions on 2 ranks:
 *   "chain":    rank 0 computes T, sends to rank 1, which computes T and answers: every rank
 *               computes T and waits T for the other: SerE = T / 2T = 0.5, and nothing is
 *               transferred (TE ~ 1);
 *   "exchange": both ranks compute T, then swap BYTES-sized buffers N times with MPI_Sendrecv at
 *               the same moment: no rank waits for the other (SerE ~ 1), the swaps are transfer.
 *   usage: mpi_sertrans [T [BYTES [N]]]   (defaults 0.2 s, 16 MiB, 20) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "busy_wait.h"

#pragma weak pm_region_begin /* provided by the preloaded libpopmeter; absent otherwise */
#pragma weak pm_region_end
void pm_region_begin(const char *name);
void pm_region_end(const char *name);

static volatile double sink;
static void compute(double sec) { sink = busy_compute(sec); }
static void region(const char *name, int begin) {
  if (begin && pm_region_begin) pm_region_begin(name);
  if (!begin && pm_region_end) pm_region_end(name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  double T = argc > 1 ? atof(argv[1]) : 0.2;
  size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 16u << 20;
  int reps = argc > 3 ? atoi(argv[3]) : 20;
  if (n != 2) {
    if (rank == 0) fprintf(stderr, "mpi_sertrans: run on 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int peer = 1 - rank, v = 0;
  char *out = malloc(bytes), *in = malloc(bytes);
  if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 3);
  memset(out, rank + 1, bytes);
  memset(in, 0, bytes);

  MPI_Barrier(MPI_COMM_WORLD);
  region("chain", 1);
  if (rank == 0) {
    compute(T);
    v = 1;
    MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    compute(T);
    v++;
    MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  region("chain", 0);

  MPI_Barrier(MPI_COMM_WORLD);
  region("exchange", 1);
  compute(T);
  for (int i = 0; i < reps; i++)
    MPI_Sendrecv(out, (int)bytes, MPI_BYTE, peer, 1, in, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  region("exchange", 0);

  int ok = v == 2 && in[0] == (char)(peer + 1) && in[bytes - 1] == (char)(peer + 1);
  printf("rank %d: %s\n", rank, ok ? "data ok" : "DATA WRONG");
  free(out);
  free(in);
  MPI_Finalize();
  return ok ? 0 : 1;
}
