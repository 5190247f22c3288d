/* Critical-path propagation through one kind of MPI operation: rank 0 computes T seconds, then
 * communicates with rank 1 (and the others), which waited meanwhile. With the piggyback, rank 1's
 * global CUE clock (useful time on the critical path) becomes >= T although rank 1 itself computed
 * almost nothing; without it, it stays near 0. The test reads the clocks from popmeter.json.
 *   usage: mpi_cpath MODE [T]   MODE: send ssend isend irecv-waitany irecv-test sendrecv persistent
 *                               mprobe wildcard bcast barrier allreduce subcomm flood bcast-roots
 *                               diverge */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "busy_wait.h"

static volatile double sink;
static void compute(double sec) { sink = busy_compute(sec); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *mode = argc > 1 ? argv[1] : "send";
  double T = argc > 2 ? atof(argv[2]) : 0.3;
  int v = 0, ok = 1;
  MPI_Request r[2];
  MPI_Comm comm = MPI_COMM_WORLD;
  if (!strcmp(mode, "subcomm")) MPI_Comm_dup(MPI_COMM_WORLD, &comm);

  if (rank == 0) compute(T);
  if (!strcmp(mode, "barrier")) {
    double t0 = MPI_Wtime();
    MPI_Barrier(comm);
    /* whatever replaces the barrier underneath, it held this rank until rank 0, T late, entered */
    if (rank != 0 && MPI_Wtime() - t0 < 0.5 * T) ok = 0;
  } else if (!strcmp(mode, "bcast")) {
    v = rank == 0 ? 42 : 0;
    MPI_Bcast(&v, 1, MPI_INT, 0, comm);
    ok = v == 42;
  } else if (!strcmp(mode, "allreduce")) {
    int one = 1;
    MPI_Allreduce(&one, &v, 1, MPI_INT, MPI_SUM, comm);
    ok = v == n;
  } else if (!strcmp(mode, "diverge")) {
    /* rank 0 broadcasts through PMPI_Bcast, past popmeter's wrappers: the ranks no longer count
     * the same collectives, which popmeter must say (it cannot repair it) */
    v = rank == 0 ? 42 : 0;
    if (rank == 0)
      PMPI_Bcast(&v, 1, MPI_INT, 0, comm);
    else
      MPI_Bcast(&v, 1, MPI_INT, 0, comm);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    ok = v == 42 && sum == n;
  } else if (!strcmp(mode, "bcast-roots")) {
    /* 300000 broadcasts whose root goes round the ranks: a root leaves before the others enter, and
     * reads their clock slots while they may be entering (no clock is lost by that) */
    for (int i = 0; i < 300000 && ok; i++) {
      v = rank == i % n ? i : -1;
      MPI_Bcast(&v, 1, MPI_INT, i % n, comm);
      ok = v == i;
    }
  } else if (!strcmp(mode, "flood")) {
    /* 5000 messages from rank 0 to rank 1, all sent before rank 1 receives any (small: eager):
     * more than the 4096 clocks a pair's shared-memory ring keeps on 2 ranks, so 904 are lost (and
     * reported) */
    enum { NFLOOD = 5000 };
    static int val[NFLOOD];
    static MPI_Request rq[NFLOOD];
    int w = -1;
    if (rank == 0) {
      for (int i = 0; i < NFLOOD; i++) {
        val[i] = i;
        MPI_Isend(&val[i], 1, MPI_INT, 1, 5, comm, &rq[i]);
      }
      MPI_Waitall(NFLOOD, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(comm);
    if (rank == 1)
      for (int i = 0; i < NFLOOD && ok; i++) {
        MPI_Recv(&w, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
        ok = w == i;
      }
  } else if (rank == 0) {
    v = 42;
    for (int dst = 1; dst < n; dst++) {
      if (!strcmp(mode, "ssend"))
        MPI_Ssend(&v, 1, MPI_INT, dst, 5, comm);
      else if (!strcmp(mode, "isend")) {
        MPI_Isend(&v, 1, MPI_INT, dst, 5, comm, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
      } else if (!strcmp(mode, "sendrecv")) {
        int back;
        MPI_Sendrecv(&v, 1, MPI_INT, dst, 5, &back, 1, MPI_INT, dst, 6, comm, MPI_STATUS_IGNORE);
      } else if (!strcmp(mode, "persistent")) {
        MPI_Send_init(&v, 1, MPI_INT, dst, 5, comm, &r[0]);
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        MPI_Request_free(&r[0]);
      } else
        MPI_Send(&v, 1, MPI_INT, dst, 5, comm);
    }
  } else {
    MPI_Status st;
    if (!strcmp(mode, "irecv-waitany")) {
      int dummy = 0, idx;
      MPI_Irecv(&v, 1, MPI_INT, 0, 5, comm, &r[0]);
      MPI_Isend(&dummy, 0, MPI_INT, MPI_PROC_NULL, 0, comm, &r[1]);
      MPI_Wait(&r[1], MPI_STATUS_IGNORE);
      MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "irecv-test")) {
      int flag = 0;
      MPI_Irecv(&v, 1, MPI_INT, 0, 5, comm, &r[0]);
      while (!flag) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "sendrecv")) {
      int back = 7;
      MPI_Sendrecv(&back, 1, MPI_INT, 0, 6, &v, 1, MPI_INT, 0, 5, comm, &st);
    } else if (!strcmp(mode, "persistent")) {
      MPI_Recv_init(&v, 1, MPI_INT, 0, 5, comm, &r[0]);
      MPI_Start(&r[0]);
      MPI_Waitall(1, r, MPI_STATUSES_IGNORE);
      MPI_Request_free(&r[0]);
    } else if (!strcmp(mode, "mprobe")) {
      MPI_Message m;
      MPI_Mprobe(0, 5, comm, &m, &st);
      MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "wildcard")) {
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&v, 1, MPI_INT, 0, 5, comm, &st);
    }
    ok = v == 42;
  }
  if (comm != MPI_COMM_WORLD) MPI_Comm_free(&comm);
  /* no final collective: it would carry rank 0's clock to everybody whatever the mode */
  printf("mpi_cpath %s rank %d: %s\n", mode, rank, ok ? "data ok" : "WRONG DATA");
  MPI_Finalize();
  return ok ? 0 : 1;
}
