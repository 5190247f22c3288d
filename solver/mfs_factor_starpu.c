/*
 * mfs_factor_starpu.c — the numeric phase as StarPU tasks, on one process or on several through
 * StarPU-MPI (see mfs.h, mfs_factorize_starpu).
 *
 * Submission walks the fronts in this process's order (mfs_dist.h: its own fronts in postorder, then
 * the shared ones; on one process the sequential postorder). A pruned subtree becomes one
 * mfs_subtree task. A tiled front is activated — its memory allocated, its tiles registered as matrix
 * handles — then its operations from S->ops are submitted in list order: init, the assembly of each
 * child tile by tile followed by that child's cleanup, then potrf/trsm/syrk/gemm. Dependencies follow
 * from the handles (sequential consistency), so every tile receives its updates in the list's order
 * and the factor is bitwise the sequential one; assembly into a parent tile is RW, not commutative,
 * for that reason (children become ready in postorder anyway).
 *
 * Distribution: the owner of the tile a task writes runs it (StarPU-MPI's owner-computes rule); a
 * task whose tiles are all local is inserted with starpu_task_insert, any other task by every process
 * owning one of its tiles with starpu_mpi_task_insert, which moves the tiles. Data tags are the
 * global tile numbers. Tiles a process reads from others are received into buffers it allocates
 * itself (dist.h: recv), under the same memory window, and released by cleanup tasks of their own.
 * Handles are unregistered as soon as their last task is submitted: factor tiles at the end of their
 * front, CB tiles after the parent's assembly.
 *
 * Memory: factor tiles are bump-allocated in postorder (exact total); CB memory is taken from an
 * arena capped by a window (dist.h: cb_min, the footprint of this order with immediate cleanups and
 * the workers' subtree tasks side by side, times the relaxation; by default default_window). When a
 * front's CB does not fit, the submitting thread waits for a cleanup to give memory back; with nothing
 * left to wait for it goes over the window and counts it. On several processes each block goes where
 * the replay of cb_min put it, or above that footprint (window_alloc).
 * CB memory comes from the window's low end only. The two ends that the sequential executor uses
 * (mfs_arena.c) plan a smaller footprint, but tasks free later than the plan and the submission
 * runs ahead: with the window 1.2 x that footprint, lap3d:60 on 1 process x 2 workers waited for
 * memory more and took 3.54-3.64 s against 3.13-3.40 s (window 288.6 against 355.9 MB), and with a
 * window as large as before both ends touched all of it (1130 against 1115 MB measured).
 *
 * Priorities: the bottom level of each task in flops — the front's remaining panel chain plus the
 * chains of all its ancestors (a subtree task: its whole sequential work) — mapped onto the
 * scheduler's priority range by its logarithm; cleanups get the top priority (they free memory).
 */
#include "mfs_exec.h"
#include "popmeter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void mfs_starpu_options_default(mfs_starpu_options *o) {
  o->mem_relax = 0; /* automatic */
  o->prune = 1;
}

/* ------------------------------------------------------------------------------ priorities */

typedef struct {
  double *up;    /* per front: critical path of its ancestors' panel chains */
  double *chain; /* per front: its own panel chain (potrf + one trsm + one update per step) */
  double top;    /* the largest bottom level */
  int pmin, pmax;
} prio_state;

static double step_chain(const int32_t *b, int32_t nbt, int32_t k) {
  double bk = b[k + 1] - b[k], bmax = 0;
  for (int32_t i = k + 1; i < nbt; i++) bmax = fmax(bmax, b[i + 1] - b[i]);
  return mfs_flops_potrf(bk) + (bmax > 0 ? mfs_flops_trsm(bmax, bk) + mfs_flops_gemm(bmax, bmax, bk) : 0);
}

static mfs_status prio_init(prio_state *P, const mfs_symbolic *S, int64_t *tables) {
  const int32_t nf = S->nfronts;
  P->up = mem__alloc(((size_t)nf + 1) * sizeof *P->up);
  P->chain = mem__alloc(((size_t)nf + 1) * sizeof *P->chain);
  *tables += 2 * ((int64_t)nf + 1) * (int64_t)sizeof(double);
  if (!P->up || !P->chain) return MFS_ERR_NOMEM;
  for (int32_t f = 0; f < nf; f++) {
    const mfs_front *F = &S->fronts[f];
    double c = 0;
    for (int32_t k = 0; k < F->nbp; k++) c += step_chain(S->blkptr + F->blk, F->nbt, k);
    P->chain[f] = c;
  }
  P->top = 1;
  for (int32_t f = nf - 1; f >= 0; f--) { /* parents first */
    int32_t p = S->fronts[f].parent;
    P->up[f] = p < 0 ? 0 : P->up[p] + P->chain[p];
    P->top = fmax(P->top, fmax(P->up[f] + P->chain[f], P->up[f] + S->fronts[f].subtree_flops));
  }
  P->pmin = starpu_sched_get_min_priority();
  P->pmax = starpu_sched_get_max_priority();
  exec__priority_slice(&P->pmin, &P->pmax);
  return MFS_OK;
}

static int prio_of(const prio_state *P, double bottom_level) {
  if (P->pmax <= P->pmin) return P->pmin;
  double x = log1p(fmax(bottom_level, 0)) / log1p(P->top);
  int p = P->pmin + (int)lround(x * (P->pmax - P->pmin - 1)); /* pmax itself is for cleanups */
  return p < P->pmin ? P->pmin : p >= P->pmax ? P->pmax - 1 : p;
}

/* Bottom level of a tile operation of a tiled front. */
static double op_level(const prio_state *P, const mfs_symbolic *S, const mfs_op *op) {
  const mfs_front *F = &S->fronts[op->front];
  const int32_t *b = S->blkptr + F->blk;
  double rest = 0; /* chain of the steps after k */
  int32_t k = op->k < 0 ? -1 : op->k;
  if (op->type == MFS_OP_INIT || op->type == MFS_OP_ASSEMBLE) return P->up[op->front] + P->chain[op->front] + 1;
  for (int32_t t = k + 1; t < F->nbp; t++) rest += step_chain(b, F->nbt, t);
  double base = P->up[op->front] + rest;
  switch (op->type) {
  case MFS_OP_POTRF: return base + step_chain(b, F->nbt, k);
  case MFS_OP_TRSM: return base + step_chain(b, F->nbt, k) - mfs_flops_potrf(b[k + 1] - b[k]);
  default: return base + op->flops;
  }
}

