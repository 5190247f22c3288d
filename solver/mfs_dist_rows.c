/*
 * mfs_dist_rows.c — which process of a shared front's group factors each of its tile rows (the
 * tasks writing a tile run where its row lives; see mfs_dist.h).
 *
 * First contiguous ranges in process order with equal flops: the panel chain changes process once
 * per range. That cut leaves the end of the chain — the last panels and the updates they feed — to
 * the last process alone while the others have nothing left: on the root of lap3d:60 (11 tile rows,
 * 2 processes x 1 worker) the simulation below gives 0.73 s for it against 0.62 s for the same work
 * on one process of two workers, and traces of mfsolve showed the first process done 90-125 ms
 * before the second one, which had waited for its panels 230-260 ms of the last 0.8 s. Then rows
 * move: a local search tries every row on every other process of the group, and exchanges of two
 * rows between processes, and keeps a change when the simulated makespan of the front's tasks
 * (mfs_rowsim.h: list scheduling by bottom level; a tile read from another process costs a latency
 * and a reception task on the reader's process) falls by more than 1 %. On that root: 0.64 s
 * simulated, both processes done within 11-13 ms of each other in the traces; the whole
 * factorization on 2 processes x 1 worker, 6 interleaved pairs: 3.83 s on average with the cut,
 * 3.72 s with the search (faster in 4 pairs); lap3d:50 and lap3d27:40 within noise (1.290 / 1.289,
 * 0.519 / 0.507 s). The price: more tiles cross (lap3d:60: 333.7 MB against 284.7). Every process
 * computes the same rows (deterministic), and the simulation gives each process one worker whatever
 * the run has: a shared front's rows do not depend on the number of workers (which fronts are
 * shared can: the pruning into sequential subtrees balances over all workers).
 * The processes come to the lowest shared front of their group after their own work, which the
 * mapping can leave unequal (lap3d:60 on 2 processes: 6.84e10 and 6.19e10 flops before the mapping
 * rebalanced its one-rank subtrees, 6.37e10 and 6.66e10 since): the simulation starts each process
 * that much later (own_work), so the search gives the earlier one more of the front. 2 processes x 1
 * worker, interleaved pairs (before the rebalancing): lap3d:60 faster in 10 of 11 (mean -0.15 s of
 * 3.2-3.6), lap3d:50 +0.009 s and lap3d27:40 +0.002 s over 11 (noise).
 */
#include "mfs_dist.h"
#include "mfs_rowsim.h"

#include <math.h>

/* One-worker rates of this code's kernels on nb = 512 tiles (GFlop/s, popmeter's per-codelet table
 * of mfsolve lap3d:60 on 2 processes): only their ratios matter for choosing rows. */
static const double kernel_rate[MFS_NOPTYPES] = {
    [MFS_OP_POTRF] = 24e9, [MFS_OP_TRSM] = 33e9, [MFS_OP_SYRK] = 40e9, [MFS_OP_GEMM] = 40e9};

/* Simulated tasks per distribution (dist__create, at each task-based factorization; every process
 * computes the same): lap3d:80 on 2 processes, whose two shared fronts have 19 tile rows, takes
 * 79 ms of distribution, lap3d:60 on 16 processes 29 ms. */
#define SEARCH_BUDGET 4000000
/* A move is kept when it shortens the simulated front by more than this fraction. */
#define SEARCH_GAIN 0.01
#define SEARCH_PASSES 8

/* One-worker rate of a process's own work (sequential subtree tasks 28-32 GFlop/s on lap3d:60, its
 * tile tasks 40): how much later a process with more of it comes to the fronts it shares. */
#define OWN_WORK_RATE 32e9

typedef struct {
  rowsim *sim;
  const double *start; /* per process of the front's group: when it comes to the front (NULL: all at 0) */
  rowsim_task *task;
  int32_t *last;      /* per tile of the front: the task that wrote it last */
  int32_t *recv_head; /* per task: the first reception of its result by another process, or -1 */
  int32_t *recv_next; /* per reception task: the next reception of the same result */
  int32_t ntask;
} front_graph;

/* A dependency between processes: StarPU-MPI's progression thread finds the request within its
 * sleep between polls (up to 200 us), and the receiving process then spends CPU time on the tile:
 * the copy between processes (0.54 ms per 1.75 MB tile, 0.31 ns per byte, measured by popmeter on
 * lap3d:60, 2 processes of one node) and, when the buffer's pages are fresh, their first touch
 * (0.42-0.53 ns per byte on the development VMs; the memory window recycles most buffers): 0.5 ns
 * per byte, between the copy alone and the copy of a fresh buffer. */
