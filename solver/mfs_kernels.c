/*
 * mfs_kernels.c — the per-tile computations. Each takes raw column-major arrays (or a front's tile
 * table), so a StarPU codelet can call it with the pointers of its data handles.
 *
 * BLAS runs single-threaded: parallelism belongs to the executor, and at tile sizes two OpenBLAS
 * threads are slower than one. Denormals are flushed because they make
 * the same kernels 10-16x slower.
 */
#include "mfs_internal.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

/* LAPACK from OpenBLAS (no LAPACKE header on Debian's openblas-pthread); the trailing size_t is
 * gfortran's hidden length of the character argument. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);

void mfs_kernels_init(void) { openblas_set_num_threads(1); }

unsigned mfs_fpu_flush_denormals(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned old = _mm_getcsr();
  _mm_setcsr(old | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
  return old;
#else
  return 0;
#endif
}

unsigned fpu__keep_denormals(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned old = _mm_getcsr();
  _mm_setcsr(old & ~0x8040u);
  return old;
#else
  return 0;
#endif
}

void mfs_fpu_restore(unsigned csr) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(csr);
#else
  (void)csr;
#endif
}

/* Widest triangle the recursive solve below solves at its leaves. */
#define TRSM_LEAF 32
/* Widest block the recursive Cholesky below hands to dpotrf. */
#define POTRF_LEAF 128

/* A = L L^T, recursively: with A = [A11 .; A21 A22] split at n1 = n/2 columns, L11 from A11, then
 * L21 = A21 L11^-T (mfs_kernel_trsm), A22 -= L21 L21^T (dsyrk) and L22 from A22. The operations of
 * a blocked Cholesky, but the off-diagonal solves go through the recursive solve below instead of
 * OpenBLAS's triangular kernels, which its dpotrf uses. One core of the Intel host (SkylakeX
 * kernels), best of 7, n = 512 / 1024 / 2048: dpotrf 32 / 37 / 42 GFlop/s, this 38 / 52 / 60 (the
 * diagonal tiles of the sequential executor's large fronts are 1024 wide); at 256 the same (18).
 * Returns LAPACK's info: the column (1-based) whose pivot failed, 0 when none did; the failed
 * pivot's row then holds L in the columns before it (factor__potrf recomputes the pivot's value
 * from it), as dpotrf leaves it; rows below the failing block are not reached. */
int mfs_kernel_potrf(int n, double *a, int lda) {
  int info = 0;
  if (n <= POTRF_LEAF) {
    dpotrf_("L", &n, a, &lda, &info, 1);
    return info;
  }
  int n1 = n / 2, n2 = n - n1;
  double *a21 = a + n1, *a22 = a + n1 + (int64_t)n1 * lda;
  if ((info = mfs_kernel_potrf(n1, a, lda)) != 0) return info;
  mfs_kernel_trsm(n2, n1, a, lda, a21, lda);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n2, n1, -1.0, a21, lda, 1.0, a22, lda);
  info = mfs_kernel_potrf(n2, a22, lda);
  return info ? info + n1 : 0;
}

extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda, int *info,
                    size_t uplo_len, size_t diag_len);

/* A leaf, B := B L^-T for n <= TRSM_LEAF columns: the triangle inverted (dtrtri, n^3/3 flops on a
 * copy), then B times it (dtrmm), as GPU BLAS libraries solve small triangles: OpenBLAS's dtrmm runs
 * at GEMM-like speed where its dtrsm on a narrow triangle does not. One core of the Intel host
 * (SkylakeX kernels), whole recursive solve, best of 7: m x n = 2000 x 512 40 -> 48 GFlop/s,
 * 1000 x 256 31 -> 41, 500 x 128 17 -> 25, 300 x 64 10 -> 18. Only a 32 x 32 triangle is inverted:
 * its condition number bounds what the inverse costs in accuracy, where the rest of the solve
 * goes through dgemm as before (test_solver_numeric checks X to 1e-13 on rounded data). A
 * triangle dtrtri cannot invert (an exact zero on its diagonal), or whose inverse overflows, goes to
 * dtrsm. */