/* -------------------------------------------------------------------------------- submission */

typedef struct {
  exec_state *E;
  prio_state P;
  double flops_local; /* analytic flops of the tasks this process runs */
  int64_t tasks_local[MFS_NTASKTYPES];
  int64_t tasks_submitted; /* tasks this process runs */
  mfs_progress_fn progress;
  void *ctx;
  double flops_total;
} submit_state;

static int64_t tile_id(const mfs_symbolic *S, int32_t f, int32_t i, int32_t j) {
  return S->fronts[f].tile0 + mfs_tile_index(S->fronts[f].nbt, i, j);
}

/* Whether front f's handles cross processes (registered with StarPU-MPI). */
static int mpi_front(const exec_state *E, int32_t f) {
  const mfs_dist *D = E->D;
  if (E->nranks == 1) return 0;
  if (dist__shared(D, f)) return 1;
  int32_t p = E->S->fronts[f].parent;
  return p >= 0 && (D->lo[p] != D->lo[f] || D->hi[p] != D->hi[f]);
}

static void register_tile(exec_state *E, int32_t f, int32_t i, int32_t j, int mpi) {
  const mfs_symbolic *S = E->S;
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk;
  int64_t t = tile_id(S, f, i, j);
  int owner = dist__tile_owner(E->D, f, i);
  double *p = owner == E->rank ? E->F->tile[t] : E->rtile[t];
  uint32_t rows = (uint32_t)(b[i + 1] - b[i]), cols = (uint32_t)(b[j + 1] - b[j]);
  starpu_matrix_data_register(&E->h[t], p ? STARPU_MAIN_RAM : -1, (uintptr_t)p, rows, rows, cols, sizeof(double));
  if (mpi) starpu_mpi_data_register(E->h[t], (starpu_mpi_tag_t)t, owner);
}

static void unregister_tile(exec_state *E, int64_t t) {
  if (!E->h[t]) return;
  starpu_data_unregister_submit(E->h[t]);
  E->h[t] = NULL;
}

static void count_task(submit_state *T, int type, double flops) {
  T->tasks_local[type]++;
  T->tasks_submitted++;
  T->flops_local += flops;
}

#define TASK_ARGS(type, arg, tag, flops, prio)                                                                      \
  STARPU_CL_ARGS_NFREE, (arg), sizeof(mfs_op), STARPU_TAG_ONLY, (starpu_tag_t)(tag), STARPU_FLOPS, (double)(flops), \
      STARPU_PRIORITY, (prio), STARPU_NAME, exec__cl[type].name

static void insert_failed(exec_state *E, int type, int ret) {
  mfs_error e;
  err__set(&e, MFS_ERR_INTERNAL, 0, -1, "StarPU refused a %s task (error %d)", exec__cl[type].name, ret);
  exec__fail(E, &e);
}

/* A tile operation (assemble, potrf, trsm, syrk, gemm: 1 to 3 tiles, the last one written). The
 * owner of the written tile runs it; when every tile is here it is an ordinary task, otherwise
 * every process owning one of the tiles inserts it through StarPU-MPI, which moves the tiles. */
static void insert_tile_op(submit_state *T, const mfs_op *op, int prio, int n, starpu_data_handle_t *hv,
                           const int *owners, const enum starpu_data_access_mode *mv) {
  exec_state *E = T->E;
  int local = 1, involved = 0;
  for (int q = 0; q < n; q++) {
    if (owners[q] == E->rank)
      involved = 1;
    else
      local = 0;
  }
  if (!involved) return;
  const int type = op->type;
  struct starpu_codelet *cl = &exec__cl[type];
  void *arg = (void *)op;
  int ret;
  if (local) {
    ret = n == 1 ? starpu_task_insert(cl, mv[0], hv[0], TASK_ARGS(type, arg, op->front, op->flops, prio), 0)
          : n == 2
              ? starpu_task_insert(cl, mv[0], hv[0], mv[1], hv[1], TASK_ARGS(type, arg, op->front, op->flops, prio), 0)
              : starpu_task_insert(cl, mv[0], hv[0], mv[1], hv[1], mv[2], hv[2],
                                   TASK_ARGS(type, arg, op->front, op->flops, prio), 0);
  } else {
    /* A tile read on another process goes there by a synchronous send: its data moves only once
     * the receiver posted the receive (its submission reached the task). With a standard send, a
     * tile that arrives before that (the receiver's submission waiting for window memory) is kept
     * in a buffer StarPU-MPI allocates on top of the front's receive buffer: 2 processes x 1 worker
     * on lap3d27:40 received 27-33 MB that way and went 5-6 % over its predicted peak, 4 processes
     * on lap3d27:30 up to 15 %; with synchronous sends nothing arrives early (measured/predicted
     * <= 1.0 on every process of those runs). A send completes later on the sender, which holds
     * the tile meanwhile: only a tile that is read (final), never one still to be written. */
    enum starpu_data_access_mode ms[3];
    for (int q = 0; q < n; q++)
      ms[q] = mv[q] == STARPU_R && owners[q] != owners[n - 1] ? STARPU_R | STARPU_SSEND : mv[q];
    mv = ms;
    ret = n == 1   ? starpu_mpi_task_insert(MPI_COMM_WORLD, cl, mv[0], hv[0],
                                            TASK_ARGS(type, arg, op->front, op->flops, prio), 0)
          : n == 2 ? starpu_mpi_task_insert(MPI_COMM_WORLD, cl, mv[0], hv[0], mv[1], hv[1],
                                            TASK_ARGS(type, arg, op->front, op->flops, prio), 0)
                   : starpu_mpi_task_insert(MPI_COMM_WORLD, cl, mv[0], hv[0], mv[1], hv[1], mv[2], hv[2],
                                            TASK_ARGS(type, arg, op->front, op->flops, prio), 0);
  }
  if (ret != 0) {
    insert_failed(E, type, ret);
    return;
  }
  if (owners[n - 1] == E->rank) count_task(T, type, op->flops);
}

