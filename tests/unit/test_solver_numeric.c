/*
 * test_solver_numeric.c — factorization and solve: scaled residual <= 1e-12 on 2D/3D Laplacians and
 * the 27-point stencil with both orderings and several tile sizes, multiple right-hand sides,
 * refinement, operations run out of list order (what a task runtime may do), non-SPD matrices
 * (the error names the pivot column), the memory prediction against the measured peak, and the
 * extend-add kernel against its definition.
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
#include "mfs_arena.h"
#include <sys/mman.h>
#include <unistd.h>
#include "mfs_dist.h"
#include "test_solver_common.h"

#ifndef MFS_GOLDEN_DIR
#define MFS_GOLDEN_DIR "tests/golden"
#endif

static void fill_x(double *x, int32_t n, uint64_t seed) {
  for (int32_t i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    x[i] = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
}

/* Factor A with options o, solve A x = A x*, return the scaled residual (and check x ~ x*). */
static double factor_solve(const mfs_matrix *A, const mfs_options *o, const char *what) {
  mfs_symbolic *S;
  mfs_factor *F;
  mfs_error err;
  if (mfs_analyze(A, o, &S, &err) != MFS_OK) fail_msg("%s: analysis: %s", what, err.msg);
  if (mfs_factorize_seq(S, A, &F, NULL, NULL, &err) != MFS_OK) fail_msg("%s: factorization: %s", what, err.msg);
  int32_t n = A->n;
  double *xs = malloc(n * sizeof *xs), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  fill_x(xs, n, 42 + n);
  mfs_matrix_symv(A, xs, b);
  memcpy(x, b, n * sizeof *x);
  assert_int_equal(mfs_solve(F, 1, x, n, &err), MFS_OK);
  double res = mfs_residual(A, x, b);
  double ferr = 0;
  for (int32_t i = 0; i < n; i++) ferr = fmax(ferr, fabs(x[i] - xs[i]));
  if (!(res <= 1e-12)) fail_msg("%s: scaled residual %.3e", what, res);
  if (!(ferr <= 1e-8)) fail_msg("%s: forward error %.3e", what, ferr);
  /* the whole factor is kept, the CB arena is gone */
  for (int32_t f = 0; f < S->nfronts; f++) assert_non_null(F->lblock[f]);
  free(xs);
  free(b);
  free(x);
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  return res;
}

static void test_residual_stencils(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:40", "lap2d:23x9", "lap3d:12", "lap3d:9x7x5", "lap3d27:9", "lap3d27:7x4x6"};
  static const int nbs[] = {1, 7, 32, 64, 256};
  mfs_ordering ords[] = {MFS_ORDER_METIS, MFS_ORDER_AMD};
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_generate(specs[t], &A, &err), MFS_OK);
    for (size_t c = 0; c < 2; c++) {
      if (!mfs_ordering_available(ords[c])) {
        print_message("# ordering %s not built in: skipped\n", mfs_ordering_name(ords[c]));
        continue;
      }
      for (size_t b = 0; b < sizeof nbs / sizeof *nbs; b++)
        for (int am = 0; am < 2; am++) {
          mfs_options o;
          mfs_options_default(&o);
          o.ordering = ords[c];
          o.nb = nbs[b];
          o.amalg = am ? 0.05 : 0.0;
          if (o.nb == 1 && A.n > 350) continue; /* 1x1 tiles: correct but slow */
          char what[96];
          snprintf(what, sizeof what, "%s %s nb=%d amalg=%.2f", specs[t], mfs_ordering_name(o.ordering), o.nb, o.amalg);
          factor_solve(&A, &o, what);
        }
    }
    mfs_options o;
    mfs_options_default(&o);
    o.ordering = MFS_ORDER_NATURAL;
    o.nb = 16;
    factor_solve(&A, &o, "natural");
    o.nb = 7; /* larger tiles in the fronts of >= 28 rows (the sequential executor's default) */
    o.nb_big = 20;
    factor_solve(&A, &o, "natural nb=7 nb_big=20");
    o.nb_huge = 33; /* and the largest tiles in the fronts of >= 66 rows (the same executor's) */
    factor_solve(&A, &o, "natural nb=7 nb_big=20 nb_huge=33");
    mfs_matrix_free(&A);
  }
}

static void test_residual_golden_and_random(void **state) {
  (void)state;
  static const char *files[] = {MFS_GOLDEN_DIR "/solver_spd5_sym.mtx", MFS_GOLDEN_DIR "/solver_lap2d_10_gen.mtx"};
  for (size_t t = 0; t < 2; t++) {
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_read_mm(files[t], &A, &err), MFS_OK);
    mfs_options o;
    mfs_options_default(&o);
    o.nb = 2;
    factor_solve(&A, &o, files[t]);
    o.ordering = MFS_ORDER_NATURAL;
    factor_solve(&A, &o, files[t]);
    if (mfs_ordering_available(MFS_ORDER_AMD)) {
      o.ordering = MFS_ORDER_AMD;
      factor_solve(&A, &o, files[t]);
    }
    mfs_matrix_free(&A);
  }
  /* random sparse SPD (diagonally dominant) matrices with irregular structure */
  uint64_t seed = 77;
  for (int rep = 0; rep < 6; rep++) {
    int32_t n = 50 + 150 * rep, m = 4 * n;
    int32_t *ri = malloc((n + m) * sizeof *ri), *ci = malloc((n + m) * sizeof *ci);
    double *v = malloc((n + m) * sizeof *v);
    int64_t nz = 0;
    for (int32_t i = 0; i < n; i++) {
      ri[nz] = ci[nz] = i;
      v[nz++] = 10.0 + 8.0;
    }
    for (int32_t t = 0; t < m; t++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      int32_t i = (int32_t)((seed >> 33) % n), j = (int32_t)((seed >> 13) % n);
      if (i == j) continue;
      ri[nz] = i;
      ci[nz] = j;
      v[nz++] = -1.0; /* at most ~8 per row on average: still dominant enough in practice */
    }
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_from_triplets(n, nz, ri, ci, v, &A, &err), MFS_OK);
    /* make it strictly diagonally dominant whatever the draw */
    for (int32_t j = 0; j < n; j++) A.val[A.colptr[j]] = 1.0;
    for (int32_t j = 0; j < n; j++)
      for (int64_t p = A.colptr[j] + 1; p < A.colptr[j + 1]; p++) {
        A.val[A.colptr[j]] += fabs(A.val[p]);
        A.val[A.colptr[A.rowind[p]]] += fabs(A.val[p]);
      }
    mfs_options o;
    mfs_options_default(&o);
    o.nb = 8 + rep * 10;
    factor_solve(&A, &o, "random, default ordering");
    if (mfs_ordering_available(MFS_ORDER_AMD)) {
      o.ordering = MFS_ORDER_AMD;
      factor_solve(&A, &o, "random amd");
    }
    free(ri);
    free(ci);
    free(v);
    mfs_matrix_free(&A);
  }
}

