/*
 * mfs_symbolic.c — the analysis driver (mfs_analyze), one static function per phase:
 *
 *   1. fill-reducing ordering P0                     order_columns       (mfs_ordering.c)
 *   2. etree, postorder, column counts of P0 A P0^T  postordered_etree   (mfs_etree.c, mfs_colcount.c)
 *   3. fundamental supernodes, relaxed amalgamation  find_supernodes     (mfs_supernode.c)
 *   4. a postorder of the fronts whose child order minimises the multifrontal memory peak (Liu
 *      1986: children by decreasing peak minus what they leave behind), and the final column
 *      numbering it induces — every front owns a contiguous range of columns
 *                                                    build_front_tree
 *      then the columns inside each fundamental supernode in the order that makes the extend-add's
 *      runs of rows long (same factor)               order_supernode_columns (mfs_supernode_order.c)
 *   5. front row structures, relative index maps, tiles
 *                                                    build_front_structures
 *   6. operation list, flops, memory prediction      count_operations    (mfs_front.c, mfs_memory.c)
 *
 * A phase returns MFS_OK or an error it has set in *err; whatever it allocated is in the working
 * state or in S, which the driver frees in one place.
 *
 * Step 2 uses only O(nnz(A)) work; step 5 touches each front's rows once (the structure of a front
 * is its own columns plus the rows below it found in its A columns and its children's CBs).
 */
#include "mfs_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mfs_options_default(mfs_options *o) {
  memset(o, 0, sizeof *o);
  o->ordering = mfs_ordering_available(MFS_ORDER_METIS) ? MFS_ORDER_METIS
                : mfs_ordering_available(MFS_ORDER_AMD) ? MFS_ORDER_AMD
                                                        : MFS_ORDER_NATURAL;
  o->given_perm = NULL;
  /* 512 rather than 256: a tile GEMM packs its operands from memory on every call, and at 256 the
   * packing is a fifth of its time. One core, 512 against 256, alternated in one process: lap3d:50
   * faster in 6 of 6 runs (mean ratio 0.91), lap3d:60 4 of 4 (0.91), lap3d27:40 5 of 6 (0.94); one
   * process x 2 workers and 2 processes x 1 worker as fast or faster. The price: diagonal tiles are
   * stored whole, +4 % factor memory on lap3d:50, and a front has a quarter as many tiles for the
   * workers to share (--nb 256 for many workers per process). */
  o->nb = MFS_DEFAULT_NB;
  o->amalg = 0.05;
}

void mfs_symbolic_free(mfs_symbolic *S) {
  if (!S) return;
  mem__free(S->perm);
  mem__free(S->iperm);
  mem__free(S->parent);
  mem__free(S->colcount);
  mem__free(S->col2front);
  mem__free(S->fronts);
  mem__free(S->child);
  mem__free(S->rowind);
  mem__free(S->blkptr);
  mem__free(S->cmap);
  mem__free(S->a_colptr);
  mem__free(S->a_lrow);
  mem__free(S->a_src);
  mem__free(S->ops);
  mem__free(S);
}

/* Lower triangle of P A P^T (iperm = old -> new), rows ascending in each column: bucket the entries
 * by new row, then walk the rows in order and drop each entry into its new column. src[p]
 * (optional) is the index in A->val of stored entry p. */
