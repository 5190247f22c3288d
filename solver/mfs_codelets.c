/*
 * mfs_codelets.c — the StarPU codelets of the task-based executor, one per task type:
 *
 *   mfs_init      zero this process's tiles of a front and scatter A into them (W on those tiles)
 *   mfs_assemble  extend-add of one child CB tile into one parent tile         (R child, RW parent)
 *   mfs_potrf / mfs_trsm / mfs_syrk / mfs_gemm   the tile kernels of the front's Cholesky
 *   mfs_cleanup   give a child's CB tiles back once the parent assembled them  (W on those tiles)
 *   mfs_subtree   a whole pruned subtree, run by the sequential code          (W on the root's CB)
 *
 * Each task's argument is its operation in S->ops (or the subtree descriptor); tile pointers come
 * from the data handles, so a tile received from another process is read where StarPU put it.
 * Workers flush denormals to zero (first task on each worker): denormal operands make the same
 * kernels 10-16x slower.
 */
#include "mfs_exec.h"

#include <string.h>

exec_state *exec__current;

static __thread int worker_fpu_ready;

static void worker_setup(void) {
  if (worker_fpu_ready) return;
  mfs_fpu_flush_denormals();
  worker_fpu_ready = 1;
}

static void task_done(exec_state *E, double flops) {
  mfs_idle_tasks_ran++;
  atomic_fetch_add_explicit(&E->flops_done, (int64_t)flops, memory_order_relaxed);
  /* sequentially consistent: either this load sees the count the waiter set, or the waiter's check
   * of tasks_done (after setting it) sees this task done */
  int64_t done = atomic_fetch_add(&E->tasks_done, 1) + 1, awaited = atomic_load(&E->tasks_awaited);
  if (awaited > 0 && done >= awaited) {
    pthread_mutex_lock(&E->lock);
    pthread_cond_broadcast(&E->freed);
    pthread_mutex_unlock(&E->lock);
  }
}

void exec__fail(exec_state *E, const mfs_error *e) {
  pthread_mutex_lock(&E->lock);
  if (!atomic_load(&E->failed)) {
    E->first_error = *e;
    atomic_store(&E->failed, 1);
  }
  pthread_mutex_unlock(&E->lock);
}

void exec__cb_free(exec_state *E, double *p, int64_t bytes) {
  if (!p) return;
  if (arena__owns(E->F->arena_cb, p))
    arena__free(E->F->arena_cb, p, (size_t)bytes);
  else
    mem__free(p);
}

static void memory_given_back(exec_state *E) {
  pthread_mutex_lock(&E->lock);
  E->pending_frees--;
  pthread_cond_broadcast(&E->freed);
  pthread_mutex_unlock(&E->lock);
}

#define TILE_PTR(b) ((double *)STARPU_MATRIX_GET_PTR(b))

static void cpu_init(void *buffers[], void *arg) {
  (void)buffers; /* this process's tiles of the front, the ones F->tile points at */
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  kernel__init_front(E->S, op->front, E->A->val, E->F->tile + E->S->fronts[op->front].tile0,
                     E->zero_from[2 * (size_t)op->front], E->zero_from[2 * (size_t)op->front + 1]);
  task_done(E, 0);
}

static void cpu_assemble(void *buffers[], void *arg) {
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  mfs_kernel_assemble(E->S, op, TILE_PTR(buffers[0]), TILE_PTR(buffers[1]));
  task_done(E, op->flops);
}

static void cpu_potrf(void *buffers[], void *arg) {
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  mfs_error err;
  if (!atomic_load_explicit(&E->failed, memory_order_relaxed) &&
      factor__potrf(E->S, op->front, op->k, TILE_PTR(buffers[0]), &err) != MFS_OK)
    exec__fail(E, &err);
  task_done(E, op->flops);
}

/* Block sizes come from the analysis; the handles' leading dimensions equal them (contiguous tiles). */
#define BS(op, t) \
  (E->S->blkptr[E->S->fronts[(op)->front].blk + (t) + 1] - E->S->blkptr[E->S->fronts[(op)->front].blk + (t)])

