/*
 * mfs_front.c — the front/tile layer: how a front is cut into tiles, what its tiles cost in bytes,
 * the analytic flop counts, and the list of tile operations that makes up the numeric phase.
 *
 * The operation list is the contract with the executors: the sequential one runs it in order, a
 * task-based one submits each operation as a task whose dependencies follow from mfs_op_access.
 */
#include "mfs_internal.h"

#include <string.h>

/* Tiles are padded to whole cache lines so that every tile of a front allocation starts aligned. */
#define TILE_ALIGN_DOUBLES 8

const char *mfs_op_name(mfs_optype t) {
  static const char *names[MFS_NOPTYPES] = {"init", "assemble", "potrf", "trsm", "syrk", "gemm", "cleanup"};
  return (t >= 0 && t < MFS_NOPTYPES) ? names[t] : "?";
}

const char *mfs_task_name(int t) { return t == MFS_TASK_SUBTREE ? "subtree" : mfs_op_name((mfs_optype)t); }

double mfs_flops_potrf(double n) { return n * n * n / 3.0 + n * n / 2.0 + n / 6.0; }
double mfs_flops_trsm(double m, double n) { return m * n * n; }
double mfs_flops_syrk(double n, double k) { return k * n * (n + 1.0); }
double mfs_flops_gemm(double m, double n, double k) { return 2.0 * m * n * k; }

void front__subtree_first(const mfs_symbolic *S, int32_t *first) {
  for (int32_t f = 0; f < S->nfronts; f++) first[f] = f;
  for (int32_t f = 0; f < S->nfronts; f++) {
    int32_t p = S->fronts[f].parent;
    if (p >= 0 && first[f] < first[p]) first[p] = first[f];
  }
}

int64_t mfs_big_front_rows(const mfs_options *o) {
  return o->nb_big_from > 0 ? o->nb_big_from : (int64_t)MFS_BIG_FRONT_TILES * o->nb;
}

int64_t mfs_huge_front_rows(const mfs_options *o) {
  return o->nb_huge_from > 0 ? o->nb_huge_from : 2 * (int64_t)o->nb_huge;
}

int mfs_front_nb(const mfs_options *o, int32_t nrow) {
  if (o->nb_huge > 0 && nrow >= mfs_huge_front_rows(o)) return o->nb_huge;
  return o->nb_big > 0 && nrow >= mfs_big_front_rows(o) ? o->nb_big : o->nb;
}

/* Nearly equal blocks: a 260-column panel with nb = 256 becomes 130 + 130, not 256 + 4, because a
 * sliver tile costs a full kernel call for almost no work. */
int32_t mfs_split_blocks(int32_t len, int nb, int32_t base, int32_t *bnd) {
  if (len <= 0) {
    if (bnd) bnd[0] = base;
    return 0;
  }
  int32_t nblk = (int32_t)((len + (int64_t)nb - 1) / nb);
  int32_t q = len / nblk, r = len % nblk;
  if (bnd) {
    bnd[0] = base;
    for (int32_t t = 0; t < nblk; t++) bnd[t + 1] = bnd[t] + q + (t < r ? 1 : 0);
  }
  return nblk;
}

static int64_t tile_bytes(int64_t rows, int64_t cols) {
  int64_t d = rows * cols;
  d = (d + TILE_ALIGN_DOUBLES - 1) / TILE_ALIGN_DOUBLES * TILE_ALIGN_DOUBLES;
  return d * (int64_t)sizeof(double);
}

/* Size of block t of a split of len into nblk blocks (same rule as mfs_split_blocks). */
static int64_t split_size(int32_t len, int32_t nblk, int32_t t) { return len / nblk + (t < len % nblk ? 1 : 0); }

void mfs_front_bytes(int32_t ncol, int32_t nrow, int nb, int64_t *l_bytes, int64_t *cb_bytes) {
  int32_t ncb = nrow - ncol;
  int32_t nbp = mfs_split_blocks(ncol, nb, 0, NULL), nbc = mfs_split_blocks(ncb, nb, 0, NULL);
  int64_t l = 0, cb = 0;
  /* factor tiles: panel block j against panel blocks i >= j and all CB blocks */
  for (int32_t j = 0; j < nbp; j++) {
    int64_t wj = split_size(ncol, nbp, j);
    for (int32_t i = j; i < nbp; i++) l += tile_bytes(split_size(ncol, nbp, i), wj);
    for (int32_t i = 0; i < nbc; i++) l += tile_bytes(split_size(ncb, nbc, i), wj);
  }
  for (int32_t j = 0; j < nbc; j++) {
    int64_t wj = split_size(ncb, nbc, j);
    for (int32_t i = j; i < nbc; i++) cb += tile_bytes(split_size(ncb, nbc, i), wj);
  }
  *l_bytes = l;
  *cb_bytes = cb;
}

