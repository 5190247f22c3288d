/* Exercises the MPI wrappers with traffic whose volume is known, checks the data it receives, and
 * prints what popmeter must have counted ("EXPECT rank key op value" lines, read by
 * tests/integration/mpi_profile.py). Any even number of ranks >= 2.
 *   usage: mpi_counts FILE   (FILE: a scratch file for the MPI-IO part) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs, errors;
static struct {
  long msgs_sent, msgs_received, bytes_sent, bytes_received;
  long coll_calls, coll_bytes_out, coll_bytes_in, io_read, io_written;
  long v_send, v_recv, v_isend, v_irecv, v_waitall, v_barrier, v_bcast, v_start, v_sendrecv, v_mrecv, v_probe, v_wait,
      v_ssend, v_write_at;
} E;

#define SENT(b) (E.msgs_sent++, E.bytes_sent += (b))
#define RECVD(b) (E.msgs_received++, E.bytes_received += (b))
#define COLL(o, i) (E.coll_calls++, E.coll_bytes_out += (o), E.coll_bytes_in += (i))
#define CHECK(c, what)                                            \
  do {                                                            \
    if (!(c)) {                                                   \
      errors++;                                                   \
      fprintf(stderr, "rank %d: check failed: %s\n", rank, what); \
    }                                                             \
  } while (0)

static void barrier(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  COLL(0, 0);
  E.v_barrier++;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (nprocs % 2 || argc < 2) {
    if (!rank) fprintf(stderr, "usage: mpirun -np <even> mpi_counts FILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = nprocs, right = (rank + 1) % n, left = (rank + n - 1) % n, even = !(rank % 2);
  MPI_Status st;

  /* 1. blocking standard send / receive, 10 ints */
  int a[10], b[10];
  for (int i = 0; i < 10; i++) a[i] = rank * 100 + i;
  if (even) {
    MPI_Send(a, 10, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Recv(b, 10, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv(b, 10, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
    MPI_Send(a, 10, MPI_INT, right, 1, MPI_COMM_WORLD);
  }
  SENT(40);
  RECVD(40);
  E.v_send++;
  E.v_recv++;
  CHECK(b[9] == left * 100 + 9, "send/recv data");
  barrier();

  /* 2. synchronous send, wildcard receive with MPI_STATUS_IGNORE, 100 doubles */
  double d[100], e[100];
  for (int i = 0; i < 100; i++) d[i] = rank + i * 0.5;
  if (even) {
    MPI_Ssend(d, 100, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
    MPI_Recv(e, 100, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(e, 100, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ssend(d, 100, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
  }
  SENT(800);
  RECVD(800);
  E.v_ssend++;
  E.v_recv++;
  CHECK(e[99] == left + 49.5, "ssend data");
  barrier();

  /* 3. buffered send, 5 ints */
  int bsz = 5 * sizeof(int) + MPI_BSEND_OVERHEAD;
  void *bbuf = malloc(bsz);
  MPI_Buffer_attach(bbuf, bsz);
  MPI_Bsend(a, 5, MPI_INT, right, 3, MPI_COMM_WORLD);
  MPI_Recv(b, 5, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Buffer_detach(&bbuf, &bsz);
  free(bbuf);
  SENT(20);
  RECVD(20);
  E.v_recv++;
  CHECK(b[4] == left * 100 + 4, "bsend data");
  barrier();

  /* 4. Isend / Irecv, Waitall with MPI_STATUSES_IGNORE: 7, 8, 9 chars */
  char c1[3][16], c2[3][16];
  MPI_Request rq[6];
  for (int k = 0; k < 3; k++) {
    memset(c1[k], 'a' + rank % 26, 16);
    MPI_Irecv(c2[k], 7 + k, MPI_CHAR, left, 10 + k, MPI_COMM_WORLD, &rq[k]);
    E.v_irecv++;
  }
  for (int k = 0; k < 3; k++) {
    MPI_Isend(c1[k], 7 + k, MPI_CHAR, right, 10 + k, MPI_COMM_WORLD, &rq[3 + k]);
    E.v_isend++;
    SENT(7 + k);
  }
  MPI_Waitall(6, rq, MPI_STATUSES_IGNORE);
  E.v_waitall++;
  for (int k = 0; k < 3; k++) RECVD(7 + k);
  CHECK(c2[2][8] == 'a' + left % 26, "isend data");

  /* 5. Waitany (status ignored), Test loop, Testsome */
  int x4, x16[4], x250[250], x8[8], y4, y16[4], y250[250], y8[8];
  x4 = rank;
  x16[3] = rank;
  x250[249] = rank;
  x8[7] = rank;
  MPI_Irecv(&y4, 1, MPI_INT, left, 20, MPI_COMM_WORLD, &rq[0]);
  MPI_Irecv(y16, 4, MPI_INT, left, 21, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(&x4, 1, MPI_INT, right, 20, MPI_COMM_WORLD, &rq[2]);
  MPI_Isend(x16, 4, MPI_INT, right, 21, MPI_COMM_WORLD, &rq[3]);
  E.v_irecv += 2;
  E.v_isend += 2;
  SENT(4);
  SENT(16);
  for (int k = 0; k < 4; k++) {
    int idx;
    MPI_Waitany(4, rq, &idx, MPI_STATUS_IGNORE);
  }
  RECVD(4);
  RECVD(16);
  CHECK(y4 == left && y16[3] == left, "waitany data");
  int flag = 0;
  MPI_Irecv(y250, 250, MPI_INT, left, 22, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(x250, 250, MPI_INT, right, 22, MPI_COMM_WORLD, &rq[1]);
  E.v_irecv++;
  E.v_isend++;
  SENT(1000);
  while (!flag) MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  E.v_wait++;
  RECVD(1000);
  CHECK(y250[249] == left, "test data");
  MPI_Irecv(y8, 8, MPI_INT, left, 23, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(x8, 8, MPI_INT, right, 23, MPI_COMM_WORLD, &rq[1]);
  E.v_irecv++;
  E.v_isend++;
  SENT(32);
  int done = 0, outc, idxs[2];
  MPI_Status sts[2];
  while (done < 2) {
    MPI_Testsome(2, rq, &outc, idxs, sts);
    if (outc != MPI_UNDEFINED) done += outc;
  }
  RECVD(32);
  CHECK(y8[7] == left, "testsome data");
  barrier();

  /* 6. persistent requests: 3 rounds of 16 ints */
  int p1[16], p2[16];
  MPI_Request pr[2];
  MPI_Recv_init(p2, 16, MPI_INT, left, 30, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(p1, 16, MPI_INT, right, 30, MPI_COMM_WORLD, &pr[1]);
  for (int round = 0; round < 3; round++) {
    p1[15] = rank * 10 + round;
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    E.v_start++;
    E.v_waitall++;
    SENT(64);
    RECVD(64);
    CHECK(p2[15] == left * 10 + round, "persistent data");
  }
  MPI_Start(&pr[0]); /* one more round with MPI_Start + MPI_Wait on each */
  MPI_Start(&pr[1]);
  MPI_Wait(&pr[0], &st);
  MPI_Wait(&pr[1], &st);
  SENT(64);
  RECVD(64);
  E.v_wait += 2;
  MPI_Wait(&pr[0], &st); /* inactive persistent request: returns at once, nothing received */
  E.v_wait++;
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  barrier();

  /* 7. Sendrecv (12 bytes) and Sendrecv_replace (8 bytes) */
  char s12[12], r12[12];
  memset(s12, rank, 12);
  MPI_Sendrecv(s12, 12, MPI_BYTE, right, 40, r12, 12, MPI_BYTE, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  SENT(12);
  RECVD(12);
  E.v_sendrecv++;
  CHECK(r12[11] == (char)left, "sendrecv data");
  double rep = rank;
  MPI_Sendrecv_replace(&rep, 1, MPI_DOUBLE, right, 41, left, 41, MPI_COMM_WORLD, &st);
  SENT(8);
  RECVD(8);
  CHECK(rep == left, "sendrecv_replace data");

  /* 8. matched probe + receive (24 bytes), Improbe + Imrecv (40 bytes), Probe + Recv (4 bytes) */
  char m24[24], m40[40];
  int one = rank, got1 = -1;
  memset(m24, 1, 24);
  MPI_Isend(m24, 24, MPI_CHAR, right, 50, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(m40, 40, MPI_CHAR, right, 51, MPI_COMM_WORLD, &rq[1]);
  MPI_Isend(&one, 1, MPI_INT, right, 52, MPI_COMM_WORLD, &rq[2]);
  E.v_isend += 3;
  SENT(24);
  SENT(40);
  SENT(4);
  MPI_Message msg;
  char g24[24], g40[40];
  MPI_Mprobe(left, 50, MPI_COMM_WORLD, &msg, &st);
  MPI_Mrecv(g24, 24, MPI_CHAR, &msg, MPI_STATUS_IGNORE);
  E.v_mrecv++;
  RECVD(24);
  flag = 0;
  while (!flag) MPI_Improbe(left, 51, MPI_COMM_WORLD, &flag, &msg, &st);
  MPI_Request ir;
  MPI_Imrecv(g40, 40, MPI_CHAR, &msg, &ir);
  MPI_Wait(&ir, MPI_STATUS_IGNORE);
  E.v_wait++;
  RECVD(40);
  MPI_Probe(MPI_ANY_SOURCE, 52, MPI_COMM_WORLD, &st);
  MPI_Recv(&got1, 1, MPI_INT, st.MPI_SOURCE, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  E.v_probe++;
  E.v_recv++;
  RECVD(4);
  CHECK(got1 == left, "probe data");
  MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
  E.v_waitall++;
  barrier();

  /* 9. MPI_PROC_NULL: visits, but no message and no byte */
  MPI_Send(a, 10, MPI_INT, MPI_PROC_NULL, 60, MPI_COMM_WORLD);
  MPI_Recv(b, 10, MPI_INT, MPI_PROC_NULL, 60, MPI_COMM_WORLD, &st);
  MPI_Irecv(b, 10, MPI_INT, MPI_PROC_NULL, 60, MPI_COMM_WORLD, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  E.v_send++;
  E.v_recv++;
  E.v_irecv++;
  E.v_wait++;

  /* 10. collectives on MPI_COMM_WORLD (root 0) */
  const long others = n - 1;
  int big[100] = {0};
  MPI_Bcast(big, 100, MPI_INT, 0, MPI_COMM_WORLD);
  E.v_bcast++;
  if (rank == 0)
    COLL(others * 400, 0);
  else
    COLL(0, 400);
  double r10[10] = {1}, s10[10];
  MPI_Reduce(r10, s10, 10, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    COLL(0, others * 80);
  else
    COLL(80, 0);
  int ar[5] = {rank, 1, 2, 3, 4}, as[5];
  MPI_Allreduce(ar, as, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  COLL(others * 20, others * 20);
  CHECK(as[0] == n * (n - 1) / 2, "allreduce result");
  int g2[2] = {rank, rank}, *gall = malloc(sizeof(int) * 2 * n);
  MPI_Gather(g2, 2, MPI_INT, gall, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    COLL(0, others * 8);
  else
    COLL(8, 0);
  int *sall = malloc(sizeof(int) * 3 * n), s3[3];
  for (int i = 0; i < 3 * n; i++) sall[i] = i / 3;
  MPI_Scatter(sall, 3, MPI_INT, s3, 3, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    COLL(others * 12, 0);
  else
    COLL(0, 12);
  CHECK(s3[2] == rank, "scatter data");
  int ag[4] = {rank}, *agall = malloc(sizeof(int) * 4 * n);
  MPI_Allgather(ag, 4, MPI_INT, agall, 4, MPI_INT, MPI_COMM_WORLD);
  COLL(others * 16, others * 16);
  int *a2a = malloc(sizeof(int) * n), *a2b = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) a2a[i] = rank * n + i;
  MPI_Alltoall(a2a, 1, MPI_INT, a2b, 1, MPI_INT, MPI_COMM_WORLD);
  COLL(others * 4, others * 4);
  CHECK(a2b[0] == rank, "alltoall data");
  MPI_Allreduce(MPI_IN_PLACE, ar, 5, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  COLL(others * 20, others * 20);
  int ib[10] = {0};
  if (rank == 0) ib[9] = 99;
  MPI_Ibcast(ib, 10, MPI_INT, 0, MPI_COMM_WORLD, &rq[0]);
  MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  E.v_wait++;
  if (rank == 0)
    COLL(others * 40, 0);
  else
    COLL(0, 40);
  CHECK(ib[9] == 99, "ibcast data");
  /* the v-variants, rank i contributing i + 1 ints: the bytes are each rank's own peers' counts
   * (its own block is not a transfer), S - (r + 1) with S = n (n + 1) / 2 */
  {
    const long S = (long)n * (n + 1) / 2, mine = rank + 1, rest = S - mine;
    int *cnt = malloc(sizeof(int) * n), *dsp = malloc(sizeof(int) * n), *same = malloc(sizeof(int) * n),
        *sdsp = malloc(sizeof(int) * n);
    int *vbuf = malloc(sizeof(int) * (size_t)S), *vout = malloc(sizeof(int) * (size_t)(n * mine)), *vin;
    for (int i = 0, d = 0; i < n; d += i + 1, i++) cnt[i] = i + 1, dsp[i] = d, same[i] = mine, sdsp[i] = i * mine;
    vin = malloc(sizeof(int) * (size_t)S);
    for (int i = 0; i < mine * n; i++) vout[i] = rank;
    MPI_Gatherv(vout, mine, MPI_INT, vbuf, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      COLL(0, rest * 4);
      CHECK(vbuf[S - 1] == n - 1, "gatherv data");
    } else {
      COLL(mine * 4, 0);
    }
    for (long i = 0; i < S; i++) vbuf[i] = -1;
    for (int i = 0; i < n; i++)
      if (rank == 0)
        for (int k = 0; k < i + 1; k++) vbuf[dsp[i] + k] = i;
    MPI_Scatterv(vbuf, cnt, dsp, MPI_INT, vin, mine, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
      COLL(rest * 4, 0);
    else
      COLL(0, mine * 4);
    CHECK(vin[mine - 1] == rank, "scatterv data");
    MPI_Allgatherv(vout, mine, MPI_INT, vbuf, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    COLL(others * mine * 4, rest * 4);
    CHECK(vbuf[S - 1] == n - 1, "allgatherv data");
    /* rank r sends i + 1 ints to rank i, so it receives r + 1 from everyone */
    MPI_Alltoallv(vbuf, cnt, dsp, MPI_INT, vout, same, sdsp, MPI_INT, MPI_COMM_WORLD);
    COLL(rest * 4, others * mine * 4);
    MPI_Reduce_scatter(vbuf, vin, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    COLL(rest * 4, others * mine * 4);
    free(cnt);
    free(dsp);
    free(same);
    free(sdsp);
    free(vbuf);
    free(vout);
    free(vin);
  }
  free(gall);
  free(sall);
  free(agall);
  free(a2a);
  free(a2b);
  barrier();

  /* 11. a split communicator: p2p inside it, an allreduce, free */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hr, hn;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  int hv = rank, hw = -1;
  MPI_Sendrecv(&hv, 1, MPI_INT, (hr + 1) % hn, 70, &hw, 1, MPI_INT, (hr + hn - 1) % hn, 70, half, MPI_STATUS_IGNORE);
  SENT(4);
  RECVD(4);
  E.v_sendrecv++;
  long hsum = 0, hone = 1;
  MPI_Allreduce(&hone, &hsum, 1, MPI_LONG, MPI_SUM, half);
  COLL((hn - 1) * 8L, (hn - 1) * 8L);
  CHECK(hsum == hn, "split allreduce");
  MPI_Comm_free(&half);
  barrier();

  /* 12. MPI-IO: 1000 bytes written and read back at rank*1100, 100 more with iwrite_at */
  MPI_File fh;
  char w[1000], r[1000];
  memset(w, 'A' + rank % 26, sizeof w);
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS) {
    MPI_File_write_at(fh, (MPI_Offset)rank * 1100, w, 1000, MPI_CHAR, MPI_STATUS_IGNORE);
    E.v_write_at++;
    E.io_written += 1000;
    MPI_File_iwrite_at(fh, (MPI_Offset)rank * 1100 + 1000, w, 100, MPI_CHAR, &rq[0]);
    MPI_Wait(&rq[0], &st);
    E.v_wait++;
    E.io_written += 100;
    MPI_File_sync(fh);
    MPI_File_read_at(fh, (MPI_Offset)rank * 1100, r, 1000, MPI_CHAR, &st);
    E.io_read += 1000;
    CHECK(r[999] == 'A' + rank % 26, "file data");
    MPI_File_close(&fh);
  } else {
    errors++;
    fprintf(stderr, "rank %d: MPI_File_open(%s) failed\n", rank, argv[1]);
  }
  barrier();
  if (rank == 0) MPI_File_delete(argv[1], MPI_INFO_NULL);

  int all_errors = 0;
  MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    COLL(0, others * 4);
  else
    COLL(4, 0);

  /* expectations, one rank after the other (the n barriers of this loop are counted in advance) */
  E.v_barrier += n;
  E.coll_calls += n;
  for (int p = 0; p < n; p++) {
    if (p == rank) {
#define EX(key, op, v) printf("EXPECT %d %s %s %ld\n", rank, key, op, (long)(v))
      EX("msgs_sent", "==", E.msgs_sent);
      EX("msgs_received", "==", E.msgs_received);
      EX("bytes_sent", "==", E.bytes_sent);
      EX("bytes_received", "==", E.bytes_received);
      EX("coll_calls", "==", E.coll_calls);
      EX("coll_bytes_out", "==", E.coll_bytes_out);
      EX("coll_bytes_in", "==", E.coll_bytes_in);
      EX("io_bytes_read", "==", E.io_read);
      EX("io_bytes_written", "==", E.io_written);
      EX("visits:MPI_Send", "==", E.v_send);
      EX("visits:MPI_Ssend", "==", E.v_ssend);
      EX("visits:MPI_Recv", "==", E.v_recv);
      EX("visits:MPI_Isend", "==", E.v_isend);
      EX("visits:MPI_Irecv", "==", E.v_irecv);
      EX("visits:MPI_Waitall", "==", E.v_waitall);
      EX("visits:MPI_Wait", "==", E.v_wait);
      EX("visits:MPI_Barrier", "==", E.v_barrier);
      EX("visits:MPI_Bcast", "==", E.v_bcast);
      EX("visits:MPI_Startall", "==", E.v_start);
      EX("visits:MPI_Sendrecv", "==", E.v_sendrecv);
      EX("visits:MPI_Mrecv", "==", E.v_mrecv);
      EX("visits:MPI_Probe", "==", E.v_probe);
      EX("visits:MPI_File_write_at", "==", E.v_write_at);
      EX("visits:MPI_Waitany", "==", 4);
      EX("polls:MPI_Test", ">=", 1);
      EX("polls:MPI_Testsome", ">=", 1);
      EX("polls:MPI_Improbe", ">=", 1);
      EX("visits:MPI_Test", "==", 0);
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) printf("mpi_counts: %d ranks, %s\n", n, all_errors ? "ERRORS" : "data ok");
  fflush(stdout);
  MPI_Finalize();
  return all_errors ? 1 : 0;
}
