/* Stress of the MPI wrappers and of the critical-path piggyback: the awkward cases of
 * point-to-point matching and request completion, on any number of ranks >= 2. Every received
 * value is checked; the program must neither hang nor see wrong data with or without popmeter.
 * With 'threads' as argument, two threads per rank communicate concurrently (MPI_THREAD_MULTIPLE),
 * one of them completing requests posted by the other. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, n, errors;
#define CHECK(c, what)                                                         \
  do {                                                                         \
    if (!(c)) {                                                                \
      __atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);                        \
      fprintf(stderr, "rank %d: %s failed (line %d)\n", rank, what, __LINE__); \
    }                                                                          \
  } while (0)

/* 1. everybody sends to rank 0 with several tags; rank 0 receives some with specific
 *    (source, tag) receives posted first and the rest with wildcards, completing them out of order */
static void wildcard_fan_in(MPI_Comm comm) {
  int r, sz;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &sz);
  const int per = 6;
  if (r != 0) {
    MPI_Request q[6];
    int v[6];
    for (int k = 0; k < per; k++) {
      v[k] = r * 1000 + k;
      MPI_Isend(&v[k], 1, MPI_INT, 0, k % 3, comm, &q[k]);
    }
    MPI_Waitall(per, q, MPI_STATUSES_IGNORE);
    MPI_Barrier(comm); /* rank 0's wildcard receives must not see the next phase's messages */
    return;
  }
  int total = (sz - 1) * per, got = 0;
  int *seen = calloc((size_t)sz * per, sizeof(int));
  /* specific receives from rank 1 tag 0 (two of them), then wildcard receives for all the rest */
  int spec[2];
  MPI_Request sq[2];
  MPI_Irecv(&spec[0], 1, MPI_INT, 1, 0, comm, &sq[0]);
  MPI_Irecv(&spec[1], 1, MPI_INT, 1, 0, comm, &sq[1]);
  for (int i = 0; i < total - 2; i++) {
    int v;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(v / 1000 == st.MPI_SOURCE && (v % 1000) % 3 == st.MPI_TAG, "wildcard source/tag");
    if (v / 1000 < sz && v % 1000 < per) seen[(v / 1000) * per + v % 1000]++;
    got++;
  }
  int idx;
  MPI_Waitany(2, sq, &idx, MPI_STATUS_IGNORE); /* completes them in any order */
  MPI_Waitany(2, sq, &idx, MPI_STATUS_IGNORE);
  for (int k = 0; k < 2; k++) {
    CHECK(spec[k] / 1000 == 1 && (spec[k] % 1000) % 3 == 0, "specific receive");
    seen[spec[k] / 1000 * per + spec[k] % 1000]++;
  }
  for (int i = per; i < sz * per; i++) CHECK(seen[i] == 1, "each message once");
  free(seen);
  (void)got;
  MPI_Barrier(comm);
}

/* 2. messages to self: Ssend to self with a posted Irecv, Isend/Recv to self */
static void self_messages(MPI_Comm comm) {
  int r, a = 11, b = 0;
  MPI_Comm_rank(comm, &r);
  MPI_Request q;
  MPI_Irecv(&b, 1, MPI_INT, r, 7, comm, &q);
  MPI_Ssend(&a, 1, MPI_INT, r, 7, comm);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(b == 11, "ssend to self");
  a = 12;
  MPI_Isend(&a, 1, MPI_INT, r, 8, comm, &q);
  MPI_Recv(&b, 1, MPI_INT, r, 8, comm, MPI_STATUS_IGNORE);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(b == 12, "isend to self");
  MPI_Sendrecv(&a, 1, MPI_INT, MPI_PROC_NULL, 0, &b, 1, MPI_INT, MPI_PROC_NULL, 0, comm, MPI_STATUS_IGNORE);
}

/* 3. ring with large (rendezvous) synchronous and non-blocking messages */
static void big_ring(MPI_Comm comm) {
  int r, sz;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &sz);
  const int N = 1 << 18; /* 1 MiB of ints */
  int *s = malloc(N * sizeof(int)), *d = malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) s[i] = r + i;
  int right = (r + 1) % sz, left = (r + sz - 1) % sz;
  MPI_Request q;
  MPI_Irecv(d, N, MPI_INT, left, 9, comm, &q);
  MPI_Ssend(s, N, MPI_INT, right, 9, comm);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(d[N - 1] == left + N - 1, "big ssend ring");
  MPI_Request qq[2];
  MPI_Irecv(d, N, MPI_INT, left, 10, comm, &qq[0]);
  MPI_Isend(s, N, MPI_INT, right, 10, comm, &qq[1]);
  int flag = 0;
  while (!flag) MPI_Testall(2, qq, &flag, MPI_STATUSES_IGNORE);
  CHECK(d[0] == left, "big isend ring");
  free(s);
  free(d);
}

/* 4. many messages in flight before any receive is posted (clock-message pool growth) and a
 *    Waitall over more than 64 requests (heap path) with MPI_STATUSES_IGNORE */