static mfs_status permuted_lower(const mfs_matrix *A, const int32_t *iperm, int64_t **cp_out, int32_t **ri_out,
                                 int64_t **src_out) {
  int32_t n = A->n;
  int64_t nz = A->nnz;
  size_t nzs = (size_t)(nz ? nz : 1);
  int64_t *rptr = mem__calloc((size_t)n + 1, sizeof *rptr);
  int64_t *cptr = mem__calloc((size_t)n + 1, sizeof *cptr);
  int64_t *next = mem__alloc(((size_t)n + 1) * sizeof *next);
  int64_t *byrow = mem__alloc(nzs * sizeof *byrow); /* entry index, bucketed by new row */
  int32_t *bcol = mem__alloc(nzs * sizeof *bcol);   /* its new column */
  int32_t *ri = mem__alloc(nzs * sizeof *ri);
  int64_t *src = src_out ? mem__alloc(nzs * sizeof *src) : NULL;
  if (!rptr || !cptr || !next || !byrow || !bcol || !ri || (src_out && !src)) {
    mem__free(rptr);
    mem__free(cptr);
    mem__free(next);
    mem__free(byrow);
    mem__free(bcol);
    mem__free(ri);
    mem__free(src);
    return MFS_ERR_NOMEM;
  }
  for (int32_t j = 0; j < n; j++)
    for (int64_t e = A->colptr[j]; e < A->colptr[j + 1]; e++) {
      int32_t a = iperm[A->rowind[e]], b = iperm[j];
      rptr[(a > b ? a : b) + 1]++;
      cptr[(a > b ? b : a) + 1]++;
    }
  for (int32_t i = 0; i < n; i++) {
    rptr[i + 1] += rptr[i];
    cptr[i + 1] += cptr[i];
  }
  memcpy(next, rptr, ((size_t)n + 1) * sizeof *next);
  for (int32_t j = 0; j < n; j++)
    for (int64_t e = A->colptr[j]; e < A->colptr[j + 1]; e++) {
      int32_t a = iperm[A->rowind[e]], b = iperm[j];
      int64_t t = next[a > b ? a : b]++;
      byrow[t] = e;
      bcol[t] = a > b ? b : a;
    }
  memcpy(next, cptr, ((size_t)n + 1) * sizeof *next);
  for (int32_t r = 0; r < n; r++)
    for (int64_t t = rptr[r]; t < rptr[r + 1]; t++) {
      int64_t p = next[bcol[t]]++;
      ri[p] = r;
      if (src) src[p] = byrow[t];
    }
  mem__free(rptr);
  mem__free(next);
  mem__free(byrow);
  mem__free(bcol);
  *cp_out = cptr;
  *ri_out = ri;
  if (src_out) *src_out = src;
  return MFS_OK;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double key;
  int32_t id;
} keyed;

static int cmp_keyed_desc(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id); /* deterministic ties */
}

/* Working state of the analysis: the buffers of all phases, freed in one place. work_free walks the
 * struct as an array of pointers, so it holds nothing else. A few buffers are reused once their
 * first content is dead, which keeps the analysis's peak memory down; the phase that reuses one says
 * so in a comment. */
typedef struct {
  int32_t *perm0, *iperm0, *parent0, *post, *cc0; /* 1-2: ordering P0, etree, counts of P0 A P0^T */
  int64_t *bp;                                    /* 2: P0 A P0^T, lower CSC (freed after the counts) */
  int32_t *bi;                                    /* 2: its rows; 5: the rows of A in the final numbering */
  int32_t *perm1, *parent1, *cc1;                 /* 2: the same relabelled in postorder */
  /* 3: supernodes; 4 overwrites sncol, snstruct, sparent with the provisional fronts' columns, rows
   * and parents */
  int32_t *first, *snode, *sparent, *sncol, *snstruct, *rep;
  int32_t *top2front, *front2top, *gptr, *glist; /* 4: supernodes grouped into fronts */
  int32_t *newcol, *kid_ptr, *kids, *stack, *mark, *pos;
  int32_t *order;                         /* 4: the final postorder of the provisional fronts */
  int32_t *sn_col0, *sn_ncol, *col_order; /* 4: the supernodes' columns, and their order inside them */
  int64_t *lbytes, *cbbytes, *subf;
  double *peak;
  keyed *tmp;
} work;

static void work_free(work *w) {
  void **p = (void **)w;
  for (size_t t = 0; t < sizeof *w / sizeof(void *); t++) mem__free(p[t]);
}

/* Allocation inside a phase: a failure returns MFS_ERR_NOMEM at once; what was allocated before is
 * in work or in S, and the driver frees both. */
#define ALLOC(ptr, count)                                                    \
  do {                                                                       \
    (ptr) = mem__alloc((size_t)((count) > 0 ? (count) : 1) * sizeof *(ptr)); \
    if (!(ptr)) return err__nomem(err);                                      \
  } while (0)

/* iperm := inverse of perm; returns the first k whose perm[k] is out of range or repeated, else -1. */
static int32_t invert_permutation(int32_t n, const int32_t *perm, int32_t *iperm) {
  for (int32_t k = 0; k < n; k++) iperm[k] = -1;
  for (int32_t k = 0; k < n; k++) {
    int32_t c = perm[k];
    if (c < 0 || c >= n || iperm[c] != -1) return k;
    iperm[c] = k;
  }
  return -1;
}

/* 1. The fill-reducing ordering P0: the caller's or the library's, checked to be a permutation
 * (an ordering library's output is checked too: a bad one would corrupt everything after). */
