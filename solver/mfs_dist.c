/*
 * mfs_dist.c — the distribution of the numeric phase over processes and workers (see mfs_dist.h):
 * pruning into sequential subtrees, proportional mapping onto processes, this process's share of
 * every front, and the memory its executor needs.
 *
 * The memory model follows the executor exactly. Factor tiles of a process are bump-allocated in
 * postorder (one block per tiled front, one per sequential subtree), so their total is exact. CB
 * tiles come from a first-fit arena in this order: a tiled front's CB when it is activated (its
 * children's CBs still alive), freed by the cleanup after its parent assembled it; a subtree task's
 * scratch (the CBs below its root) then its root's CB, the scratch freed when the task ends. Replaying
 * that order through the arena code with every free done at once gives cb_min, the footprint the
 * executor would reach with no other overlap than the one the pruning plans: the subtree tasks of a
 * process with W workers run W at a time, so a subtree's scratch is freed in the replay only when
 * the subtree W - 1 places later in the order takes its own. The executor's memory window starts from
 * it. Without that overlap (every scratch freed at once) a process with 2 workers waited for memory
 * while a worker had nothing to do: lap3d:60 on 1 process x 2 workers, one worker idle 123 ms while
 * the submission waited for the scratch of the next subtree until the other worker's ended.
 */
#include "mfs_dist.h"

#include "mfs_arena.h"

#include <stdlib.h>
#include <string.h>

#define PAD_DOUBLES 8 /* same padding as mfs_front_bytes and the sequential executor */

static int64_t padded_bytes(const int32_t *b, int32_t i, int32_t j) {
  int64_t d = (int64_t)(b[i + 1] - b[i]) * (b[j + 1] - b[j]);
  return (d + PAD_DOUBLES - 1) / PAD_DOUBLES * PAD_DOUBLES * (int64_t)sizeof(double);
}

void dist__carve(const mfs_symbolic *S, const mfs_dist *D, int32_t f, double *L, double *C, double **tiles,
                 int64_t *l_bytes, int64_t *cb_bytes) {
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk;
  int64_t lo = 0, co = 0;
  for (int32_t j = 0; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) {
      int64_t t = mfs_tile_index(Fr->nbt, i, j);
      if (D && dist__tile_owner(D, f, i) != D->rank) {
        if (tiles) tiles[t] = NULL;
        continue;
      }
      int64_t d = padded_bytes(b, i, j) / (int64_t)sizeof(double);
      if (j < Fr->nbp) {
        if (tiles) tiles[t] = L ? L + lo : NULL;
        lo += d;
      } else {
        if (tiles) tiles[t] = C ? C + co : NULL;
        co += d;
      }
    }
  *l_bytes = lo * (int64_t)sizeof(double);
  *cb_bytes = co * (int64_t)sizeof(double);
}

void dist__carve_recv(const mfs_symbolic *S, const mfs_dist *D, int32_t f, double *RL, double *RC, double **ptrs) {
  const mfs_front *Fr = &S->fronts[f];
  const int32_t *b = S->blkptr + Fr->blk;
  char *l = (char *)RL, *c = (char *)RC;
  for (int32_t j = 0; j < Fr->nbt; j++)
    for (int32_t i = j; i < Fr->nbt; i++) {
      int64_t t = mfs_tile_index(Fr->nbt, i, j);
      if (!D->recv[Fr->tile0 + t]) {
        ptrs[t] = NULL;
        continue;
      }
      if (j < Fr->nbp) {
        ptrs[t] = (double *)l;
        l += padded_bytes(b, i, j);
      } else {
        ptrs[t] = (double *)c;
        c += padded_bytes(b, i, j);
      }
    }
}

/* Marks the tiles of other processes that this process reads, and sums their bytes per front. */
static void find_received(const mfs_symbolic *S, mfs_dist *D) {
  if (D->nranks == 1) return;
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (D->subtree_root[f] >= 0) continue;
    const mfs_front *Fr = &S->fronts[f];
    for (int64_t o = Fr->op_begin; o < Fr->op_end; o++) {
      const mfs_op *op = &S->ops[o];
      if (op->type == MFS_OP_INIT || op->type == MFS_OP_CLEANUP) continue;
      mfs_tile_access acc[3];
      int n = mfs_op_access(op, acc);
      if (dist__tile_owner(D, acc[n - 1].front, acc[n - 1].i) != D->rank) continue; /* runs elsewhere */
      for (int q = 0; q < n - 1; q++)
        if (dist__tile_owner(D, acc[q].front, acc[q].i) != D->rank)
          D->recv[S->fronts[acc[q].front].tile0 + mfs_tile_index(S->fronts[acc[q].front].nbt, acc[q].i, acc[q].j)] = 1;
    }
  }
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *Fr = &S->fronts[f];
    const int32_t *b = S->blkptr + Fr->blk;
    for (int32_t j = 0; j < Fr->nbt; j++)
      for (int32_t i = j; i < Fr->nbt; i++)
        if (D->recv[Fr->tile0 + mfs_tile_index(Fr->nbt, i, j)]) {
          if (j < Fr->nbp)
            D->recv_l[f] += padded_bytes(b, i, j);
          else
            D->recv_cb[f] += padded_bytes(b, i, j);
        }
  }
}

