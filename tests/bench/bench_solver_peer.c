/*
 * bench_solver_peer.c — one measured run of a peer of mfsolve, for the side-by-side driver
 * bench_solver_compare (which runs every configuration in a fresh process, interleaved).
 *
 *   bench_solver_peer cholmod SPEC      CHOLMOD supernodal factorization (BLAS threads: the
 *                                       OPENBLAS_NUM_THREADS / OMP_NUM_THREADS of the environment)
 *   [mpirun -np R] bench_solver_peer mumps SPEC
 *                                       MUMPS (Debian's MPI build), SPD (SYM=1), on R ranks; the
 *                                       1-core case is one rank of it (libmumps-seq-dev is the same
 *                                       5.5.1 code over a stub MPI; one rank of the MPI build only
 *                                       talks to itself)
 *   bench_solver_peer dgemm N           OpenBLAS DGEMM rate on N x N matrices (best of 5)
 *
 * SPEC is a generator spec as for `mfsolve --gen`. Both peers get the final permutation of mfsolve's
 * own analysis (mfs_analyze with its default options: the ordering, postorder and front order the
 * mfsolve command uses), CHOLMOD as CHOLMOD_GIVEN, MUMPS as ICNTL(7)=1 with PERM_IN (1-based position
 * of each variable in the pivot order). No scaling for MUMPS (ICNTL(8)=0): mfsolve and CHOLMOD do
 * none either. Each run solves A x = b for a known x and prints the scaled residual, so that only
 * correct factorizations are compared.
 *
 * Output: one line "RESULT key=value ..." on standard output (rank 0); diagnostics on stderr.
 * Exit status 0 on success, 1 when the solver failed, 2 on a bad command line.
 */
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "mfs.h"

#ifdef BENCH_HAVE_CHOLMOD
#include "bench_cholmod.h"
#endif
#ifdef BENCH_HAVE_MUMPS
#include <dmumps_c.h>
#include <mpi.h>
#endif

/* The problem as every peer sees it: A, mfsolve's analysis of it, b = A x* with a known x*. */
typedef struct {
  mfs_matrix A;
  mfs_symbolic *S;
  double *b;
  uint64_t perm_hash; /* lets the driver check that every process used the same permutation */
} problem;

static uint64_t fnv1a(const int32_t *v, int32_t n) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char *p = (const unsigned char *)v;
  for (size_t i = 0; i < (size_t)n * sizeof *v; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static int problem_setup(const char *spec, problem *P) {
  mfs_error err;
  mfs_options opt;
  mfs_options_default(&opt);
  if (mfs_matrix_generate(spec, &P->A, &err) != MFS_OK) {
    fprintf(stderr, "bench_solver_peer: %s\n", err.msg);
    return 2;
  }
  if (mfs_analyze(&P->A, &opt, &P->S, &err) != MFS_OK) {
    fprintf(stderr, "bench_solver_peer: analysis of %s failed: %s\n", spec, err.msg);
    return 1;
  }
  int32_t n = P->A.n;
  double *xs = malloc(n * sizeof *xs);
  P->b = malloc(n * sizeof *P->b);
  if (!xs || !P->b) return 1;
  for (int32_t i = 0; i < n; i++) xs[i] = 1.0 + (i % 17) / 17.0; /* the same x* as mfsolve's */
  mfs_matrix_symv(&P->A, xs, P->b);
  free(xs);
  P->perm_hash = fnv1a(P->S->perm, n);
  return 0;
}

static void problem_free(problem *P) {
  free(P->b);
  mfs_symbolic_free(P->S);
  mfs_matrix_free(&P->A);
}

static double max_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1e3; /* kB -> MB */
}

static int blas_threads_from_env(void) {
  const char *s = getenv("OPENBLAS_NUM_THREADS");
  int t = s ? atoi(s) : 1;
  return t >= 1 && t <= 256 ? t : 1;
}