#define RECV_LATENCY 200e-6
#define RECV_SECONDS_PER_BYTE 0.5e-9

/* The reception of task w's result (a tile of `bytes`) by process p: one task on p per result and
 * process, which every reader on p waits for (StarPU-MPI moves a tile once per version). */
static int32_t reception(front_graph *G, int32_t *n, int32_t w, int32_t p, double bytes) {
  for (int32_t r = G->recv_head[w]; r >= 0; r = G->recv_next[r])
    if (G->task[r].proc == p) return r;
  int32_t r = (*n)++;
  G->task[r] = (rowsim_task){.proc = p, .ndep = 1, .dep = {w}, .dur = bytes * RECV_SECONDS_PER_BYTE};
  G->recv_head[r] = -1;
  G->recv_next[r] = G->recv_head[w];
  G->recv_head[w] = r;
  return r;
}

/* The tile tasks of front f (potrf .. gemm, in list order) with tile row i on process own[i] - lo:
 * each runs where the tile it writes lives, lasts its flops at its kernel's rate, and waits for the
 * last writer of every tile it accesses — through a reception task when that writer is elsewhere. */
static void graph_build(front_graph *G, const mfs_symbolic *S, int32_t f, const int32_t *own, int32_t lo) {
  const mfs_front *F = &S->fronts[f];
  const int32_t *b = S->blkptr + F->blk;
  const int64_t ntile = (int64_t)F->nbt * (F->nbt + 1) / 2;
  for (int64_t x = 0; x < ntile; x++) G->last[x] = -1;
  int32_t n = 0;
  for (int64_t o = F->op_begin; o < F->op_end; o++) {
    const mfs_op *op = &S->ops[o];
    if (op->type < MFS_OP_POTRF || op->type > MFS_OP_GEMM) continue;
    mfs_tile_access acc[3];
    int na = mfs_op_access(op, acc);
    const int32_t proc = own[acc[na - 1].i] - lo;
    int32_t dep[3], nd = 0;
    for (int q = 0; q < na; q++) {
      int32_t w = G->last[mfs_tile_index(F->nbt, acc[q].i, acc[q].j)];
      if (w < 0) continue;
      if (G->task[w].proc != proc) {
        double bytes = (double)(b[acc[q].i + 1] - b[acc[q].i]) * (b[acc[q].j + 1] - b[acc[q].j]) * sizeof(double);
        w = reception(G, &n, w, proc, bytes);
      }
      int seen = 0;
      for (int d = 0; d < nd && !seen; d++) seen = dep[d] == w;
      if (!seen) dep[nd++] = w;
    }
    rowsim_task *k = &G->task[n];
    *k = (rowsim_task){.proc = proc, .ndep = nd, .dur = op->flops / kernel_rate[op->type]};
    for (int d = 0; d < nd; d++) k->dep[d] = dep[d];
    G->recv_head[n] = -1;
    G->last[mfs_tile_index(F->nbt, acc[na - 1].i, acc[na - 1].j)] = n;
    n++;
  }
  G->ntask = n;
}

static double graph_makespan(front_graph *G, const mfs_symbolic *S, int32_t f, const int32_t *own, int32_t lo,
                             int32_t nproc, int workers) {
  graph_build(G, S, f, own, lo);
  return rowsim__makespan(G->sim, G->task, G->ntask, nproc, workers, RECV_LATENCY, G->start);
}

static void graph_free(front_graph *G) {
  rowsim__free(G->sim);
  mem__free(G->task);
  mem__free(G->last);
  mem__free(G->recv_head);
  mem__free(G->recv_next);
}

static int64_t front_ops(const mfs_symbolic *S, int32_t f) { return S->fronts[f].op_end - S->fronts[f].op_begin; }

/* Room for the graph of front f_only, or (f_only < 0) of the largest shared front the search takes;
 * 0 when there is no memory for it. */
static int graph_alloc(front_graph *G, const mfs_symbolic *S, const mfs_dist *D, int32_t f_only, int nproc) {
  int64_t ops = 0, tiles = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (f_only >= 0 ? f != f_only : !dist__shared(D, f) || front_ops(S, f) > DIST_ROWS_SEARCH_MAX_OPS) continue;
    const mfs_front *F = &S->fronts[f];
    if (front_ops(S, f) > ops) ops = front_ops(S, f);
    if ((int64_t)F->nbt * (F->nbt + 1) / 2 > tiles) tiles = (int64_t)F->nbt * (F->nbt + 1) / 2;
  }
  *G = (front_graph){0};
  if (ops > INT32_MAX / 8) return 0;
  const int32_t cap = (int32_t)(3 * ops + 1); /* an operation's task and at most two receptions */
  G->sim = rowsim__create(cap, nproc);
  G->task = mem__alloc((size_t)cap * sizeof *G->task);
  G->last = mem__alloc((size_t)(tiles + 1) * sizeof *G->last);
  G->recv_head = mem__alloc((size_t)cap * sizeof *G->recv_head);
  G->recv_next = mem__alloc((size_t)cap * sizeof *G->recv_next);
  if (G->sim && G->task && G->last && G->recv_head && G->recv_next) return 1;
  graph_free(G);
  return 0;
}