static mfs_status order_columns(const mfs_matrix *A, const mfs_options *opt, work *W, mfs_error *err) {
  const int32_t n = A->n;
  ALLOC(W->perm0, n);
  ALLOC(W->iperm0, n);
  if (opt->ordering == MFS_ORDER_GIVEN) {
    if (!opt->given_perm) return err__set(err, MFS_ERR_ARG, 0, -1, "MFS_ORDER_GIVEN without a permutation");
    memcpy(W->perm0, opt->given_perm, (size_t)n * sizeof *W->perm0);
    int32_t bad = invert_permutation(n, W->perm0, W->iperm0);
    if (bad >= 0) return err__set(err, MFS_ERR_ARG, 0, -1, "given ordering is not a permutation (entry %d)", bad);
    return MFS_OK;
  }
  mfs_status st = mfs_order(A, opt->ordering, W->perm0, err);
  if (st != MFS_OK) return st;
  if (invert_permutation(n, W->perm0, W->iperm0) >= 0)
    return err__set(err, MFS_ERR_ORDERING, 0, -1, "%s returned an invalid permutation",
                    mfs_ordering_name(opt->ordering));
  return MFS_OK;
}

/* 2. Elimination tree, postorder and column counts of P0 A P0^T, then everything relabelled so
 * that the tree is postordered (column k is old column post[k]): a postorder has the same fill, and
 * the supernode detection needs parent[j] > j with every subtree a contiguous range. */
static mfs_status postordered_etree(const mfs_matrix *A, work *W, mfs_error *err) {
  const int32_t n = A->n;
  if (permuted_lower(A, W->iperm0, &W->bp, &W->bi, NULL) != MFS_OK) return err__nomem(err);
  ALLOC(W->parent0, n);
  ALLOC(W->post, n);
  ALLOC(W->cc0, n);
  if (mfs_etree(n, W->bp, W->bi, W->parent0) != MFS_OK) return err__nomem(err);
  mfs_status st = mfs_postorder(n, W->parent0, W->post);
  if (st == MFS_ERR_NOMEM) return err__nomem(err);
  if (st != MFS_OK) return err__set(err, MFS_ERR_INTERNAL, 0, -1, "elimination tree is not a forest");
  if (mfs_colcounts(n, W->bp, W->bi, W->parent0, W->post, W->cc0) != MFS_OK) return err__nomem(err);
  mem__free(W->bp);
  mem__free(W->bi);
  W->bp = NULL;
  W->bi = NULL;

  ALLOC(W->perm1, n);
  ALLOC(W->parent1, n);
  ALLOC(W->cc1, n);
  for (int32_t k = 0; k < n; k++) W->iperm0[W->post[k]] = k; /* iperm0 (dead now) reused as ipost */
  for (int32_t k = 0; k < n; k++) {
    int32_t old = W->post[k];
    W->perm1[k] = W->perm0[old];
    W->parent1[k] = W->parent0[old] < 0 ? -1 : W->iperm0[W->parent0[old]];
    W->cc1[k] = W->cc0[old];
  }
  return MFS_OK;
}

/* 3. Fundamental supernodes of the postordered tree (*ns of them), their tree (sparent), columns,
 * rows below them, then relaxed amalgamation: rep[s] is the supernode that absorbed s. */
static mfs_status find_supernodes(int32_t n, double amalg, work *W, int32_t *ns_out, mfs_error *err) {
  ALLOC(W->first, (int64_t)n + 1);
  int32_t ns = mfs_fundamental_supernodes(n, W->parent1, W->cc1, W->first);
  if (ns < 0) return err__nomem(err);
  ALLOC(W->snode, n);
  ALLOC(W->sparent, ns);
  ALLOC(W->sncol, ns);
  ALLOC(W->snstruct, ns);
  ALLOC(W->rep, ns);
  for (int32_t s = 0; s < ns; s++)
    for (int32_t j = W->first[s]; j < W->first[s + 1]; j++) W->snode[j] = s;
  for (int32_t s = 0; s < ns; s++) {
    int32_t last = W->first[s + 1] - 1;
    W->sparent[s] = W->parent1[last] < 0 ? -1 : W->snode[W->parent1[last]];
    W->sncol[s] = W->first[s + 1] - W->first[s];
    W->snstruct[s] = W->cc1[last] - 1;
  }
  mfs_amalgamate(ns, W->sparent, W->sncol, W->snstruct, amalg, W->rep, NULL);
  *ns_out = ns;
  return MFS_OK;
}

/* 4a. The fronts are the supernodes that survived amalgamation (top2front / front2top), numbered
 * like their supernodes for now ("provisional" fronts); group t lists the supernodes merged into
 * front t, ascending, which is a topological order of their columns. */