int mfs_op_access(const mfs_op *op, mfs_tile_access acc[3]) {
  switch (op->type) {
  case MFS_OP_INIT:
  case MFS_OP_CLEANUP: acc[0] = (mfs_tile_access){op->front, -1, -1, MFS_ACCESS_W}; return 1;
  case MFS_OP_ASSEMBLE:
    acc[0] = (mfs_tile_access){op->child, op->ci, op->cj, MFS_ACCESS_R};
    acc[1] = (mfs_tile_access){op->front, op->i, op->j, MFS_ACCESS_RW};
    return 2;
  case MFS_OP_POTRF: acc[0] = (mfs_tile_access){op->front, op->k, op->k, MFS_ACCESS_RW}; return 1;
  case MFS_OP_TRSM:
    acc[0] = (mfs_tile_access){op->front, op->k, op->k, MFS_ACCESS_R};
    acc[1] = (mfs_tile_access){op->front, op->i, op->k, MFS_ACCESS_RW};
    return 2;
  case MFS_OP_SYRK:
    acc[0] = (mfs_tile_access){op->front, op->i, op->k, MFS_ACCESS_R};
    acc[1] = (mfs_tile_access){op->front, op->i, op->i, MFS_ACCESS_RW};
    return 2;
  case MFS_OP_GEMM:
    acc[0] = (mfs_tile_access){op->front, op->i, op->k, MFS_ACCESS_R};
    acc[1] = (mfs_tile_access){op->front, op->j, op->k, MFS_ACCESS_R};
    acc[2] = (mfs_tile_access){op->front, op->i, op->j, MFS_ACCESS_RW};
    return 3;
  }
  return 0;
}

/* ------------------------------------------------------------------------------ op list builder */

/* The list is built in two passes over the same code: the first (v == NULL) only counts, so the
 * array is allocated once at its exact size (no regrowth copies, no slack). */
typedef struct {
  mfs_op *v;
  int64_t n;
} oplist;

static int push(oplist *L, int32_t type, int32_t front, int32_t i, int32_t j, int32_t k, int32_t child, int32_t ci,
                int32_t cj, double flops) {
  if (L->v) L->v[L->n] = (mfs_op){type, front, i, j, k, child, ci, cj, flops};
  L->n++;
  return 1;
}