/* Init, cleanup or subtree: a task on tiles of this process only, any number of them (or none). */
static int insert_local(submit_state *T, int type, void *arg, size_t argsize, int32_t tag, double flops, int prio,
                        int n, const starpu_data_handle_t *hv) {
  struct starpu_data_descr *d = T->E->descr;
  for (int q = 0; q < n; q++) {
    d[q].handle = hv[q];
    d[q].mode = STARPU_W;
  }
  int ret = starpu_task_insert(&exec__cl[type], STARPU_DATA_MODE_ARRAY, d, n, STARPU_CL_ARGS_NFREE, arg, argsize,
                               STARPU_TAG_ONLY, (starpu_tag_t)tag, STARPU_FLOPS, flops, STARPU_PRIORITY, prio,
                               STARPU_NAME, exec__cl[type].name, 0);
  if (ret != 0) {
    insert_failed(T->E, type, ret);
    return ret;
  }
  count_task(T, type, flops);
  return 0;
}

static void pending_free_add(exec_state *E, int delta) {
  pthread_mutex_lock(&E->lock);
  E->pending_frees += delta;
  if (delta < 0) pthread_cond_broadcast(&E->freed);
  pthread_mutex_unlock(&E->lock);
}

/* insert_local for a task that gives memory back when gives_back: it is counted before its
 * insertion (it may run and end at once); one StarPU refused never will, and a submission waiting
 * for memory would wait for it forever, so the count is taken back. */
static void insert_giving_back(submit_state *T, int gives_back, int type, void *arg, size_t argsize, int32_t tag,
                               double flops, int prio, int n, const starpu_data_handle_t *hv) {
  if (gives_back) pending_free_add(T->E, 1);
  if (insert_local(T, type, arg, argsize, tag, flops, prio, n, hv) != 0 && gives_back) pending_free_add(T->E, -1);
}

/* The submitting thread's waits, declared to popmeter when it measures the run (preloaded or
 * linked): blocked on a condition variable, the thread is waiting for the workers, not computing,
 * and the task graph's critical path must not run through that time. Without popmeter the weak
 * references are NULL. */
#pragma weak pm_wait_begin
#pragma weak pm_wait_end

/* Waits on E->freed (E->lock held) for at most 200 ms: the progress display keeps moving. what:
 * the region popmeter shows the wait in. */
static void wait_freed(exec_state *E, const char *what) {
  if (pm_wait_begin) pm_wait_begin(what);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += 200 * 1000 * 1000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000;
  }
  pthread_cond_timedwait(&E->freed, &E->lock, &ts);
  if (pm_wait_end) pm_wait_end(what);
}

static void show_progress(const submit_state *T) {
  if (T->progress) T->progress(T->ctx, (double)atomic_load(&T->E->flops_done), T->flops_total);
}

/* Waits (showing progress) until the submitted tasks gave memory back; 0 when nothing is left to wait for. */
static int wait_for_memory(submit_state *T) {
  exec_state *E = T->E;
  pthread_mutex_lock(&E->lock);
  int pending = E->pending_frees > 0;
  if (pending) wait_freed(E, "mfs_wait_memory");
  pthread_mutex_unlock(&E->lock);
  show_progress(T);
  return pending;
}

/* Waits (showing progress) until every task this process submitted so far has run: woken by the
 * last of them, or every 200 ms for the display. Woken at every task instead, this thread took a
 * worker's CPU ~1000 times a second (2 processes x 1 worker on 2 CPUs). */
static void wait_for_tasks(submit_state *T) {
  exec_state *E = T->E;
  atomic_store(&E->tasks_awaited, T->tasks_submitted);
  while (atomic_load(&E->tasks_done) < T->tasks_submitted) {
    pthread_mutex_lock(&E->lock);
    if (atomic_load(&E->tasks_done) < T->tasks_submitted) wait_freed(E, "mfs_wait_tasks");
    pthread_mutex_unlock(&E->lock);
    show_progress(T);
  }
  atomic_store(&E->tasks_awaited, 0);
}

/* Where the replay of cb_min placed block k of front f (mfs_dist.h: cb_plan), ARENA_FAIL on one process. */
static size_t planned_at(const mfs_dist *D, int32_t f, int k) {
  return D->cb_plan ? D->cb_plan[3 * (size_t)f + (size_t)k] : ARENA_FAIL;
}

/* CB memory under the window; *dirty (dirty may be NULL): its leading bytes that may hold old data,
 * the rest is zero (arena__alloc).
 *
 * Placement. On several processes a block goes where the replay of cb_min put it (planned) when that
 * range is free, else anywhere above cb_min (the window's slack), else the submission waits for a
 * cleanup. A block at its planned place was freed in the replay before any later block takes its
 * range, so a range held by such blocks is given back by cleanups already submitted: the wait ends
 * with the range free. Other blocks can still hold a planned range: a tile StarPU-MPI received early
 * (taken from the high end, or from the low end when the high end is full, and freed when its task
 * has read it; it also narrows the room beside the high end), or a block placed after a wait that
 * found nothing left to free (first fit in the whole window, then past it: counted as overflows).
 * Then the submission waits until every cleanup submitted has run and falls back to those. By first fit anywhere
 * instead, tasks that free later than the replay (remote tiles, the drain) let a block settle where a
 * later one was planned; 16 processes x 1 worker on lap3d:40 then fragmented a window until a block of
 * 9.0 MB fitted nowhere with 23 MB of it free (21.8 MB held of 44.7) and went over it: measured/predicted
 * 1.151 on that process; 4 processes on lap3d27:30 1.075, 8 on lap2d:400 1.041, 8 on lap3d:30 1.026,
 * all 1.000 or below with this placement. Times, interleaved pairs, 2 processes x 1 worker: lap3d:50
 * 1.82 against 1.83 s (6 pairs), lap3d27:40 0.716 against 0.728 (6). One process keeps first fit: its
 * tasks lag the plan by their own queue only, it never went over its window (1 to 4 workers, five
 * problems), and its window is often the plan's footprint itself, no slack, where the planned places
 * made it wait longer (1 x 2 workers, lap3d27:40: 0.665 against 0.630 s, 6 pairs). */