void dist__rows_equal_flops(const mfs_symbolic *S, const mfs_dist *D, int32_t f, int32_t *own, double *w) {
  const mfs_front *F = &S->fronts[f];
  const int32_t n = D->hi[f] - D->lo[f];
  double sum = 0, before = 0;
  for (int32_t i = 0; i < F->nbt; i++) w[i] = 0;
  /* a row is charged the operations writing it */
  for (int64_t o = F->op_begin; o < F->op_end; o++) {
    const mfs_op *op = &S->ops[o];
    if (op->front == f && op->i >= 0) w[op->i] += op->flops;
  }
  for (int32_t i = 0; i < F->nbt; i++) sum += w[i];
  /* row i goes to the process whose share of the flops contains the middle of row i's flops */
  for (int32_t i = 0; i < F->nbt; i++) {
    double mid = sum > 0 ? (before + 0.5 * w[i]) / sum : (i + 0.5) / F->nbt;
    int32_t r = (int32_t)(mid * n);
    own[i] = D->lo[f] + (r < 0 ? 0 : r >= n ? n - 1 : r);
    before += w[i];
  }
}

/* Each process's own work (its unshared fronts) runs before the fronts it shares: the executor waits
 * for it first, or, when a worker runs StarPU-MPI's progression, lets the shared fronts' tasks run
 * beside it (then the model is only approximate: a shared front's task may overtake own work
 * queued on the same worker). A process with less own work comes earlier to the lowest shared
 * front of its group, and the rows of that front can give it more of the front: lap3d:60 on 2 processes had 6.84e10
 * and 6.19e10 flops of own work, one process idle ~0.2 s before the shared fronts otherwise. */
typedef struct {
  double *own;          /* per process: flops of its unshared fronts */
  unsigned char *above; /* per front: 1 when a shared front lies below it */
  double *start;        /* room for front_start's answer (one per process) */
} own_work;

static void own_work_free(own_work *O) {
  mem__free(O->own);
  mem__free(O->above);
  mem__free(O->start);
}

static int own_work_init(own_work *O, const mfs_symbolic *S, const mfs_dist *D) {
  O->own = mem__calloc((size_t)D->nranks, sizeof *O->own);
  O->above = mem__calloc((size_t)S->nfronts + 1, 1);
  O->start = mem__alloc((size_t)D->nranks * sizeof *O->start);
  if (!O->own || !O->above || !O->start) {
    own_work_free(O);
    return 0;
  }
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (!dist__shared(D, f)) {
      O->own[D->lo[f]] += S->fronts[f].flops;
      continue;
    }
    for (int32_t p = S->fronts[f].parent; p >= 0 && !O->above[p]; p = S->fronts[p].parent) O->above[p] = 1;
  }
  return 1;
}

/* When each process of f's group comes to f, in O->start[0 .. group size), seconds of one worker
 * after the first one; NULL when all come at once, or when a shared front lies below f: then some
 * processes come from that front, at a time this does not model (on 2 processes the lower front's
 * rows balanced their arrival; on 3, a process outside that front's group comes from its own work
 * and is taken to come with the others). */
static const double *front_start(const own_work *O, const mfs_dist *D, int32_t f) {
  if (O->above[f]) return NULL;
  double *start = O->start;
  double first = INFINITY;
  for (int32_t q = D->lo[f]; q < D->hi[f]; q++) first = fmin(first, O->own[q]);
  int later = 0;
  for (int32_t q = D->lo[f]; q < D->hi[f]; q++) {
    start[q - D->lo[f]] = (O->own[q] - first) / OWN_WORK_RATE;
    later |= start[q - D->lo[f]] > 0;
  }
  return later ? start : NULL;
}

double dist__rows_makespan(const mfs_symbolic *S, const mfs_dist *D, int32_t f, const int32_t *own, int workers) {
  front_graph G;
  own_work O;
  if (!own_work_init(&O, S, D)) return NAN;
  double m = NAN;
  if (graph_alloc(&G, S, D, f, D->hi[f] - D->lo[f])) {
    G.start = front_start(&O, D, f);
    m = graph_makespan(&G, S, f, own, D->lo[f], D->hi[f] - D->lo[f], workers);
    graph_free(&G);
  }
  own_work_free(&O);
  return m;
}