static mfs_status group_fronts(int32_t ns, work *W, int32_t *nf_out, mfs_error *err) {
  int32_t nf = 0;
  ALLOC(W->top2front, ns);
  for (int32_t s = 0; s < ns; s++) W->top2front[s] = (W->rep[s] == s) ? nf++ : -1;
  ALLOC(W->front2top, nf);
  for (int32_t s = 0; s < ns; s++)
    if (W->rep[s] == s) W->front2top[W->top2front[s]] = s;
  ALLOC(W->gptr, (int64_t)nf + 1);
  ALLOC(W->glist, ns);
  memset(W->gptr, 0, ((size_t)nf + 1) * sizeof *W->gptr);
  for (int32_t s = 0; s < ns; s++) W->gptr[W->top2front[W->rep[s]] + 1]++;
  for (int32_t t = 0; t < nf; t++) W->gptr[t + 1] += W->gptr[t];
  int32_t *fill;
  ALLOC(fill, nf);
  memcpy(fill, W->gptr, (size_t)nf * sizeof *fill);
  for (int32_t s = 0; s < ns; s++) W->glist[fill[W->top2front[W->rep[s]]]++] = s;
  mem__free(fill);
  *nf_out = nf;
  return MFS_OK;
}

/* 4b. Columns, rows, parent and bytes of each provisional front. They go to sncol, snstruct and
 * sparent, which index supernodes no longer: t ascends with its top supernode, and top >= t, so
 * writing index t never clobbers an entry of a later top still to be read. */
static mfs_status size_fronts(int32_t nf, const mfs_options *o, work *W, mfs_error *err) {
  int32_t *tcol = W->sncol, *trow = W->snstruct, *tpar = W->sparent;
  ALLOC(W->lbytes, nf);
  ALLOC(W->cbbytes, nf);
  for (int32_t t = 0; t < nf; t++) {
    int32_t top = W->front2top[t];
    int32_t nc = 0;
    for (int32_t g = W->gptr[t]; g < W->gptr[t + 1]; g++) nc += W->first[W->glist[g] + 1] - W->first[W->glist[g]];
    int32_t nrow = nc + W->cc1[W->first[top + 1] - 1] - 1;
    int32_t par = W->sparent[top] < 0 ? -1 : W->top2front[W->rep[W->sparent[top]]];
    tcol[t] = nc;
    trow[t] = nrow;
    tpar[t] = par;
    mfs_front_bytes(nc, nrow, mfs_front_nb(o, nrow), &W->lbytes[t], &W->cbbytes[t]);
  }
  return MFS_OK;
}

/* 4c. Children lists of the provisional fronts (kid_ptr, kids) and the number of roots. */
static mfs_status link_provisional(int32_t nf, work *W, int32_t *nroots_out, mfs_error *err) {
  const int32_t *tpar = W->sparent;
  ALLOC(W->kid_ptr, (int64_t)nf + 1);
  ALLOC(W->kids, nf);
  memset(W->kid_ptr, 0, ((size_t)nf + 1) * sizeof *W->kid_ptr);
  for (int32_t t = 0; t < nf; t++)
    if (tpar[t] >= 0) W->kid_ptr[tpar[t] + 1]++;
  int32_t nroots = 0;
  for (int32_t t = 0; t < nf; t++) {
    W->kid_ptr[t + 1] += W->kid_ptr[t];
    if (tpar[t] < 0) nroots++;
  }
  int32_t *fill;
  ALLOC(fill, nf);
  memcpy(fill, W->kid_ptr, (size_t)nf * sizeof *fill);
  for (int32_t t = 0; t < nf; t++)
    if (tpar[t] >= 0) W->kids[fill[tpar[t]]++] = t;
  mem__free(fill);
  *nroots_out = nroots;
  return MFS_OK;
}

/* 4d. Liu's order, bottom-up (children have smaller t than their parent): the children of each
 * front sorted by decreasing peak minus what they leave behind (subtree factor + CB), which
 * minimises the front's multifrontal peak (peak[t]); subf[t] is the factor of t's subtree. */