int64_t dist__subtree_scratch(const mfs_symbolic *S, int32_t first, int32_t root, int64_t *cb_off, int *two_ends) {
  return memory__cb_footprint(S, first, root, root, cb_off, two_ends);
}

void dist__free(mfs_dist *D) {
  if (!D) return;
  mem__free(D->lo);
  mem__free(D->hi);
  mem__free(D->row_ptr);
  mem__free(D->row_owner);
  mem__free(D->subtree_root);
  mem__free(D->subtree_first);
  mem__free(D->l_local);
  mem__free(D->cb_local);
  mem__free(D->sub_l);
  mem__free(D->sub_scratch);
  mem__free(D->sub_off);
  mem__free(D->sub_two_ends);
  mem__free(D->recv);
  mem__free(D->recv_l);
  mem__free(D->recv_cb);
  mem__free(D->order);
  mem__free(D->cb_plan);
  mfs_pruning_free(&D->pruning);
  mem__free(D);
}

/* The executor's CB arena on this process, every free done as soon as it is submitted: a tiled
 * front's CB, the copies of other processes' CB tiles it will assemble into its parent, and the
 * copies of factor tiles its tasks read, in that order when it is activated; its children's CBs and
 * copies after their assembly; its factor-tile copies at its end. */
/* The subtree tasks the replay keeps running beside the newest one (at most W - 1, oldest first):
 * the part of each one's scratch that its end frees. A task ends when W - 1 later ones have
 * started, whatever else the order submits in between: the submission runs ahead of the tasks, so
 * a parent activated (its assembly submitted) does not mean its subtree children have ended. */
typedef struct {
  size_t *off, *len;
  int cap, head, n;
} running_subtrees;

static void subtree_end_oldest(mfs_arena *a, running_subtrees *q) {
  if (q->len[q->head]) arena__free_off(a, q->off[q->head], q->len[q->head]);
  q->head = (q->head + 1) % q->cap;
  q->n--;
}

/* Subtree f starts, its scratch's end part [off, off + len) held until it ends; the oldest running
 * one ends when cap are already running. */
static void subtree_start(mfs_arena *a, running_subtrees *q, size_t off, size_t len) {
  if (q->cap == 0) {
    if (len) arena__free_off(a, off, len);
    return;
  }
  if (q->n == q->cap) subtree_end_oldest(a, q);
  int slot = (q->head + q->n) % q->cap;
  q->off[slot] = off;
  q->len[slot] = len;
  q->n++;
}

/* Every running subtree ends (where D->drain, the executor waits for this process's own work before
 * the fronts it shares with others: mfs_factor_starpu.c, submit_fronts). */
static void subtrees_end_all(mfs_arena *a, running_subtrees *q) {
  while (q->n > 0) subtree_end_oldest(a, q);
}

static int64_t replay_cb(const mfs_symbolic *S, const mfs_dist *D, int workers, size_t *plan);

/* Bytes of a table of 3 offsets per front (the replay's, D->cb_plan). */
static size_t plan_bytes(const mfs_symbolic *S) { return ((size_t)S->nfronts + 1) * 3 * sizeof(size_t); }

int64_t dist__cb_footprint(const mfs_symbolic *S, const mfs_dist *D, int workers) {
  return replay_cb(S, D, workers, NULL);
}

/* The replay behind dist__cb_footprint; with plan, the offset it gave each block (3 per front, as
 * D->cb_plan) is left there, ARENA_FAIL for blocks it did not take. */