static void test_multiple_rhs_and_refine(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  mfs_symbolic *S = analyze_spec("lap3d27:8", -1, 24, &A);
  mfs_factor *F;
  assert_int_equal(mfs_factorize_seq(S, &A, &F, NULL, NULL, &err), MFS_OK);
  int32_t n = A.n, ld = n + 3, nrhs = 3;
  double *xs = malloc(n * sizeof *xs), *B = calloc((size_t)ld * nrhs, sizeof *B),
         *X = malloc((size_t)ld * nrhs * sizeof *X);
  for (int c = 0; c < nrhs; c++) {
    fill_x(xs, n, 1000 + c);
    mfs_matrix_symv(&A, xs, B + (size_t)c * ld);
  }
  memcpy(X, B, (size_t)ld * nrhs * sizeof *X);
  assert_int_equal(mfs_solve(F, nrhs, X, ld, &err), MFS_OK);
  for (int c = 0; c < nrhs; c++) {
    assert_true(mfs_residual(&A, X + (size_t)c * ld, B + (size_t)c * ld) <= 1e-12);
    for (int32_t i = n; i < ld; i++) assert_true(X[(size_t)c * ld + i] == 0.0); /* padding untouched */
  }
  assert_int_equal(mfs_solve(F, 1, X, n - 1, &err), MFS_ERR_ARG);
  assert_int_equal(mfs_solve(F, 0, NULL, n, &err), MFS_OK);

  double res[4];
  int iters = -1;
  double *x = malloc(n * sizeof *x);
  assert_int_equal(mfs_solve_refine(F, &A, B, x, 3, res, &iters, &err), MFS_OK);
  assert_true(iters >= 0 && iters <= 3);
  assert_true(res[iters] <= res[0]);
  assert_true(res[iters] <= 1e-14);
  assert_true(mfs_residual(&A, x, B) == res[iters]);
  free(x);
  free(xs);
  free(B);
  free(X);
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* The operation list run in another valid order, as a task runtime may: fronts are activated in a
 * different topological order (the ready front with the largest index first, which interleaves
 * sibling subtrees), and inside a front the ASSEMBLE operations (commutative, STARPU_COMMUTE) run
 * in reverse order before the CLEANUPs. */
static void test_ops_out_of_order(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  mfs_symbolic *S = analyze_spec("lap3d:11", -1, 16, &A);
  mfs_factor *F;
  assert_int_equal(mfs_factor_create(S, &F, &err), MFS_OK);
  mfs_kernels_init();
  int32_t nf = S->nfronts;
  int32_t *pending = malloc(nf * sizeof *pending);
  uint8_t *done = calloc(nf, 1);
  for (int32_t f = 0; f < nf; f++) pending[f] = S->fronts[f].nchild;
  for (int32_t step = 0; step < nf; step++) {
    int32_t f = -1;
    for (int32_t g = nf - 1; g >= 0; g--)
      if (!done[g] && pending[g] == 0) {
        f = g;
        break;
      }
    assert_true(f >= 0);
    const mfs_front *Fr = &S->fronts[f];
    /* INIT first, then ASSEMBLE/CLEANUP groups reversed, then the factorization in order */
    int64_t o0 = Fr->op_begin, o1 = Fr->op_end, ofac = o1;
    for (int64_t q = o0 + 1; q < o1; q++)
      if (S->ops[q].type != MFS_OP_ASSEMBLE && S->ops[q].type != MFS_OP_CLEANUP) {
        ofac = q;
        break;
      }
    assert_int_equal(mfs_op_execute(F, &A, &S->ops[o0], &err), MFS_OK);
    for (int64_t q = ofac - 1; q > o0; q--)
      if (S->ops[q].type == MFS_OP_ASSEMBLE) assert_int_equal(mfs_op_execute(F, &A, &S->ops[q], &err), MFS_OK);
    for (int64_t q = o0 + 1; q < ofac; q++)
      if (S->ops[q].type == MFS_OP_CLEANUP) assert_int_equal(mfs_op_execute(F, &A, &S->ops[q], &err), MFS_OK);
    for (int64_t q = ofac; q < o1; q++) assert_int_equal(mfs_op_execute(F, &A, &S->ops[q], &err), MFS_OK);
    done[f] = 1;
    if (Fr->parent >= 0) pending[Fr->parent]--;
  }
  int32_t n = A.n;
  double *xs = malloc(n * sizeof *xs), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  fill_x(xs, n, 3);
  mfs_matrix_symv(&A, xs, b);
  memcpy(x, b, n * sizeof *x);
  assert_int_equal(mfs_solve(F, 1, x, n, &err), MFS_OK);
  assert_true(mfs_residual(&A, x, b) <= 1e-12);
  free(pending);
  free(done);
  free(xs);
  free(b);
  free(x);
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

static void expect_not_spd(const mfs_matrix *A, mfs_ordering ord, int nb, const int32_t *allowed, int nallowed,
                           const char *what) {
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = ord;
  o.nb = nb;
  mfs_symbolic *S;
  static mfs_factor dummy;
  mfs_factor *F = &dummy; /* must be reset to NULL on failure */
  mfs_error err;
  assert_int_equal(mfs_analyze(A, &o, &S, &err), MFS_OK);
  int64_t before = mfs_mem_current();
  mfs_status st = mfs_factorize_seq(S, A, &F, NULL, NULL, &err);
  if (st != MFS_ERR_NOT_SPD) fail_msg("%s: status %d (%s)", what, st, err.msg);
  assert_null(F);
  assert_int_equal(mfs_mem_current(), before); /* nothing leaked on the error path */
  int ok = 0;
  for (int t = 0; t < nallowed; t++) ok |= (err.column == allowed[t]);
  if (!ok) fail_msg("%s: reported column %lld", what, (long long)err.column);
  char needle[48];
  snprintf(needle, sizeof needle, "column %lld ", (long long)err.column + 1);
  if (!strstr(err.msg, needle)) fail_msg("%s: message '%s' does not name %s", what, err.msg, needle);
  assert_non_null(strstr(err.msg, "not positive definite"));
  mfs_symbolic_free(S);
}

static void test_not_spd(void **state) {
  (void)state;
  mfs_error err;
  mfs_ordering ords[] = {MFS_ORDER_NATURAL, MFS_ORDER_METIS, MFS_ORDER_AMD};
  /* 1. 2D Laplacian plus a decoupled negative diagonal entry at column 7 (1-based): whatever the
     *    ordering, that pivot is the one that fails */
  {
    mfs_matrix L;
    assert_int_equal(mfs_matrix_generate("lap2d:12", &L, &err), MFS_OK);
    int32_t n = L.n;
    int64_t nz = 0;
    int32_t *ri = malloc(L.nnz * sizeof *ri), *ci = malloc(L.nnz * sizeof *ci);
    double *v = malloc(L.nnz * sizeof *v);
    for (int32_t j = 0; j < n; j++)
      for (int64_t p = L.colptr[j]; p < L.colptr[j + 1]; p++) {
        if ((L.rowind[p] == 6) != (j == 6)) continue; /* cut column 7 loose */
        ri[nz] = L.rowind[p];
        ci[nz] = j;
        v[nz++] = (j == 6 && L.rowind[p] == 6) ? -2.0 : L.val[p];
      }
    mfs_matrix A;
    assert_int_equal(mfs_matrix_from_triplets(n, nz, ri, ci, v, &A, &err), MFS_OK);
    int32_t col[] = {6};
    for (int t = 0; t < 3; t++)
      if (mfs_ordering_available(ords[t])) expect_not_spd(&A, ords[t], 16, col, 1, "decoupled negative pivot");
    free(ri);
    free(ci);
    free(v);
    mfs_matrix_free(&A);
    mfs_matrix_free(&L);
  }
  /* 2. [[1 2][2 1]] (indefinite): natural order fails at column 2; any order at column 1 or 2 */
  {
    int32_t ri[] = {0, 1, 1}, ci[] = {0, 0, 1};
    double v[] = {1, 2, 1};
    mfs_matrix A;
    assert_int_equal(mfs_matrix_from_triplets(2, 3, ri, ci, v, &A, &err), MFS_OK);
    int32_t second[] = {1}, both[] = {0, 1};
    expect_not_spd(&A, MFS_ORDER_NATURAL, 1, second, 1, "2x2 natural nb=1");
    expect_not_spd(&A, MFS_ORDER_NATURAL, 64, second, 1, "2x2 natural nb=64");
    if (mfs_ordering_available(MFS_ORDER_AMD)) expect_not_spd(&A, MFS_ORDER_AMD, 4, both, 2, "2x2 amd");
    mfs_matrix_free(&A);
  }
  /* 3. a 3D Laplacian with the sign of its diagonal flipped in one place deep in the matrix: the
     *    failing pivot is reported as some valid column, and named */
  {
    mfs_matrix A;
    assert_int_equal(mfs_matrix_generate("lap3d:8", &A, &err), MFS_OK);
    A.val[A.colptr[300]] = -6.0;
    int32_t *all = malloc(A.n * sizeof *all);
    for (int32_t k = 0; k < A.n; k++) all[k] = k;
    for (int t = 0; t < 3; t++)
      if (mfs_ordering_available(ords[t])) expect_not_spd(&A, ords[t], 32, all, A.n, "lap3d flipped");
    free(all);
    mfs_matrix_free(&A);
  }
  /* 4. a zero matrix of order 1 and a singular Laplacian (Neumann: zero row sums) */
  {
    int32_t ri[] = {0}, ci[] = {0};
    double v[] = {0.0};
    mfs_matrix A;
    assert_int_equal(mfs_matrix_from_triplets(1, 1, ri, ci, v, &A, &err), MFS_OK);
    int32_t first[] = {0};
    expect_not_spd(&A, MFS_ORDER_NATURAL, 8, first, 1, "zero 1x1");
    mfs_matrix_free(&A);
    /* 1D Neumann Laplacian: [1 -1; -1 2 -1; ...; -1 1] is singular; in natural order the last
         * pivot is exactly 0 */
    int32_t n = 20;
    int32_t r2[40], c2[40];
    double v2[40];
    int nz = 0;
    for (int32_t i = 0; i < n; i++) {
      r2[nz] = c2[nz] = i;
      v2[nz++] = (i == 0 || i == n - 1) ? 1.0 : 2.0;
      if (i + 1 < n) {
        r2[nz] = i + 1;
        c2[nz] = i;
        v2[nz++] = -1.0;
      }
    }
    assert_int_equal(mfs_matrix_from_triplets(n, nz, r2, c2, v2, &A, &err), MFS_OK);
    int32_t last[] = {n - 1};
    expect_not_spd(&A, MFS_ORDER_NATURAL, 4, last, 1, "singular 1D Neumann");
    mfs_matrix_free(&A);
  }
}

/* The message of a failed factorization of the n x n matrix given by its lower triplets (natural
 * order, tiles of nb); the failing column (0-based) goes to *column. */
static const char *pivot_message(int32_t n, int nz, const int32_t *ri, const int32_t *ci, const double *v, int nb,
                                 int64_t *column) {
  static mfs_error err;
  mfs_matrix A;
  assert_int_equal(mfs_matrix_from_triplets(n, nz, ri, ci, v, &A, &err), MFS_OK);
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = MFS_ORDER_NATURAL;
  o.nb = nb;
  mfs_symbolic *S;
  mfs_factor *F;
  assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_OK);
  assert_int_equal(mfs_factorize_seq(S, &A, &F, NULL, NULL, &err), MFS_ERR_NOT_SPD);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
  *column = err.column;
  return err.msg;
}

static void expect_in(const char *msg, const char *needle) {
  if (!strstr(msg, needle)) fail_msg("message '%s' lacks '%s'", msg, needle);
}

/* A failed pivot is named with its value, and told apart: not positive, or positive but a denormal
 * that the kernels flush to zero (a pivot of 1e-320 is not "not positive"). */
static void test_pivot_messages(void **state) {
  (void)state;
  int64_t col;
  const char *msg;
  {
    int32_t ri[] = {0}, ci[] = {0};
    double v[] = {1e-320};
    msg = pivot_message(1, 1, ri, ci, v, 8, &col);
    assert_int_equal(col, 0);
    expect_in(msg, "column 1 ");
    expect_in(msg, "too small");
    expect_in(msg, "1e-320");
    expect_in(msg, "denormal");
    assert_null(strstr(msg, "not positive:"));
  }
  { /* the denormal second pivot, in the same tile as the first and in a tile of its own */
    int32_t ri[] = {0, 1}, ci[] = {0, 1};
    double v[] = {4.0, 1e-320};
    for (int nb = 1; nb <= 8; nb += 7) {
      msg = pivot_message(2, 2, ri, ci, v, nb, &col);
      assert_int_equal(col, 1);
      expect_in(msg, "column 2 ");
      expect_in(msg, "1e-320");
      expect_in(msg, "denormal");
    }
  }
  { /* [[1 2][2 1]]: the second pivot is 1 - 4 = -3 */
    int32_t ri[] = {0, 1, 1}, ci[] = {0, 0, 1};
    double v[] = {1, 2, 1};
    msg = pivot_message(2, 3, ri, ci, v, 64, &col);
    assert_int_equal(col, 1);
    expect_in(msg, "not positive: -3 ");
  }
  { /* exactly zero */
    int32_t ri[] = {0}, ci[] = {0};
    double v[] = {0.0};
    msg = pivot_message(1, 1, ri, ci, v, 8, &col);
    expect_in(msg, "not positive: 0 ");
  }
}

static void test_memory_prediction(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:120", "lap3d:18", "lap3d27:12", "lap3d:9x30x4"};
  mfs_ordering ords[] = {MFS_ORDER_METIS, MFS_ORDER_AMD};
  int two_ends = 0; /* runs whose CBs came from both ends of the arena */
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    assert_int_equal(mfs_matrix_generate(specs[t], &A, &err), MFS_OK);
    for (size_t c = 0; c < 2; c++) {
      if (!mfs_ordering_available(ords[c])) continue;
      for (int v = 0; v < 4; v++) {
        /* and 32 with twice as large tiles in the fronts of >= 128 rows, then also 4 times as large
         * ones in those of >= 256 */
        int nb = v == 1 ? 256 : 32;
        mfs_options o;
        mfs_options_default(&o);
        o.ordering = ords[c];
        o.nb = nb;
        o.nb_big = v >= 2 ? 64 : 0;
        o.nb_huge = v == 3 ? 128 : 0;
        mfs_symbolic *S;
        mfs_factor *F;
        assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_OK);
        int64_t before = mfs_mem_current();
        assert_int_equal(mfs_factorize_seq(S, &A, &F, NULL, NULL, &err), MFS_OK);
        two_ends += S->cb_two_ends;
        double ratio = (double)F->mem_peak / (double)S->mem_peak;
        if (fabs(ratio - 1.0) > 0.10)
          fail_msg("%s %s nb=%d: measured peak %lld, predicted %lld", specs[t], mfs_ordering_name(ords[c]), nb,
                   (long long)F->mem_peak, (long long)S->mem_peak);
        /* the live-data peak never exceeds the footprint; the factor is all that stays */
        assert_true(S->mem_peak_live <= S->mem_peak);
        /* after the factorization only the factor and its tables remain (the CB arena's
                 * small bookkeeping struct is gone too) */
        int64_t kept = mfs_mem_current() - before;
        assert_true(kept <= S->mem_fixed + S->mem_factor && kept >= S->mem_fixed + S->mem_factor - 512);
        mfs_factor_free(F);
        assert_int_equal(mfs_mem_current(), before);
        mfs_symbolic_free(S);
      }
    }
    mfs_matrix_free(&A);
  }
  print_message("# %d of the runs took CBs from both ends\n", two_ends);
  assert_true(two_ends > 0);
}