static mfs_status order_children(int32_t nf, int32_t nroots, work *W, mfs_error *err) {
  ALLOC(W->subf, nf);
  ALLOC(W->peak, nf);
  ALLOC(W->tmp, nf > nroots ? nf : nroots);
  for (int32_t t = 0; t < nf; t++) {
    int32_t k0 = W->kid_ptr[t], k1 = W->kid_ptr[t + 1];
    for (int32_t q = k0; q < k1; q++) {
      int32_t c = W->kids[q];
      W->tmp[q - k0] = (keyed){W->peak[c] - (double)(W->subf[c] + W->cbbytes[c]), c};
    }
    qsort(W->tmp, (size_t)(k1 - k0), sizeof *W->tmp, cmp_keyed_desc);
    double acc = 0, pk = 0;
    int64_t sf = W->lbytes[t];
    for (int32_t q = k0; q < k1; q++) {
      int32_t c = W->tmp[q - k0].id;
      W->kids[q] = c;
      if (acc + W->peak[c] > pk) pk = acc + W->peak[c];
      acc += (double)(W->subf[c] + W->cbbytes[c]);
      sf += W->subf[c];
    }
    if (acc + (double)(W->lbytes[t] + W->cbbytes[t]) > pk) pk = acc + (double)(W->lbytes[t] + W->cbbytes[t]);
    W->peak[t] = pk;
    W->subf[t] = sf;
  }
  return MFS_OK;
}

/* 4e. The final postorder of the fronts (order[f] = provisional front run f-th): roots sorted like
 * children, then an explicit-stack depth-first search (a tree may be as deep as n). */
static mfs_status postorder_fronts(int32_t nf, int32_t nroots, work *W, mfs_error *err) {
  const int32_t *tpar = W->sparent;
  ALLOC(W->stack, nf);
  ALLOC(W->order, nf);
  int32_t r = 0;
  for (int32_t t = 0; t < nf; t++)
    if (tpar[t] < 0) W->tmp[r++] = (keyed){W->peak[t] - (double)W->subf[t], t};
  qsort(W->tmp, (size_t)nroots, sizeof *W->tmp, cmp_keyed_desc);
  int32_t k = 0;
  int32_t *cursor = W->top2front; /* reused (ns >= nf): next child to visit per front */
  for (int32_t t = 0; t < nf; t++) cursor[t] = W->kid_ptr[t];
  for (int32_t q = 0; q < nroots; q++) {
    int32_t top = 0;
    W->stack[0] = W->tmp[q].id;
    while (top >= 0) {
      int32_t v = W->stack[top];
      if (cursor[v] < W->kid_ptr[v + 1])
        W->stack[++top] = W->kids[cursor[v]++];
      else {
        W->order[k++] = v;
        top--;
      }
    }
  }
  if (k != nf) return err__set(err, MFS_ERR_INTERNAL, 0, -1, "front tree traversal lost fronts");
  return MFS_OK;
}

/* 4f. The final numbering: fronts in `order`, the columns of each front group by group, so that
 * every front owns a contiguous range of columns (newcol: postordered column -> final column). */
static mfs_status number_fronts(mfs_symbolic *S, int32_t nf, work *W, mfs_error *err) {
  const int32_t *tcol = W->sncol, *trow = W->snstruct, *tpar = W->sparent;
  S->nfronts = nf;
  S->fronts = mem__calloc((size_t)(nf ? nf : 1), sizeof *S->fronts);
  if (!S->fronts) return err__nomem(err);
  ALLOC(S->col2front, S->n);
  ALLOC(W->newcol, S->n);
  int32_t *t2f = W->stack; /* reused: provisional -> final front index */
  int32_t col = 0;
  for (int32_t f = 0; f < nf; f++) {
    int32_t t = W->order[f];
    t2f[t] = f;
    mfs_front *F = &S->fronts[f];
    F->col0 = col;
    F->ncol = tcol[t];
    F->nrow = trow[t];
    F->l_bytes = W->lbytes[t];
    F->cb_bytes = W->cbbytes[t];
    for (int32_t g = W->gptr[t]; g < W->gptr[t + 1]; g++) {
      int32_t s = W->glist[g];
      for (int32_t j = W->first[s]; j < W->first[s + 1]; j++) {
        W->newcol[j] = col;
        S->col2front[col] = f;
        col++;
      }
    }
  }
  for (int32_t f = 0; f < nf; f++) {
    int32_t t = W->order[f];
    S->fronts[f].parent = tpar[t] < 0 ? -1 : t2f[tpar[t]];
  }
  return MFS_OK;
}

