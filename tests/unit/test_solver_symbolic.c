/*
 * test_solver_symbolic.c — the analysis checked against a brute-force symbolic factorization (dense
 * boolean elimination) on small random and stencil matrices: elimination tree, postorder, column
 * counts, fundamental supernodes, amalgamation invariants, front structures and maps, tiles, the
 * operation list (coverage, order, flops), subtree grouping and the proportional mapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfs.h"
#include "test_solver_common.h"

/* ------------------------------------------------------------------------------------- helpers */

static uint64_t rng = 12345;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static double unif(void) { return (double)(next_rand() >> 11) / 9007199254740992.0; }

/* Random symmetric pattern with a diagonal; values make it diagonally dominant (SPD). */
static void random_matrix(int32_t n, double density, mfs_matrix *A) {
  int64_t off = (int64_t)(density * n * n / 2), nz = 0;
  int32_t *ri = malloc((n + off) * sizeof *ri), *ci = malloc((n + off) * sizeof *ci);
  double *v = malloc((n + off) * sizeof *v);
  for (int32_t i = 0; i < n; i++) {
    ri[nz] = ci[nz] = i;
    v[nz++] = 2.0 * n;
  }
  for (int64_t t = 0; t < off; t++) {
    int32_t i = (int32_t)(next_rand() % (uint64_t)n), j = (int32_t)(next_rand() % (uint64_t)n);
    if (i == j) continue;
    ri[nz] = i;
    ci[nz] = j;
    v[nz++] = -unif();
  }
  mfs_error err;
  assert_int_equal(mfs_matrix_from_triplets(n, nz, ri, ci, v, A, &err), MFS_OK);
  free(ri);
  free(ci);
  free(v);
}

/* P A P^T for perm new -> old, as a new matrix. */
static void permute(const mfs_matrix *A, const int32_t *perm, mfs_matrix *B) {
  int32_t *iperm = malloc(A->n * sizeof *iperm);
  for (int32_t k = 0; k < A->n; k++) iperm[perm[k]] = k;
  int32_t *ri = malloc((A->nnz + 1) * sizeof *ri), *ci = malloc((A->nnz + 1) * sizeof *ci);
  for (int32_t j = 0; j < A->n; j++)
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      ri[p] = iperm[A->rowind[p]];
      ci[p] = iperm[j];
    }
  mfs_error err;
  assert_int_equal(mfs_matrix_from_triplets(A->n, A->nnz, ri, ci, A->val, B, &err), MFS_OK);
  free(iperm);
  free(ri);
  free(ci);
}

/* Brute-force symbolic Cholesky of P A P^T (perm new -> old, NULL = identity): L pattern as a
 * dense n x n byte matrix (L[i*n+j], i >= j), the etree and the column counts. */
typedef struct {
  int32_t n;
  uint8_t *L;
  int32_t *parent, *cc;
} brute;

static void brute_symbolic(const mfs_matrix *A, const int32_t *perm, brute *B) {
  int32_t n = A->n;
  int32_t *iperm = malloc(n * sizeof *iperm);
  for (int32_t k = 0; k < n; k++) iperm[perm ? perm[k] : k] = k;
  B->n = n;
  B->L = calloc((size_t)n * n, 1);
  B->parent = malloc(n * sizeof *B->parent);
  B->cc = malloc(n * sizeof *B->cc);
  for (int32_t j = 0; j < n; j++) {
    B->L[(size_t)j * n + j] = 1;
    for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
      int32_t a = iperm[A->rowind[p]], b = iperm[j];
      int32_t r = a > b ? a : b, c = a > b ? b : a;
      B->L[(size_t)r * n + c] = 1;
    }
  }
  for (int32_t k = 0; k < n; k++)
    for (int32_t i = k + 1; i < n; i++) {
      if (!B->L[(size_t)i * n + k]) continue;
      for (int32_t j = k + 1; j <= i; j++)
        if (B->L[(size_t)j * n + k]) B->L[(size_t)i * n + j] = 1;
    }
  for (int32_t k = 0; k < n; k++) {
    B->parent[k] = -1;
    B->cc[k] = 0;
    for (int32_t i = k; i < n; i++)
      if (B->L[(size_t)i * n + k]) {
        B->cc[k]++;
        if (i > k && B->parent[k] < 0) B->parent[k] = i;
      }
  }
  free(iperm);
}

static void brute_free(brute *B) {
  free(B->L);
  free(B->parent);
  free(B->cc);
}

static void check_postorder(int32_t n, const int32_t *parent, const int32_t *post) {
  int32_t *rank = malloc((n + 1) * sizeof *rank), *size = calloc(n + 1, sizeof *size);
  for (int32_t k = 0; k < n; k++) rank[k] = -1;
  for (int32_t k = 0; k < n; k++) {
    assert_true(post[k] >= 0 && post[k] < n);
    assert_int_equal(rank[post[k]], -1);
    rank[post[k]] = k;
  }
  for (int32_t k = 0; k < n; k++) { /* subtree sizes in postorder */
    int32_t j = post[k];
    size[j]++;
    if (parent[j] >= 0) size[parent[j]] += size[j];
  }
  for (int32_t j = 0; j < n; j++) {
    if (parent[j] >= 0) assert_true(rank[parent[j]] > rank[j]);
    /* the subtree of j occupies ranks rank[j]-size[j]+1 .. rank[j] */
    for (int32_t t = rank[j] - size[j] + 1; t <= rank[j]; t++) {
      int32_t v = post[t];
      while (v != -1 && v != j) v = parent[v];
      assert_int_equal(v, j);
    }
  }
  free(rank);
  free(size);
}

static void check_tree_against_brute(const mfs_matrix *A, const char *what) {
  brute B;
  brute_symbolic(A, NULL, &B);
  int32_t n = A->n;
  int32_t *parent = malloc((n + 1) * sizeof *parent), *post = malloc((n + 1) * sizeof *post);
  int32_t *cc = malloc((n + 1) * sizeof *cc);
  assert_int_equal(mfs_etree(n, A->colptr, A->rowind, parent), MFS_OK);
  for (int32_t j = 0; j < n; j++)
    if (parent[j] != B.parent[j]) fail_msg("%s: parent[%d] = %d, brute force %d", what, j, parent[j], B.parent[j]);
  assert_int_equal(mfs_postorder(n, parent, post), MFS_OK);
  check_postorder(n, parent, post);
  assert_int_equal(mfs_colcounts(n, A->colptr, A->rowind, parent, post, cc), MFS_OK);
  for (int32_t j = 0; j < n; j++)
    if (cc[j] != B.cc[j]) fail_msg("%s: cc[%d] = %d, brute force %d", what, j, cc[j], B.cc[j]);

  /* fundamental supernodes of the postordered matrix match their definition */
  mfs_matrix P;
  permute(A, post, &P);
  brute BP;
  brute_symbolic(&P, NULL, &BP);
  int32_t *first = malloc((n + 2) * sizeof *first), *nchild = calloc(n + 1, sizeof *nchild);
  int32_t ns = mfs_fundamental_supernodes(n, BP.parent, BP.cc, first);
  assert_true(ns >= 1 && ns <= n);
  assert_int_equal(first[0], 0);
  assert_int_equal(first[ns], n);
  for (int32_t j = 0; j < n; j++)
    if (BP.parent[j] >= 0) nchild[BP.parent[j]]++;
  int32_t s = 0;
  for (int32_t j = 0; j + 1 < n; j++) {
    while (first[s + 1] <= j) s++;
    int same = first[s + 1] > j + 1;
    int def = BP.parent[j] == j + 1 && nchild[j + 1] == 1;
    for (int32_t i = j + 1; def && i < n; i++)
      if (BP.L[(size_t)i * n + j] != BP.L[(size_t)i * n + j + 1]) def = 0;
    if (same != def) fail_msg("%s: columns %d,%d supernode %d vs definition %d", what, j, j + 1, same, def);
  }
  free(first);
  free(nchild);
  brute_free(&BP);
  mfs_matrix_free(&P);
  brute_free(&B);
  free(parent);
  free(post);
  free(cc);
}

