/*
 * test_solver_matrix.c — mfsolve input: Matrix Market reader (general/symmetric, every malformed
 * case with its error and line number), generators (exact nnz), triplets, products and norms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfs.h"

#ifndef MFS_GOLDEN_DIR
#define MFS_GOLDEN_DIR "tests/golden"
#endif

static mfs_status read_text(const char *text, mfs_matrix *A, mfs_error *err) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  mfs_status st = mfs_matrix_read_mm_stream(f, "mem.mtx", A, err);
  fclose(f);
  return st;
}

static double entry(const mfs_matrix *A, int i, int j) /* 0-based, any triangle */
{
  if (i < j) {
    int t = i;
    i = j;
    j = t;
  }
  for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++)
    if (A->rowind[p] == i) return A->val[p];
  return 0.0;
}

static void test_golden_symmetric(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_read_mm(MFS_GOLDEN_DIR "/solver_spd5_sym.mtx", &A, &err), MFS_OK);
  assert_int_equal(A.n, 5);
  assert_int_equal(A.nnz, 10);
  assert_int_equal(mfs_matrix_check(&A, &err), MFS_OK);
  assert_true(entry(&A, 0, 0) == 4.0);
  assert_true(entry(&A, 1, 0) == -1.0);
  assert_true(entry(&A, 0, 3) == 0.5);
  assert_true(entry(&A, 3, 2) == -2.0);
  assert_true(entry(&A, 4, 4) == 3.0);
  assert_true(entry(&A, 4, 0) == 0.0);
  mfs_matrix_free(&A);
}

static void test_golden_general_equals_generator(void **state) {
  (void)state;
  mfs_matrix A, G;
  mfs_error err;
  assert_int_equal(mfs_matrix_read_mm(MFS_GOLDEN_DIR "/solver_lap2d_10_gen.mtx", &A, &err), MFS_OK);
  assert_int_equal(mfs_matrix_generate("lap2d:5x2", &G, &err), MFS_OK);
  assert_int_equal(A.n, 10);
  assert_int_equal(A.nnz, G.nnz);
  assert_int_equal(A.nnz, (36 + 10) / 2);
  assert_memory_equal(A.colptr, G.colptr, (A.n + 1) * sizeof *A.colptr);
  assert_memory_equal(A.rowind, G.rowind, A.nnz * sizeof *A.rowind);
  for (int64_t p = 0; p < A.nnz; p++) assert_true(A.val[p] == G.val[p]);
  mfs_matrix_free(&A);
  mfs_matrix_free(&G);
}

static void test_golden_malformed(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_read_mm(MFS_GOLDEN_DIR "/solver_malformed.mtx", &A, &err), MFS_ERR_FORMAT);
  assert_int_equal(err.status, MFS_ERR_FORMAT);
  assert_int_equal(err.line, 7);
  assert_non_null(strstr(err.msg, "solver_malformed.mtx:7:"));
  assert_non_null(strstr(err.msg, "outside"));
  assert_null(A.colptr);
}

static void test_missing_file(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_read_mm("/nonexistent/dir/none.mtx", &A, &err), MFS_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/dir/none.mtx"));
  assert_non_null(strstr(err.msg, "cannot open"));
  assert_non_null(strstr(err.msg, strerror(ENOENT)));
}

/* A directory opens for reading but cannot be read: say so rather than "read error after line 0";
 * a stream that fails to read names the system's reason. */
static void test_directory(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_read_mm(MFS_GOLDEN_DIR, &A, &err), MFS_ERR_IO);
  if (!strstr(err.msg, MFS_GOLDEN_DIR) || !strstr(err.msg, "is a directory")) fail_msg("message: %s", err.msg);
  assert_null(A.colptr);
  FILE *f = fopen(MFS_GOLDEN_DIR, "r");
  assert_non_null(f);
  assert_int_equal(mfs_matrix_read_mm_stream(f, "dir", &A, &err), MFS_ERR_IO);
  fclose(f);
  if (!strstr(err.msg, "dir: read error") || !strstr(err.msg, strerror(EISDIR))) fail_msg("message: %s", err.msg);
}

typedef struct {
  const char *name;
  const char *text;
  mfs_status status;
  long line;
  const char *needle;
} bad_case;

#define SYM "%%MatrixMarket matrix coordinate real symmetric\n"
#define GEN "%%MatrixMarket matrix coordinate real general\n"