/* First index t in [lo,hi) with a[t] >= x (a ascending). */
static int32_t lower_bound(const int32_t *a, int32_t lo, int32_t hi, int32_t x) {
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Tile row/column block of front-local row r: last t with bnd[t] <= r. */
static int32_t block_of(const int32_t *bnd, int32_t nbt, int32_t r) { return lower_bound(bnd, 0, nbt + 1, r + 1) - 1; }

/* Assembly of child c into parent f, one operation per (child CB tile, parent tile) pair that
 * shares entries. cmap is ascending (child and parent rows are both sorted), so the child rows of a
 * tile that land in one parent tile form one contiguous range: counting is two binary searches. */
static int push_assembly(const mfs_symbolic *S, oplist *L, int32_t f, int32_t c) {
  const mfs_front *P = &S->fronts[f], *C = &S->fronts[c];
  const int32_t *pb = S->blkptr + P->blk, *cb = S->blkptr + C->blk;
  const int32_t *cm = S->cmap + C->cmap, off = C->ncol; /* cm[q], q = child-local row - ncol */
  for (int32_t cj = C->nbp; cj < C->nbt; cj++)
    for (int32_t ci = cj; ci < C->nbt; ci++) {
      int32_t cr0 = cb[ci] - off, cr1 = cb[ci + 1] - off, cc0 = cb[cj] - off, cc1 = cb[cj + 1] - off;
      int32_t pj_lo = block_of(pb, P->nbt, cm[cc0]), pj_hi = block_of(pb, P->nbt, cm[cc1 - 1]);
      int32_t pi_lo = block_of(pb, P->nbt, cm[cr0]), pi_hi = block_of(pb, P->nbt, cm[cr1 - 1]);
      for (int32_t pj = pj_lo; pj <= pj_hi; pj++) {
        int32_t c0 = lower_bound(cm, cc0, cc1, pb[pj]);
        int32_t c1 = lower_bound(cm, cc0, cc1, pb[pj + 1]);
        for (int32_t pi = pi_lo > pj ? pi_lo : pj; pi <= pi_hi; pi++) {
          int32_t r0 = lower_bound(cm, cr0, cr1, pb[pi]);
          int32_t r1 = lower_bound(cm, cr0, cr1, pb[pi + 1]);
          double nr = r1 - r0, nc = c1 - c0, cnt;
          if (nr <= 0 || nc <= 0) continue;
          /* same child diagonal tile and same parent tile: rows == columns, lower half */
          cnt = (ci == cj && pi == pj) ? nr * (nr + 1) / 2 : nr * nc;
          if (!push(L, MFS_OP_ASSEMBLE, f, pi, pj, -1, c, ci, cj, cnt)) return 0;
        }
      }
    }
  return 1;
}

static int push_factor(const mfs_symbolic *S, oplist *L, int32_t f) {
  const mfs_front *F = &S->fronts[f];
  const int32_t *b = S->blkptr + F->blk;
#define BS(t) ((double)(b[(t) + 1] - b[(t)]))
  for (int32_t k = 0; k < F->nbp; k++) {
    if (!push(L, MFS_OP_POTRF, f, k, k, k, -1, -1, -1, mfs_flops_potrf(BS(k)))) return 0;
    for (int32_t i = k + 1; i < F->nbt; i++)
      if (!push(L, MFS_OP_TRSM, f, i, k, k, -1, -1, -1, mfs_flops_trsm(BS(i), BS(k)))) return 0;
    for (int32_t j = k + 1; j < F->nbt; j++) {
      if (!push(L, MFS_OP_SYRK, f, j, j, k, -1, -1, -1, mfs_flops_syrk(BS(j), BS(k)))) return 0;
      for (int32_t i = j + 1; i < F->nbt; i++)
        if (!push(L, MFS_OP_GEMM, f, i, j, k, -1, -1, -1, mfs_flops_gemm(BS(i), BS(j), BS(k)))) return 0;
    }
  }
#undef BS
  return 1;
}

/* Appends the operations of every front (pass with L->v == NULL: counts only). */
static void build_all(mfs_symbolic *S, oplist *L) {
  for (int32_t f = 0; f < S->nfronts; f++) {
    mfs_front *F = &S->fronts[f];
    F->op_begin = L->n;
    push(L, MFS_OP_INIT, f, -1, -1, -1, -1, -1, -1, 0.0);
    for (int32_t t = 0; t < F->nchild; t++) {
      int32_t c = S->child[F->child0 + t];
      push_assembly(S, L, f, c);
      push(L, MFS_OP_CLEANUP, c, -1, -1, -1, -1, -1, -1, 0.0);
    }
    int64_t fstart = L->n;
    push_factor(S, L, f);
    F->op_end = L->n;
    if (L->v) {
      F->flops = 0;
      for (int64_t o = fstart; o < L->n; o++) F->flops += L->v[o].flops;
    }
  }
}

mfs_status front__build_ops(mfs_symbolic *S, mfs_error *err) {
  oplist L = {NULL, 0};
  build_all(S, &L);
  int64_t count = L.n;
  L.v = mem__alloc((size_t)(count ? count : 1) * sizeof *L.v);
  if (!L.v) return err__nomem(err);
  L.n = 0;
  build_all(S, &L);
  if (L.n != count) {
    mem__free(L.v);
    return err__set(err, MFS_ERR_INTERNAL, 0, -1, "operation count changed between passes");
  }
  memset(S->nops_type, 0, sizeof S->nops_type);
  memset(S->flops_type, 0, sizeof S->flops_type);
  for (int64_t o = 0; o < L.n; o++) {
    S->nops_type[L.v[o].type]++;
    S->flops_type[L.v[o].type] += L.v[o].flops;
  }
  S->flops = S->flops_type[MFS_OP_POTRF] + S->flops_type[MFS_OP_TRSM] + S->flops_type[MFS_OP_SYRK] +
             S->flops_type[MFS_OP_GEMM];
  S->ops = L.v;
  S->nops = L.n;
  return MFS_OK;
}