/* --------------------------------------------------------------------------------------- CHOLMOD */
#ifdef BENCH_HAVE_CHOLMOD
static int run_cholmod(const char *spec) {
  problem P;
  int rc = problem_setup(spec, &P);
  if (rc) return rc;
  int threads = blas_threads_from_env();
  openblas_set_num_threads(threads);
  const mfs_matrix *A = &P.A;

  cholmod_common c;
  SuiteSparse_long *perm;
  cholmod_sparse *Ac = bench_cholmod_setup(A, P.S->perm, &c, &perm);
  double t0 = bench_now_s();
  cholmod_factor *L = cholmod_l_analyze_p(Ac, perm, NULL, 0, &c);
  double t_analysis = bench_now_s() - t0;
  t0 = bench_now_s();
  int ok = L && cholmod_l_factorize(Ac, L, &c) && c.status == CHOLMOD_OK;
  double t_factor = bench_now_s() - t0;
  double resid = NAN;
  if (ok) {
    cholmod_dense *B = cholmod_l_allocate_dense(A->n, 1, A->n, CHOLMOD_REAL, &c);
    memcpy(B->x, P.b, A->n * sizeof(double));
    cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, L, B, &c);
    resid = X ? mfs_residual(A, X->x, P.b) : NAN;
    cholmod_l_free_dense(&X, &c);
    cholmod_l_free_dense(&B, &c);
  } else {
    fprintf(stderr, "bench_solver_peer: CHOLMOD failed on %s (status %d)\n", spec, c.status);
  }
  if (ok)
    printf("RESULT solver=cholmod version=%d.%d.%d threads=%d analysis_s=%.6f factor_s=%.6f flops=%.6e "
           "nnz_l=%.0f nnz_l_stored=%.0f peak_mb=%.3f rss_mb=%.1f resid=%.3e mfs_flops_exact=%.6e "
           "perm_hash=%016llx\n",
           CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION, threads, t_analysis, t_factor, c.fl,
           c.lnz, (double)L->xsize, c.memory_usage / 1e6, max_rss_mb(), resid, P.S->flops_exact,
           (unsigned long long)P.perm_hash);
  free(perm);
  cholmod_l_free_factor(&L, &c);
  cholmod_l_free_sparse(&Ac, &c);
  cholmod_l_finish(&c);
  problem_free(&P);
  return ok ? 0 : 1;
}
#endif

/* ----------------------------------------------------------------------------------------- MUMPS */
#ifdef BENCH_HAVE_MUMPS
#define ICNTL(k) icntl[(k)-1]
#define INFOG(k) infog[(k)-1]
#define RINFOG(k) rinfog[(k)-1]

/* MUMPS returns some 32-bit counts as -(value in millions) when they overflow. */
static double mumps_count(int v) { return v < 0 ? -1e6 * v : (double)v; }

static int mumps_failed(const DMUMPS_STRUC_C *id, const char *what, int rank) {
  if (id->INFOG(1) >= 0) return 0;
  if (rank == 0)
    fprintf(stderr, "bench_solver_peer: MUMPS %s failed: INFOG(1) = %d, INFOG(2) = %d\n", what, id->INFOG(1),
            id->INFOG(2));
  return 1;
}

static int run_mumps(const char *spec) {
  int rank, size;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  openblas_set_num_threads(blas_threads_from_env());

  /* Centralized input: only the host (rank 0) builds the matrix and the permutation. */
  problem P = {0};
  int rc = rank == 0 ? problem_setup(spec, &P) : 0;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc) {
    MPI_Finalize();
    return rc;
  }
  MUMPS_INT *irn = NULL, *jcn = NULL, *perm_in = NULL;
  if (rank == 0) {
    const mfs_matrix *A = &P.A;
    irn = malloc(A->nnz * sizeof *irn);
    jcn = malloc(A->nnz * sizeof *jcn);
    perm_in = malloc(A->n * sizeof *perm_in);
    for (int32_t j = 0; j < A->n; j++)
      for (int64_t p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
        irn[p] = A->rowind[p] + 1;
        jcn[p] = j + 1;
      }
    /* PERM_IN(i) = position of variable i in the pivot order; S->perm[k] is eliminated k-th. */
    for (int32_t k = 0; k < A->n; k++) perm_in[P.S->perm[k]] = k + 1;
  }

  DMUMPS_STRUC_C id;
  memset(&id, 0, sizeof id);
  id.comm_fortran = (MUMPS_INT)MPI_Comm_c2f(MPI_COMM_WORLD);
  id.par = 1; /* the host works too */
  id.sym = 1; /* symmetric positive definite */
  id.job = -1;
  dmumps_c(&id);
  if (mumps_failed(&id, "initialisation", rank)) {
    MPI_Finalize();
    return 1;
  }
  id.ICNTL(1) = -1; /* no MUMPS output: failures are reported below from INFOG */
  id.ICNTL(2) = -1;
  id.ICNTL(3) = -1;
  id.ICNTL(4) = 0;
  id.ICNTL(5) = 0;  /* assembled matrix */
  id.ICNTL(18) = 0; /* centralized on the host */
  id.ICNTL(7) = 1;  /* ordering given in PERM_IN */
  id.ICNTL(28) = 1; /* sequential analysis (required for a given ordering) */
  id.ICNTL(8) = 0;  /* no scaling */
  id.ICNTL(20) = 0; /* dense centralized right-hand side */
  id.ICNTL(21) = 0; /* centralized solution */
  double *x = NULL;
  if (rank == 0) {
    id.n = P.A.n;
    id.nnz = P.A.nnz;
    id.nz = P.A.nnz <= INT32_MAX ? (MUMPS_INT)P.A.nnz : 0; /* older readers of the 32-bit count */
    id.irn = irn;
    id.jcn = jcn;
    id.a = P.A.val;
    id.perm_in = perm_in;
    x = malloc(P.A.n * sizeof *x);
    memcpy(x, P.b, P.A.n * sizeof *x);
    id.rhs = x;
    id.nrhs = 1;
    id.lrhs = P.A.n;
  }

  double t_phase[2] = {0, 0};
  int ok = 1;
  for (int phase = 0; phase < 2 && ok; phase++) {
    id.job = phase + 1; /* 1 analysis, 2 factorization */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    dmumps_c(&id);
    MPI_Barrier(MPI_COMM_WORLD);
    t_phase[phase] = MPI_Wtime() - t0;
    ok = !mumps_failed(&id, phase ? "factorization" : "analysis", rank);
  }
  double resid = NAN;
  if (ok) {
    id.job = 3;
    dmumps_c(&id);
    ok = !mumps_failed(&id, "solve", rank);
    if (ok && rank == 0) resid = mfs_residual(&P.A, x, P.b);
  }
  double rss = max_rss_mb(), rss_max = 0, rss_sum = 0;
  MPI_Reduce(&rss, &rss_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rss, &rss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (ok && rank == 0)
    printf("RESULT solver=mumps version=%s ranks=%d threads=%d analysis_s=%.6f factor_s=%.6f flops=%.6e "
           "nnz_l=%.0f peak_mb=%d peak_mb_max=%d rss_mb=%.1f rss_mb_max=%.1f resid=%.3e mfs_flops_exact=%.6e "
           "perm_hash=%016llx\n",
           id.version_number, size, blas_threads_from_env(), t_phase[0], t_phase[1], id.RINFOG(3),
           mumps_count(id.INFOG(29)), id.INFOG(22), id.INFOG(21), rss_sum, rss_max, resid, P.S->flops_exact,
           (unsigned long long)P.perm_hash);
  id.job = -2;
  dmumps_c(&id);
  free(x);
  free(irn);
  free(jcn);
  free(perm_in);
  if (rank == 0) problem_free(&P);
  MPI_Finalize();
  return ok ? 0 : 1;
}
#endif