static const bad_case bad_cases[] = {
    {"empty file", "", MFS_ERR_FORMAT, 1, "empty file"},
    {"misspelt banner", "%%MatrixMarkt matrix coordinate real symmetric\n2 2 1\n1 1 1\n", MFS_ERR_FORMAT, 1, "banner"},
    {"no banner", "2 2 1\n1 1 1\n", MFS_ERR_FORMAT, 1, "banner"},
    {"short banner", "%%MatrixMarket matrix coordinate real\n2 2 1\n1 1 1\n", MFS_ERR_FORMAT, 1, "banner"},
    {"long banner", "%%MatrixMarket matrix coordinate real symmetric extra\n", MFS_ERR_FORMAT, 1, "banner"},
    {"vector object", "%%MatrixMarket vector coordinate real general\n", MFS_ERR_UNSUPPORTED, 1, "object"},
    {"array format", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n", MFS_ERR_UNSUPPORTED, 1, "array"},
    {"unknown format", "%%MatrixMarket matrix sparse real general\n", MFS_ERR_FORMAT, 1, "format"},
    {"complex field", "%%MatrixMarket matrix coordinate complex general\n", MFS_ERR_UNSUPPORTED, 1, "complex"},
    {"pattern field", "%%MatrixMarket matrix coordinate pattern symmetric\n", MFS_ERR_UNSUPPORTED, 1, "pattern"},
    {"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n", MFS_ERR_FORMAT, 1, "field"},
    {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n", MFS_ERR_UNSUPPORTED, 1, "hermitian"},
    {"skew", "%%MatrixMarket matrix coordinate real skew-symmetric\n", MFS_ERR_UNSUPPORTED, 1, "skew"},
    {"unknown symmetry", "%%MatrixMarket matrix coordinate real lopsided\n", MFS_ERR_FORMAT, 1, "symmetry"},
    {"no size line", SYM "% only comments\n%\n\n", MFS_ERR_FORMAT, 5, "size line"},
    {"two sizes", SYM "% c\n3 3\n1 1 1\n", MFS_ERR_FORMAT, 3, "size line"},
    {"four sizes", SYM "3 3 1 7\n1 1 1\n", MFS_ERR_FORMAT, 2, "size line"},
    {"non-integer size", SYM "3 3 x\n", MFS_ERR_FORMAT, 2, "integers"},
    {"real size", SYM "3.0 3 1\n", MFS_ERR_FORMAT, 2, "integers"},
    {"non-square", GEN "3 4 2\n1 1 1\n2 2 1\n", MFS_ERR_UNSUPPORTED, 2, "square"},
    {"negative size", SYM "-3 -3 1\n", MFS_ERR_FORMAT, 2, "positive"},
    {"zero size", SYM "0 0 0\n", MFS_ERR_FORMAT, 2, "positive"},
    {"too many for symmetric", SYM "2 2 4\n", MFS_ERR_FORMAT, 2, "NNZ"},
    {"huge dimension", SYM "99999999999 99999999999 1\n", MFS_ERR_OVERFLOW, 2, "32-bit"},
    {"overflowing integer", SYM "999999999999999999999999 3 1\n", MFS_ERR_FORMAT, 2, "integers"},
    {"entry with two fields", SYM "3 3 3\n1 1 1.0\n2 2\n", MFS_ERR_FORMAT, 4, "row column value"},
    {"entry with four fields", SYM "3 3 3\n1 1 1.0\n2 2 1.0 5\n", MFS_ERR_FORMAT, 4, "row column value"},
    {"real row index", SYM "3 3 3\n1.5 1 2.0\n", MFS_ERR_FORMAT, 3, "row index"},
    {"bad column index", SYM "3 3 3\n1 one 2.0\n", MFS_ERR_FORMAT, 3, "column index"},
    {"bad value", SYM "3 3 3\n1 1 abc\n", MFS_ERR_FORMAT, 3, "not a number"},
    {"trailing junk value", SYM "3 3 3\n1 1 2.0x\n", MFS_ERR_FORMAT, 3, "not a number"},
    {"infinite value", SYM "3 3 3\n1 1 inf\n", MFS_ERR_FORMAT, 3, "finite"},
    {"overflowing value", SYM "3 3 3\n1 1 1e999\n", MFS_ERR_FORMAT, 3, "finite"},
    {"nan value", SYM "3 3 3\n1 1 nan\n", MFS_ERR_FORMAT, 3, "finite"},
    /* finite values whose duplicates sum to infinity (found by fuzzing, tests/fuzz/corpus/mm_read) */
    {"duplicates summing to infinity", SYM "2 2 3\n1 1 1e308\n2 2 1\n1 1 1e308\n", MFS_ERR_FORMAT, 3,
     "(1,1) sum to inf"},
    {"general: upper duplicates summing to infinity", GEN "3 3 6\n1 1 1\n2 1 1\n1 2 1e308\n1 2 1e308\n2 2 1\n3 3 1\n",
     MFS_ERR_FORMAT, 5, "(1,2) sum to inf"},
    {"row out of range", SYM "3 3 3\n1 1 1\n4 1 1\n", MFS_ERR_FORMAT, 4, "outside"},
    {"zero index", SYM "3 3 3\n0 1 1\n", MFS_ERR_FORMAT, 3, "outside"},
    {"negative column", SYM "3 3 3\n1 -1 1\n", MFS_ERR_FORMAT, 3, "outside"},
    {"too few entries", SYM "% c\n3 3 3\n1 1 1\n2 2 1\n", MFS_ERR_FORMAT, 6, "2 of the 3"},
    {"too many entries", SYM "2 2 2\n1 1 1\n2 2 1\n\n2 1 1\n", MFS_ERR_FORMAT, 6, "more entries"},
    {"binary garbage", SYM "3 3 3\n\x01\x02\xff\xfe 1 1\n", MFS_ERR_FORMAT, 3, "row index"},
    {"general not symmetric", GEN "3 3 4\n1 1 4\n2 1 -1\n1 2 -2\n2 2 4\n", MFS_ERR_NOT_SYMMETRIC, 4, "not symmetric"},
    {"general missing mirror", GEN "3 3 4\n1 1 4\n2 2 4\n3 3 4\n3 1 -1\n", MFS_ERR_NOT_SYMMETRIC, 6, "A(3,1)"},
    {"general upper only", GEN "2 2 3\n1 1 4\n1 2 -1\n2 2 4\n", MFS_ERR_NOT_SYMMETRIC, 4, "not symmetric"},
    /* an SPD matrix has a full diagonal: a file declaring fewer than n entries is refused at its
     * size line, before anything of size n exists */
    {"fewer entries than the order", SYM "3 3 2\n1 1 1\n2 2 1\n", MFS_ERR_UNSUPPORTED, 2, "at least 3 entries"},
    {"general: fewer entries than the order", GEN "3 3 2\n1 1 1\n2 2 1\n", MFS_ERR_UNSUPPORTED, 2, "diagonal"},
    {"no entries", SYM "2 2 0\n", MFS_ERR_UNSUPPORTED, 2, "NNZ = 0"},
    {"huge order, one entry", SYM "10000000 10000000 1\n1 1 1.0\n", MFS_ERR_UNSUPPORTED, 2, "positive definite"},
};

static void test_malformed_cases(void **state) {
  (void)state;
  for (size_t c = 0; c < sizeof bad_cases / sizeof *bad_cases; c++) {
    const bad_case *bc = &bad_cases[c];
    mfs_matrix A;
    mfs_error err;
    memset(&err, 0, sizeof err);
    mfs_status st = read_text(bc->text, &A, &err);
    if (st != bc->status || err.line != bc->line || !strstr(err.msg, bc->needle)) {
      fail_msg("case '%s': got status %d line %ld msg '%s'; expected status %d line %ld containing '%s'", bc->name, st,
               err.line, err.msg, bc->status, bc->line, bc->needle);
    }
    assert_int_equal(err.status, bc->status);
    assert_null(A.colptr); /* nothing half-built is returned */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "mem.mtx:%ld:", bc->line);
    if (bc->status != MFS_ERR_IO) assert_non_null(strstr(err.msg, prefix));
  }
}

/* A NUL byte inside a line (a binary file, a truncated copy): refused at that line, with no byte of
 * the line in the message (it cannot be printed) */
static void test_nul_byte(void **state) {
  (void)state;
  static const char text[] = SYM "3 3 3\n1 1 4\n2 2 4\0x\n3 3 4\n";
  mfs_matrix A;
  mfs_error err;
  memset(&err, 0, sizeof err);
  FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
  assert_non_null(f);
  assert_int_equal(mfs_matrix_read_mm_stream(f, "mem.mtx", &A, &err), MFS_ERR_FORMAT);
  fclose(f);
  assert_int_equal(err.line, 4);
  assert_string_equal(err.msg, "mem.mtx:4: the line holds a NUL byte (not a text file?)");
  assert_null(A.colptr);
}

static void test_lenient_forms(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  /* comments, blank lines, CRLF, upper-triangle entries mirrored, duplicates summed, integer field */
  const char *text = "%%MatrixMarket matrix coordinate integer symmetric\r\n"
                     "% comment\r\n"
                     "\r\n"
                     "  3   3   5  \r\n"
                     "1 1 2\r\n"
                     "1 2 -1\r\n" /* upper: mirrored to (2,1) */
                     "2 2 3\r\n"
                     "2 2 1\r\n" /* duplicate: summed */
                     "3 3 5\r\n"
                     "\r\n";
  assert_int_equal(read_text(text, &A, &err), MFS_OK);
  assert_int_equal(A.n, 3);
  assert_int_equal(A.nnz, 4);
  assert_true(entry(&A, 1, 0) == -1.0);
  assert_true(entry(&A, 1, 1) == 4.0);
  assert_int_equal(mfs_matrix_check(&A, &err), MFS_OK);
  mfs_matrix_free(&A);

  /* general format: symmetric values accepted, explicit zero matches a missing mirror */
  text = GEN "3 3 6\n1 1 4\n2 1 -1\n1 2 -1\n2 2 4\n3 1 0\n3 3 4\n";
  assert_int_equal(read_text(text, &A, &err), MFS_OK);
  assert_int_equal(A.nnz, 5);
  assert_true(entry(&A, 0, 1) == -1.0);
  mfs_matrix_free(&A);

  /* exactly n entries (a diagonal matrix) is the least an SPD file holds */
  assert_int_equal(read_text(SYM "3 3 3\n1 1 1\n2 2 2\n3 3 3\n", &A, &err), MFS_OK);
  assert_int_equal(A.nnz, 3);
  mfs_matrix_free(&A);
}

/* A header declaring a huge order and a single entry is refused before O(n) memory is taken
 * (it used to take 4 GB and seconds to fail in the factorization). */
static void test_huge_order_few_entries(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  mfs_mem_reset_peak();
  int64_t base = mfs_mem_current();
  assert_int_equal(read_text(SYM "10000000 10000000 1\n1 1 1.0\n", &A, &err), MFS_ERR_UNSUPPORTED);
  assert_true(mfs_mem_peak() - base < (1 << 20));
  assert_null(A.colptr);
  assert_non_null(strstr(err.msg, "mem.mtx:2: "));
  assert_non_null(strstr(err.msg, "NNZ = 1 "));
  assert_non_null(strstr(err.msg, "n = 10000000"));
}

/* Random corruptions of a valid file: every outcome is a clean status, errors carry a line. */
static void test_mutations_never_crash(void **state) {
  (void)state;
  const char *base = "%%MatrixMarket matrix coordinate real general\n"
                     "% comment line\n"
                     "4 4 8\n"
                     "1 1 4.0\n2 1 -1.0\n1 2 -1.0\n2 2 4.0\n3 3 4.0\n4 3 -1.5\n3 4 -1.5\n4 4 4.0\n";
  static const char alphabet[] = "0123456789 \n\t.-+eE%xnai\r";
  size_t len = strlen(base);
  char *buf = malloc(len + 64);
  uint64_t seed = 1;
  int ok = 0, bad = 0;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(buf, base, len + 1);
    size_t cur = len;
    int edits = 1 + iter % 4;
    for (int e = 0; e < edits; e++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(seed >> 33) % cur;
      char ch = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
      switch ((seed >> 8) % 3) {
      case 0: buf[at] = ch; break; /* replace */
      case 1:                      /* insert */
        memmove(buf + at + 1, buf + at, cur - at + 1);
        buf[at] = ch;
        cur++;
        break;
      default: /* delete */ memmove(buf + at, buf + at + 1, cur - at); cur--;
      }
    }
    mfs_matrix A;
    mfs_error err;
    memset(&err, 0, sizeof err);
    mfs_status st = read_text(buf, &A, &err);
    if (st == MFS_OK) {
      assert_int_equal(mfs_matrix_check(&A, &err), MFS_OK);
      mfs_matrix_free(&A);
      ok++;
    } else {
      assert_true(st == MFS_ERR_FORMAT || st == MFS_ERR_UNSUPPORTED || st == MFS_ERR_NOT_SYMMETRIC ||
                  st == MFS_ERR_OVERFLOW);
      assert_true(err.line >= 1);
      assert_true(strlen(err.msg) > 0);
      assert_null(A.colptr);
      bad++;
    }
  }
  assert_true(ok > 0 && bad > 0);
  free(buf);
}