/* 4g. The column arrays of S in the final numbering. */
static mfs_status renumber_columns(mfs_symbolic *S, work *W, mfs_error *err) {
  const int32_t n = S->n;
  ALLOC(S->perm, n);
  ALLOC(S->iperm, n);
  ALLOC(S->parent, n);
  ALLOC(S->colcount, n);
  for (int32_t k = 0; k < n; k++) {
    int32_t nk = W->newcol[k];
    S->perm[nk] = W->perm1[k];
    S->parent[nk] = W->parent1[k] < 0 ? -1 : W->newcol[W->parent1[k]];
    S->colcount[nk] = W->cc1[k];
  }
  for (int32_t k = 0; k < n; k++) S->iperm[S->perm[k]] = k;
  return MFS_OK;
}

/* 4h. Children lists in execution order (fronts are postordered: children come in index order). */
static mfs_status link_children(mfs_symbolic *S, work *W, mfs_error *err) {
  const int32_t nf = S->nfronts;
  ALLOC(S->child, nf);
  int32_t *cnt = W->kid_ptr; /* reused */
  memset(cnt, 0, ((size_t)nf + 1) * sizeof *cnt);
  for (int32_t f = 0; f < nf; f++)
    if (S->fronts[f].parent >= 0) cnt[S->fronts[f].parent + 1]++;
  for (int32_t f = 0; f < nf; f++) cnt[f + 1] += cnt[f];
  for (int32_t f = 0; f < nf; f++) {
    S->fronts[f].child0 = cnt[f];
    S->fronts[f].nchild = 0;
  }
  for (int32_t f = 0; f < nf; f++) {
    int32_t p = S->fronts[f].parent;
    if (p >= 0) S->child[S->fronts[p].child0 + S->fronts[p].nchild++] = f;
  }
  return MFS_OK;
}

/* 4. From the supernodes to the fronts in their final order and numbering. */
static mfs_status build_front_tree(mfs_symbolic *S, int32_t ns, work *W, mfs_error *err) {
  int32_t nf = 0, nroots = 0;
  mfs_status st;
  if ((st = group_fronts(ns, W, &nf, err)) != MFS_OK) return st;
  if ((st = size_fronts(nf, &S->opts, W, err)) != MFS_OK) return st;
  if ((st = link_provisional(nf, W, &nroots, err)) != MFS_OK) return st;
  if ((st = order_children(nf, nroots, W, err)) != MFS_OK) return st;
  if ((st = postorder_fronts(nf, nroots, W, err)) != MFS_OK) return st;
  if ((st = number_fronts(S, nf, W, err)) != MFS_OK) return st;
  if ((st = renumber_columns(S, W, err)) != MFS_OK) return st;
  return link_children(S, W, err);
}

/* 4i. The columns inside each fundamental supernode in the order that makes the extend-add's runs
 * long (mfs_supernode_order.c): perm changes inside supernodes only, every other array of the
 * front tree stays as it is. */
static mfs_status order_supernode_columns(const mfs_matrix *A, mfs_symbolic *S, int32_t ns, work *W, mfs_error *err) {
  const int32_t n = S->n;
  ALLOC(W->sn_col0, ns);
  ALLOC(W->sn_ncol, ns);
  ALLOC(W->col_order, n);
  for (int32_t s = 0; s < ns; s++) { /* number_fronts gave each supernode consecutive columns */
    W->sn_col0[s] = W->newcol[W->first[s]];
    W->sn_ncol[s] = W->first[s + 1] - W->first[s];
  }
  if (supernode__column_order(A, S, ns, W->sn_col0, W->sn_ncol, W->col_order) != 0) return err__nomem(err);
  int32_t *perm = W->col_order; /* becomes the new perm in place: perm[c] = old perm[order[c]] */
  for (int32_t c = 0; c < n; c++) perm[c] = S->perm[perm[c]];
  W->col_order = S->perm;
  S->perm = perm;
  for (int32_t c = 0; c < n; c++) S->iperm[S->perm[c]] = c;
  return MFS_OK;
}

/* 5a. Where each front's rows, CB map and tile boundaries go in S's shared arrays, and its tile
 * counts; allocates those arrays. */
static mfs_status lay_out_fronts(mfs_symbolic *S, mfs_error *err) {
  int64_t totrows = 0, totcb = 0, totblk = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    mfs_front *F = &S->fronts[f];
    const int nb = mfs_front_nb(&S->opts, F->nrow);
    F->rows = totrows;
    F->cmap = totcb;
    totrows += F->nrow;
    totcb += F->nrow - F->ncol;
    F->nbp = mfs_split_blocks(F->ncol, nb, 0, NULL);
    F->nbt = F->nbp + mfs_split_blocks(F->nrow - F->ncol, nb, 0, NULL);
    F->blk = totblk;
    totblk += F->nbt + 1;
  }
  ALLOC(S->rowind, totrows);
  ALLOC(S->cmap, totcb);
  ALLOC(S->blkptr, totblk);
  return MFS_OK;
}