static void many_in_flight(MPI_Comm comm) {
  int r, sz;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &sz);
  const int M = 300;
  int right = (r + 1) % sz, left = (r + sz - 1) % sz;
  int *s = malloc(M * sizeof(int)), *d = malloc(M * sizeof(int));
  MPI_Request *q = malloc(2 * M * sizeof(MPI_Request));
  for (int i = 0; i < M; i++) {
    s[i] = r * M + i;
    MPI_Isend(&s[i], 1, MPI_INT, right, 100 + i % 7, comm, &q[M + i]);
  }
  MPI_Barrier(comm);
  for (int i = 0; i < M; i++) MPI_Irecv(&d[i], 1, MPI_INT, left, 100 + i % 7, comm, &q[i]);
  MPI_Waitall(2 * M, q, MPI_STATUSES_IGNORE);
  for (int i = 0; i < M; i++) CHECK(d[i] == left * M + i, "many in flight");
  /* Waitsome and Testany over mixed arrays with MPI_REQUEST_NULL entries */
  for (int i = 0; i < M; i++) {
    if (i % 3 == 0) {
      q[i] = MPI_REQUEST_NULL;
      q[M + i] = MPI_REQUEST_NULL;
      continue;
    }
    MPI_Irecv(&d[i], 1, MPI_INT, left, 200, comm, &q[i]);
    MPI_Isend(&s[i], 1, MPI_INT, right, 200, comm, &q[M + i]);
  }
  int left_to_do = 2 * (M - (M + 2) / 3), outc, *idx = malloc(2 * M * sizeof(int));
  MPI_Status *sts = malloc(2 * M * sizeof(MPI_Status));
  while (left_to_do > 0) {
    MPI_Waitsome(2 * M, q, &outc, idx, sts);
    if (outc == MPI_UNDEFINED) break;
    left_to_do -= outc;
  }
  CHECK(left_to_do == 0, "waitsome completed everything");
  int vv = -1, one = r, flag = 0, which;
  MPI_Request t[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Irecv(&vv, 1, MPI_INT, left, 300, comm, &t[1]);
  MPI_Isend(&one, 1, MPI_INT, right, 300, comm, &t[2]);
  int done = 0;
  while (done < 2) {
    MPI_Testany(3, t, &which, &flag, MPI_STATUS_IGNORE);
    if (flag && which != MPI_UNDEFINED) done++;
  }
  CHECK(vv == left, "testany");
  free(idx);
  free(sts);
  free(s);
  free(d);
  free(q);
}

/* 5. persistent receive reused, inactive waits, a cancelled receive, probes */
static void persistent_cancel_probe(MPI_Comm comm) {
  int r, sz;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &sz);
  int right = (r + 1) % sz, left = (r + sz - 1) % sz;
  int v = 0, w;
  MPI_Request pr, ps;
  MPI_Recv_init(&v, 1, MPI_INT, left, 400, comm, &pr);
  MPI_Ssend_init(&w, 1, MPI_INT, right, 400, comm, &ps);
  for (int k = 0; k < 5; k++) {
    w = r * 10 + k;
    MPI_Start(&pr);
    MPI_Start(&ps);
    MPI_Request both[2] = {pr, ps};
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    CHECK(v == left * 10 + k, "persistent round");
    MPI_Wait(&pr, MPI_STATUS_IGNORE); /* inactive now */
  }
  MPI_Request_free(&pr);
  MPI_Request_free(&ps);
  /* a receive that never matches, cancelled */
  MPI_Request cq;
  int never;
  MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 999, comm, &cq);
  MPI_Cancel(&cq);
  MPI_Status cst;
  MPI_Wait(&cq, &cst);
  int cancelled = 0;
  MPI_Test_cancelled(&cst, &cancelled);
  CHECK(cancelled, "cancel");
  /* matched probes */
  int x = r, y = -1, flag = 0;
  MPI_Request q;
  MPI_Isend(&x, 1, MPI_INT, right, 401, comm, &q);
  MPI_Message m;
  MPI_Status st;
  while (!flag) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &m, &st);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 401, "improbe status");
  MPI_Request mq;
  MPI_Imrecv(&y, 1, MPI_INT, &m, &mq);
  MPI_Wait(&mq, MPI_STATUS_IGNORE);
  CHECK(y == left, "imrecv");
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Isend(&x, 1, MPI_INT, right, 402, comm, &q);
  MPI_Probe(left, 402, comm, &st);
  MPI_Recv(&y, 1, MPI_INT, left, 402, comm, MPI_STATUS_IGNORE);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(y == left, "probe recv");
  MPI_Message nm;
  MPI_Mprobe(MPI_PROC_NULL, 0, comm, &nm, &st);
  MPI_Mrecv(&y, 1, MPI_INT, &nm, MPI_STATUS_IGNORE);
}

/* 6. communicators: dup, split, cartesian, intercommunicator and its merge; a receive posted on
 *    a communicator that is freed before the receive completes */
