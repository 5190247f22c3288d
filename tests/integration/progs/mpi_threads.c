/* Hybrid program: NT pthreads per rank call MPI concurrently (MPI_THREAD_MULTIPLE). Thread t of
 * rank r exchanges MSGS messages of BYTES bytes with the same thread of the partner rank (r ^ 1),
 * tag = t, and computes between exchanges. Known totals for P ranks:
 *   messages sent = P * NT * MSGS, bytes sent = P * NT * MSGS * BYTES (likewise received).
 * Usage: mpi_threads [NT=2] [MSGS=50] [BYTES=4096] */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, msgs, bytes;

static void *exchange(void *arg) {
  int t = (int)(long)arg, peer = rank ^ 1;
  char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
  memset(out, t, (size_t)bytes);
  volatile double x = 0;
  for (int m = 0; m < msgs; m++) {
    MPI_Sendrecv(out, bytes, MPI_BYTE, peer, t, in, bytes, MPI_BYTE, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in[0] != (char)t) {
      fprintf(stderr, "mpi_threads: wrong data\n");
      abort();
    }
    for (int i = 0; i < 20000; i++) x += i * 1e-9;
  }
  free(out);
  free(in);
  return NULL;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 2;
  msgs = argc > 2 ? atoi(argv[2]) : 50;
  bytes = argc > 3 ? atoi(argv[3]) : 4096;
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "mpi_threads: no MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2) {
    if (!rank) fprintf(stderr, "mpi_threads: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  pthread_t th[64];
  if (nt > 64) nt = 64;
  for (int t = 0; t < nt; t++) pthread_create(&th[t], NULL, exchange, (void *)(long)t);
  for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!rank) printf("mpi_threads: %d ranks x %d threads done\n", size, nt);
  MPI_Finalize();
  return 0;
}