static double *window_try(const exec_state *E, mfs_arena *a, size_t planned, size_t len, size_t *dirty) {
  int over;
  if (planned == ARENA_FAIL) return arena__alloc_in_window(a, len, ARENA_LOW, &over, dirty);
  double *p = arena__alloc_at(a, planned, len, dirty);
  return p ? p : arena__alloc_above(a, (size_t)E->D->cb_min, len, dirty);
}

static double *window_alloc(submit_state *T, int64_t bytes, size_t planned, size_t *dirty) {
  exec_state *E = T->E;
  mfs_arena *a = E->F->arena_cb;
  size_t all = bytes > 0 ? (size_t)bytes : 0, *d = dirty ? dirty : &all;
  *d = all;
  if (bytes <= 0) return NULL;
  if (!a->map) return mem__alloc(all); /* no arena (its address space could not be mapped): heap */
  int waited = 0, over;
  for (;;) {
    double *p = window_try(E, a, planned, all, d);
    if (p) return p;
    if (!waited) E->waits++;
    waited = 1;
    if (wait_for_memory(T)) continue;
    /* nothing left to free: one more try (a cleanup may have run meanwhile), anywhere in the window
     * at last, then go over */
    if ((p = window_try(E, a, planned, all, d)) ||
        (planned != ARENA_FAIL && (p = arena__alloc_in_window(a, all, ARENA_LOW, &over, d))))
      return p;
    E->overflows++;
    p = arena__alloc(a, all, ARENA_LOW, d);
    return p ? p : mem__alloc(all);
  }
}

/* Factor tiles: the arena holds the exact total the distribution reserved, so the fallback never runs. */
static double *factor_alloc(mfs_factor *F, int64_t bytes, size_t *dirty) {
  *dirty = (size_t)bytes;
  double *p = arena__alloc(F->arena_l, (size_t)bytes, ARENA_LOW, dirty);
  return p ? p : mem__alloc((size_t)bytes);
}

static void submit_subtree(submit_state *T, int32_t r) {
  exec_state *E = T->E;
  const mfs_symbolic *S = E->S;
  mfs_dist *D = E->D;
  mfs_factor *F = E->F;
  const mfs_front *Fr = &S->fronts[r];
  const int owner = D->lo[r];
  const int here = owner == E->rank;
  const int32_t p = Fr->parent;
  const int needed = here || (p >= 0 && dist__in_group(D, p, E->rank));
  if (!needed) return;
  exec_subtree *sub = &E->sub[r];
  if (here) {
    sub->first = D->subtree_first[r];
    sub->root = r;
    size_t l_dirty, scratch_dirty = 0;
    sub->L = factor_alloc(F, D->sub_l[r], &l_dirty);
    sub->scratch_bytes = D->sub_scratch[r];
    sub->scratch =
        sub->scratch_bytes > 0 ? window_alloc(T, sub->scratch_bytes, planned_at(D, r, 0), &scratch_dirty) : NULL;
    sub->l_dirty = (int64_t)l_dirty;
    sub->scratch_dirty = (int64_t)scratch_dirty;
    F->cbblock[r] = D->cb_local[r] ? sub->scratch + D->sub_off[r] / (int64_t)sizeof(double) : NULL;
    double *Lr = sub->L;
    for (int32_t g = sub->first; g < r; g++) Lr += S->fronts[g].l_bytes / (int64_t)sizeof(double);
    int64_t lb, cb;
    dist__carve(S, D, r, Lr, F->cbblock[r], F->tile + Fr->tile0, &lb, &cb);
  }
  if (!here && D->recv_cb[r] > 0) {
    E->recv_cb[r] = window_alloc(T, D->recv_cb[r], planned_at(D, r, 1), NULL);
    dist__carve_recv(S, D, r, NULL, E->recv_cb[r], E->rtile + Fr->tile0);
  }
  int mpi = mpi_front(E, r);
  int n = 0;
  for (int32_t j = Fr->nbp; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) {
      register_tile(E, r, i, j, mpi);
      n++;
    }
  if (!here) return;
  starpu_data_handle_t *hv = E->hv;
  n = 0;
  for (int32_t j = Fr->nbp; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) hv[n++] = E->h[tile_id(S, r, i, j)];
  double flops = 0;
  for (int64_t o = S->fronts[sub->first].op_begin; o < Fr->op_end; o++) flops += S->ops[o].flops;
  insert_giving_back(T, sub->scratch != NULL, MFS_TASK_SUBTREE, sub, sizeof *sub, r, flops,
                     prio_of(&T->P, T->P.up[r] + S->fronts[r].subtree_flops), n, hv);
}

/* The init of this process's tiles of front f. */
static void submit_init(submit_state *T, const mfs_op *op, int32_t f, int prio) {
  exec_state *E = T->E;
  const mfs_symbolic *S = E->S;
  const mfs_front *Fr = &S->fronts[f];
  starpu_data_handle_t *hv = E->hv;
  int n = 0;
  for (int32_t j = 0; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++)
      if (dist__tile_owner(E->D, f, i) == E->rank) hv[n++] = E->h[tile_id(S, f, i, j)];
  if (n) insert_local(T, MFS_OP_INIT, (void *)op, sizeof *op, f, 0, prio, n, hv);
}

/* A cleanup: the CB of front f (this process's tiles and its copies) or its copies of f's factor
 * tiles go back to the arena once every task reading them has run (W access on all of them). */