static void trsm_leaf(int m, int n, const double *l, int ldl, double *b, int ldb) {
  double inv[TRSM_LEAF * TRSM_LEAF];
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) inv[i + j * n] = l[i + (int64_t)j * ldl];
  int info = 0;
  dtrtri_("L", "N", &n, inv, &n, &info, 1, 1);
  /* an inverse that overflowed (pivots tiny against the entries below them, where the solve itself
   * stays finite): an infinity or a NaN in it (an OR of integers: the loop vectorizes) */
  int overflow = 0;
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) overflow |= !(fabs(inv[i + j * n]) <= DBL_MAX);
  if (info == 0 && !overflow)
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, inv, n, b, ldb);
  else
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, m, n, 1.0, l, ldl, b, ldb);
}

/* B := B L^-T, recursively: with L = [L11 0; L21 L22] split at n1 columns, X1 = B1 L11^-T, then
 * X2 = (B2 - X1 L21^T) L22^-T. The same operations as dtrsm's, but most of its flops go through
 * dgemm: OpenBLAS's own dtrsm (Right, Lower, Trans) runs at 14-15 GFlop/s on one core here for
 * 256-column tiles, the recursion at 23-28 (dgemm: 55-64), and the triangular solves were 14 % of
 * a one-core factorization of lap3d:50. Stops at TRSM_LEAF columns, below which the calls cost
 * more than they save. */
void mfs_kernel_trsm(int m, int n, const double *l, int ldl, double *b, int ldb) {
  if (n <= TRSM_LEAF) {
    trsm_leaf(m, n, l, ldl, b, ldb);
    return;
  }
  int n1 = n / 2, n2 = n - n1;
  mfs_kernel_trsm(m, n1, l, ldl, b, ldb);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n2, n1, -1.0, b, ldb, l + n1, ldl, 1.0, b + (int64_t)n1 * ldb,
              ldb);
  mfs_kernel_trsm(m, n2, l + n1 + (int64_t)n1 * ldl, ldl, b + (int64_t)n1 * ldb, ldb);
}

void mfs_kernel_syrk(int n, int k, const double *a, int lda, double *c, int ldc) {
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, k, -1.0, a, lda, 1.0, c, ldc);
}

void mfs_kernel_gemm(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c, int ldc) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, a, lda, b, ldb, 1.0, c, ldc);
}

/* Fresh pages of [p, p + n) from which the first touch by one write each would be dearer than a
 * system call: MADV_POPULATE_WRITE faults them in without a trap per page (300 MiB of 4 KiB pages
 * on the development VM: 0.08 s against 0.13-0.16 s for a write per page). */
#define POPULATE_MIN_BYTES ((size_t)64 << 10)
/* One call holds the process's memory-map lock (shared) while it faults its whole range in (a
 * root front: 100 MB and more, tens of milliseconds on a VM): a thread that maps or unmaps memory
 * meanwhile (malloc, MPI, StarPU) waits for it, and the page faults of every other thread queue
 * behind that waiting writer. Steps of 4 MiB bound that wait; the extra calls cost nothing. */
#define POPULATE_STEP_BYTES ((size_t)4 << 20)

void kernel__first_touch(double *p, size_t n) { kernel__first_touch_steps(p, n, POPULATE_STEP_BYTES); }

void kernel__first_touch_steps(double *p, size_t n, size_t step) {
  const size_t page = 4096, per_page = page / sizeof *p;
  size_t from = 0; /* elements of p already faulted in */
#ifdef MADV_POPULATE_WRITE
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1), hi = (uintptr_t)(p + n) & ~(uintptr_t)(page - 1);
  if (hi > lo && hi - lo >= POPULATE_MIN_BYTES) {
    if ((uintptr_t)p < lo) p[0] = 0.0; /* the partial page at the start */
    uintptr_t a = lo;
    for (; a < hi; a += step) {
      size_t len = hi - a < step ? hi - a : step;
      if (madvise((void *)a, len, MADV_POPULATE_WRITE) != 0) break; /* the rest by writes */
    }
    if (a >= hi) { /* all of it populated: the partial page at the end */
      if (hi < (uintptr_t)(p + n)) p[n - 1] = 0.0;
      return;
    }
    from = (size_t)((double *)a - p); /* a failed step: from its page on, a write per page */
  }
#endif
  for (size_t k = from; k < n; k += per_page) p[k] = 0.0;
  p[n - 1] = 0.0; /* the last page, when the stride stepped over its start */
}

void kernel__first_touch_fresh(double *block, size_t dirty, size_t bytes) {
  const size_t from = (dirty + sizeof(double) - 1) / sizeof(double), n = bytes / sizeof(double);
  if (block && from < n) kernel__first_touch(block + from, n - from);
}