static void test_etree_colcounts_random(void **state) {
  (void)state;
  static const int32_t sizes[] = {1, 2, 3, 5, 17, 40, 90, 160};
  static const double dens[] = {0.0, 0.01, 0.04, 0.15};
  rng = 2024;
  for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
    for (size_t b = 0; b < sizeof dens / sizeof *dens; b++)
      for (int rep = 0; rep < 3; rep++) {
        mfs_matrix A;
        random_matrix(sizes[a], dens[b], &A);
        char what[64];
        snprintf(what, sizeof what, "random n=%d d=%.2f #%d", sizes[a], dens[b], rep);
        check_tree_against_brute(&A, what);
        mfs_matrix_free(&A);
      }
}

static void test_etree_colcounts_stencils(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:9x7", "lap2d:12", "lap3d:5x4x3", "lap3d:6", "lap3d27:4", "lap3d27:3x5x2"};
  rng = 99;
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A, P;
    mfs_error err;
    assert_int_equal(mfs_matrix_generate(specs[t], &A, &err), MFS_OK);
    check_tree_against_brute(&A, specs[t]);
    /* and under a random symmetric permutation */
    int32_t *perm = malloc(A.n * sizeof *perm);
    for (int32_t k = 0; k < A.n; k++) perm[k] = k;
    for (int32_t k = A.n - 1; k > 0; k--) {
      int32_t r = (int32_t)(next_rand() % (uint64_t)(k + 1)), t2 = perm[k];
      perm[k] = perm[r];
      perm[r] = t2;
    }
    permute(&A, perm, &P);
    check_tree_against_brute(&P, specs[t]);
    free(perm);
    mfs_matrix_free(&P);
    mfs_matrix_free(&A);
  }
}

static void test_postorder_forests(void **state) {
  (void)state;
  rng = 7;
  for (int rep = 0; rep < 50; rep++) {
    int32_t n = 1 + (int32_t)(next_rand() % 200);
    int32_t *par = malloc(n * sizeof *par), *lab = malloc(n * sizeof *lab), *p2 = malloc(n * sizeof *p2);
    int32_t *post = malloc(n * sizeof *post);
    for (int32_t j = 0; j < n; j++) /* a random forest with parent > child, then relabelled */
      par[j] = (j + 1 < n && unif() < 0.9) ? j + 1 + (int32_t)(next_rand() % (uint64_t)(n - j - 1)) : -1;
    for (int32_t k = 0; k < n; k++) lab[k] = k;
    for (int32_t k = n - 1; k > 0; k--) {
      int32_t r = (int32_t)(next_rand() % (uint64_t)(k + 1)), t = lab[k];
      lab[k] = lab[r];
      lab[r] = t;
    }
    for (int32_t j = 0; j < n; j++) p2[lab[j]] = par[j] < 0 ? -1 : lab[par[j]];
    assert_int_equal(mfs_postorder(n, p2, post), MFS_OK);
    check_postorder(n, p2, post);
    free(par);
    free(lab);
    free(p2);
    free(post);
  }
  int32_t cyc[3] = {1, 2, 0}, post[3];
  assert_int_not_equal(mfs_postorder(3, cyc, post), MFS_OK);
}

/* ------------------------------------------------------------------------ the whole analysis */

static int amalg_ok(int32_t ncol, double frac, double thr) {
  if (thr <= 0) return frac == 0.0;
  return frac <= thr + 1e-12 || ncol <= 4 || (ncol <= 16 && frac <= 0.8) || (ncol <= 48 && frac <= 0.1);
}

static int32_t *tile_pos(int64_t ntiles) { return malloc((ntiles + 1) * sizeof(int32_t)); }