/* ---- generators */

static int64_t lap2d_lower(int64_t nx, int64_t ny) { return nx * ny + (nx - 1) * ny + nx * (ny - 1); }
static int64_t lap3d_lower(int64_t nx, int64_t ny, int64_t nz) {
  return nx * ny * nz + (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
}
static int64_t lap27_lower(int64_t nx, int64_t ny, int64_t nz) {
  int64_t full = (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2); /* every point couples to a 3x3x3 box */
  return (full + nx * ny * nz) / 2;
}

static void check_stencil(const mfs_matrix *A, double diag) {
  mfs_error err;
  assert_int_equal(mfs_matrix_check(A, &err), MFS_OK);
  /* symmetric, diagonal first in each column, weak diagonal dominance */
  double *rowsum = calloc((size_t)A->n, sizeof *rowsum);
  for (int32_t j = 0; j < A->n; j++) {
    assert_int_equal(A->rowind[A->colptr[j]], j);
    assert_true(A->val[A->colptr[j]] == diag);
    for (int64_t p = A->colptr[j] + 1; p < A->colptr[j + 1]; p++) {
      assert_true(A->val[p] == -1.0);
      rowsum[A->rowind[p]] += 1;
      rowsum[j] += 1;
    }
  }
  for (int32_t i = 0; i < A->n; i++) assert_true(rowsum[i] <= diag);
  free(rowsum);
}

static void test_generators_nnz(void **state) {
  (void)state;
  static const int dims[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 3, 1},  {2, 2, 2},
                                {3, 4, 5}, {7, 7, 7}, {10, 3, 2}, {13, 1, 9}};
  mfs_error err;
  for (size_t t = 0; t < sizeof dims / sizeof *dims; t++) {
    int nx = dims[t][0], ny = dims[t][1], nz = dims[t][2];
    mfs_matrix A;
    assert_int_equal(mfs_matrix_stencil(MFS_STENCIL_LAP2D5, nx, ny, 1, &A, &err), MFS_OK);
    assert_int_equal(A.n, nx * ny);
    assert_int_equal(A.nnz, lap2d_lower(nx, ny));
    check_stencil(&A, 4.0);
    mfs_matrix_free(&A);
    assert_int_equal(mfs_matrix_stencil(MFS_STENCIL_LAP3D7, nx, ny, nz, &A, &err), MFS_OK);
    assert_int_equal(A.n, nx * ny * nz);
    assert_int_equal(A.nnz, lap3d_lower(nx, ny, nz));
    check_stencil(&A, 6.0);
    mfs_matrix_free(&A);
    assert_int_equal(mfs_matrix_stencil(MFS_STENCIL_LAP3D27, nx, ny, nz, &A, &err), MFS_OK);
    assert_int_equal(A.nnz, lap27_lower(nx, ny, nz));
    check_stencil(&A, 26.0);
    mfs_matrix_free(&A);
  }
  /* spec strings */
  mfs_matrix A;
  assert_int_equal(mfs_matrix_generate("lap2d:100", &A, &err), MFS_OK);
  assert_int_equal(A.n, 10000);
  assert_int_equal(A.nnz, lap2d_lower(100, 100));
  assert_int_equal(2 * A.nnz - A.n, 5 * 10000 - 4 * 100); /* full 5-point count */
  mfs_matrix_free(&A);
  assert_int_equal(mfs_matrix_generate("lap3d:30", &A, &err), MFS_OK);
  assert_int_equal(A.n, 27000);
  assert_int_equal(2 * A.nnz - A.n, 7 * 27000 - 6 * 900);
  mfs_matrix_free(&A);
  assert_int_equal(mfs_matrix_generate("lap3d27:12", &A, &err), MFS_OK);
  assert_int_equal(2 * A.nnz - A.n, 34 * 34 * 34);
  mfs_matrix_free(&A);
  assert_int_equal(mfs_matrix_generate("lap3d:4x5x6", &A, &err), MFS_OK);
  assert_int_equal(A.nnz, lap3d_lower(4, 5, 6));
  mfs_matrix_free(&A);
  assert_int_equal(mfs_matrix_generate("lap2d:8x3", &A, &err), MFS_OK);
  assert_int_equal(A.nnz, lap2d_lower(8, 3));
  mfs_matrix_free(&A);

  static const char *bad[] = {"lap2d",           "lap2d:",    "lap2d:0", "lap2d:-3", "lap2d:3x",
                              "lap2d:3x4x5",     "lap3d:2x3", "lap3d:a", "lap4d:3",  "poisson:10",
                              "lap3d27:1x2x3x4", "lap2d:3y4", ""};
  for (size_t t = 0; t < sizeof bad / sizeof *bad; t++) {
    if (mfs_matrix_generate(bad[t], &A, &err) != MFS_ERR_ARG) fail_msg("spec '%s' accepted", bad[t]);
    assert_null(A.colptr);
  }
  assert_int_equal(mfs_matrix_generate(NULL, &A, &err), MFS_ERR_ARG);
  assert_int_equal(mfs_matrix_stencil(MFS_STENCIL_LAP2D5, 3, 3, 2, &A, &err), MFS_ERR_ARG);
}

