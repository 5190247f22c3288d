/* Benchmark (not a test): cost of popmeter's MPI wrappers, measured side by side in one run.
 * The program is linked with -lpopmeter before -lmpi, so MPI_X is popmeter's wrapper and PMPI_X
 * the bare Open MPI call; it runs as a singleton (1 rank, messages to self) or under mpirun.
 *   clock pair        two clock_gettime(CLOCK_MONOTONIC) reads (what a timestamped wrapper must pay)
 *   timestamped       MPI_Wait(MPI_REQUEST_NULL), MPI_Send(MPI_PROC_NULL): wrapped - bare, as a
 *                     multiple of the clock pair                          budget <= 1.30
 *   polling           MPI_Iprobe (no message), MPI_Test (pending receive): wrapped - bare in ns
 *                                                                         budget <= 10 ns
 *   message           Irecv + Isend + Waitall to self (with the critical-path piggyback when on)
 *   usage: bench_mpi_wrappers [iterations]   (POPMETER_CRITICAL_PATH=0 to measure without it) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPS 7
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static volatile long sink;
static MPI_Request pending;
static int rbuf, sbuf;

typedef void (*body_fn)(long n);
static void clock_pair(long n) {
  struct timespec a, b;
  for (long i = 0; i < n; i++) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    sink += a.tv_nsec ^ b.tv_nsec;
  }
}
static void wait_bare(long n) {
  for (long i = 0; i < n; i++) {
    MPI_Request r = MPI_REQUEST_NULL;
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}
static void wait_wrap(long n) {
  for (long i = 0; i < n; i++) {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
}
static void send_bare(long n) {
  for (long i = 0; i < n; i++) PMPI_Send(&sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
}
static void send_wrap(long n) {
  for (long i = 0; i < n; i++) MPI_Send(&sbuf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
}
static void iprobe_bare(long n) {
  int f;
  for (long i = 0; i < n; i++) PMPI_Iprobe(0, 99, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
}
static void iprobe_wrap(long n) {
  int f;
  for (long i = 0; i < n; i++) MPI_Iprobe(0, 99, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
}
static void test_bare(long n) {
  int f;
  for (long i = 0; i < n; i++) PMPI_Test(&pending, &f, MPI_STATUS_IGNORE);
}
static void test_wrap(long n) {
  int f;
  for (long i = 0; i < n; i++) MPI_Test(&pending, &f, MPI_STATUS_IGNORE);
}
static void msg_bare(long n) {
  MPI_Request r[2];
  for (long i = 0; i < n; i++) {
    PMPI_Irecv(&rbuf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r[0]);
    PMPI_Isend(&sbuf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r[1]);
    PMPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
}
static void msg_wrap(long n) {
  MPI_Request r[2];
  for (long i = 0; i < n; i++) {
    MPI_Irecv(&rbuf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r[0]);
    MPI_Isend(&sbuf, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
}

/* Bare, wrapped and the clock pair alternately, REPS times; best of each, ns per iteration. The
 * clock pair is measured next to every comparison (the machine's speed drifts on a shared VM). */
static void pair(body_fn bare, body_fn wrap, long n, double *b, double *w, double *c) {
  *b = *w = *c = 1e30;
  for (int r = 0; r < REPS; r++) {
    double t0 = now_s();
    bare(n);
    double t1 = now_s();
    wrap(n);
    double t2 = now_s();
    clock_pair(n);
    double t3 = now_s();
    if ((t1 - t0) / n * 1e9 < *b) *b = (t1 - t0) / n * 1e9;
    if ((t2 - t1) / n * 1e9 < *w) *w = (t2 - t1) / n * 1e9;
    if ((t3 - t2) / n * 1e9 < *c) *c = (t3 - t2) / n * 1e9;
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  setenv("POPMETER_REPORT", "0", 0); /* no report / files from a benchmark */
  setenv("POPMETER_JSON", "0", 0);
  setenv("POPMETER_CUBE", "0", 0);
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Irecv(&rbuf, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_SELF, &pending); /* never matched */
  double wb, ww, wc, sb, sw, sc, ib, iw, ic, tb, tw, tc, mb, mw, mc;
  pair(wait_bare, wait_wrap, n, &wb, &ww, &wc);
  pair(send_bare, send_wrap, n, &sb, &sw, &sc);
  pair(iprobe_bare, iprobe_wrap, n, &ib, &iw, &ic);
  pair(test_bare, test_wrap, n, &tb, &tw, &tc);
  pair(msg_bare, msg_wrap, n / 10, &mb, &mw, &mc);
  double cb = (wc + sc) / 2;
  MPI_Cancel(&pending);
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  if (rank == 0) {
    const char *cp = getenv("POPMETER_CRITICAL_PATH");
    printf("popmeter MPI wrappers (1 rank per process, best of %d x %ld calls; critical path %s)\n", REPS, n,
           cp && cp[0] == '0' ? "off" : "on");
    printf("  two clock reads                 %7.1f ns\n", cb);
    printf("  MPI_Wait(REQUEST_NULL)  bare %6.1f ns  wrapped %6.1f ns  added %5.1f ns = %.2f x clock pair  (budget <= "
           "1.30)\n",
           wb, ww, ww - wb, (ww - wb) / wc);
    printf("  MPI_Send(PROC_NULL)     bare %6.1f ns  wrapped %6.1f ns  added %5.1f ns = %.2f x clock pair  (budget <= "
           "1.30)\n",
           sb, sw, sw - sb, (sw - sb) / sc);
    printf("  MPI_Iprobe (polling)    bare %6.1f ns  wrapped %6.1f ns  added %5.1f ns                      (budget <= "
           "10 ns)\n",
           ib, iw, iw - ib);
    printf("  MPI_Test (polling)      bare %6.1f ns  wrapped %6.1f ns  added %5.1f ns                      (budget <= "
           "10 ns)\n",
           tb, tw, tw - tb);
    printf("  Irecv+Isend+Waitall self bare %6.1f ns  wrapped %6.1f ns  added %5.1f ns  (3 timestamped calls%s)\n", mb,
           mw, mw - mb, cp && cp[0] == '0' ? "" : " + clock message");
  }
  MPI_Finalize();
  return 0;
}