static void check_ops(const mfs_symbolic *S) {
  /* position of each op; per tile the positions of its writes */
  int64_t nops = S->nops;
  int64_t *init_pos = malloc(S->nfronts * sizeof *init_pos), *clean_pos = malloc(S->nfronts * sizeof *clean_pos);
  for (int32_t f = 0; f < S->nfronts; f++) init_pos[f] = clean_pos[f] = -1;
  int32_t *final_pos = tile_pos(S->ntiles);  /* position of POTRF/TRSM finishing a factor tile */
  int32_t *last_read = tile_pos(S->ntiles);  /* last ASSEMBLE reading a CB tile */
  int32_t *last_write = tile_pos(S->ntiles); /* last ASSEMBLE/SYRK/GEMM into a tile */
  int32_t *nupd = calloc(S->ntiles + 1, sizeof *nupd);
  double *asm_cnt = calloc(S->nfronts + 1, sizeof *asm_cnt);
  for (int64_t t = 0; t < S->ntiles; t++) final_pos[t] = last_read[t] = last_write[t] = -1;
  double *fflops = calloc(S->nfronts + 1, sizeof *fflops);
  double tot[MFS_NOPTYPES] = {0};
  int64_t cnt[MFS_NOPTYPES] = {0};
  for (int64_t o = 0; o < nops; o++) {
    const mfs_op *op = &S->ops[o];
    assert_true(op->type >= 0 && op->type < MFS_NOPTYPES);
    tot[op->type] += op->flops;
    cnt[op->type]++;
    const mfs_front *F = &S->fronts[op->front];
    assert_true(o >= F->op_begin || op->type == MFS_OP_CLEANUP);
    if (op->type == MFS_OP_INIT) {
      assert_int_equal(init_pos[op->front], -1);
      assert_int_equal(o, F->op_begin);
      init_pos[op->front] = (int32_t)o;
      continue;
    }
    if (op->type == MFS_OP_CLEANUP) {
      assert_int_equal(clean_pos[op->front], -1);
      assert_true(F->parent >= 0);
      clean_pos[op->front] = (int32_t)o;
      /* every CB tile of the front was read before */
      for (int32_t j = F->nbp; j < F->nbt; j++)
        for (int32_t i = j; i < F->nbt; i++) {
          int64_t t = F->tile0 + mfs_tile_index(F->nbt, i, j);
          assert_true(last_read[t] >= 0 && last_read[t] < o);
          assert_int_equal(nupd[t], F->nbp); /* fully updated before it was passed on */
        }
      continue;
    }
    assert_true(init_pos[op->front] >= 0);
    assert_true(o < F->op_end);
    mfs_tile_access acc[3];
    int na = mfs_op_access(op, acc);
    assert_true(na >= 1 && na <= 3);
    assert_int_equal(acc[na - 1].front, op->front);
    assert_true(acc[na - 1].mode & MFS_ACCESS_W);
    int64_t wt = F->tile0 + mfs_tile_index(F->nbt, acc[na - 1].i, acc[na - 1].j);
    assert_true(acc[na - 1].i >= acc[na - 1].j && acc[na - 1].i < F->nbt);
    if (op->type == MFS_OP_ASSEMBLE) {
      const mfs_front *C = &S->fronts[op->child];
      assert_int_equal(C->parent, op->front);
      assert_true(op->cj >= C->nbp && op->ci >= op->cj && op->ci < C->nbt);
      int64_t ct = C->tile0 + mfs_tile_index(C->nbt, op->ci, op->cj);
      assert_int_equal(nupd[ct], C->nbp); /* the child's CB is complete */
      assert_int_equal(clean_pos[op->child], -1);
      last_read[ct] = (int32_t)o;
      assert_int_equal(final_pos[wt], -1); /* parent tile not factored yet */
      asm_cnt[op->child] += op->flops;
      last_write[wt] = (int32_t)o;
      continue;
    }
    fflops[op->front] += op->flops;
    if (op->type == MFS_OP_POTRF || op->type == MFS_OP_TRSM) {
      int32_t k = op->k;
      assert_int_equal(nupd[wt], k); /* all updates from panels < k are in */
      assert_int_equal(final_pos[wt], -1);
      if (op->type == MFS_OP_TRSM) {
        assert_true(op->i > k);
        assert_true(final_pos[F->tile0 + mfs_tile_index(F->nbt, k, k)] >= 0);
      }
      final_pos[wt] = (int32_t)o;
    } else { /* SYRK / GEMM with panel k: the panel tiles read are final */
      int32_t k = op->k;
      assert_true(k < F->nbp && k < op->j);
      assert_int_equal(nupd[wt], k);
      for (int a = 0; a < na - 1; a++)
        assert_true(final_pos[F->tile0 + mfs_tile_index(F->nbt, acc[a].i, acc[a].j)] >= 0);
      nupd[wt]++;
      last_write[wt] = (int32_t)o;
    }
  }
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    assert_true(init_pos[f] >= 0);
    assert_true((clean_pos[f] >= 0) == (F->parent >= 0));
    /* every factor tile finished, every CB entry assembled exactly once into the parent */
    for (int32_t j = 0; j < F->nbp; j++)
      for (int32_t i = j; i < F->nbt; i++) assert_true(final_pos[F->tile0 + mfs_tile_index(F->nbt, i, j)] >= 0);
    double m = F->nrow - F->ncol;
    if (F->parent >= 0) assert_true(fabs(asm_cnt[f] - m * (m + 1) / 2) < 0.5);
    double p = F->ncol;
    double closed = mfs_flops_potrf(p) + mfs_flops_trsm(m, p) + mfs_flops_syrk(m, p);
    assert_true(fabs(fflops[f] - closed) <= 1e-9 * closed);
    assert_true(fabs(F->flops - closed) <= 1e-9 * closed);
  }
  for (int t = 0; t < MFS_NOPTYPES; t++) {
    assert_int_equal(cnt[t], S->nops_type[t]);
    assert_true(fabs(tot[t] - S->flops_type[t]) <= 1e-9 * (1 + tot[t]));
  }
  free(init_pos);
  free(clean_pos);
  free(final_pos);
  free(last_read);
  free(last_write);
  free(nupd);
  free(asm_cnt);
  free(fflops);
}

static void check_analysis(const mfs_matrix *A, const mfs_options *o, const char *what) {
  mfs_symbolic *S;
  mfs_error err;
  if (mfs_analyze(A, o, &S, &err) != MFS_OK) fail_msg("%s: %s", what, err.msg);
  int32_t n = A->n;
  assert_int_equal(S->n, n);
  for (int32_t k = 0; k < n; k++) {
    assert_true(S->perm[k] >= 0 && S->perm[k] < n);
    assert_int_equal(S->iperm[S->perm[k]], k);
  }
  brute B;
  brute_symbolic(A, S->perm, &B);
  int64_t nnzl = 0;
  double fl = 0;
  for (int32_t j = 0; j < n; j++) {
    if (S->parent[j] != B.parent[j]) fail_msg("%s: etree differs at %d", what, j);
    if (S->colcount[j] != B.cc[j]) fail_msg("%s: colcount differs at %d", what, j);
    nnzl += B.cc[j];
    fl += (double)B.cc[j] * B.cc[j];
  }
  assert_int_equal(S->nnz_l, nnzl);
  assert_true(fabs(S->flops_exact - fl) <= 1e-12 * fl);

  int32_t col = 0;
  int64_t stored = 0, lbytes = 0;
  assert_true(S->nfronts >= 1 && S->nfronts <= S->nsupernodes);
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    assert_int_equal(F->col0, col);
    assert_true(F->ncol >= 1);
    col += F->ncol;
    for (int32_t j = F->col0; j < col; j++) assert_int_equal(S->col2front[j], f);
    assert_true(F->parent == -1 || F->parent > f);
    for (int32_t q = 0; q < F->nchild; q++) assert_int_equal(S->fronts[S->child[F->child0 + q]].parent, f);
    const int32_t *rows = S->rowind + F->rows;
    int32_t last = col - 1;
    assert_int_equal(F->nrow, F->ncol + S->colcount[last] - 1);
    for (int32_t r = 0; r < F->nrow; r++) {
      if (r < F->ncol)
        assert_int_equal(rows[r], F->col0 + r);
      else
        assert_true(rows[r] > rows[r - 1]);
    }
    /* the front holds the exact structure of each of its columns */
    int64_t exact = 0;
    for (int32_t j = F->col0; j <= last; j++) {
      int32_t r = j - F->col0;
      for (int32_t i = j; i < n; i++) {
        if (!B.L[(size_t)i * n + j]) continue;
        exact++;
        while (r < F->nrow && rows[r] < i) r++;
        if (r == F->nrow || rows[r] != i) fail_msg("%s: front %d misses L(%d,%d)", what, f, i, j);
      }
    }
    int64_t st = (int64_t)F->ncol * F->nrow - (int64_t)F->ncol * (F->ncol - 1) / 2;
    assert_int_equal(F->zeros, st - exact);
    stored += st;
    double frac = (double)F->zeros / (double)st;
    if (!amalg_ok(F->ncol, frac, o->amalg))
      fail_msg("%s: front %d (%d cols) keeps %.3f zeros, threshold %.3f", what, f, F->ncol, frac, o->amalg);
    if (o->amalg <= 0) /* fundamental supernodes: structure of the first column exactly */
      for (int32_t r = 0; r < F->nrow; r++) assert_true(B.L[(size_t)rows[r] * n + F->col0]);
    /* relative map into the parent */
    if (F->parent >= 0) {
      const mfs_front *P = &S->fronts[F->parent];
      const int32_t *prow = S->rowind + P->rows, *cm = S->cmap + F->cmap;
      for (int32_t r = F->ncol; r < F->nrow; r++) {
        assert_true(cm[r - F->ncol] >= 0 && cm[r - F->ncol] < P->nrow);
        assert_int_equal(prow[cm[r - F->ncol]], rows[r]);
      }
    } else {
      assert_int_equal(F->nrow, F->ncol);
    }
    /* tiles */
    const int32_t *b = S->blkptr + F->blk;
    assert_int_equal(b[0], 0);
    assert_int_equal(b[F->nbp], F->ncol);
    assert_int_equal(b[F->nbt], F->nrow);
    int32_t mn[2] = {1 << 30, 1 << 30}, mx[2] = {0, 0};
    const int from = o->nb_big_from > 0 ? o->nb_big_from : MFS_BIG_FRONT_TILES * o->nb;
    const int huge_from = o->nb_huge_from > 0 ? o->nb_huge_from : 2 * o->nb_huge;
    const int nb = o->nb_huge > 0 && F->nrow >= huge_from ? o->nb_huge
                   : o->nb_big > 0 && F->nrow >= from     ? o->nb_big
                                                          : o->nb;
    assert_int_equal(mfs_front_nb(o, F->nrow), nb);
    for (int32_t t = 0; t < F->nbt; t++) {
      int32_t sz = b[t + 1] - b[t], part = t >= F->nbp;
      assert_true(sz >= 1 && sz <= nb);
      if (sz < mn[part]) mn[part] = sz;
      if (sz > mx[part]) mx[part] = sz;
    }
    for (int part = 0; part < 2; part++) assert_true(mx[part] == 0 || mx[part] - mn[part] <= 1);
    int64_t lb, cbb;
    mfs_front_bytes(F->ncol, F->nrow, nb, &lb, &cbb);
    assert_int_equal(lb, F->l_bytes);
    assert_int_equal(cbb, F->cb_bytes);
    lbytes += lb;
    /* A entries scattered into this front */
    for (int32_t j = F->col0; j <= last; j++)
      for (int64_t p = S->a_colptr[j]; p < S->a_colptr[j + 1]; p++) {
        int32_t lr = S->a_lrow[p];
        assert_true(lr >= j - F->col0 && lr < F->nrow);
        int64_t e = S->a_src[p];
        assert_true(e >= 0 && e < A->nnz);
        int32_t i0 = A->rowind[e], j0 = -1;
        for (int32_t c = 0; c < n && j0 < 0; c++)
          if (A->colptr[c] <= e && e < A->colptr[c + 1]) j0 = c;
        int32_t a = S->iperm[i0], bb = S->iperm[j0];
        assert_int_equal(a > bb ? bb : a, j);
        assert_int_equal(a > bb ? a : bb, rows[lr]);
      }
    double sf = F->flops;
    for (int32_t q = 0; q < F->nchild; q++) sf += S->fronts[S->child[F->child0 + q]].subtree_flops;
    assert_true(fabs(sf - F->subtree_flops) <= 1e-9 * sf);
  }
  assert_int_equal(col, n);
  assert_int_equal(S->a_colptr[n], A->nnz);
  assert_int_equal(S->nnz_l_stored, stored);
  if (o->amalg <= 0) {
    assert_int_equal(S->nnz_l_stored, S->nnz_l);
    assert_int_equal(S->nfronts, S->nsupernodes);
    assert_true(fabs(S->flops - S->flops_exact) <= 1e-9 * S->flops_exact);
  }
  assert_int_equal(S->mem_factor, lbytes);
  assert_true(S->mem_peak >= S->mem_peak_live);
  assert_int_equal(S->mem_peak, S->mem_fixed + S->mem_factor + S->mem_cb_region);
  check_ops(S);
  brute_free(&B);
  mfs_symbolic_free(S);
}