static void submit_release(submit_state *T, int32_t f, int kind) {
  exec_state *E = T->E;
  const mfs_symbolic *S = E->S;
  const mfs_front *Fr = &S->fronts[f];
  starpu_data_handle_t *hv = E->hv;
  int n = 0;
  for (int32_t j = kind == RELEASE_CB ? Fr->nbp : 0; j < (kind == RELEASE_CB ? Fr->nbt : Fr->nbp); j++)
    for (int32_t i = j; i < Fr->nbt; i++) {
      int64_t t = tile_id(S, f, i, j);
      int mine = dist__tile_owner(E->D, f, i) == E->rank;
      if ((kind == RELEASE_CB && mine) || E->rtile[t]) hv[n++] = E->h[t];
    }
  if (n) {
    exec_release *rel = &E->rel[2 * (size_t)f + (size_t)kind];
    rel->front = f;
    rel->kind = kind;
    insert_giving_back(T, 1, MFS_OP_CLEANUP, rel, sizeof *rel, f, 0, T->P.pmax, n, hv);
  }
}

/* A tiled front: its memory, handles and tasks on this process.
 *
 * Prefault: the part of the front's blocks known to be fresh (from their first `dirty` bytes on)
 * is faulted in here, by the submitting thread, right after it is allocated
 * (kernel__first_touch_fresh). The front's init would fault it in on a worker when the front
 * becomes ready: for the top fronts that is on the critical path, and on 2 processes x 1 worker
 * both processes fault their share of the root at once, at a third of the rate of one process
 * alone (lap3d:60: 58 MB in 94 ms on one process, 61 MB in 62 ms on the other, against 119 MB in
 * 35 ms for the whole root on 1 process x 2 workers; with this, each init takes 3-7 ms). The
 * submitting thread runs ahead of the workers (it waits only for memory): the faults happen while
 * the subtrees compute, on CPU time the workers lose instead (about as much). Interleaved pairs on
 * 2 processes x 1 worker, mean / median difference: lap3d:60 -0.22 / -0.14 s of 3.8 s (5 pairs),
 * -0.03 / -0.07 (8) and -0.01 / -0.08 (6); lap3d:50 -0.11 / -0.14 s of 1.45 s (6) and -0.04 /
 * -0.04 (10); lap3d27:40 +0.01 / -0.01 of 0.54 (10); 1 process x 2 workers lap3d:60 +0.03 / +0.01
 * of 3.03 s (5) and -0.01 / -0.01 (8): a small gain, within this host's noise. */
static void submit_tiled(submit_state *T, int32_t f) {
  exec_state *E = T->E;
  const mfs_symbolic *S = E->S;
  mfs_dist *D = E->D;
  mfs_factor *F = E->F;
  const mfs_front *Fr = &S->fronts[f];
  const int in_group = dist__in_group(D, f, E->rank);
  const int in_parent = Fr->parent >= 0 && dist__in_group(D, Fr->parent, E->rank);
  if (!in_group && !in_parent) return;
  /* memory, in the order dist.c's simulation replays: own tiles, copies of CB tiles to assemble into
     * the parent, copies of factor tiles the front's tasks read */
  if (in_group && D->l_local[f] + D->cb_local[f] > 0) {
    size_t l_dirty = 0, cb_dirty = 0;
    double *L = D->l_local[f] ? factor_alloc(F, D->l_local[f], &l_dirty) : NULL;
    double *C = window_alloc(T, D->cb_local[f], planned_at(D, f, 0), &cb_dirty);
    F->lblock[f] = L;
    F->cbblock[f] = C;
    E->zero_from[2 * (size_t)f] = L ? (const double *)((const char *)L + l_dirty) : NULL;
    E->zero_from[2 * (size_t)f + 1] = C ? (const double *)((const char *)C + cb_dirty) : NULL;
    int64_t lb, cb;
    dist__carve(S, D, f, L, C, F->tile + Fr->tile0, &lb, &cb);
    kernel__first_touch_fresh(L, l_dirty, (size_t)D->l_local[f]);
    kernel__first_touch_fresh(C, cb_dirty, (size_t)D->cb_local[f]);
  }
  if (D->recv_cb[f] > 0) E->recv_cb[f] = window_alloc(T, D->recv_cb[f], planned_at(D, f, 1), NULL);
  if (in_group && D->recv_l[f] > 0) E->recv_l[f] = window_alloc(T, D->recv_l[f], planned_at(D, f, 2), NULL);
  if (E->recv_cb[f] || E->recv_l[f]) dist__carve_recv(S, D, f, E->recv_l[f], E->recv_cb[f], E->rtile + Fr->tile0);
  int mpi = mpi_front(E, f);
  for (int32_t j = in_group ? 0 : Fr->nbp; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) register_tile(E, f, i, j, mpi);
  if (!in_group) return; /* a parent-side process: the CB handles are all it needs of f */
  for (int64_t o = Fr->op_begin; o < Fr->op_end; o++) {
    const mfs_op *op = &S->ops[o];
    int prio = prio_of(&T->P, op_level(&T->P, S, op));
    starpu_data_handle_t hv[3];
    int ow[3];
    enum starpu_data_access_mode mv[3];
    switch (op->type) {
    case MFS_OP_INIT: submit_init(T, op, f, prio); break;
    case MFS_OP_CLEANUP: {
      int32_t c = op->front;
      const mfs_front *C = &S->fronts[c];
      submit_release(T, c, RELEASE_CB);
      for (int32_t j = C->nbp; j < C->nbt; j++)
        for (int32_t i = j; i < C->nbt; i++) unregister_tile(E, tile_id(S, c, i, j));
      break;
    }
    default: {
      mfs_tile_access acc[3];
      int n = mfs_op_access(op, acc);
      for (int q = 0; q < n; q++) {
        hv[q] = E->h[tile_id(S, acc[q].front, acc[q].i, acc[q].j)];
        ow[q] = dist__tile_owner(D, acc[q].front, acc[q].i);
        mv[q] = acc[q].mode == MFS_ACCESS_R ? STARPU_R : acc[q].mode == MFS_ACCESS_W ? STARPU_W : STARPU_RW;
      }
      insert_tile_op(T, op, prio, n, hv, ow, mv);
    }
    }
  }
  submit_release(T, f, RELEASE_RECV_L);
  for (int32_t j = 0; j < Fr->nbp; j++)
    for (int32_t i = j; i < Fr->nbt; i++) unregister_tile(E, tile_id(S, f, i, j));
}

