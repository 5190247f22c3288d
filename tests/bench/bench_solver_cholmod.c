/*
 * bench_solver_cholmod.c — mfsolve's sequential multifrontal factorization side by side with
 * CHOLMOD's supernodal one, on the same matrix and the same ordering (mfsolve's permutation is
 * handed to CHOLMOD as CHOLMOD_GIVEN), single-threaded BLAS for both, in one process, runs
 * interleaved so that machine noise hits both alike. Prints times (min and median), GFlop/s on the
 * exact factor's flops, nnz(L), peak memory and the ratios.
 *
 * Both use the same OpenBLAS instance, with the kernels mfsolve runs with: where OpenBLAS chose an
 * older kernel set than the CPU supports, the program starts itself again with a better one, as
 * mfsolve does (solver/mfs_blas_core.c; without that, on a VM that hides the CPU model, both ran
 * OpenBLAS's SSE3 kernels at a sixth of the speed). OPENBLAS_CORETYPE in the environment overrides
 * the choice for both. A tuning aid for the sequential executor (tile size, amalgamation); the 1- and
 * 2-core comparison with CHOLMOD and MUMPS that `make bench` runs is bench_solver_compare.
 * Build and run: make -C tests bench/bench_solver_cholmod && tests/bench/bench_solver_cholmod
 * Usage: bench_solver_cholmod [--ordering metis|amd] [--nb N] [--amalg T] [--reps R] [SPEC...]
 *        (SPEC as for mfsolve --gen; default lap3d:30 lap3d:40 lap2d:500)
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mfs.h"
#include "bench_cholmod.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double minimum(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++) m = fmin(m, v[i]);
  return m;
}

typedef struct {
  double time, resid;
  double peak;     /* bytes */
  double lnz;      /* entries stored in L */
  double num_peak; /* mfsolve: measured peak of the numeric phase */
  double warm;     /* CHOLMOD: a second factorization into the same, already faulted-in L */
} run_result;

/* One CHOLMOD run with a fresh Common, so memory_usage is this run's peak (A included). */
static int run_cholmod(const mfs_matrix *A, const int32_t *perm, const double *b, run_result *r) {
  cholmod_common c;
  SuiteSparse_long *P;
  cholmod_sparse *Ac = bench_cholmod_setup(A, perm, &c, &P);
  cholmod_factor *L = cholmod_l_analyze_p(Ac, P, NULL, 0, &c);
  double t0 = now();
  int ok = L && cholmod_l_factorize(Ac, L, &c) && c.status == CHOLMOD_OK;
  r->time = now() - t0;
  if (ok) {
    t0 = now();
    cholmod_l_factorize(Ac, L, &c);
    r->warm = now() - t0;
    r->lnz = (double)L->xsize;
    cholmod_dense *B = cholmod_l_allocate_dense(A->n, 1, A->n, CHOLMOD_REAL, &c);
    memcpy(B->x, b, A->n * sizeof(double));
    cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, L, B, &c);
    r->resid = X ? mfs_residual(A, X->x, b) : NAN;
    cholmod_l_free_dense(&X, &c);
    cholmod_l_free_dense(&B, &c);
  }
  r->peak = (double)c.memory_usage;
  free(P);
  cholmod_l_free_factor(&L, &c);
  cholmod_l_free_sparse(&Ac, &c);
  cholmod_l_finish(&c);
  return ok;
}

/* One mfsolve numeric run on an existing analysis; peak = everything libmfsolve holds (A, the
 * analysis and the numeric phase), comparable with CHOLMOD's memory_usage. */
static int run_mfs(const mfs_matrix *A, const mfs_symbolic *S, int64_t analysis_peak, const double *b, run_result *r) {
  mfs_factor *F;
  mfs_error err;
  int64_t base = mfs_mem_current();
  if (mfs_factorize_seq(S, A, &F, NULL, NULL, &err) != MFS_OK) {
    fprintf(stderr, "mfsolve: %s\n", err.msg);
    return 0;
  }
  r->time = F->time;
  r->peak = fmax((double)analysis_peak, (double)(base + F->mem_peak));
  r->num_peak = (double)F->mem_peak;
  r->lnz = (double)S->nnz_l_stored;
  double *x = malloc(A->n * sizeof *x);
  memcpy(x, b, A->n * sizeof *x);
  r->resid = mfs_solve(F, 1, x, A->n, &err) == MFS_OK ? mfs_residual(A, x, b) : NAN;
  free(x);
  mfs_factor_free(F);
  return 1;
}