static int64_t replay_cb(const mfs_symbolic *S, const mfs_dist *D, int workers, size_t *plan) {
  size_t *off = plan ? plan : mem__alloc(plan_bytes(S)); /* CB, received CB, received factor */
  if (plan) memset(plan, 0xff, plan_bytes(S));
  /* W - 1 earlier subtrees held when one starts, all of them when the process has fewer subtree
   * tasks with a scratch than workers */
  int32_t mine = 0;
  for (int32_t k = 0; k < D->norder; k++) {
    int32_t f = D->order[k];
    mine += D->subtree_root[f] == f && D->lo[f] == D->rank && D->sub_scratch[f] > 0;
  }
  running_subtrees run = {NULL, NULL, workers - 1 < mine ? workers - 1 : mine, 0, 0};
  if (run.cap < 0) run.cap = 0;
  if (run.cap > 0) {
    run.off = mem__alloc((size_t)run.cap * sizeof *run.off);
    run.len = mem__alloc((size_t)run.cap * sizeof *run.len);
  }
  if (!off || (run.cap > 0 && (!run.off || !run.len))) {
    if (off != plan) mem__free(off);
    mem__free(run.off);
    mem__free(run.len);
    return -1;
  }
  mfs_arena a;
  arena__init_sim(&a);
#define ALLOC(k, f, bytes) \
  if ((bytes) > 0) off[3 * (size_t)(f) + (k)] = arena__alloc_off(&a, (size_t)(bytes), ARENA_LOW)
#define FREE(k, f, bytes) \
  if ((bytes) > 0) arena__free_off(&a, off[3 * (size_t)(f) + (k)], (size_t)(bytes))
  int drained = !D->drain;
  for (int32_t k = 0; k < D->norder; k++) {
    int32_t f = D->order[k];
    int32_t sr = D->subtree_root[f], p = S->fronts[f].parent;
    int in_parent = p >= 0 && dist__in_group(D, p, D->rank);
    if (sr >= 0 && sr != f) continue;
    if (!drained && !dist__own_work(D, f)) {
      subtrees_end_all(&a, &run);
      drained = 1;
    }
    if (sr == f) {
      if (D->lo[f] == D->rank && D->sub_scratch[f] > 0) {
        /* one block: the root's CB at its start, the CBs below the root above it; when the
                 * task ends the block shrinks to the root's CB (the freed part may be the arena's top) */
        size_t s = arena__alloc_off(&a, (size_t)D->sub_scratch[f], ARENA_LOW);
        size_t kept = (size_t)D->cb_local[f];
        subtree_start(&a, &run, s + kept, (size_t)D->sub_scratch[f] > kept ? (size_t)D->sub_scratch[f] - kept : 0);
        off[3 * (size_t)f] = s;
      } else if (D->lo[f] != D->rank && in_parent) {
        ALLOC(1, f, D->recv_cb[f]);
      }
      continue;
    }
    int in_group = dist__in_group(D, f, D->rank);
    if (in_group) ALLOC(0, f, D->cb_local[f]);
    if (in_group || in_parent) ALLOC(1, f, D->recv_cb[f]);
    if (!in_group) continue;
    ALLOC(2, f, D->recv_l[f]);
    const mfs_front *F = &S->fronts[f];
    for (int32_t q = 0; q < F->nchild; q++) {
      int32_t c = S->child[F->child0 + q];
      FREE(0, c, D->cb_local[c]);
      FREE(1, c, D->recv_cb[c]);
    }
    FREE(2, f, D->recv_l[f]);
  }
#undef ALLOC
#undef FREE
  int64_t footprint = (int64_t)a.hwm;
  arena__destroy(&a);
  if (off != plan) mem__free(off);
  mem__free(run.off);
  mem__free(run.len);
  return footprint;
}

/* See mfs_dist.h (order). Fronts inside sequential subtrees are left out: their root stands for them. */
static void build_order(const mfs_symbolic *S, mfs_dist *D) {
  int32_t n = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    int32_t sr = D->subtree_root[f];
    if ((sr < 0 || sr == f) && !dist__shared(D, f) && D->lo[f] == D->rank) D->order[n++] = f;
  }
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (!dist__shared(D, f)) continue;
    const mfs_front *F = &S->fronts[f];
    if (dist__in_group(D, f, D->rank))
      for (int32_t q = 0; q < F->nchild; q++) {
        int32_t c = S->child[F->child0 + q];
        if (!dist__shared(D, c) && D->lo[c] != D->rank) D->order[n++] = c;
      }
    int32_t p = F->parent;
    if (dist__in_group(D, f, D->rank) || (p >= 0 && dist__in_group(D, p, D->rank))) D->order[n++] = f;
  }
  D->norder = n;
}

mfs_status dist__create(const mfs_symbolic *S, int rank, int nranks, int nworkers, int prune, mfs_dist **Dout,
                        mfs_error *err) {
  return dist__create_with(S, rank, nranks, nworkers, prune, 1, Dout, err);
}