/* ----------------------------------------------------------------------------------- driver */

/* The analysis and the matrix must be the same on every process: a hash of what the executor relies on. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t t = 0; t < n; t++) h = (h ^ c[t]) * 1099511628211ull;
  return h;
}

static uint64_t problem_hash(const mfs_symbolic *S, const mfs_matrix *A) {
  uint64_t h = 14695981039346656037ull;
  h = fnv(h, &S->n, sizeof S->n);
  h = fnv(h, &S->nfronts, sizeof S->nfronts);
  h = fnv(h, &S->nops, sizeof S->nops);
  h = fnv(h, &S->opts.nb, sizeof S->opts.nb);
  h = fnv(h, &S->opts.nb_big, sizeof S->opts.nb_big);
  h = fnv(h, &S->opts.nb_big_from, sizeof S->opts.nb_big_from);
  h = fnv(h, &S->opts.nb_huge, sizeof S->opts.nb_huge);
  h = fnv(h, &S->opts.nb_huge_from, sizeof S->opts.nb_huge_from);
  h = fnv(h, S->perm, (size_t)S->n * sizeof *S->perm);
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    int32_t v[3] = {F->parent, F->ncol, F->nrow};
    h = fnv(h, v, sizeof v);
  }
  h = fnv(h, &A->nnz, sizeof A->nnz);
  h = fnv(h, A->val, (size_t)A->nnz * sizeof *A->val);
  return h;
}

/* Every process learns the first failure (lowest rank that failed) and returns it. */
static mfs_status agree_on_errors(exec_state *E, mfs_error *err) {
  int failed = atomic_load(&E->failed);
  if (E->nranks == 1 || !runtime__state.mpi) {
    if (failed && err) *err = E->first_error;
    return failed ? E->first_error.status : MFS_OK;
  }
  int in[2] = {failed ? 0 : 1, E->rank}, out[2];
  MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, runtime__state.comm);
  if (out[0] == 1) return MFS_OK; /* nobody failed */
  mfs_error e = E->first_error;
  MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, out[1], runtime__state.comm);
  if (err) *err = e;
  return e.status;
}

/* Whether every process got through a step (collective with MPI): a process that gives up alone
 * would leave the others waiting in the next collective. */
static int all_ok(int ok) {
  const runtime_state *R = &runtime__state;
  if (!R->mpi || R->nranks == 1) return ok;
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, R->comm);
  return all;
}

static mfs_status others_failed(mfs_error *err) {
  return err__set(err, MFS_ERR_NOMEM, 0, -1, "another process could not set up its part of the factorization");
}

static void free_exec(exec_state *E, prio_state *P) {
  mem__free(E->h);
  mem__free(E->rtile);
  mem__free(E->sub);
  mem__free(E->recv_l);
  mem__free(E->recv_cb);
  mem__free(E->rel);
  mem__free(E->zero_from);
  mem__free(E->hv);
  mem__free(E->descr);
  mem__free(P->up);
  mem__free(P->chain);
  pthread_mutex_destroy(&E->lock);
  pthread_cond_destroy(&E->freed);
}

/* The arguments; with several processes, that they all got the same matrix and analysis (each
 * one reads its input and runs the analysis itself). Resumes the paused workers. */
static mfs_status check_problem(const mfs_symbolic *S, const mfs_matrix *A, const mfs_starpu_options *o,
                                mfs_starpu_options *opt, mfs_error *err) {
  const runtime_state *R = &runtime__state;
  if (!R->started) return err__set(err, MFS_ERR_ARG, 0, -1, "the StarPU runtime is not running (mfs_runtime_start)");
  if (!S || !A || A->n != S->n) return err__set(err, MFS_ERR_ARG, 0, -1, "matrix does not match the analysis");
  mfs_runtime_resume();
  mfs_starpu_options_default(opt);
  if (o) *opt = *o;
  if (!(opt->mem_relax == 0 || opt->mem_relax >= 1.0))
    return err__set(err, MFS_ERR_ARG, 0, -1, "memory relaxation must be 0 (automatic) or >= 1");
  if (R->mpi && R->nranks > 1) {
    uint64_t h = problem_hash(S, A), lo, hi;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, R->comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, R->comm);
    if (lo != hi)
      return err__set(err, MFS_ERR_ARG, 0, -1,
                      "the processes do not share the same matrix and analysis (give every process the same "
                      "input and options)");
  }
  return MFS_OK;
}

/* This process's factor: the factor tiles the distribution gives it, the CB arena sized for the
 * window. Collective: a process that fails makes all of them fail. */
static mfs_status create_factor(const mfs_symbolic *S, const mfs_dist *D, int64_t cb_cap, mfs_factor **F,
                                mfs_error *err) {
  mfs_status st = factor__create(S, D->factor_local, cb_cap, F, err);
  if (all_ok(st == MFS_OK)) return MFS_OK;
  if (st == MFS_OK) mfs_factor_free(*F);
  *F = NULL;
  return st != MFS_OK ? st : others_failed(err);
}

/* The executor's state for a run on F, and its tables (per tile and per front), whose bytes are
 * added to *tables. Collective, like create_factor; on failure nothing is left to free. */