/* ----------------------------------------------------------------------------------------- DGEMM */
static int run_dgemm(int n) {
  int threads = blas_threads_from_env();
  openblas_set_num_threads(threads);
  size_t nn = (size_t)n * n;
  double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
  if (!a || !b || !c) return 1;
  for (size_t i = 0; i < nn; i++) {
    a[i] = 1.0 / (1 + i % 7);
    b[i] = 1.0 / (1 + i % 5);
    c[i] = 0;
  }
  double best = INFINITY;
  for (int r = 0; r < 6; r++) { /* the first call warms the thread pool and caches: not counted */
    double t0 = bench_now_s();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, a, n, b, n, 1.0, c, n);
    double t = bench_now_s() - t0;
    if (r > 0 && t < best) best = t;
  }
  printf("RESULT solver=dgemm n=%d threads=%d time_s=%.6f gflops=%.3f\n", n, threads, best,
         2.0 * n * n * n / best * 1e-9);
  free(a);
  free(b);
  free(c);
  return 0;
}

int main(int argc, char **argv) {
  mfs_blas_core_restart(argv); /* the kernels mfsolve runs with: a fair comparison */
  if (argc != 3) {
    fprintf(stderr, "usage: %s cholmod|mumps SPEC | dgemm N\n", argv[0]);
    return 2;
  }
  if (!strcmp(argv[1], "dgemm")) {
    int n = atoi(argv[2]);
    if (n < 16 || n > 16384) {
      fprintf(stderr, "bench_solver_peer: dgemm size %s out of range 16..16384\n", argv[2]);
      return 2;
    }
    return run_dgemm(n);
  }
  if (!strcmp(argv[1], "cholmod")) {
#ifdef BENCH_HAVE_CHOLMOD
    return run_cholmod(argv[2]);
#else
    fprintf(stderr, "bench_solver_peer: built without CHOLMOD (SuiteSparse not found by configure)\n");
    return 1;
#endif
  }
  if (!strcmp(argv[1], "mumps")) {
#ifdef BENCH_HAVE_MUMPS
    return run_mumps(argv[2]);
#else
    fprintf(stderr, "bench_solver_peer: built without MUMPS (configure --with-mumps found no dmumps_c.h)\n");
    return 1;
#endif
  }
  fprintf(stderr, "bench_solver_peer: unknown peer '%s' (cholmod, mumps or dgemm)\n", argv[1]);
  return 2;
}