static void test_progress_and_args(void **state) {
  (void)state;
  mfs_matrix A, B;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap2d:30", &A, &err), MFS_OK);
  assert_int_equal(mfs_matrix_generate("lap2d:31", &B, &err), MFS_OK);
  mfs_symbolic *S;
  mfs_factor *F;
  assert_int_equal(mfs_analyze(&A, NULL, &S, &err), MFS_OK);
  assert_int_equal(mfs_factorize_seq(S, &B, &F, NULL, NULL, &err), MFS_ERR_ARG);
  assert_null(F);
  assert_int_equal(mfs_factorize_seq(S, &A, &F, NULL, NULL, &err), MFS_OK);
  assert_true(fabs(F->flops_done - (S->flops + S->flops_type[MFS_OP_ASSEMBLE])) <= 1e-6 * F->flops_done);
  assert_true(F->time >= 0);
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
  mfs_matrix_free(&B);
  /* denormal control round-trips */
  unsigned csr = mfs_fpu_flush_denormals();
  volatile double tiny = 1e-310, r = tiny * 0.5;
  mfs_fpu_restore(csr);
#if defined(__x86_64__)
  assert_true(r == 0.0); /* flushed while FTZ/DAZ were on */
  volatile double r2 = tiny * 0.5;
  assert_true(r2 != 0.0);
#else
  (void)r;
#endif
}