int main(int argc, char **argv) {
  /* CHOLMOD runs parts of its supernodal factorization under OpenMP, and libgomp reads
     * OMP_NUM_THREADS when it is loaded, before main: restart once with it set. Its loops ask for
     * a fixed thread count (num_threads(4) in Debian's build), which only OMP_THREAD_LIMIT caps. */
  if (!getenv("OMP_NUM_THREADS") || !getenv("OMP_THREAD_LIMIT")) {
    setenv("OMP_NUM_THREADS", "1", 0);
    setenv("OMP_THREAD_LIMIT", "1", 0);
    execv("/proc/self/exe", argv);
  }
  mfs_blas_core_restart(argv); /* the kernels mfsolve runs with (may start the program again) */
  openblas_set_num_threads(1);
  mfs_options opt;
  mfs_options_default(&opt);
  int reps = 3, first = 1;
  for (; first < argc && strncmp(argv[first], "--", 2) == 0; first += 2) {
    if (first + 1 >= argc) break;
    if (!strcmp(argv[first], "--ordering"))
      opt.ordering = !strcmp(argv[first + 1], "amd") ? MFS_ORDER_AMD : MFS_ORDER_METIS;
    else if (!strcmp(argv[first], "--nb"))
      opt.nb = atoi(argv[first + 1]);
    else if (!strcmp(argv[first], "--amalg"))
      opt.amalg = atof(argv[first + 1]);
    else if (!strcmp(argv[first], "--reps"))
      reps = atoi(argv[first + 1]);
    else {
      fprintf(stderr, "unknown option %s\n", argv[first]);
      return 2;
    }
  }
  if (reps < 1 || reps > 50) {
    fprintf(stderr, "usage: %s [--ordering metis|amd] [--nb N] [--amalg T] [--reps R] [SPEC...]\n", argv[0]);
    return 2;
  }
  static char *defaults[] = {"lap3d:30", "lap3d:40", "lap2d:500"};
  char **specs = argv + first;
  int nspecs = argc - first;
  if (nspecs == 0) {
    specs = defaults;
    nspecs = 3;
  }
  printf("# mfsolve (sequential multifrontal, nb %d, amalg %.2f) vs CHOLMOD %d.%d.%d supernodal; ordering %s "
         "given to both; 1 BLAS thread, OMP_NUM_THREADS=%s, OMP_THREAD_LIMIT=%s; %s; %d interleaved runs each\n",
         opt.nb, opt.amalg, CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION,
         mfs_ordering_name(opt.ordering), getenv("OMP_NUM_THREADS"), getenv("OMP_THREAD_LIMIT"), mfs_blas_core_note(),
         reps);
  for (int a = 0; a < nspecs; a++) {
    mfs_matrix A;
    mfs_error err;
    if (mfs_matrix_generate(specs[a], &A, &err) != MFS_OK) {
      fprintf(stderr, "%s\n", err.msg);
      return 2;
    }
    mfs_mem_reset_peak();
    mfs_symbolic *S;
    if (mfs_analyze(&A, &opt, &S, &err) != MFS_OK) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    int64_t analysis_peak = mfs_mem_peak();
    double *xs = malloc(A.n * sizeof *xs), *b = malloc(A.n * sizeof *b);
    for (int32_t i = 0; i < A.n; i++) xs[i] = 1.0 + (i % 17) / 17.0;
    mfs_matrix_symv(&A, xs, b);
    double tm[50], tc[50], tw[50];
    run_result rm = {0}, rc = {0};
    double mpeak = 0, cpeak = 0;
    for (int r = 0; r < reps; r++) {
      if (!run_cholmod(&A, S->perm, b, &rc)) {
        fprintf(stderr, "CHOLMOD failed on %s\n", specs[a]);
        return 1;
      }
      tc[r] = rc.time;
      tw[r] = rc.warm;
      cpeak = fmax(cpeak, rc.peak);
      if (!run_mfs(&A, S, analysis_peak, b, &rm)) return 1;
      tm[r] = rm.time;
      mpeak = fmax(mpeak, rm.peak);
    }
    double flops = S->flops_exact;
    double tmin_m = minimum(tm, reps), tmin_c = minimum(tc, reps);
    double tmed_m = median(tm, reps), tmed_c = median(tc, reps);
    printf("\n%s (n = %d), analysis %.3f s (ordering %.3f s), %d fronts, flops %.4g (exact factor) / %.4g "
           "(mfsolve with amalgamation zeros)\n",
           specs[a], A.n, S->time_order + S->time_symbolic, S->time_order, S->nfronts, flops, S->flops);
    printf("  %-22s %12s %12s %8s\n", "", "mfsolve", "CHOLMOD", "ratio");
    printf("  %-22s %12.3f %12.3f %8.3f\n", "factor time min (s)", tmin_m, tmin_c, tmin_m / tmin_c);
    printf("  %-22s %12.3f %12.3f %8.3f\n", "factor time median (s)", tmed_m, tmed_c, tmed_m / tmed_c);
    printf("  %-22s %12.2f %12.2f %8.3f\n", "GFlop/s (exact, min t)", flops / tmin_m * 1e-9, flops / tmin_c * 1e-9,
           tmin_c / tmin_m);
    double tw_min = minimum(tw, reps);
    printf("  %-22s %12s %12.3f %8.3f   (CHOLMOD refactorization into memory already faulted in)\n",
           "warm-memory time (s)", "", tw_min, tmin_m / tw_min);
    printf("  %-22s %12.0f %12.0f %8.3f\n", "entries stored in L", rm.lnz, rc.lnz, rm.lnz / rc.lnz);
    printf("  %-22s %12.1f %12.1f %8.3f\n", "peak memory (MB)", mpeak / 1e6, cpeak / 1e6, mpeak / cpeak);
    printf("  %-22s %12.2e %12.2e\n", "scaled residual", rm.resid, rc.resid);
    printf("  mfsolve numeric phase: predicted %.1f MB, measured %.1f MB (factor %.1f MB, CB region %.1f MB)\n",
           S->mem_peak / 1e6, rm.num_peak / 1e6, S->mem_factor / 1e6, S->mem_cb_region / 1e6);
    fflush(stdout);
    free(xs);
    free(b);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("\n# max RSS of the process %.1f MB\n", ru.ru_maxrss / 1e3);
  return 0;
}