static void cpu_trsm(void *buffers[], void *arg) {
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  int m = BS(op, op->i), n = BS(op, op->k);
  mfs_kernel_trsm(m, n, TILE_PTR(buffers[0]), n, TILE_PTR(buffers[1]), m);
  task_done(E, op->flops);
}

static void cpu_syrk(void *buffers[], void *arg) {
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  int n = BS(op, op->i), k = BS(op, op->k);
  mfs_kernel_syrk(n, k, TILE_PTR(buffers[0]), n, TILE_PTR(buffers[1]), n);
  task_done(E, op->flops);
}

static void cpu_gemm(void *buffers[], void *arg) {
  exec_state *E = exec__current;
  const mfs_op *op = arg;
  worker_setup();
  int m = BS(op, op->i), n = BS(op, op->j), k = BS(op, op->k);
  mfs_kernel_gemm(m, n, k, TILE_PTR(buffers[0]), m, TILE_PTR(buffers[1]), n, TILE_PTR(buffers[2]), m);
  task_done(E, op->flops);
}

/* Forget the CB tiles of front f held here (after its memory went back). */
static void forget_cb_tiles(const mfs_symbolic *S, mfs_factor *F, int32_t f) {
  const mfs_front *Fr = &S->fronts[f];
  double **T = F->tile + Fr->tile0;
  for (int32_t j = Fr->nbp; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) T[mfs_tile_index(Fr->nbt, i, j)] = NULL;
}

static void cpu_cleanup(void *buffers[], void *arg) {
  (void)buffers;
  exec_state *E = exec__current;
  const exec_release *rel = arg;
  worker_setup();
  const int32_t f = rel->front;
  const mfs_front *Fr = &E->S->fronts[f];
  double **R = E->rtile + Fr->tile0;
  if (rel->kind == RELEASE_CB) {
    const exec_subtree *sub = &E->sub[f];
    if (sub->scratch && E->F->cbblock[f] && !arena__owns(E->F->arena_cb, sub->scratch))
      mem__free(sub->scratch); /* the subtree's heap block held the root's CB */
    else
      exec__cb_free(E, E->F->cbblock[f], E->D->cb_local[f]);
    exec__cb_free(E, E->recv_cb[f], E->D->recv_cb[f]);
    E->F->cbblock[f] = NULL;
    E->recv_cb[f] = NULL;
    forget_cb_tiles(E->S, E->F, f);
    for (int32_t j = Fr->nbp; j < Fr->nbt; j++)
      for (int32_t i = j; i < Fr->nbt; i++) R[mfs_tile_index(Fr->nbt, i, j)] = NULL;
  } else {
    exec__cb_free(E, E->recv_l[f], E->D->recv_l[f]);
    E->recv_l[f] = NULL;
    for (int32_t j = 0; j < Fr->nbp; j++)
      for (int32_t i = j; i < Fr->nbt; i++) R[mfs_tile_index(Fr->nbt, i, j)] = NULL;
  }
  memory_given_back(E);
  task_done(E, 0);
}

/* The sequential executor's loop over the subtree's operations, with this task's memory: factor tiles
 * bump-allocated inside sub->L in postorder, CBs at the offsets the analysis replayed in the scratch
 * (dist__subtree_scratch), the root's CB in the block the submission allocated. */