/* How many leading elements of [p, p + n) may hold old data: those below zero_from (all without it). */
static size_t old_part(const double *p, size_t n, const double *zero_from) {
  if (!zero_from || zero_from >= p + n) return n;
  return zero_from > p ? (size_t)(zero_from - p) : 0;
}

/* Zeroes the part of [p, p + n) below zero_from (all of it when zero_from is NULL). The part from
 * zero_from on is fresh memory, zero already, but its pages may never have been touched: they are
 * faulted in for writing. Otherwise the first touch of most of them is the read of an update
 * (assembly or BLAS: read, add, write), which maps the shared zero page and then faults again to
 * copy it at the write (with transparent huge pages: a second fault and a 2 MiB clear, 1.8 % of an
 * mfsolve run's samples on lap3d:50). */
static void zero_below(double *p, size_t n, const double *zero_from) {
  size_t z = old_part(p, n, zero_from);
  if (z) memset(p, 0, z * sizeof *p);
  if (z < n) kernel__first_touch(p + z, n - z);
}

/* The same for a diagonal tile of a contribution block (nb x nb, column-major), of which only the
 * lower triangle is ever read or written (the assembly into it, dsyrk, and the assembly of it into
 * the parent take the lower half; an MPI transfer carries the rest unread): the part that may hold
 * old data is zeroed column by column from the diagonal down, half the bytes of zero_below. Fresh
 * memory is faulted in whole, as there. One core, lap3d:50: the zeroing's memset 3.9 -> 3.4 % of
 * the run's samples (most of the bytes are in the off-diagonal tiles of large fronts' CBs), the
 * inits 6 % shorter against the updates' time (3 pairs). */
static void zero_lower_below(double *p, size_t nb, const double *zero_from) {
  size_t n = nb * nb, z = old_part(p, n, zero_from);
  for (size_t c = 0; c < nb && c * nb < z; c++) { /* column c: rows c .. nb-1, below z */
    size_t from = c * nb + c, to = (c + 1) * nb < z ? (c + 1) * nb : z;
    if (from < to) memset(p + from, 0, (to - from) * sizeof *p);
  }
  if (z < n) kernel__first_touch(p + z, n - z);
}

void mfs_kernel_init_front(const mfs_symbolic *S, int32_t f, const double *aval, double *const *tiles) {
  kernel__init_front(S, f, aval, tiles, NULL, NULL);
}

/* a_lrow already holds the front-local row of each entry and rows ascend within a column, so the
 * tile row only moves forward. */
void kernel__init_front(const mfs_symbolic *S, int32_t f, const double *aval, double *const *tiles,
                        const double *l_zero_from, const double *cb_zero_from) {
  const mfs_front *F = &S->fronts[f];
  const int32_t *b = S->blkptr + F->blk;
  for (int32_t j = 0; j < F->nbt; j++)
    for (int32_t i = j; i < F->nbt; i++) {
      double *t = tiles[mfs_tile_index(F->nbt, i, j)];
      if (!t) continue;
      if (i == j && j >= F->nbp)
        zero_lower_below(t, (size_t)(b[j + 1] - b[j]), cb_zero_from);
      else
        zero_below(t, (size_t)(b[i + 1] - b[i]) * (size_t)(b[j + 1] - b[j]), j < F->nbp ? l_zero_from : cb_zero_from);
    }
  const int32_t *lrow = S->a_lrow;
  const int64_t *src = S->a_src;
  int32_t bj = 0;
  for (int32_t lc = 0; lc < F->ncol; lc++) {
    int32_t j = F->col0 + lc;
    while (lc >= b[bj + 1]) bj++;
    int32_t bi = bj;
    int64_t wc = lc - b[bj];
    double *t = tiles[mfs_tile_index(F->nbt, bi, bj)];
    int64_t ld = b[bi + 1] - b[bi];
    for (int64_t p = S->a_colptr[j]; p < S->a_colptr[j + 1]; p++) {
      int32_t lr = lrow[p];
      if (lr >= b[bi + 1]) {
        do bi++;
        while (lr >= b[bi + 1]);
        t = tiles[mfs_tile_index(F->nbt, bi, bj)];
        ld = b[bi + 1] - b[bi];
      }
      if (t) t[(lr - b[bi]) + wc * ld] = aval[src[p]];
    }
  }
}

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

/* d[t] += s[t] for t < n, two doubles per operation (GCC vector extension: SSE2 on x86-64, the
 * target's vector unit or scalar code elsewhere). -O2 does not vectorise a loop whose trip count
 * it does not know; each sum is the same single addition either way, so the result is bitwise the
 * same. */