static void test_analysis_invariants(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:13x11", "lap3d:7x6x5", "lap3d27:5", "lap2d:1", "lap3d:1x1x9"};
  static const double amalg[] = {0.0, 0.05, 0.3};
  static const int nbs[] = {1, 3, 8, 256};
  mfs_ordering ords[] = {MFS_ORDER_NATURAL, MFS_ORDER_AMD, MFS_ORDER_METIS};
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_generate(specs[t], &A, &err), MFS_OK);
    for (size_t a = 0; a < 3; a++)
      for (size_t b = 0; b < sizeof nbs / sizeof *nbs; b++)
        for (size_t c = 0; c < 3; c++) {
          if (!mfs_ordering_available(ords[c])) continue;
          mfs_options o;
          mfs_options_default(&o);
          o.ordering = ords[c];
          o.amalg = amalg[a];
          o.nb = nbs[b];
          char what[96];
          snprintf(what, sizeof what, "%s %s amalg %.2f nb %d", specs[t], mfs_ordering_name(o.ordering), o.amalg, o.nb);
          check_analysis(&A, &o, what);
        }
    mfs_matrix_free(&A);
  }
  /* larger tiles in the large fronts (the sequential executor's default): fronts of >= 4 nb rows
   * take nb_big, the others nb, and one of them on each problem is that large */
  static const char *big_specs[] = {"lap3d:9", "lap3d27:7"};
  for (size_t t = 0; t < 2; t++) {
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_generate(big_specs[t], &A, &err), MFS_OK);
    mfs_options o;
    mfs_options_default(&o);
    o.nb = 8;
    o.nb_big = 21;
    char what[96];
    snprintf(what, sizeof what, "%s nb 8 nb_big 21", big_specs[t]);
    check_analysis(&A, &o, what);
    o.nb_big_from = 50;
    snprintf(what, sizeof what, "%s nb 8 nb_big 21 from 50 rows", big_specs[t]);
    check_analysis(&A, &o, what);
    o.nb_huge = 30; /* three sizes: 8, 21 from 50 rows, 30 from 60 */
    snprintf(what, sizeof what, "%s nb 8 nb_big 21 from 50 rows, nb_huge 30", big_specs[t]);
    check_analysis(&A, &o, what);
    o.nb_huge_from = 45; /* a count below nb_big's: the largest tiles from 45 rows on */
    snprintf(what, sizeof what, "%s nb 8 nb_big 21 from 50 rows, nb_huge 30 from 45", big_specs[t]);
    check_analysis(&A, &o, what);
    o.nb_huge = o.nb_huge_from = 0;
    o.nb_big_from = 0;
    mfs_symbolic *S;
    assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_OK);
    int large = 0, wide = 0;
    for (int32_t f = 0; f < S->nfronts; f++) {
      const mfs_front *F = &S->fronts[f];
      const int32_t *b = S->blkptr + F->blk;
      large += F->nrow >= 32;
      for (int32_t k = 0; k < F->nbt; k++) wide += b[k + 1] - b[k] > 8;
    }
    if (!large || !wide) fail_msg("%s: %d fronts of >= 32 rows, %d tiles wider than nb", what, large, wide);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  rng = 555;
  for (int rep = 0; rep < 12; rep++) {
    mfs_matrix A;
    random_matrix(20 + rep * 13, rep % 3 == 0 ? 0.01 : 0.05, &A);
    for (size_t c = 0; c < 3; c++) {
      if (!mfs_ordering_available(ords[c])) continue;
      mfs_options o;
      mfs_options_default(&o);
      o.ordering = ords[c];
      o.nb = 1 + rep;
      o.amalg = rep % 2 ? 0.05 : 0.0;
      check_analysis(&A, &o, "random");
    }
    mfs_matrix_free(&A);
  }
}