/* Pages of [p, p + len) resident in memory. */
static size_t resident_pages(const char *p, size_t len) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg, r = 0;
  unsigned char *v = malloc(n);
  assert_non_null(v);
  assert_int_equal(mincore((void *)p, len, v), 0);
  for (size_t i = 0; i < n; i++) r += v[i] & 1;
  free(v);
  return r;
}

/* An arena reserves address space only: nothing is resident until written, and a block is
 * faulted in by its first write (by whoever writes it), not before. */
static void test_arena_faults_on_first_write(void **state) {
  (void)state;
  const size_t huge = (size_t)2 << 20;
  mfs_arena a;
  assert_int_equal(arena__create(&a, 16 * huge, 0), MFS_OK);
  assert_int_equal(resident_pages(a.base, 16 * huge), 0);
  char *p = arena__alloc(&a, 3 * huge, ARENA_LOW, NULL);
  assert_non_null(p);
  assert_int_equal(resident_pages(a.base, 16 * huge), 0);
  memset(p, 1, 3 * huge);
  assert_true(resident_pages(p, 3 * huge) >= 3 * huge / (size_t)sysconf(_SC_PAGESIZE));
  assert_int_equal(resident_pages(a.base + 4 * huge, 12 * huge), 0);
  arena__destroy(&a);
}

/* The first touch of a front's fresh memory: every page that holds part of the range is resident
 * afterwards (a range of 1 MiB less 3 + 5 doubles, populated by one system call with its partial
 * end pages written; a range of 9 MiB and 5 doubles, populated in three steps of at most 4 MiB; the
 * first range again in 17 steps of 60 KiB, the last one shorter; a range of 3 pages and a bit,
 * written page by page), the contents stay zero and the pages around the range stay untouched. */
static void test_first_touch(void **state) {
  (void)state;
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)16 << 20;
  const size_t counts[] = {((size_t)1 << 20) / sizeof(double) - 8, ((size_t)9 << 20) / sizeof(double) + 5,
                           ((size_t)1 << 20) / sizeof(double) - 8, (3 * pg + 100) / sizeof(double)};
  const size_t steps[] = {(size_t)4 << 20, (size_t)4 << 20, (size_t)60 << 10, (size_t)4 << 20};
  for (size_t c = 0; c < 4; c++) {
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(m != MAP_FAILED);
    double *p = (double *)(m + pg) + 3; /* starts inside the second page */
    size_t n = counts[c];
    kernel__first_touch_steps(p, n, steps[c]);
    char *first = m + pg, *end = (char *)(p + n);
    size_t pages = ((size_t)(end - first) + pg - 1) / pg;
    assert_int_equal(resident_pages(first, pages * pg), pages);
    assert_int_equal(resident_pages(m, pg), 0);
    assert_int_equal(resident_pages(first + pages * pg, len - pg - pages * pg), 0);
    for (size_t k = 0; k < n; k++)
      if (p[k] != 0.0) fail_msg("range %zu: p[%zu] = %g", c, k, p[k]);
    munmap(m, len);
  }
}

/* The fresh part of a block (the task-based executor's prefault): a block of 6 pages at the start
 * of a page whose first 2 pages and 5 bytes may hold old data: those 5 bytes are left alone, the
 * pages from the third on are resident afterwards, the first two and the pages around the block are
 * not, and the fresh part reads zero. */