static mfs_status setup_exec(exec_state *E, submit_state *T, mfs_factor *F, const mfs_matrix *A, mfs_dist *D,
                             int64_t cb_cap, int64_t *tables, mfs_error *err) {
  const runtime_state *R = &runtime__state;
  const mfs_symbolic *S = F->S;
  memset(E, 0, sizeof *E);
  E->S = S;
  E->A = A;
  E->F = F;
  E->D = D;
  E->rank = R->rank;
  E->nranks = R->nranks;
  E->mpi = R->mpi;
  pthread_mutex_init(&E->lock, NULL);
  pthread_cond_init(&E->freed, NULL);
  const size_t nt = (size_t)(S->ntiles ? S->ntiles : 1), nfa = (size_t)S->nfronts + 1;
  E->h = mem__calloc(nt, sizeof *E->h);
  E->rtile = mem__calloc(nt, sizeof *E->rtile);
  E->sub = mem__calloc(nfa, sizeof *E->sub);
  E->recv_l = mem__calloc(nfa, sizeof *E->recv_l);
  E->recv_cb = mem__calloc(nfa, sizeof *E->recv_cb);
  E->rel = mem__calloc(2 * nfa, sizeof *E->rel);
  E->zero_from = mem__calloc(2 * nfa, sizeof *E->zero_from);
  size_t ntri = 1; /* tiles in the largest front's lower triangle */
  for (int32_t f = 0; f < S->nfronts; f++) {
    size_t nbt = (size_t)S->fronts[f].nbt;
    if (nbt * (nbt + 1) / 2 > ntri) ntri = nbt * (nbt + 1) / 2;
  }
  E->hv = mem__alloc(ntri * sizeof *E->hv);
  E->descr = mem__alloc(ntri * sizeof *E->descr);
  *tables += (int64_t)(nt * (sizeof *E->h + sizeof *E->rtile) +
                       nfa * (sizeof *E->sub + sizeof *E->recv_l + sizeof *E->recv_cb + 2 * sizeof *E->rel +
                              2 * sizeof *E->zero_from) +
                       ntri * (sizeof *E->hv + sizeof *E->descr));
  memset(T, 0, sizeof *T);
  T->E = E;
  int ok = E->h && E->rtile && E->sub && E->recv_l && E->recv_cb && E->rel && E->zero_from && E->hv && E->descr &&
           prio_init(&T->P, S, tables) == MFS_OK;
  if (all_ok(ok)) return MFS_OK;
  free_exec(E, &T->P);
  return ok ? others_failed(err) : err__nomem(err);
}

/* Submits every front in this process's order, then waits until the tasks have run. */
static void submit_fronts(submit_state *T) {
  exec_state *E = T->E;
  const mfs_dist *D = E->D;
  int drained = !D->drain;
  for (int32_t k = 0; k < D->norder; k++) {
    int32_t f = D->order[k];
    if (!drained && !dist__own_work(D, f)) {
      /* This process's own work is all submitted; the rest exchanges tiles with others. Let the
       * own work finish first: StarPU-MPI's progress thread polls from the moment a transfer is
       * posted, and on a machine with one core per worker it would take that time from the
       * workers while they still have local work. Not when a worker runs the progression itself
       * (mfs_mpi_progress.c): nothing polls beside the tasks, and the shared fronts' tasks run as
       * soon as their tiles come, between the own work's (2 processes x 1 worker, interleaved
       * pairs: lap3d:60 faster in 12 of 17, mean -0.08 s; lap3d:50 -0.01 s, 10 of 17;
       * lap3d27:40 -0.010 s, 5 of 6). */
      wait_for_tasks(T);
      drained = 1;
    }
    if (D->subtree_root[f] == f)
      submit_subtree(T, f);
    else
      submit_tiled(T, f);
  }
  T->flops_total = T->flops_local > 0 ? T->flops_local : 1;
  wait_for_tasks(T);
  starpu_task_wait_for_all();
  if (E->mpi) {
    /* every process's transfers done (starpu_mpi_barrier). The barrier waits for pending requests
     * on a signal StarPU-MPI's loop gives only when it goes to sleep, which the keep-alive receive
     * of the worker mode prevents: it ends first (no task is left for the loop to run) */
    progress__keepalive_end(&runtime__state);
    starpu_mpi_barrier(MPI_COMM_WORLD);
    progress__keepalive_post(&runtime__state);
  }
}

/* F->exec: this process's figures, then the sums and maxima over processes (collective). */
static void record_stats(mfs_factor *F, const exec_state *E, const submit_state *T, int64_t cb_cap, int64_t tables,
                         double t_setup) {
  const runtime_state *R = &runtime__state;
  const mfs_dist *D = E->D;
  mfs_exec_stats *X = &F->exec;
  X->rank = R->rank;
  X->nranks = R->nranks;
  X->workers = R->workers;
  snprintf(X->sched, sizeof X->sched, "%.*s", (int)sizeof X->sched - 1, R->sched);
  memcpy(X->tasks_local, T->tasks_local, sizeof X->tasks_local);
  X->flops_local = T->flops_local;
  X->tiled_fronts = D->ntiled;
  X->shared_fronts = D->nshared;
  X->subtrees = D->nsubtrees;
  X->mpi_poll_sleep_us = R->mpi ? mfs_mpi_poll_sleep_us() : 0;
  X->mpi_progress_worker = R->mpi ? R->progress_worker : 0;
  X->mpi_progress_why = R->mpi ? R->progress_why : NULL;
  X->pinned_procs = R->mpi ? R->pinned_procs : 0;
  X->unpinned_why = R->mpi ? R->pin_why : NULL; /* NULL when pinned */
  X->mem_tables = tables;
  X->mem_factor = D->factor_local;
  X->mem_cb_min = D->cb_min;
  X->mem_window = cb_cap;
  X->mem_predicted = tables + D->factor_local + cb_cap;
  X->mem_recv_peak = runtime__recv_peak();
  X->mem_recv_heap_peak = runtime__recv_heap_peak();
  X->window_waits = E->waits;
  X->window_overflows = E->overflows;
  double red[MFS_NTASKTYPES + 5];
  for (int t = 0; t < MFS_NTASKTYPES; t++) red[t] = (double)T->tasks_local[t];
  red[MFS_NTASKTYPES] = T->flops_local;
  mfs_runtime_allreduce(red, MFS_NTASKTYPES + 1, 0);
  for (int t = 0; t < MFS_NTASKTYPES; t++) X->tasks[t] = (int64_t)red[t];
  X->flops_tasks = red[MFS_NTASKTYPES];
  red[0] = F->time;
  red[1] = (double)X->mem_predicted;
  red[2] = (double)F->mem_peak;
  red[3] = t_setup;
  red[4] = X->mem_predicted > 0 ? (double)F->mem_peak / (double)X->mem_predicted : 0;
  mfs_runtime_allreduce(red, 5, 1);
  X->time_max = red[0];
  X->time_setup = red[3];
  X->mem_predicted_max = (int64_t)red[1];
  X->mem_peak_max = (int64_t)red[2];
  X->mem_ratio_max = red[4];
}