static void add_into(double *restrict d, const double *restrict s, int32_t n) {
  typedef double v2d __attribute__((vector_size(16)));
  int32_t t = 0;
  for (; t + 4 <= n; t += 4) {
    v2d a0, a1, b0, b1;
    memcpy(&a0, d + t, sizeof a0);
    memcpy(&a1, d + t + 2, sizeof a1);
    memcpy(&b0, s + t, sizeof b0);
    memcpy(&b1, s + t + 2, sizeof b1);
    a0 += b0;
    a1 += b1;
    memcpy(d + t, &a0, sizeof a0);
    memcpy(d + t + 2, &a1, sizeof a1);
  }
  for (; t < n; t++) d[t] += s[t];
}

/* Runs of child rows that land on consecutive parent rows, found once per operation: the add of
 * each column then goes run by run. Below this average length an indexed add per entry is cheaper. */
#define ASSEMBLE_RUNS_MAX 128
#define ASSEMBLE_RUN_MIN_AVG 4

/* Extend-add of the part of child CB tile (ci,cj) that falls into parent tile (i,j). The child's
 * relative map cm is ascending, so that part is a rectangle of child rows [r0,r1) x columns
 * [c0,c1) (lower half only on a child diagonal tile). The rows split into runs that map onto
 * consecutive parent rows: each run of a column is one vector add; with short runs, one indexed add
 * per entry. On lap3d:60, 55 % of the entries are in operations whose runs average 4 rows or more;
 * the sequential run's samples in this function (perf, 2 kHz, five runs each) fell from 910-1044
 * (mean 969) to 817-979 (873), -10 %, about 0.05 s of 5.7 s: the rest is the memory traffic of the
 * child's and the parent's tiles. */
void mfs_kernel_assemble(const mfs_symbolic *S, const mfs_op *op, const double *ctile, double *ptile) {
  const mfs_front *P = &S->fronts[op->front], *C = &S->fronts[op->child];
  const int32_t *pb = S->blkptr + P->blk, *cb = S->blkptr + C->blk;
  /* child rows are counted from the start of the CB here (q = local row - ncol) */
  const int32_t *cm = S->cmap + C->cmap, off = C->ncol;
  const int32_t ci = op->ci, cj = op->cj, pi = op->i, pj = op->j;
  const int32_t crow0 = cb[ci] - off, crow1 = cb[ci + 1] - off;
  const int32_t ccol0 = cb[cj] - off, ccol1 = cb[cj + 1] - off;
  int32_t r0 = lower_bound(cm, crow0, crow1, pb[pi]);
  int32_t r1 = lower_bound(cm, crow0, crow1, pb[pi + 1]);
  int32_t c0 = lower_bound(cm, ccol0, ccol1, pb[pj]);
  int32_t c1 = lower_bound(cm, ccol0, ccol1, pb[pj + 1]);
  if (r0 >= r1 || c0 >= c1) return;
  const int64_t ldc = crow1 - crow0, ldp = pb[pi + 1] - pb[pi];
  const int32_t prow0 = pb[pi], pcol0 = pb[pj];
  const int diag = (ci == cj);
  int32_t run[ASSEMBLE_RUNS_MAX + 1], nrun = 0; /* run k: child rows [run[k], run[k + 1]) */
  for (int32_t q = r0; q < r1 && nrun <= ASSEMBLE_RUNS_MAX; q++)
    if (q == r0 || cm[q] != cm[q - 1] + 1) run[nrun++] = q;
  const int runs = nrun <= ASSEMBLE_RUNS_MAX && (r1 - r0) >= ASSEMBLE_RUN_MIN_AVG * nrun;
  if (runs) run[nrun] = r1;
  for (int32_t c = c0; c < c1; c++) {
    int32_t rs = (diag && c > r0) ? c : r0;
    const double *s = ctile + (int64_t)(c - ccol0) * ldc; /* s[q - crow0]: child row q */
    double *d = ptile + (int64_t)(cm[c] - pcol0) * ldp;   /* d[p - prow0]: parent row p */
    if (runs) {
      for (int32_t k = 0; k < nrun; k++) {
        int32_t a = run[k] > rs ? run[k] : rs, b = run[k + 1];
        if (a < b) add_into(d + (cm[a] - prow0), s + (a - crow0), b - a);
      }
    } else {
      for (int32_t q = rs; q < r1; q++) d[cm[q] - prow0] += s[q - crow0];
    }
  }
}