static void test_first_touch_fresh(void **state) {
  (void)state;
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 16 * pg;
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  assert_true(m != MAP_FAILED);
  double *block = (double *)(m + pg);
  memcpy((char *)block + 2 * pg, "old!", 5); /* the old part's last 5 bytes, in the third page */
  kernel__first_touch_fresh(block, 2 * pg + 5, 6 * pg);
  assert_memory_equal((char *)block + 2 * pg, "old!", 5);  /* left alone */
  assert_int_equal(resident_pages(m, 3 * pg), 0);          /* before the block, and its old part */
  assert_int_equal(resident_pages(m + 3 * pg, 4 * pg), 4); /* the fresh part */
  assert_int_equal(resident_pages(m + 7 * pg, len - 7 * pg), 0);
  kernel__first_touch_fresh(NULL, 0, 6 * pg);       /* no block: nothing */
  kernel__first_touch_fresh(block, 6 * pg, 6 * pg); /* all of it old: nothing more */
  assert_int_equal(resident_pages(m, 3 * pg), 0);
  for (size_t k = (2 * pg + 8) / sizeof(double); k < 6 * pg / sizeof(double); k++) /* the fresh part reads 0 */
    if (block[k] != 0.0) fail_msg("block[%zu] = %g", k, block[k]);
  munmap(m, len);
}

/* What an allocation may find written: nothing above the high-water mark, all of a reused range,
 * the reused head of a block that extends past the mark; the allocation inside the window says the
 * same. */
static void test_arena_dirty_bytes(void **state) {
  (void)state;
  mfs_arena a;
  size_t d = 1;
  int over;
  assert_int_equal(arena__create(&a, (size_t)8 << 20, 0), MFS_OK);
  char *p = arena__alloc(&a, 4096, ARENA_LOW, &d);
  assert_non_null(p);
  assert_int_equal(d, 0);
  char *q = arena__alloc(&a, 8192, ARENA_LOW, &d);
  assert_int_equal(d, 0);
  arena__free(&a, p, 4096);
  assert_ptr_equal(arena__alloc(&a, 4096, ARENA_LOW, &d), p); /* first fit: the freed range */
  assert_int_equal(d, 4096);
  arena__free(&a, q, 8192); /* the top goes back: the next block starts inside the written part */
  assert_ptr_equal(arena__alloc_in_window(&a, 16384, ARENA_LOW, &over, &d), q);
  assert_int_equal(over, 0);
  assert_int_equal(d, 8192);
  arena__destroy(&a);
}

/* A block at a given place (the executor's planned placement), K = KiB, window 1 MiB: [0, 64K) and
 * [64K, 192K) taken by first fit, the first freed: a hole [0, 64K). At 16K for 32K: inside the hole,
 * which splits into [0, 16K) and [48K, 64K); at 32K it is now taken: NULL. At 256K (above the top,
 * 192K) for 64K: the gap [192K, 256K) becomes a hole and the top is 320K; [192K, 256K) can then be
 * taken whole, and [0, 16K) too (the first hole, exactly). Above a floor: 16K at floor 40K goes to
 * [48K, 64K) (the only hole reaching past 40K), a second one finds no hole and goes on the top
 * (320K); at floor 900K, 200K does not fit in the window (900K + 200K > 1 MiB): NULL. Whatever was
 * written before is dirty: [16K, 48K) lies in the first block's written range. */
static void test_arena_alloc_at_and_above(void **state) {
  (void)state;
  const size_t K = 1024;
  mfs_arena a;
  size_t d = 1;
  assert_int_equal(arena__create(&a, 1024 * K, 0), MFS_OK);
  char *b0 = arena__alloc(&a, 64 * K, ARENA_LOW, &d), *base = b0;
  assert_ptr_equal(arena__alloc(&a, 128 * K, ARENA_LOW, &d), base + 64 * K);
  arena__free(&a, b0, 64 * K);
  assert_ptr_equal(arena__alloc_at(&a, 16 * K, 32 * K, &d), base + 16 * K);
  assert_int_equal(d, 32 * K); /* written before, by the first block */
  assert_null(arena__alloc_at(&a, 32 * K, 16 * K, &d));
  assert_null(arena__alloc_at(&a, ARENA_FAIL, 16 * K, &d));
  assert_ptr_equal(arena__alloc_at(&a, 256 * K, 64 * K, &d), base + 256 * K);
  assert_int_equal(d, 0); /* above every write so far */
  assert_int_equal(a.low.top, 320 * K);
  assert_ptr_equal(arena__alloc_at(&a, 192 * K, 64 * K, &d), base + 192 * K);
  assert_ptr_equal(arena__alloc_at(&a, 0, 16 * K, &d), base);
  assert_int_equal(a.low.next, 1); /* [48K, 64K) is the only hole left */
  assert_ptr_equal(arena__alloc_above(&a, 40 * K, 16 * K, &d), base + 48 * K);
  assert_int_equal(a.low.next, 0);
  assert_ptr_equal(arena__alloc_above(&a, 40 * K, 16 * K, &d), base + 320 * K);
  assert_null(arena__alloc_above(&a, 900 * K, 200 * K, &d));
  assert_ptr_equal(arena__alloc_above(&a, 900 * K, 100 * K, &d), base + 900 * K);
  assert_int_equal(a.low.next, 1); /* the gap [336K, 900K) */
  assert_int_equal(a.low.ext[0].off, 336 * K);
  assert_int_equal(a.used, (16 + 32 + 16 + 128 + 64 + 64 + 16 + 100) * K);
  arena__destroy(&a);
}

/* The window's two ends, W = 1 MiB (K = KiB), with 1 MiB of address space behind it: the low end
 * takes [0, 256K); the high end counts down from W: 128K at W-128K, 64K at W-192K. Freeing the
 * first high block leaves a hole the next 128K high block fits in exactly (all of it written
 * before: dirty). 600K more at the low end would cross the high end (256K + 600K + 192K > W): not
 * in the window, and no further while the high end holds blocks (the caller takes the heap). Once
 * the high end is empty, 900K go past the window at 256K (it reaches into what the high end wrote:
 * dirty in full); then neither end has room in the window. Footprint: 256K + 900K; touched:
 * [0, 1156K), which covers the high end's 192K. */
static void test_arena_two_ends(void **state) {
  (void)state;
  const size_t K = 1024, W = 1024 * K;
  mfs_arena a;
  size_t d = 1;
  int over;
  assert_int_equal(arena__create(&a, W, W), MFS_OK);
  char *low = arena__alloc(&a, 256 * K, ARENA_LOW, &d);
  assert_ptr_equal(low, a.base);
  assert_int_equal(d, 0);
  char *h1 = arena__alloc(&a, 128 * K, ARENA_HIGH, &d);
  assert_ptr_equal(h1, a.base + W - 128 * K);
  assert_int_equal(d, 0);
  char *h2 = arena__alloc(&a, 64 * K, ARENA_HIGH, &d);
  assert_ptr_equal(h2, a.base + W - 192 * K);
  arena__free(&a, h1, 128 * K);
  assert_ptr_equal(arena__alloc(&a, 128 * K, ARENA_HIGH, &d), h1);
  assert_int_equal(d, 128 * K);
  assert_null(arena__alloc_in_window(&a, 600 * K, ARENA_LOW, &over, &d));
  assert_int_equal(over, 1);
  assert_null(arena__alloc(&a, 600 * K, ARENA_LOW, &d));
  assert_int_equal(a.hwm, (256 + 192) * K);
  arena__free(&a, h2, 64 * K);
  arena__free(&a, h1, 128 * K);
  char *past = arena__alloc(&a, 900 * K, ARENA_LOW, &d);
  assert_ptr_equal(past, a.base + 256 * K);
  assert_int_equal(d, 900 * K);
  assert_int_equal(a.hwm, (256 + 900) * K);
  assert_int_equal(arena__touched(&a), (256 + 900) * K);
  assert_null(arena__alloc_in_window(&a, 64 * K, ARENA_HIGH, &over, &d)); /* nothing left beside it */
  assert_int_equal(over, 1);
  assert_null(arena__alloc_in_window(&a, 64 * K, ARENA_LOW, &over, &d));
  arena__free(&a, past, 900 * K);
  arena__free(&a, low, 256 * K);
  assert_int_equal(a.used, 0);
  assert_int_equal(a.low.top + a.high.top, 0);
  arena__destroy(&a);
}