/* The window when no relaxation is given: tasks free later than the plan and the submission runs
 * ahead, so 1.2 x the footprint of the plan where every subtree task's scratch shrinks as soon as
 * it is submitted; with several workers per process, at least the footprint of the plan where they
 * run their subtree tasks side by side (cb_min): on 1 process x 2 workers a worker waited 123 ms
 * (lap3d:60) for the scratch of the next subtree while the other ran. Measured on 1 process x 2
 * workers, 5 interleaved pairs each, mean (peak): lap3d:60 2.822 against 2.918 s, faster in 5
 * (1135 against 1106 MB), lap3d27:40 0.441 against 0.462, faster in 5 (325 against 313), lap3d:50
 * 1.042 against 1.045 (569 against 545), lap3d:30 0.072 against 0.070 (the same window). The
 * side-by-side plan alone made lap3d:30 slower (its footprint is smaller than 1.2 x the other's,
 * 24.5 against 34.9 MB), hence the larger of the two; 1.2 x the side-by-side plan took 6-11 % more
 * memory for the same times. */
static int64_t default_window(const mfs_symbolic *S, const mfs_dist *D) {
  int64_t one = D->workers > 1 ? dist__cb_footprint(S, D, 1) : D->cb_min;
  if (one < 0) one = D->cb_min; /* no memory for the replay: the other plan alone */
  int64_t relaxed = (int64_t)ceil(1.2 * (double)one);
  return D->workers > 1 && D->cb_min > relaxed ? D->cb_min : relaxed;
}

/* The numeric phase proper, timed and measured from t0 and the memory base: the factor, the
 * executor, the tasks, the statistics. On success *Fout is the factor and D belongs to it (or
 * was freed); on failure both are freed. */
static mfs_status run_factorization(const mfs_symbolic *S, const mfs_matrix *A, const mfs_starpu_options *opt,
                                    mfs_dist *D, mfs_factor **Fout, mfs_progress_fn progress, void *ctx,
                                    mfs_error *err) {
  const runtime_state *R = &runtime__state;
  if (R->mpi && R->nranks > 1) MPI_Barrier(R->comm);
  double t0 = time__now();
  int64_t base = mfs_mem_current();
  mfs_mem_reset_peak();
  runtime__recv_reset_peak();
  int64_t cb_cap = opt->mem_relax > 0 ? (int64_t)ceil(opt->mem_relax * (double)D->cb_min) : default_window(S, D);
  const double relax = opt->mem_relax > 0 ? opt->mem_relax : D->cb_min > 0 ? (double)cb_cap / (double)D->cb_min : 1.0;
  mfs_factor *F;
  exec_state E;
  submit_state T;
  int64_t tables = factor__table_bytes(S);
  mfs_status st = create_factor(S, D, cb_cap, &F, err);
  if (st == MFS_OK && (st = setup_exec(&E, &T, F, A, D, cb_cap, &tables, err)) != MFS_OK) mfs_factor_free(F);
  if (st != MFS_OK) {
    dist__free(D);
    return st;
  }
  F->mem_base = base;
  T.progress = progress;
  T.ctx = ctx;
  /* for the progress display until submission ends: an even share (then this process's own) */
  T.flops_total = (S->flops + S->flops_type[MFS_OP_ASSEMBLE]) / R->nranks;
  exec__current = &E;
  double t_setup = time__now() - t0;
  /* tiles arriving early: in the window (unless an earlier window still holds some: never seen) */
  const int recv_window = E.mpi && runtime__recv_arena_set(F->arena_cb) == 0;
  submit_fronts(&T);
  F->time = time__now() - t0;
  exec__current = NULL;
  F->mem_peak = mfs_mem_peak() - base;
  F->flops_done = T.flops_local;
  if (recv_window && runtime__recv_arena_set(NULL) > 0)
    F->arena_cb = NULL; /* StarPU still holds buffers in it (never seen: every transfer completed; with
                         * STARPU_LIMIT_CPU_MEM StarPU may keep freed buffers): left mapped */
  factor__release_cb_arena(F);
  record_stats(F, &E, &T, cb_cap, tables, t_setup);
  F->exec.mem_relax = relax;

  st = agree_on_errors(&E, err);
  free_exec(&E, &T.P);
  if (st != MFS_OK) {
    mfs_factor_free(F);
    dist__free(D);
    return st;
  }
  if (R->nranks > 1)
    F->dist = D;
  else
    dist__free(D);
  if (progress) progress(ctx, T.flops_total, T.flops_total);
  *Fout = F;
  return MFS_OK;
}

mfs_status mfs_factorize_starpu(const mfs_symbolic *S, const mfs_matrix *A, const mfs_starpu_options *o,
                                mfs_factor **Fout, mfs_progress_fn progress, void *ctx, mfs_error *err) {
  *Fout = NULL;
  const runtime_state *R = &runtime__state;
  mfs_starpu_options opt;
  mfs_status st = check_problem(S, A, o, &opt, err);
  if (st != MFS_OK) return st;
  static int codelets_ready;
  if (!codelets_ready) {
    exec__codelets_init();
    codelets_ready = 1;
  }
  mfs_kernels_init();
  mfs_dist *D;
  /* no drain when a worker runs StarPU-MPI's progression (submit_fronts): the plan without */
  st = dist__create_with(S, R->rank, R->nranks, R->nranks * R->workers, opt.prune, !R->progress_worker, &D, err);
  if (!all_ok(st == MFS_OK)) {
    if (st == MFS_OK) dist__free(D);
    return st != MFS_OK ? st : others_failed(err);
  }
  pub__tree(S, D->lo, R->rank);
  /* the numeric phase starts there (time and memory; the sequential executor counts the creation
   * of the factor and its arenas too) */
  return run_factorization(S, A, &opt, D, Fout, progress, ctx, err);
}