static void test_triplets_symv_norm(void **state) {
  (void)state;
  /* (i,j) and (j,i) are the same entry; duplicates sum */
  int32_t ri[] = {0, 1, 0, 2, 2, 1, 1};
  int32_t ci[] = {0, 0, 1, 2, 0, 1, 1};
  double v[] = {4, -1, -1, 5, 2, 3, 1};
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_from_triplets(3, 7, ri, ci, v, &A, &err), MFS_OK);
  assert_int_equal(A.nnz, 5);
  assert_true(entry(&A, 0, 1) == -2.0);
  assert_true(entry(&A, 1, 1) == 4.0);
  assert_true(entry(&A, 0, 2) == 2.0);
  double dense[3][3] = {{4, -2, 2}, {-2, 4, 0}, {2, 0, 5}};
  double x[3] = {1.5, -2.0, 0.25}, y[3];
  mfs_matrix_symv(&A, x, y);
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int j = 0; j < 3; j++) s += dense[i][j] * x[j];
    assert_true(fabs(s - y[i]) < 1e-15);
  }
  assert_true(mfs_matrix_norm_inf(&A) == 8.0);
  mfs_matrix_free(&A);
  int32_t bad_r[] = {3};
  int32_t bad_c[] = {0};
  assert_int_equal(mfs_matrix_from_triplets(3, 1, bad_r, bad_c, v, &A, &err), MFS_ERR_ARG);
}