/* The analysis of A under options o is refused as a bad argument, its message naming `what`, and
 * no analysis is returned. */
static void expect_bad_option(const mfs_matrix *A, const mfs_options *o, const char *what) {
  mfs_symbolic *S = NULL;
  mfs_error err;
  assert_int_equal(mfs_analyze(A, o, &S, &err), MFS_ERR_ARG);
  assert_non_null(strstr(err.msg, what));
  assert_null(S);
}

/* Which tile size a front takes: nb below MFS_BIG_FRONT_TILES tiles of rows, nb_big from there
 * when it is set, nb_huge from twice its own size (or nb_huge_from) when that is set. */
static void test_front_nb(void **state) {
  (void)state;
  mfs_options o;
  mfs_options_default(&o);
  assert_int_equal(o.nb_big, 0);
  assert_int_equal(mfs_front_nb(&o, 100000), 512);
  o.nb_big = 1024;
  assert_int_equal(mfs_front_nb(&o, 1), 512);
  assert_int_equal(mfs_front_nb(&o, 2047), 512);
  assert_int_equal(mfs_front_nb(&o, 2048), 1024);
  o.nb = 3;
  o.nb_big = 5;
  assert_int_equal(mfs_front_nb(&o, 11), 3);
  assert_int_equal(mfs_front_nb(&o, 12), 5);
  o.nb_big_from = 20; /* from a row count of its own */
  assert_int_equal(mfs_front_nb(&o, 19), 3);
  assert_int_equal(mfs_front_nb(&o, 20), 5);
  o.nb_big = 0; /* no large tiles whatever the count */
  assert_int_equal(mfs_front_nb(&o, 100), 3);
  o.nb_big = 5;
  o.nb_big_from = 0;
  /* the largest fronts: nb_huge from twice as many rows, or from a count of its own */
  o.nb_huge = 9;
  assert_int_equal(mfs_huge_front_rows(&o), 18);
  assert_int_equal(mfs_front_nb(&o, 11), 3);
  assert_int_equal(mfs_front_nb(&o, 17), 5);
  assert_int_equal(mfs_front_nb(&o, 18), 9);
  o.nb_huge_from = 30;
  assert_int_equal(mfs_front_nb(&o, 29), 5);
  assert_int_equal(mfs_front_nb(&o, 30), 9);
  o.nb_big = 0; /* without large tiles, still the largest */
  assert_int_equal(mfs_front_nb(&o, 29), 3);
  assert_int_equal(mfs_front_nb(&o, 30), 9);
  o.nb_big = 5;
  o.nb_huge = o.nb_huge_from = 0;
  /* a bad value is named by the analysis */
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap2d:4", &A, &err), MFS_OK);
  o.nb_big = -1;
  expect_bad_option(&A, &o, "nb_big");
  o.nb_big = 5;
  o.nb_big_from = -1;
  expect_bad_option(&A, &o, "nb_big_from");
  o.nb_big_from = 0;
  o.nb_huge = 65537;
  expect_bad_option(&A, &o, "nb_huge = 65537");
  o.nb_huge = 9;
  o.nb_huge_from = -2;
  expect_bad_option(&A, &o, "nb_huge_from = -2");
  mfs_matrix_free(&A);
}

static void test_given_ordering(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap2d:6", &A, &err), MFS_OK);
  int32_t perm[36];
  for (int k = 0; k < 36; k++) perm[k] = 35 - k;
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = MFS_ORDER_GIVEN;
  o.given_perm = perm;
  o.amalg = 0;
  check_analysis(&A, &o, "given reversed");
  perm[3] = perm[4]; /* not a permutation */
  mfs_symbolic *S;
  assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_ERR_ARG);
  assert_null(S);
  o.given_perm = NULL;
  assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_ERR_ARG);
  mfs_options_default(&o);
  o.nb = 0;
  assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_ERR_ARG);
  mfs_matrix_free(&A);
}

/* Runs of a child's CB rows that land on consecutive rows of its parent, over every front: what
 * the extend-add goes through one vector add per column at a time (mfs_kernel_assemble). */
static int64_t extend_add_runs(const mfs_symbolic *S) {
  int64_t runs = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    const int32_t *cm = S->cmap + F->cmap;
    for (int32_t r = 0; r < F->nrow - F->ncol; r++) runs += r == 0 || cm[r] != cm[r - 1] + 1;
  }
  return runs;
}

static mfs_symbolic *analyze_with(const mfs_matrix *A, mfs_ordering ord, const int32_t *given, double amalg, int keep) {
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = ord;
  o.given_perm = given;
  o.amalg = amalg;
  o.keep_column_order = keep;
  mfs_symbolic *S;
  mfs_error err;
  if (mfs_analyze(A, &o, &S, &err) != MFS_OK) fail_msg("analysis: %s", err.msg);
  return S;
}

/* The columns inside each fundamental supernode, sorted by the first front whose CB holds them
 * (mfs_supernode_order.c), first column kept first. By hand: a 4-clique s0..s3 (input 2..5)
 * eliminated after two leaves, a (0) adjacent to s0 and s2, b (1) adjacent to s0, s1 and s3;
 * given in the order a, b, s0, s1, s2, s3, without amalgamation. The clique is one supernode
 * (both leaves' structures hold s0, its first column: the etree is a -> s0, b -> s0, s0 -> s1 ->
 * s2 -> s3); the leaves are fronts 0 (a) and 1 (b), as Liu's order keeps equal children in
 * place. After s0: s2 first (front 0's CB holds it), then s1 and s3 (front 1's), in that order:
 * perm a, b, s0, s2, s1, s3. Front a's CB rows {s0, s2} then land on root rows 0, 1 (one run,
 * where the ordering's order gave rows 0, 2: two); b's {s0, s1, s3} on 0, 2, 3 (two, as before). */
static void test_supernode_column_order_by_hand(void **state) {
  (void)state;
  int32_t ri[] = {0, 1, 2, 3, 4, 5, 3, 4, 5, 4, 5, 5, 2, 4, 2, 3, 5};
  int32_t ci[] = {0, 1, 2, 3, 4, 5, 2, 2, 2, 3, 3, 4, 0, 0, 1, 1, 1};
  double v[17];
  for (int k = 0; k < 17; k++) v[k] = ri[k] == ci[k] ? 10.0 : -1.0;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_from_triplets(6, 17, ri, ci, v, &A, &err), MFS_OK);
  const int32_t given[6] = {0, 1, 2, 3, 4, 5}, want[6] = {0, 1, 2, 4, 3, 5};
  mfs_symbolic *K = analyze_with(&A, MFS_ORDER_GIVEN, given, 0.0, 1);
  mfs_symbolic *S = analyze_with(&A, MFS_ORDER_GIVEN, given, 0.0, 0);
  assert_int_equal(S->nsupernodes, 3);
  assert_int_equal(S->nfronts, 3);
  assert_memory_equal(K->perm, given, sizeof given);
  assert_memory_equal(S->perm, want, sizeof want);
  assert_int_equal(extend_add_runs(K), 4);
  assert_int_equal(extend_add_runs(S), 3);
  const int32_t cm_a[2] = {0, 1}, cm_b[3] = {0, 2, 3};
  assert_memory_equal(S->cmap + S->fronts[0].cmap, cm_a, sizeof cm_a);
  assert_memory_equal(S->cmap + S->fronts[1].cmap, cm_b, sizeof cm_b);
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = MFS_ORDER_GIVEN;
  o.given_perm = given;
  o.amalg = 0;
  check_analysis(&A, &o, "clique after two leaves"); /* the exact structure of the new order */
  mfs_symbolic_free(K);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* On stencils and random matrices, every ordering, with and without amalgamation: the order
 * inside supernodes changes nothing but the positions (etree, column counts, fronts, factor
 * entries and flops the same as the ordering's own order: check_analysis verifies them against a
 * brute-force elimination in the new order), moves columns only inside a front, keeps each front's
 * first column, is what the analysis of its own output gives again, and never makes the
 * extend-add's runs more; on the 3D stencils with METIS and amalgamation (the default), at most 60 %
 * of them (lap3d:14 55 %, lap3d27:9 45 %; without amalgamation the single-column fronts at the
 * bottom keep most of theirs: 84 %, 65 %). */