/* 5b. The rows of front f: its own columns, then the rows below them found in its columns of A
 * (W->bi) and in its children's CBs, sorted. The count must come out as the column counts said
 * (F->nrow); returns 0 when it does not. Adds the front's exact factor entries and flops to S. */
static int front_rows(mfs_symbolic *S, int32_t f, work *W, int64_t *exact_out) {
  mfs_front *F = &S->fronts[f];
  int32_t *rows = S->rowind + F->rows;
  int32_t last = F->col0 + F->ncol - 1, w = 0;
  int64_t exact = 0;
  for (int32_t j = F->col0; j <= last; j++) {
    rows[w++] = j;
    exact += S->colcount[j];
    S->flops_exact += (double)S->colcount[j] * (double)S->colcount[j];
  }
  S->nnz_l += exact;
  *exact_out = exact;
  int32_t s0 = w;
  for (int32_t j = F->col0; j <= last; j++)
    for (int64_t p = S->a_colptr[j]; p < S->a_colptr[j + 1]; p++) {
      int32_t i = W->bi[p];
      if (i > last && W->mark[i] != f) {
        if (w == F->nrow) return 0;
        W->mark[i] = f;
        rows[w++] = i;
      }
    }
  for (int32_t q = 0; q < F->nchild; q++) {
    const mfs_front *C = &S->fronts[S->child[F->child0 + q]];
    const int32_t *crows = S->rowind + C->rows;
    for (int32_t r = C->ncol; r < C->nrow; r++) {
      int32_t i = crows[r];
      if (i < F->col0) return 0;
      if (i > last && W->mark[i] != f) {
        if (w == F->nrow) return 0;
        W->mark[i] = f;
        rows[w++] = i;
      }
    }
  }
  if (w != F->nrow) return 0;
  qsort(rows + s0, (size_t)(w - s0), sizeof *rows, cmp_i32);
  return 1;
}

/* 5c. Front f's relative index maps (where each child CB row and each A entry lands in f, through
 * W->pos), its tile boundaries, its place in the tile table and its explicit zeros. */
static void front_maps(mfs_symbolic *S, int32_t f, work *W, int64_t exact) {
  mfs_front *F = &S->fronts[f];
  const int nb = mfs_front_nb(&S->opts, F->nrow);
  const int32_t *rows = S->rowind + F->rows;
  const int32_t last = F->col0 + F->ncol - 1;
  for (int32_t t = 0; t < F->nrow; t++) W->pos[rows[t]] = t;
  for (int32_t q = 0; q < F->nchild; q++) {
    const mfs_front *C = &S->fronts[S->child[F->child0 + q]];
    const int32_t *crows = S->rowind + C->rows;
    int32_t *cm = S->cmap + C->cmap;
    for (int32_t r = C->ncol; r < C->nrow; r++) cm[r - C->ncol] = W->pos[crows[r]];
  }
  for (int64_t p = S->a_colptr[F->col0]; p < S->a_colptr[last + 1]; p++) S->a_lrow[p] = W->pos[W->bi[p]];
  mfs_split_blocks(F->ncol, nb, 0, S->blkptr + F->blk);
  mfs_split_blocks(F->nrow - F->ncol, nb, F->ncol, S->blkptr + F->blk + F->nbp);
  F->tile0 = S->ntiles;
  S->ntiles += (int64_t)F->nbt * (F->nbt + 1) / 2;
  int64_t stored = (int64_t)F->ncol * F->nrow - (int64_t)F->ncol * (F->ncol - 1) / 2;
  F->zeros = stored - exact;
  S->nnz_l_stored += stored;
}

/* 5. A in the final numbering, then the fronts in postorder (a child's rows are known before its
 * parent's): rows, index maps, tiles. */
static mfs_status build_front_structures(const mfs_matrix *A, mfs_symbolic *S, work *W, mfs_error *err) {
  const int32_t n = S->n;
  if (permuted_lower(A, S->iperm, &S->a_colptr, &W->bi, &S->a_src) != MFS_OK) return err__nomem(err);
  ALLOC(S->a_lrow, A->nnz);
  mfs_status st = lay_out_fronts(S, err);
  if (st != MFS_OK) return st;
  ALLOC(W->mark, n);
  ALLOC(W->pos, n);
  for (int32_t i = 0; i < n; i++) W->mark[i] = -1;
  S->ntiles = 0;
  S->nnz_l = 0;
  S->nnz_l_stored = 0;
  S->flops_exact = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    int64_t exact;
    if (!front_rows(S, f, W, &exact))
      return err__set(err, MFS_ERR_INTERNAL, 0, -1, "front structure disagrees with the column counts");
    front_maps(S, f, W, exact);
  }
  return MFS_OK;
}