/* Why two ends: a parent's CB taken while its two children's are alive (100 and 50), the children
 * freed, then a sibling subtree's block of 160. In one stack the parent's 80 sit at [150, 230)
 * over a hole of 150 that 160 does not fit in: footprint 230 + 160 = 390. With the children and
 * the sibling at the high end and the parent at the low end: at most 150 + 80 = 230, then 80 + 160
 * = 240 held at once. */
static void test_arena_ends_avoid_the_hole(void **state) {
  (void)state;
  const int end_child[2] = {ARENA_LOW, ARENA_HIGH};
  const size_t expect[2] = {390, 240};
  for (int two = 0; two < 2; two++) {
    mfs_arena a;
    arena__init_sim(&a);
    size_t c1 = arena__alloc_off(&a, 100, end_child[two]), c2 = arena__alloc_off(&a, 50, end_child[two]);
    size_t p = arena__alloc_off(&a, 80, ARENA_LOW);
    arena__free_off(&a, c1, 100);
    arena__free_off(&a, c2, 50);
    size_t s = arena__alloc_off(&a, 160, end_child[two]);
    assert_int_equal(a.hwm, expect[two]);
    arena__free_off(&a, s, 160);
    arena__free_off(&a, p, 80);
    assert_int_equal(a.used, 0);
    arena__destroy(&a);
  }
}

/* The kernel set asked of OpenBLAS: when it chose one without AVX2 on a CPU that has AVX-512
 * (SkylakeX) or AVX2 + FMA (Haswell), and on a Zen 4 its Zen set instead of an AVX-512 one or an old
 * one; a recognised CPU, or a CPU without them, keeps its choice. */
static void test_blas_core_choice(void **state) {
  (void)state;
  assert_string_equal(mfs_blas_core_for("Prescott", 1, 1, 0), "SkylakeX");
  assert_string_equal(mfs_blas_core_for("prescott", 0, 1, 0), "Haswell");
  assert_string_equal(mfs_blas_core_for("Sandybridge", 0, 1, 0), "Haswell");
  assert_null(mfs_blas_core_for("Prescott", 0, 0, 0));
  assert_null(mfs_blas_core_for("Haswell", 1, 1, 0));
  assert_null(mfs_blas_core_for("SkylakeX", 1, 1, 0));
  assert_null(mfs_blas_core_for("Zen", 0, 1, 0));
  assert_null(mfs_blas_core_for(NULL, 1, 1, 0));
  /* a Zen 4 takes the Zen (AVX2) kernels over OpenBLAS's AVX-512 ones, and over its old ones */
  assert_string_equal(mfs_blas_core_for("Cooperlake", 1, 1, 1), "Zen");
  assert_string_equal(mfs_blas_core_for("skylakex", 1, 1, 1), "Zen");
  assert_string_equal(mfs_blas_core_for("SapphireRapids", 1, 1, 1), "Zen");
  assert_string_equal(mfs_blas_core_for("Prescott", 1, 1, 1), "Zen");
  assert_null(mfs_blas_core_for("Zen", 1, 1, 1));
  assert_null(mfs_blas_core_for("Cooperlake", 1, 1, 0)); /* an Intel CPU keeps them */
  assert_null(mfs_blas_core_for(NULL, 1, 1, 1));
}

/* A leaf whose triangle's inverse overflows while the solve does not: L = [1e-160 0; 1 1e-160],
 * B = [0 1] (one row): X = B L^-T = [0, 1e160] exactly (dtrsm's answer); the inverse holds -1e320,
 * beyond the doubles, and multiplying by it would give NaN. */
static void test_trsm_kernel_inverse_overflow(void **state) {
  (void)state;
  double l[4] = {1e-160, 1.0, 0.0, 1e-160}, b[2] = {0.0, 1.0};
  mfs_kernel_trsm(1, 2, l, 2, b, 1);
  assert_true(b[0] == 0.0);
  assert_true(b[1] == 1e160);
}

/* The init of a front on memory that holds old data (NaN here): every factor tile ends up holding
 * A's entries and zeros, every contribution-block tile zeros where it is read (all of an
 * off-diagonal tile, the lower triangle with the diagonal of a diagonal one). Twice per front of a
 * lap3d:12 in tiles of 8 (CBs of several tiles): all of its memory old, then the CB's from a point
 * inside one of its tiles on fresh (zero), as the arena reports it. */
static void test_init_front_on_old_data(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:12", -1, 8, &A);
  int multi = 0; /* fronts whose CB has a diagonal and an off-diagonal tile */
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    const int32_t *b = S->blkptr + F->blk;
    int64_t ntile = mfs_tile_index(F->nbt, F->nbt - 1, F->nbt - 1) + 1, l_bytes, cb_bytes;
    double **tiles = calloc((size_t)ntile, sizeof *tiles);
    double *L = malloc((size_t)F->l_bytes + 8), *C = malloc((size_t)F->cb_bytes + 8);
    assert_non_null(tiles);
    assert_non_null(L);
    assert_non_null(C);
    dist__carve(S, NULL, f, L, C, tiles, &l_bytes, &cb_bytes); /* the sequential executor's layout */
    assert_int_equal(l_bytes, F->l_bytes);
    assert_int_equal(cb_bytes, F->cb_bytes);
    const int64_t l_len = l_bytes / 8, cb_len = cb_bytes / 8;
    multi += F->nbt - F->nbp >= 2;
    for (int pass = 0; pass < 2; pass++) {
      /* pass 1: the CB's second half is fresh, its first half old (the cut falls inside a tile) */
      const double *cb_zero = pass ? C + cb_len / 2 + 3 : NULL;
      for (int64_t k = 0; k < l_len; k++) L[k] = NAN;
      for (int64_t k = 0; k < cb_len; k++) C[k] = cb_zero && C + k >= cb_zero ? 0.0 : NAN;
      kernel__init_front(S, f, A.val, tiles, NULL, cb_zero);
      for (int32_t j = 0; j < F->nbt; j++)
        for (int32_t i = j; i < F->nbt; i++) {
          const double *t = tiles[mfs_tile_index(F->nbt, i, j)];
          int32_t nr = b[i + 1] - b[i], nc = b[j + 1] - b[j];
          for (int32_t c = 0; c < nc; c++)
            for (int32_t r = i == j ? c : 0; r < nr; r++) {
              double v = t[r + (int64_t)c * nr];
              if (j < F->nbp ? isnan(v) : v != 0.0)
                fail_msg("front %d pass %d: tile (%d,%d) entry (%d,%d) = %g after the init", f, pass, i, j, r, c, v);
            }
        }
    }
    free(tiles);
    free(L);
    free(C);
  }
  assert_true(multi > 0);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* An r x c column-major array of zeros (the test fails without memory). */