static void test_supernode_column_order(void **state) {
  (void)state;
  static const char *specs[] = {"lap3d:14", "lap3d27:9", "lap2d:40", "random"};
  mfs_ordering ords[] = {MFS_ORDER_NATURAL, MFS_ORDER_AMD, MFS_ORDER_METIS};
  rng = 777;
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    if (!strcmp(specs[t], "random"))
      random_matrix(300, 0.02, &A);
    else
      assert_int_equal(mfs_matrix_generate(specs[t], &A, &err), MFS_OK);
    for (size_t c = 0; c < 3; c++)
      for (int a = 0; a < 2; a++) {
        if (!mfs_ordering_available(ords[c])) continue;
        const double amalg = a ? 0.05 : 0.0;
        char what[96];
        snprintf(what, sizeof what, "%s %s amalg %.2f", specs[t], mfs_ordering_name(ords[c]), amalg);
        mfs_symbolic *K = analyze_with(&A, ords[c], NULL, amalg, 1);
        mfs_symbolic *S = analyze_with(&A, ords[c], NULL, amalg, 0);
        const int32_t n = A.n;
        if (memcmp(K->parent, S->parent, n * sizeof *K->parent) ||
            memcmp(K->colcount, S->colcount, n * sizeof *K->colcount))
          fail_msg("%s: the etree or the column counts changed", what);
        assert_int_equal(K->nfronts, S->nfronts);
        assert_int_equal(K->nnz_l_stored, S->nnz_l_stored);
        assert_true(K->flops == S->flops);
        for (int32_t f = 0; f < S->nfronts; f++) {
          const mfs_front *F = &S->fronts[f], *G = &K->fronts[f];
          assert_int_equal(F->ncol, G->ncol);
          assert_int_equal(F->nrow, G->nrow);
          assert_int_equal(F->parent, G->parent);
          assert_int_equal(S->perm[F->col0], K->perm[F->col0]);
          for (int32_t j = F->col0; j < F->col0 + F->ncol; j++) /* moved inside the front only */
            assert_int_equal(K->col2front[S->iperm[K->perm[j]]], f);
        }
        mfs_options o;
        mfs_options_default(&o);
        o.ordering = ords[c];
        o.amalg = amalg;
        check_analysis(&A, &o, what);
        /* given back its own output, the analysis keeps it (without amalgamation: a merged front
         * lists its supernodes in an order of its own, which the etree's postorder does not give) */
        mfs_symbolic *R = analyze_with(&A, MFS_ORDER_GIVEN, S->perm, amalg, 0);
        if (amalg == 0 && memcmp(R->perm, S->perm, n * sizeof *R->perm)) fail_msg("%s: not a fixed point", what);
        int64_t before = extend_add_runs(K), after = extend_add_runs(S);
        print_message("# %s: %lld extend-add runs, %lld in the ordering's order\n", what, (long long)after,
                      (long long)before);
        if (after > before)
          fail_msg("%s: %lld runs, %lld in the ordering's order", what, (long long)after, (long long)before);
        if (ords[c] == MFS_ORDER_METIS && amalg > 0 && strncmp(specs[t], "lap3d", 5) == 0 && 10 * after > 6 * before)
          fail_msg("%s: %lld runs, more than 60 %% of the %lld of the ordering's order", what, (long long)after,
                   (long long)before);
        mfs_symbolic_free(R);
        mfs_symbolic_free(K);
        mfs_symbolic_free(S);
      }
    mfs_matrix_free(&A);
  }
}

static void test_amalgamate_rules(void **state) {
  (void)state;
  /* chain 0 -> 1 -> 2 -> 3 of one-column supernodes whose structure shrinks by one: merging adds
     * no zeros, everything collapses into the root */
  int32_t par[] = {1, 2, 3, -1}, ncol[] = {1, 1, 1, 1}, nst[] = {3, 2, 1, 0}, rep[4];
  int64_t z[4];
  mfs_amalgamate(4, par, ncol, nst, 0.01, rep, z);
  for (int s = 0; s < 4; s++) assert_int_equal(rep[s], 3);
  assert_int_equal(z[3], 0);
  mfs_amalgamate(4, par, ncol, nst, 0.0, rep, z);
  for (int s = 0; s < 4; s++) assert_int_equal(rep[s], s);

  /* a big child (100 columns) and a big parent (100 columns) whose merge would add many zeros:
     * child struct 100 rows (= the parent's columns), parent struct 1000 rows */
  int32_t p2[] = {1, -1}, c2[] = {100, 100}, s2[] = {100, 1000}, r2[2];
  mfs_amalgamate(2, p2, c2, s2, 0.05, r2, NULL);
  assert_int_equal(r2[0], 0); /* zeros = 100*1000 of 220100 entries: 45 % > 5 % */
  mfs_amalgamate(2, p2, c2, s2, 0.5, r2, NULL);
  assert_int_equal(r2[0], 1);
  /* two small leaves under a small parent merge (<= 4 columns always merge) */
  int32_t p3[] = {2, 2, -1}, c3[] = {1, 1, 2}, s3[] = {2, 2, 0}, r3[3];
  mfs_amalgamate(3, p3, c3, s3, 0.01, r3, NULL);
  assert_int_equal(r3[0], 2);
  assert_int_equal(r3[1], 2);
}

/* ------------------------------------------------------------------------- pruning, mapping */

/* Geometric nested dissection of an nx x ny x nz grid (x fastest): both halves, then the middle
 * plane of the longest side. Gives the pruning and mapping tests a bushy tree that does not depend
 * on METIS or AMD being built in. */