/* The state of one front's local search: rows, the best simulated makespan, budget left. */
typedef struct {
  front_graph *G;
  const mfs_symbolic *S;
  int32_t f, lo, nproc;
  int32_t *own;
  double best;
  int64_t *budget;
} row_search;

/* Whether the rows as they are now (own[] changed by the caller) shorten the best schedule enough
 * to keep them; the caller undoes its change otherwise. */
static int keeps(row_search *Q) {
  double m = graph_makespan(Q->G, Q->S, Q->f, Q->own, Q->lo, Q->nproc, 1); /* one worker: see the top */
  *Q->budget -= Q->G->ntask;
  if (!(m < Q->best * (1 - SEARCH_GAIN))) return 0;
  Q->best = m;
  return 1;
}

/* The local search (see the top of the file) from own[], within *budget simulated tasks. */
static void improve(front_graph *G, const mfs_symbolic *S, const mfs_dist *D, int32_t f, int32_t *own,
                    int64_t *budget) {
  const int32_t nbt = S->fronts[f].nbt;
  row_search Q = {G, S, f, D->lo[f], D->hi[f] - D->lo[f], own, INFINITY, budget};
  if (nbt < 2) return;
  keeps(&Q);
  for (int pass = 0; pass < SEARCH_PASSES; pass++) {
    int moved = 0;
    /* one row to another process */
    for (int32_t i = 0; i < nbt; i++)
      for (int32_t q = Q.lo; q < Q.lo + Q.nproc; q++) {
        if (q == own[i]) continue;
        if (*budget < G->ntask) return; /* the last simulation's size */
        int32_t was = own[i];
        own[i] = q;
        if (keeps(&Q))
          moved = 1;
        else
          own[i] = was;
      }
    /* two rows of two processes exchanged: keeps each process's share where a single move only
     * unbalances it (lap3d:50's root: none of its moves gains, an exchange does) */
    for (int32_t i = 0; i < nbt; i++)
      for (int32_t j = i + 1; j < nbt; j++) {
        if (own[i] == own[j]) continue;
        if (*budget < G->ntask) return;
        int32_t oi = own[i];
        own[i] = own[j];
        own[j] = oi;
        if (keeps(&Q)) {
          moved = 1;
        } else {
          own[j] = own[i];
          own[i] = oi;
        }
      }
    if (!moved) break;
  }
}

mfs_status dist__split_rows(const mfs_symbolic *S, mfs_dist *D) {
  const int32_t nf = S->nfronts;
  int64_t total = 0;
  int32_t maxnbt = 0;
  for (int32_t f = 0; f < nf; f++) {
    D->row_ptr[f] = (int32_t)total;
    if (!dist__shared(D, f)) continue;
    total += S->fronts[f].nbt;
    if (S->fronts[f].nbt > maxnbt) maxnbt = S->fronts[f].nbt;
  }
  D->row_owner = mem__alloc(((size_t)total + 1) * sizeof *D->row_owner);
  if (!D->row_owner) return MFS_ERR_NOMEM;
  if (total == 0) return MFS_OK;
  /* Out of memory is an error, not a simpler layout: every process must choose the same rows, and
   * only an error is agreed between them (the executor's all_ok). */
  double *w = mem__alloc((size_t)maxnbt * sizeof *w);
  front_graph G;
  if (!w || !graph_alloc(&G, S, D, -1, D->nranks)) {
    mem__free(w);
    return MFS_ERR_NOMEM;
  }
  own_work O;
  if (!own_work_init(&O, S, D)) {
    graph_free(&G);
    mem__free(w);
    return MFS_ERR_NOMEM;
  }
  int64_t budget = SEARCH_BUDGET;
  /* the root first: the budget goes to the fronts at the end of the factorization before their
   * descendants (lap3d:80's two shared fronts of 19 tile rows could spend it on the first one) */
  for (int32_t f = nf - 1; f >= 0; f--) {
    if (!dist__shared(D, f)) continue;
    int32_t *own = D->row_owner + D->row_ptr[f];
    dist__rows_equal_flops(S, D, f, own, w);
    G.start = front_start(&O, D, f);
    if (budget > 0 && front_ops(S, f) <= DIST_ROWS_SEARCH_MAX_OPS) improve(&G, S, D, f, own, &budget);
  }
  own_work_free(&O);
  graph_free(&G);
  mem__free(w);
  return MFS_OK;
}