static void communicators(void) {
  MPI_Comm dup, half, cart, inter, merged;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  wildcard_fan_in(dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order in the halves */
  int hr, hn;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hn);
  if (hn > 1) big_ring(half);
  int dims[1] = {0}, periods[1] = {1};
  MPI_Dims_create(n, 1, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
  int src, dst, cv = rank, cw = -1;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  MPI_Sendrecv(&cv, 1, MPI_INT, dst, 0, &cw, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
  int srcw;
  MPI_Group cg, wg;
  MPI_Comm_group(cart, &cg);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(cg, 1, &src, wg, &srcw);
  CHECK(cw == srcw, "cartesian shift");
  int nb[2], mine[2] = {rank, rank};
  MPI_Neighbor_allgather(mine, 1, MPI_INT, nb, 1, MPI_INT, cart);
  if (n >= 2) {
    /* the local leader is rank 0 of 'half', i.e. the highest world rank of the same parity (reversed keys) */
    int lead_remote = (n - 1) % 2 == (rank + 1) % 2 ? n - 1 : n - 2;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lead_remote, 77, &inter);
    int rsize, ir;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &ir);
    /* rank 0 of each group exchanges with rank 0 of the other */
    if (ir == 0) {
      int out = rank, in = -1;
      MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, MPI_STATUS_IGNORE);
      CHECK(in == lead_remote, "intercomm sendrecv");
    }
    int bv = rank % 2 == 0 ? 5 : 0;
    /* broadcast from the even group's leader to the odd group */
    int root = (rank % 2 == 0) ? (ir == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&bv, 1, MPI_INT, root, inter);
    if (rank % 2) CHECK(bv == 5, "intercomm bcast");
    MPI_Intercomm_merge(inter, rank % 2, &merged);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == n, "merged allreduce");
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
  }
  /* receive posted, communicator freed, then the receive completes */
  MPI_Comm tmp;
  MPI_Comm_dup(MPI_COMM_WORLD, &tmp);
  int tv = -1, tw = rank;
  MPI_Request tq;
  MPI_Irecv(&tv, 1, MPI_INT, (rank + n - 1) % n, 5, tmp, &tq);
  MPI_Comm_free(&tmp);
  MPI_Send(&tw, 1, MPI_INT, (rank + 1) % n, 5, dup); /* on another communicator: must not match */
  int dv;
  MPI_Recv(&dv, 1, MPI_INT, (rank + n - 1) % n, 5, dup, MPI_STATUS_IGNORE);
  CHECK(dv == (rank + n - 1) % n, "message on dup");
  MPI_Cancel(&tq);
  MPI_Wait(&tq, MPI_STATUS_IGNORE);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Group_free(&cg);
  MPI_Group_free(&wg);
}

/* 7. threads: each thread has its own duplicated communicator; thread 1 also completes a request
 *    that thread 0 posted (cross-thread completion of a tracked receive) */
static MPI_Comm tcomm[2];
static MPI_Request cross;
static int cross_v = -1;
static pthread_barrier_t tb;
static void *thread_main(void *arg) {
  int t = (int)(long)arg;
  for (int k = 0; k < 50; k++) {
    int right = (rank + 1) % n, left = (rank + n - 1) % n, out = rank * 100 + k, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, right, k, &in, 1, MPI_INT, MPI_ANY_SOURCE, k, tcomm[t], MPI_STATUS_IGNORE);
    CHECK(in == left * 100 + k, "thread sendrecv");
    MPI_Allreduce(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_MAX, tcomm[t]);
  }
  if (t == 0) MPI_Irecv(&cross_v, 1, MPI_INT, (rank + n - 1) % n, 1000, tcomm[0], &cross);
  pthread_barrier_wait(&tb);
  if (t == 1) {
    int x = rank;
    MPI_Send(&x, 1, MPI_INT, (rank + 1) % n, 1000, tcomm[0]);
    MPI_Wait(&cross, MPI_STATUS_IGNORE);
    CHECK(cross_v == (rank + n - 1) % n, "cross-thread completion");
  }
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 && !strcmp(argv[1], "threads"), provided = 0;
  if (threads) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (threads) {
    if (provided < MPI_THREAD_MULTIPLE) {
      if (!rank) printf("mpi_stress: MPI_THREAD_MULTIPLE not provided, skipped\n");
      MPI_Finalize();
      return 77;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[1]);
    pthread_barrier_init(&tb, NULL, 2);
    pthread_t th[2];
    for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, thread_main, (void *)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    MPI_Comm_free(&tcomm[0]);
    MPI_Comm_free(&tcomm[1]);
  } else {
    wildcard_fan_in(MPI_COMM_WORLD);
    self_messages(MPI_COMM_WORLD);
    big_ring(MPI_COMM_WORLD);
    many_in_flight(MPI_COMM_WORLD);
    persistent_cancel_probe(MPI_COMM_WORLD);
    communicators();
    self_messages(MPI_COMM_SELF);
  }
  int all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mpi_stress%s: %d ranks, %s\n", threads ? " threads" : "", n, all ? "ERRORS" : "data ok");
  MPI_Finalize();
  return all ? 1 : 0;
}