static void nd_box(int nx, int ny, int x0, int x1, int y0, int y1, int z0, int z1, int32_t *perm, int32_t *k) {
  int dx = x1 - x0, dy = y1 - y0, dz = z1 - z0;
  if (dx <= 0 || dy <= 0 || dz <= 0) return;
  if (dx <= 2 && dy <= 2 && dz <= 2) {
    for (int z = z0; z < z1; z++)
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) perm[(*k)++] = x + nx * (y + ny * z);
    return;
  }
  if (dx >= dy && dx >= dz) {
    int m = x0 + dx / 2;
    nd_box(nx, ny, x0, m, y0, y1, z0, z1, perm, k);
    nd_box(nx, ny, m + 1, x1, y0, y1, z0, z1, perm, k);
    nd_box(nx, ny, m, m + 1, y0, y1, z0, z1, perm, k);
  } else if (dy >= dz) {
    int m = y0 + dy / 2;
    nd_box(nx, ny, x0, x1, y0, m, z0, z1, perm, k);
    nd_box(nx, ny, x0, x1, m + 1, y1, z0, z1, perm, k);
    nd_box(nx, ny, x0, x1, m, m + 1, z0, z1, perm, k);
  } else {
    int m = z0 + dz / 2;
    nd_box(nx, ny, x0, x1, y0, y1, z0, m, perm, k);
    nd_box(nx, ny, x0, x1, y0, y1, m + 1, z1, perm, k);
    nd_box(nx, ny, x0, x1, y0, y1, m, m + 1, perm, k);
  }
}

static mfs_symbolic *analyze_grid(mfs_stencil kind, int nx, int ny, int nz, mfs_matrix *A) {
  mfs_error err;
  assert_int_equal(mfs_matrix_stencil(kind, nx, ny, nz, A, &err), MFS_OK);
  int32_t *perm = malloc(A->n * sizeof *perm), k = 0;
  nd_box(nx, ny, 0, nx, 0, ny, 0, nz, perm, &k);
  assert_int_equal(k, A->n);
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = MFS_ORDER_GIVEN;
  o.given_perm = perm;
  o.nb = 32;
  mfs_symbolic *S;
  assert_int_equal(mfs_analyze(A, &o, &S, &err), MFS_OK);
  free(perm);
  return S;
}