/* 6. The operation list and its flops, the subtree flops (children, with lower indices, are done
 * before their parent), the memory prediction. */
static mfs_status count_operations(mfs_symbolic *S, mfs_error *err) {
  mfs_status st = front__build_ops(S, err);
  if (st != MFS_OK) return st;
  for (int32_t f = 0; f < S->nfronts; f++) {
    mfs_front *F = &S->fronts[f];
    F->subtree_flops += F->flops;
    if (F->parent >= 0) S->fronts[F->parent].subtree_flops += F->subtree_flops;
  }
  for (int32_t f = S->nfronts - 1; f >= 0; f--) { /* parents first */
    mfs_front *F = &S->fronts[f];
    F->depth = F->parent >= 0 ? S->fronts[F->parent].depth + 1 : 0;
  }
  memory__predict(S);
  return MFS_OK;
}

#undef ALLOC

/* The options, checked (the caller's or the defaults). */
static mfs_status check_options(const mfs_options *opt_in, mfs_options *opt, mfs_error *err) {
  if (opt_in)
    *opt = *opt_in;
  else
    mfs_options_default(opt);
  if (opt->nb < 1 || opt->nb > 65536)
    return err__set(err, MFS_ERR_ARG, 0, -1, "tile size nb = %d is outside 1..65536", opt->nb);
  if (opt->nb_big < 0 || opt->nb_big > 65536)
    return err__set(err, MFS_ERR_ARG, 0, -1, "large fronts' tile size nb_big = %d is outside 0..65536", opt->nb_big);
  if (opt->nb_big_from < 0)
    return err__set(err, MFS_ERR_ARG, 0, -1, "large fronts' first row count nb_big_from = %d is negative",
                    opt->nb_big_from);
  if (opt->nb_huge < 0 || opt->nb_huge > 65536)
    return err__set(err, MFS_ERR_ARG, 0, -1, "largest fronts' tile size nb_huge = %d is outside 0..65536",
                    opt->nb_huge);
  if (opt->nb_huge_from < 0)
    return err__set(err, MFS_ERR_ARG, 0, -1, "largest fronts' first row count nb_huge_from = %d is negative",
                    opt->nb_huge_from);
  if (!isfinite(opt->amalg)) return err__set(err, MFS_ERR_ARG, 0, -1, "amalgamation threshold is not a finite number");
  return MFS_OK;
}

mfs_status mfs_analyze(const mfs_matrix *A, const mfs_options *opt_in, mfs_symbolic **Sout, mfs_error *err) {
  *Sout = NULL;
  mfs_options opt;
  mfs_status st = mfs_matrix_check(A, err);
  if (st == MFS_OK) st = check_options(opt_in, &opt, err);
  if (st != MFS_OK) return st;
  if (A->n < 1) return err__set(err, MFS_ERR_ARG, 0, -1, "empty matrix");
  double t0 = time__now();
  mfs_symbolic *S = mem__calloc(1, sizeof *S);
  if (!S) return err__nomem(err);
  S->n = A->n;
  S->opts = opt;
  S->opts.given_perm = NULL; /* not owned: do not keep a pointer the caller may free */

  work W;
  memset(&W, 0, sizeof W);
  int32_t ns = 0;
  double t1 = t0;
  st = order_columns(A, &opt, &W, err);
  if (st == MFS_OK) {
    t1 = time__now();
    S->time_order = t1 - t0;
    st = postordered_etree(A, &W, err);
  }
  if (st == MFS_OK) st = find_supernodes(A->n, opt.amalg, &W, &ns, err);
  if (st == MFS_OK) {
    S->nsupernodes = ns;
    st = build_front_tree(S, ns, &W, err);
  }
  if (st == MFS_OK && !opt.keep_column_order) st = order_supernode_columns(A, S, ns, &W, err);
  if (st == MFS_OK) st = build_front_structures(A, S, &W, err);
  if (st == MFS_OK) st = count_operations(S, err);
  if (st == MFS_OK) S->time_symbolic = time__now() - t1;
  work_free(&W);
  if (st != MFS_OK) {
    mfs_symbolic_free(S);
    return st;
  }
  *Sout = S;
  return MFS_OK;
}