static double *zeroed(int r, int c) {
  double *p = calloc((size_t)r * (size_t)c, sizeof *p);
  assert_non_null(p);
  return p;
}

/* The triangular solve B := B L^-T of a tile (recursive above 32 columns) on integer data whose
 * answer is exact: L has powers of two on its diagonal and small integers below it, B = X L^T for an
 * integer X, so every partial sum is an integer and every division exact, whichever order the
 * recursion adds in. Widths around the recursion's leaf, odd splits, leading dimensions above the
 * row counts; the padding rows of B must be left alone. */
static void test_trsm_kernel_exact(void **state) {
  (void)state;
  const int shapes[][2] = {{1, 1}, {7, 31}, {40, 32}, {33, 33}, {5, 64}, {100, 65}, {256, 101}, {3, 256}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int m = shapes[s][0], n = shapes[s][1], ldl = n + 3, ldb = m + 5;
    double *l = zeroed(ldl, n), *x = zeroed(m, n), *b = zeroed(ldb, n);
    for (int j = 0; j < n; j++) {
      l[j + (size_t)j * ldl] = (double)(1 << (j % 3));
      for (int i = j + 1; i < n; i++) l[i + (size_t)j * ldl] = (double)((i * 7 + j * 3) % 5 - 2);
    }
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) x[i + (size_t)j * m] = (double)((i * 5 + j * 11) % 7 - 3);
    for (int j = 0; j < n; j++) /* b(:,j) = sum_s x(:,s) l(j,s), s <= j; padding rows: -99 */
      for (int i = 0; i < ldb; i++) {
        double v = i < m ? 0 : -99;
        for (int t = 0; i < m && t <= j; t++) v += x[i + (size_t)t * m] * l[j + (size_t)t * ldl];
        b[i + (size_t)j * ldb] = v;
      }
    mfs_kernel_trsm(m, n, l, ldl, b, ldb);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < ldb; i++) {
        double want = i < m ? x[i + (size_t)j * m] : -99;
        if (b[i + (size_t)j * ldb] != want)
          fail_msg("m %d n %d: b(%d,%d) = %.17g, expected %g", m, n, i, j, b[i + (size_t)j * ldb], want);
      }
    free(l);
    free(x);
    free(b);
  }
}

/* L of the Cholesky tests below: powers of two on the diagonal, small integers below it, so that
 * A = L L^T is an integer matrix whose factorization is exact in any order of the sums (every pivot's
 * square root is a power of two, every division by one exact). */
static double chol_l(int i, int j) {
  return i == j ? (double)(1 << (j % 3)) : i > j ? (double)((i * 7 + j * 3) % 5 - 2) : 0;
}

/* A = L L^T in the lower triangle of an n x n array of leading dimension lda; -99 elsewhere. */
static double *chol_a(int n, int lda) {
  double *a = zeroed(lda, n);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < lda; i++) {
      double v = -99;
      if (i >= j && i < n) {
        v = 0;
        for (int t = 0; t <= j; t++) v += chol_l(i, t) * chol_l(j, t);
      }
      a[i + (size_t)j * lda] = v;
    }
  return a;
}

/* The recursive Cholesky of a tile (dpotrf at 128 columns and below) on the exact data of chol_l:
 * L to the last bit, the upper triangle and the padding rows left alone. Sizes at the leaf, just
 * above it, odd splits and two levels of recursion. */
static void test_potrf_kernel_exact(void **state) {
  (void)state;
  const int sizes[] = {1, 128, 129, 200, 256, 301, 520};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int n = sizes[s], lda = n + 3;
    double *a = chol_a(n, lda);
    assert_int_equal(mfs_kernel_potrf(n, a, lda), 0);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < lda; i++) {
        double want = i >= j && i < n ? chol_l(i, j) : -99;
        if (a[i + (size_t)j * lda] != want)
          fail_msg("n %d: a(%d,%d) = %.17g, expected %g", n, i, j, a[i + (size_t)j * lda], want);
      }
    free(a);
  }
}

/* A failed pivot inside the recursion: A = L L^T with its entry (200, 200) lowered by
 * L(200,200)^2 + 3, so that the pivot of column 200 is exactly -3 (the first 200 columns are L's).
 * The kernel reports column 201 (1-based, past the split at 150 of the 301 columns, and at 75 of
 * the second half's 151) and leaves the rows up to 200 exact in those columns (the failed pivot's
 * value is recomputed from its row; rows below the failing block are not reached, as with
 * dpotrf); through the factorization of the matrix (one front of 301 columns, one tile), the
 * message names column 201 and the pivot's value. */
static void test_potrf_kernel_failed_pivot(void **state) {
  (void)state;
  const int n = 301, bad = 200;
  double *a = chol_a(n, n);
  a[bad + (size_t)bad * n] -= chol_l(bad, bad) * chol_l(bad, bad) + 3;
  int32_t nz = n * (n + 1) / 2, k = 0;
  int32_t *ri = malloc(sizeof *ri * (size_t)nz), *ci = malloc(sizeof *ci * (size_t)nz);
  double *v = malloc(sizeof *v * (size_t)nz);
  assert_non_null(ri);
  assert_non_null(ci);
  assert_non_null(v);
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++, k++) {
      ri[k] = i;
      ci[k] = j;
      v[k] = a[i + (size_t)j * n];
    }
  assert_int_equal(mfs_kernel_potrf(n, a, n), bad + 1);
  for (int j = 0; j < bad; j++)
    for (int i = j; i <= bad; i++)
      if (a[i + (size_t)j * n] != chol_l(i, j))
        fail_msg("a(%d,%d) = %.17g, expected %g", i, j, a[i + (size_t)j * n], chol_l(i, j));
  int64_t col;
  const char *msg = pivot_message(n, nz, ri, ci, v, 512, &col);
  assert_int_equal(col, bad);
  expect_in(msg, "column 201 ");
  expect_in(msg, "not positive: -3 ");
  free(a);
  free(ri);
  free(ci);
  free(v);
}

/* The same solve on rounded data: L with diagonal in [1, 2) and off-diagonal entries in
 * [-1/n, 1/n) below it (condition number about 2), X uniform in [-1, 1), B = X L^T summed in long
 * double then rounded. The leaves multiply by their triangle's inverse: the solution must still be X
 * to a few units in the last place (1e-13 relative), as dtrsm's is. */