static void test_pruning(void **state) {
  (void)state;
  static const struct {
    const char *name;
    mfs_stencil kind;
    int nx, ny, nz;
  } specs[] = {{"lap3d:14", MFS_STENCIL_LAP3D7, 14, 14, 14},
               {"lap2d:70", MFS_STENCIL_LAP2D5, 70, 70, 1},
               {"lap3d27:9", MFS_STENCIL_LAP3D27, 9, 9, 9}};
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_grid(specs[t].kind, specs[t].nx, specs[t].ny, specs[t].nz, &A);
    for (int w = 1; w <= 16; w *= 2) {
      mfs_pruning P;
      mfs_error err;
      assert_int_equal(mfs_prune(S, w, &P, &err), MFS_OK);
      assert_int_equal(P.nworkers, w);
      if (w <= 2 && P.nsubtrees < 1) fail_msg("%s, %d workers: no sequential subtree", specs[t].name, w);
      assert_true(P.nsubtrees + P.nlayer >= 1);
      double sf = 0;
      uint8_t *is_layer = calloc(S->nfronts, 1);
      for (int32_t l = 0; l < P.nlayer; l++) {
        int32_t v = P.layer[l];
        assert_int_equal(P.subtree_root[v], -1); /* layer fronts are tiled */
        is_layer[v] = 1;
        const mfs_front *F = &S->fronts[v];
        for (int32_t q = 0; q < F->nchild; q++) {
          int32_t c = S->child[F->child0 + q];
          assert_int_equal(P.subtree_root[c], c); /* below the layer: subtrees */
        }
      }
      for (int32_t s = 0; s < P.nsubtrees; s++) {
        int32_t r = P.subtree_roots[s];
        assert_int_equal(P.subtree_root[r], r);
        int32_t p = S->fronts[r].parent;
        assert_true(p < 0 || P.subtree_root[p] == -1); /* maximal subtrees */
        sf += S->fronts[r].subtree_flops;
        /* the subtree is the contiguous front range first..r, and so is its op range */
        int32_t f0 = P.subtree_first[s];
        assert_true(f0 <= r);
        for (int32_t f = f0; f <= r; f++) assert_int_equal(P.subtree_root[f], r);
        assert_true(f0 == 0 || P.subtree_root[f0 - 1] != r);
        for (int64_t o = S->fronts[f0].op_begin; o < S->fronts[r].op_end; o++) {
          const mfs_op *op = &S->ops[o];
          assert_int_equal(P.subtree_root[op->front], r);
          if (op->type == MFS_OP_ASSEMBLE) assert_int_equal(P.subtree_root[op->child], r);
        }
      }
      assert_true(fabs(sf - P.subtree_flops) <= 1e-9 * sf);
      for (int32_t f = 0; f < S->nfronts; f++) {
        int32_t r = P.subtree_root[f];
        if (r < 0) {
          /* a tiled front: on or above the layer (its ancestors are tiled too) */
          int32_t p = S->fronts[f].parent;
          assert_true(p < 0 || P.subtree_root[p] == -1);
          continue;
        }
        int32_t v = f; /* r is an ancestor-or-self of f */
        while (v != r && v >= 0) v = S->fronts[v].parent;
        assert_int_equal(v, r);
      }
      if (w == 1) assert_true(P.balance == 1.0);
      if (w > 1 && P.nlayer >= w) assert_true(P.balance > 0 && P.balance <= 1.0);
      assert_true(P.threshold >= 1e-4 && P.threshold <= 0.01);
      free(is_layer);
      mfs_pruning_free(&P);
    }
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  mfs_pruning P;
  mfs_error err;
  mfs_matrix A;
  mfs_symbolic *S = analyze_grid(MFS_STENCIL_LAP2D5, 5, 5, 1, &A);
  assert_int_equal(mfs_prune(S, 0, &P, &err), MFS_ERR_ARG);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* max / mean of the flops per rank of the mapping of S onto R ranks */
static double mapping_imbalance(const mfs_symbolic *S, int R) {
  int32_t *own = malloc(S->nfronts * sizeof *own);
  double *load = calloc(R, sizeof *load), mx = 0, sum = 0;
  mfs_error err;
  assert_int_equal(mfs_map_proportional(S, R, own, NULL, NULL, load, &err), MFS_OK);
  for (int r = 0; r < R; r++) {
    sum += load[r];
    if (load[r] > mx) mx = load[r];
  }
  free(own);
  free(load);
  return mx / (sum / R);
}

/* A 40^3 Laplacian (METIS) on 4 ranks: giving each one-rank subtree to the rank covering most of
 * its interval left one rank with 1.44 times the mean flops; the least loaded rank of the interval
 * brings it to 1.25 (measured with both rules; the bound 1.30 separates them), and the rebalancing of
 * the one-rank subtrees under shared fronts that follows to 1.09 (test_mapping_local_balance). */
static void test_mapping_balance(void **state) {
  (void)state;
  if (!mfs_ordering_available(MFS_ORDER_METIS)) skip(); /* the irregular tree comes from METIS */
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:40", MFS_ORDER_METIS, 0, &A);
  double imb = mapping_imbalance(S, 4);
  assert_true(imb <= 1.30);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* The rebalancing's promise, checked from the mapping alone: no one-rank subtree directly under a
 * shared front can move to another rank of that front's group, or swap with another such subtree
 * (each staying in its own parent's group), so that the largest per-rank load drops, or stays and
 * the sum of squared loads drops. Loads as mfs_map_proportional reports them, recomputed here.
 * With the proportional intervals alone this fails: on lap3d:40 on 3 ranks moving one subtree takes
 * the largest load from 1.41 x the mean to below 1.1. */
static void assert_no_better_move(const mfs_symbolic *S, int R) {
  const int32_t nf = S->nfronts;
  int32_t *own = malloc(nf * sizeof *own), *lo = malloc(nf * sizeof *lo), *hi = malloc(nf * sizeof *hi);
  double *load = calloc(R, sizeof *load), *mine = calloc(R, sizeof *mine);
  mfs_error err;
  assert_int_equal(mfs_map_proportional(S, R, own, lo, hi, load, &err), MFS_OK);
  for (int32_t f = 0; f < nf; f++) { /* the loads, independently */
    if (hi[f] - lo[f] > 1)
      for (int32_t r = lo[f]; r < hi[f]; r++) mine[r] += S->fronts[f].flops / (hi[f] - lo[f]);
    else
      mine[own[f]] += S->fronts[f].flops;
  }
  double mx = 0, sq = 0, tot = 0;
  for (int r = 0; r < R; r++) {
    assert_true(fabs(mine[r] - load[r]) <= 1e-9 * (load[r] + 1));
    mx = fmax(mx, load[r]);
    sq += load[r] * load[r];
    tot += load[r];
  }
  const double eps = 1e-6 * tot;
  int32_t *top = malloc(nf * sizeof *top), nt = 0;
  for (int32_t f = 0; f < nf; f++) {
    int32_t p = S->fronts[f].parent;
    if (p >= 0 && hi[f] - lo[f] == 1 && hi[p] - lo[p] > 1) top[nt++] = f;
  }
  for (int32_t x = 0; x < nt; x++)
    for (int32_t y = x; y < nt; y++) { /* y == x: moves; else swaps */
      int32_t f = top[x], g = top[y], pf = S->fronts[f].parent, pg = S->fronts[g].parent;
      for (int r = lo[pf]; r < hi[pf]; r++) {
        if (r == own[f] || (y != x && (r != own[g] || own[f] < lo[pg] || own[f] >= hi[pg]))) continue;
        double wf = S->fronts[f].subtree_flops, wg = y != x ? S->fronts[g].subtree_flops : 0;
        double nmx = 0, nsq = 0;
        for (int q = 0; q < R; q++) {
          double l = load[q] + (q == own[f] ? wg - wf : 0) + (q == r ? wf - wg : 0);
          nmx = fmax(nmx, l);
          nsq += l * l;
        }
        int lower_max = nmx < mx - eps, lower_sq = fabs(nmx - mx) <= eps && nsq < sq * (1 - 1e-6);
        if (lower_max || lower_sq)
          fail_msg("%d ranks: moving front %d (%.3g flops) from rank %d to %d%s lowers the loads (max %.4g -> %.4g)", R,
                   f, wf, own[f], r, y != x ? " by a swap" : "", mx, nmx);
      }
    }
  free(top);
  free(own);
  free(lo);
  free(hi);
  free(load);
  free(mine);
}

static void test_mapping_local_balance(void **state) {
  (void)state;
  if (!mfs_ordering_available(MFS_ORDER_METIS)) skip();
  static const char *const spec[] = {"lap3d:40", "lap3d27:30", "lap2d:300"};
  static const int ranks[] = {2, 3, 4, 8, 16};
  for (size_t k = 0; k < sizeof spec / sizeof *spec; k++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_spec(spec[k], MFS_ORDER_METIS, 0, &A);
    for (size_t t = 0; t < sizeof ranks / sizeof *ranks; t++) assert_no_better_move(S, ranks[t]);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
}

/* lap3d:40 on 16 ranks: the rebalancing leaves a rank that owns no front (15 of 16 own one), the
 * case integration/solver_mpi.sh runs on 16 processes; its work is its shares of shared fronts. */
static void test_mapping_rank_without_front(void **state) {
  (void)state;
  if (!mfs_ordering_available(MFS_ORDER_METIS)) skip();
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:40", MFS_ORDER_METIS, 0, &A);
  const int R = 16;
  int32_t *own = malloc(S->nfronts * sizeof *own);
  double *load = calloc(R, sizeof *load);
  int owns[16] = {0}, owning = 0;
  mfs_error err;
  assert_int_equal(mfs_map_proportional(S, R, own, NULL, NULL, load, &err), MFS_OK);
  for (int32_t f = 0; f < S->nfronts; f++) owns[own[f]] = 1;
  for (int r = 0; r < R; r++) {
    owning += owns[r];
    assert_true(load[r] > 0);
  }
  assert_true(owning < R);
  free(own);
  free(load);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

static void test_mapping(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_grid(MFS_STENCIL_LAP3D7, 16, 16, 16, &A);
  static const int ranks[] = {1, 2, 3, 4, 7, 16};
  int32_t *own = malloc(S->nfronts * sizeof *own), *lo = malloc(S->nfronts * sizeof *lo);
  int32_t *hi = malloc(S->nfronts * sizeof *hi);
  for (size_t t = 0; t < sizeof ranks / sizeof *ranks; t++) {
    int R = ranks[t];
    double *load = calloc(R, sizeof *load);
    mfs_error err;
    assert_int_equal(mfs_map_proportional(S, R, own, lo, hi, load, &err), MFS_OK);
    double tot = 0, sum = 0;
    for (int32_t f = 0; f < S->nfronts; f++) {
      assert_true(own[f] >= 0 && own[f] < R); /* every front has an owner */
      assert_true(lo[f] <= own[f] && own[f] < hi[f] && hi[f] <= R);
      tot += S->fronts[f].flops;
      int32_t p = S->fronts[f].parent;
      if (p >= 0) {
        /* a child's ranks lie within its parent's; single-rank parents keep the subtree */
        assert_true(lo[f] >= lo[p] && hi[f] <= hi[p]);
        if (hi[p] - lo[p] == 1) assert_int_equal(own[f], own[p]);
      } else {
        assert_true(hi[f] - lo[f] >= 1);
      }
    }
    for (int r = 0; r < R; r++) {
      /* everyone gets work on a 4096-point 3D problem: a rank may own no front, its share of the
       * shared ones being its work (16 ranks: the rebalancing leaves one with shares only) */
      assert_true(load[r] > 0);
      sum += load[r];
    }
    assert_true(fabs(sum - tot) <= 1e-9 * tot);

    if (R == 1)
      for (int32_t f = 0; f < S->nfronts; f++) assert_int_equal(own[f], 0);
    free(load);
  }
  mfs_error err;
  assert_int_equal(mfs_map_proportional(S, 0, own, NULL, NULL, NULL, &err), MFS_ERR_ARG);
  free(own);
  free(lo);
  free(hi);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_etree_colcounts_random),
      cmocka_unit_test(test_etree_colcounts_stencils),
      cmocka_unit_test(test_postorder_forests),
      cmocka_unit_test(test_analysis_invariants),
      cmocka_unit_test(test_front_nb),
      cmocka_unit_test(test_given_ordering),
      cmocka_unit_test(test_supernode_column_order_by_hand),
      cmocka_unit_test(test_supernode_column_order),
      cmocka_unit_test(test_amalgamate_rules),
      cmocka_unit_test(test_pruning),
      cmocka_unit_test(test_mapping),
      cmocka_unit_test(test_mapping_balance),
      cmocka_unit_test(test_mapping_local_balance),
      cmocka_unit_test(test_mapping_rank_without_front),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