static void test_check_rejects(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap2d:3", &A, &err), MFS_OK);
  int32_t keep = A.rowind[1];
  A.rowind[1] = 0; /* above the diagonal of column 0? no: duplicate of the diagonal row */
  assert_int_equal(mfs_matrix_check(&A, &err), MFS_ERR_ARG);
  A.rowind[1] = keep;
  A.val[2] = NAN;
  assert_int_equal(mfs_matrix_check(&A, &err), MFS_ERR_ARG);
  A.val[2] = -1;
  assert_int_equal(mfs_matrix_check(&A, &err), MFS_OK);
  mfs_matrix_free(&A);
  assert_string_equal(mfs_strerror(MFS_ERR_NOT_SPD), "matrix is not positive definite");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_symmetric), cmocka_unit_test(test_golden_general_equals_generator),
      cmocka_unit_test(test_golden_malformed), cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_malformed_cases),  cmocka_unit_test(test_nul_byte),
      cmocka_unit_test(test_lenient_forms),    cmocka_unit_test(test_mutations_never_crash),
      cmocka_unit_test(test_generators_nnz),   cmocka_unit_test(test_triplets_symv_norm),
      cmocka_unit_test(test_check_rejects),    cmocka_unit_test(test_huge_order_few_entries),
      cmocka_unit_test(test_directory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