static void cpu_subtree(void *buffers[], void *arg) {
  (void)buffers; /* the root's CB tiles */
  exec_state *E = exec__current;
  const exec_subtree *sub = arg;
  const mfs_symbolic *S = E->S;
  mfs_factor *F = E->F;
  worker_setup();
  double flops = 0, *L = sub->L;
  /* fresh memory is zero: L past l_dirty, and the scratch between what this task or earlier owners
   * of the block wrote from its start (its CBs at the region's low end are replayed at fixed
   * offsets, so that mark only grows) and what the CBs at the region's high end wrote from its end */
  const double *l_zero = (const double *)((const char *)sub->L + sub->l_dirty);
  int64_t written_low = sub->scratch_dirty, written_high = 0;
  mfs_error err;
  int ok = !atomic_load_explicit(&E->failed, memory_order_relaxed);
  for (int64_t o = S->fronts[sub->first].op_begin; ok && o < S->fronts[sub->root].op_end; o++) {
    const mfs_op *op = &S->ops[o];
    int32_t g = op->front;
    if (op->type == MFS_OP_INIT) {
      double *C = sub->scratch ? sub->scratch + E->D->sub_off[g] / (int64_t)sizeof(double) : NULL;
      int64_t lb, cb;
      dist__carve(S, E->D, g, L, C, F->tile + S->fronts[g].tile0, &lb, &cb);
      F->lblock[g] = L;
      L += lb / (int64_t)sizeof(double);
      int64_t at = E->D->sub_off[g], zero_at = at + cb; /* the CB's part from zero_at on is fresh */
      if (C && at + cb <= sub->scratch_bytes - written_high) zero_at = at > written_low ? at : written_low;
      kernel__init_front(S, g, E->A->val, F->tile + S->fronts[g].tile0, l_zero,
                         C ? (const double *)((const char *)sub->scratch + zero_at) : NULL);
      if (C && cb > 0 && dist__sub_high(S, E->D, g)) {
        if (sub->scratch_bytes - at > written_high) written_high = sub->scratch_bytes - at;
      } else if (C && cb > 0 && at + cb > written_low) {
        written_low = at + cb;
      }
    } else if (op->type == MFS_OP_CLEANUP) {
      forget_cb_tiles(S, F, g);
    } else if (factor__compute_op(F, op, &err) != MFS_OK) {
      exec__fail(E, &err);
      ok = 0;
    }
    flops += op->flops;
  }
  if (sub->scratch) { /* keep the root's CB (the block's start) for the parent, give the rest back */
    int64_t kept = F->cbblock[sub->root] ? E->D->cb_local[sub->root] : 0;
    if (arena__owns(F->arena_cb, sub->scratch)) {
      if (sub->scratch_bytes > kept)
        arena__free(F->arena_cb, (char *)sub->scratch + kept, (size_t)(sub->scratch_bytes - kept));
    } else if (!kept) { /* a heap block goes back whole, once nothing is kept */
      mem__free(sub->scratch);
    }
    memory_given_back(E);
  }
  task_done(E, flops);
}

struct starpu_codelet exec__cl[MFS_NTASKTYPES];

void exec__codelets_init(void) {
  static const char *names[MFS_NTASKTYPES] = {"mfs_init", "mfs_assemble", "mfs_potrf",   "mfs_trsm",
                                              "mfs_syrk", "mfs_gemm",     "mfs_cleanup", "mfs_subtree"};
  static starpu_cpu_func_t funcs[MFS_NTASKTYPES] = {cpu_init, cpu_assemble, cpu_potrf,   cpu_trsm,
                                                    cpu_syrk, cpu_gemm,     cpu_cleanup, cpu_subtree};
  static const int nbuf[MFS_NTASKTYPES] = {STARPU_VARIABLE_NBUFFERS, 2, 1, 2, 2, 3, STARPU_VARIABLE_NBUFFERS,
                                           STARPU_VARIABLE_NBUFFERS};
  static const enum starpu_data_access_mode modes[MFS_NTASKTYPES][3] = {{STARPU_W},
                                                                        {STARPU_R, STARPU_RW},
                                                                        {STARPU_RW},
                                                                        {STARPU_R, STARPU_RW},
                                                                        {STARPU_R, STARPU_RW},
                                                                        {STARPU_R, STARPU_R, STARPU_RW},
                                                                        {STARPU_W},
                                                                        {STARPU_W}};
  for (int t = 0; t < MFS_NTASKTYPES; t++) {
    struct starpu_codelet *cl = &exec__cl[t];
    starpu_codelet_init(cl);
    cl->where = STARPU_CPU;
    cl->cpu_funcs[0] = funcs[t];
    cl->nbuffers = nbuf[t];
    if (nbuf[t] != STARPU_VARIABLE_NBUFFERS)
      for (int b = 0; b < nbuf[t]; b++) cl->modes[b] = modes[t][b];
    cl->name = names[t];
  }
}