mfs_status dist__create_with(const mfs_symbolic *S, int rank, int nranks, int nworkers, int prune, int drain,
                             mfs_dist **Dout, mfs_error *err) {
  *Dout = NULL;
  if (nranks < 1 || rank < 0 || rank >= nranks || nworkers < 1)
    return err__set(err, MFS_ERR_ARG, 0, -1, "invalid distribution: rank %d of %d, %d workers", rank, nranks, nworkers);
  const int32_t nf = S->nfronts;
  const size_t nfa = (size_t)nf + 1;
  mfs_dist *D = mem__calloc(1, sizeof *D);
  if (!D) return err__nomem(err);
  D->rank = rank;
  D->workers = nworkers / nranks > 0 ? nworkers / nranks : 1;
  D->nranks = nranks;
  D->drain = drain && nranks > 1;
  D->nfronts = nf;
  D->lo = mem__alloc(nfa * sizeof *D->lo);
  D->hi = mem__alloc(nfa * sizeof *D->hi);
  D->row_ptr = mem__alloc(nfa * sizeof *D->row_ptr);
  D->subtree_first = mem__alloc(nfa * sizeof *D->subtree_first);
  D->l_local = mem__calloc(nfa, sizeof *D->l_local);
  D->cb_local = mem__calloc(nfa, sizeof *D->cb_local);
  D->sub_l = mem__calloc(nfa, sizeof *D->sub_l);
  D->sub_scratch = mem__calloc(nfa, sizeof *D->sub_scratch);
  D->sub_off = mem__calloc(nfa, sizeof *D->sub_off);
  D->sub_two_ends = mem__calloc(nfa, sizeof *D->sub_two_ends);
  D->recv = mem__calloc((size_t)(S->ntiles ? S->ntiles : 1), 1);
  D->recv_l = mem__calloc(nfa, sizeof *D->recv_l);
  D->recv_cb = mem__calloc(nfa, sizeof *D->recv_cb);
  D->order = mem__alloc(nfa * sizeof *D->order);
  int32_t *owner = mem__alloc(nfa * sizeof *owner);
  if (!D->lo || !D->hi || !D->row_ptr || !D->subtree_first || !D->l_local || !D->cb_local || !D->sub_l ||
      !D->sub_scratch || !D->sub_off || !D->sub_two_ends || !D->recv || !D->recv_l || !D->recv_cb || !D->order ||
      !owner)
    goto nomem;
  mfs_status st;
  if (prune) {
    if ((st = mfs_prune(S, nworkers, &D->pruning, err)) != MFS_OK) goto fail;
    D->subtree_root = D->pruning.subtree_root;
    D->pruning.subtree_root = NULL; /* now ours */
  } else {
    D->subtree_root = mem__alloc(nfa * sizeof *D->subtree_root);
    if (!D->subtree_root) goto nomem;
    for (int32_t f = 0; f < nf; f++) D->subtree_root[f] = -1;
  }
  if ((st = mfs_map_proportional(S, nranks, owner, D->lo, D->hi, NULL, err)) != MFS_OK) goto fail;
  /* a sequential subtree runs where its root is owned, whatever the mapping says of its width */
  for (int32_t f = nf - 1; f >= 0; f--) {
    int32_t sr = D->subtree_root[f];
    if (sr < 0) continue;
    D->lo[f] = owner[sr];
    D->hi[f] = owner[sr] + 1;
  }
  if (dist__split_rows(S, D) != MFS_OK) goto nomem;
  front__subtree_first(S, D->subtree_first);
  for (int32_t f = 0; f < nf; f++) {
    int32_t sr = D->subtree_root[f];
    if (sr == f) D->nsubtrees++;
    if (sr < 0) D->ntiled++;
    if (dist__shared(D, f)) D->nshared++;
    dist__carve(S, D, f, NULL, NULL, NULL, &D->l_local[f], &D->cb_local[f]);
    D->factor_local += D->l_local[f];
  }
  for (int32_t f = 0; f < nf; f++) {
    if (D->subtree_root[f] != f || D->lo[f] != rank) continue;
    int64_t l = 0;
    for (int32_t g = D->subtree_first[f]; g <= f; g++) l += S->fronts[g].l_bytes;
    D->sub_l[f] = l;
    int two_ends = 0;
    int64_t below = dist__subtree_scratch(S, D->subtree_first[f], f, D->sub_off, &two_ends);
    D->sub_two_ends[f] = (uint8_t)two_ends;
    if (below < 0) goto nomem;
    /* the block: the root's CB first, then the CBs below the root */
    D->sub_scratch[f] = S->fronts[f].cb_bytes + below;
    for (int32_t g = D->subtree_first[f]; g < f; g++) D->sub_off[g] += S->fronts[f].cb_bytes;
    D->sub_off[f] = 0;
  }
  find_received(S, D);
  build_order(S, D);
  /* The replay's placement, for the executor to follow on several processes (mfs_dist.h: cb_plan) */
  D->cb_plan = nranks > 1 ? mem__alloc(plan_bytes(S)) : NULL;
  if ((nranks > 1 && !D->cb_plan) || (D->cb_min = replay_cb(S, D, D->workers, D->cb_plan)) < 0) goto nomem;
  mem__free(owner);
  *Dout = D;
  return MFS_OK;
nomem:
  st = err__nomem(err);
fail:
  mem__free(owner);
  dist__free(D);
  return st;
}