static void test_trsm_kernel_rounded(void **state) {
  (void)state;
  const int shapes[][2] = {{50, 32}, {300, 64}, {129, 200}, {1000, 512}};
  unsigned seed = 12345;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int m = shapes[s][0], n = shapes[s][1];
    double *l = zeroed(n, n), *x = zeroed(m, n), *b = zeroed(m, n);
    for (int j = 0; j < n; j++) {
      l[j + (size_t)j * n] = 1 + (double)rand_r(&seed) / ((double)RAND_MAX + 1);
      for (int i = j + 1; i < n; i++) l[i + (size_t)j * n] = (2 * (double)rand_r(&seed) / RAND_MAX - 1) / n;
    }
    for (size_t k = 0; k < (size_t)m * n; k++) x[k] = 2 * (double)rand_r(&seed) / RAND_MAX - 1;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        long double v = 0;
        for (int t = 0; t <= j; t++) v += (long double)x[i + (size_t)t * m] * l[j + (size_t)t * n];
        b[i + (size_t)j * m] = (double)v;
      }
    mfs_kernel_trsm(m, n, l, n, b, m);
    double err = 0;
    for (size_t k = 0; k < (size_t)m * n; k++) err = fmax(err, fabs(b[k] - x[k]));
    if (!(err <= 1e-13)) fail_msg("m %d n %d: max |X - computed| = %.3g", m, n, err);
    free(l);
    free(x);
    free(b);
  }
}

/* The extend-add kernel against its definition: every entry (q, c) of a child CB tile — the lower
 * half of a diagonal tile — whose parent row cm[q] and column cm[c] fall into the parent tile is
 * added there, and nothing else changes. Small integers, so every sum is exact whatever the order.
 * The problems cover the kernel's three ways: rows whose runs onto consecutive parent rows average
 * 4 or more, shorter runs, and more runs than it keeps (counted here, each way at least once). */
static void test_assemble_paths(void **state) {
  (void)state;
  static const char *specs[] = {"lap3d:16", "lap2d:60", "lap3d:26"};
  static const int nbs[] = {48, 16, 3000};
  int long_runs = 0, short_runs = 0, many_runs = 0;
  /* both orders of the columns inside supernodes: the ordering's own gives the scattered rows of
   * the indexed path and the operations of more than 128 runs */
  for (size_t t = 0; t < 6; t++) {
    mfs_matrix A;
    mfs_options o;
    mfs_options_default(&o);
    if (mfs_ordering_available(MFS_ORDER_METIS)) o.ordering = MFS_ORDER_METIS;
    o.nb = nbs[t % 3];
    o.keep_column_order = t >= 3;
    mfs_symbolic *S = analyze_spec_with(specs[t % 3], &o, &A);
    for (int64_t o = 0; o < S->nops; o++) {
      const mfs_op *op = &S->ops[o];
      if (op->type != MFS_OP_ASSEMBLE) continue;
      const mfs_front *P = &S->fronts[op->front], *C = &S->fronts[op->child];
      const int32_t *pb = S->blkptr + P->blk, *cb = S->blkptr + C->blk, *cm = S->cmap + C->cmap;
      const int32_t cr0 = cb[op->ci], cr1 = cb[op->ci + 1], cc0 = cb[op->cj], cc1 = cb[op->cj + 1];
      const int32_t pr0 = pb[op->i], pr1 = pb[op->i + 1], pc0 = pb[op->j], pc1 = pb[op->j + 1];
      const int32_t ldc = cr1 - cr0, ldp = pr1 - pr0;
      double *ct = malloc((size_t)ldc * (cc1 - cc0) * sizeof *ct), *pt = malloc((size_t)ldp * (pc1 - pc0) * sizeof *pt);
      double *want = malloc((size_t)ldp * (pc1 - pc0) * sizeof *want);
      for (int32_t c = 0; c < cc1 - cc0; c++)
        for (int32_t q = 0; q < ldc; q++) ct[q + (size_t)c * ldc] = 1 + (q * 13 + c * 7) % 11;
      for (int32_t c = 0; c < pc1 - pc0; c++)
        for (int32_t p = 0; p < ldp; p++) pt[p + (size_t)c * ldp] = want[p + (size_t)c * ldp] = (p * 3 + c) % 5;
      int32_t rows = 0, runs = 0, prev = -2; /* the child rows landing in the parent tile, and their runs */
      for (int32_t q = cr0; q < cr1; q++) {
        int32_t pr = cm[q - C->ncol];
        if (pr < pr0 || pr >= pr1) continue;
        rows++;
        runs += pr != prev + 1;
        prev = pr;
      }
      for (int32_t c = cc0; c < cc1; c++) {
        int32_t pc = cm[c - C->ncol];
        if (pc < pc0 || pc >= pc1) continue;
        for (int32_t q = op->ci == op->cj ? c : cr0; q < cr1; q++) {
          int32_t pr = cm[q - C->ncol];
          if (pr >= pr0 && pr < pr1)
            want[(pr - pr0) + (size_t)(pc - pc0) * ldp] += ct[(q - cr0) + (size_t)(c - cc0) * ldc];
        }
      }
      mfs_kernel_assemble(S, op, ct, pt);
      if (memcmp(pt, want, (size_t)ldp * (pc1 - pc0) * sizeof *pt) != 0)
        fail_msg("%s: assembly of child %d tile (%d,%d) into front %d tile (%d,%d) differs", specs[t % 3], op->child,
                 op->ci, op->cj, op->front, op->i, op->j);
      if (runs > 128)
        many_runs++;
      else if (rows >= 4 * runs)
        long_runs++;
      else if (rows > 0)
        short_runs++;
      free(ct);
      free(pt);
      free(want);
    }
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  print_message("# assembly operations: %d with long runs, %d with short runs, %d with more than 128\n", long_runs,
                short_runs, many_runs);
  assert_true(long_runs > 0);
  assert_true(short_runs > 0);
  assert_true(many_runs > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_residual_stencils),
      cmocka_unit_test(test_residual_golden_and_random),
      cmocka_unit_test(test_multiple_rhs_and_refine),
      cmocka_unit_test(test_ops_out_of_order),
      cmocka_unit_test(test_not_spd),
      cmocka_unit_test(test_pivot_messages),
      cmocka_unit_test(test_potrf_kernel_exact),
      cmocka_unit_test(test_potrf_kernel_failed_pivot),
      cmocka_unit_test(test_memory_prediction),
      cmocka_unit_test(test_progress_and_args),
      cmocka_unit_test(test_arena_faults_on_first_write),
      cmocka_unit_test(test_first_touch),
      cmocka_unit_test(test_first_touch_fresh),
      cmocka_unit_test(test_assemble_paths),
      cmocka_unit_test(test_init_front_on_old_data),
      cmocka_unit_test(test_arena_dirty_bytes),
      cmocka_unit_test(test_arena_alloc_at_and_above),
      cmocka_unit_test(test_arena_two_ends),
      cmocka_unit_test(test_arena_ends_avoid_the_hole),
      cmocka_unit_test(test_blas_core_choice),
      cmocka_unit_test(test_trsm_kernel_exact),
      cmocka_unit_test(test_trsm_kernel_rounded),
      cmocka_unit_test(test_trsm_kernel_inverse_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
