/* One event kind of the per-event benchmark (bench_events.sh), MPI side: 2 ranks, n events each,
 * after a warm-up; prints on rank 0 the time per event, the maximum over the ranks.
 *   mpirun -np 2 bench_ev_mpi allreduce|barrier|pingpong|testfail N
 * allreduce: MPI_Allreduce of one double (MPI_SUM); barrier: MPI_Barrier;
 * pingpong: Irecv + Isend of one double to / from the peer + Waitall(2), time per call (3 per
 * iteration); testfail: MPI_Test of a receive whose message is sent only after the loop. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Runs n events; returns the number of MPI calls per event as timed (pingpong: 3). */
static int run(const char *kind, long n, int peer) {
  double a = 1.0, b = 0.0;
  if (!strcmp(kind, "allreduce")) {
    for (long i = 0; i < n; i++) MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (!strcmp(kind, "barrier")) {
    for (long i = 0; i < n; i++) MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(kind, "pingpong")) {
    MPI_Request r[2];
    for (long i = 0; i < n; i++) {
      MPI_Irecv(&b, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(&a, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    return 3;
  } else if (!strcmp(kind, "testfail")) {
    MPI_Request r;
    int flag = 0;
    MPI_Irecv(&b, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r);
    for (long i = 0; i < n && !flag; i++) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    if (flag) MPI_Abort(MPI_COMM_WORLD, 3); /* the message cannot have been sent yet */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&a, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    fprintf(stderr, "bench_ev_mpi: unknown event %s\n", kind);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size != 2) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 2 %s allreduce|barrier|pingpong|testfail N\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long n = atol(argv[2]);
  /* As an application does at its start (rank 0 hands out its parameters). Not for the value: Open
   * MPI's shared-memory transport (vader's per-peer fast boxes) runs a 2-rank MPI_Allreduce loop
   * 90-120 ns faster when no message went one way only before it (12 of 12 paired runs, Open MPI
   * 4.1, no tool loaded), a state that any start-up traffic ends, popmeter's and TALP's collectives
   * in MPI_Init included: without this broadcast the uninstrumented run alone had it, and that
   * difference was counted as the tools' cost per event. */
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  run(argv[1], n / 10 > 1000 ? n / 10 : 1000, 1 - rank); /* warm-up */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now_ns();
  int calls = run(argv[1], n, 1 - rank);
  double ns = (now_ns() - t0) / (double)n / calls, worst = 0;
  MPI_Reduce(&ns, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%.2f\n", worst);
  MPI_Finalize();
  return 0;
}
