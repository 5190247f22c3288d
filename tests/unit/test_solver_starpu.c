/*
 * test_solver_starpu.c — the task-based executor (StarPU, one process): the factor and the solution
 * are bitwise those of the sequential executor whatever the scheduler, the number of workers and the
 * subtree grouping (every tile receives its updates in the sequential order); residuals <= 1e-12 on
 * generated and Matrix Market matrices with each ordering; tasks per type and flops match the
 * analysis; the memory prediction bounds the measured peak within 10 %; errors are reported.
 * The distributed (MPI) runs are tested by tests/integration/test_solver_mpi.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfs.h"
#include "test_solver_common.h"
#include "mfs_dist.h"
#if MFS_TEST_RUNTIME
#include "mfs_arena.h"
#include "mfs_runtime.h"
#endif

#ifndef MFS_GOLDEN_DIR
#define MFS_GOLDEN_DIR "tests/golden"
#endif

static void start(int workers, const char *sched) {
  mfs_runtime_options ro = {workers, sched, 0};
  mfs_error err;
  if (mfs_runtime_start(&ro, NULL, NULL, &err) != MFS_OK) fail_msg("runtime: %s", err.msg);
}

static void fill_x(double *x, int32_t n, uint64_t seed) {
  for (int32_t i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    x[i] = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
}

/* Both executors on A: the factor tiles and the solutions must be bitwise equal. */
static void compare_executors(const mfs_matrix *A, const mfs_options *o, const mfs_starpu_options *so,
                              const char *what) {
  mfs_error err;
  mfs_symbolic *S;
  if (mfs_analyze(A, o, &S, &err) != MFS_OK) fail_msg("%s: analysis: %s", what, err.msg);
  mfs_factor *Fs, *Fp;
  if (mfs_factorize_seq(S, A, &Fs, NULL, NULL, &err) != MFS_OK) fail_msg("%s: sequential: %s", what, err.msg);
  if (mfs_factorize_starpu(S, A, so, &Fp, NULL, NULL, &err) != MFS_OK) fail_msg("%s: starpu: %s", what, err.msg);
  assert_null(Fp->dist);
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    const int32_t *b = S->blkptr + F->blk;
    for (int32_t j = 0; j < F->nbp; j++)
      for (int32_t i = j; i < F->nbt; i++) {
        int64_t t = F->tile0 + mfs_tile_index(F->nbt, i, j);
        size_t bytes = (size_t)(b[i + 1] - b[i]) * (size_t)(b[j + 1] - b[j]) * sizeof(double);
        assert_non_null(Fp->tile[t]);
        if (memcmp(Fs->tile[t], Fp->tile[t], bytes) != 0)
          fail_msg("%s: factor tile (%d,%d) of front %d differs", what, i, j, f);
      }
  }
  int32_t n = A->n;
  double *xs = malloc(3 * (size_t)n * sizeof *xs), *b = malloc(3 * (size_t)n * sizeof *b);
  double *x1 = malloc(3 * (size_t)n * sizeof *x1), *x2 = malloc(3 * (size_t)n * sizeof *x2);
  for (int c = 0; c < 3; c++) {
    fill_x(xs + (size_t)c * n, n, 7 + (uint64_t)c);
    mfs_matrix_symv(A, xs + (size_t)c * n, b + (size_t)c * n);
  }
  memcpy(x1, b, 3 * (size_t)n * sizeof *x1);
  memcpy(x2, b, 3 * (size_t)n * sizeof *x2);
  assert_int_equal(mfs_solve(Fs, 3, x1, n, &err), MFS_OK);
  assert_int_equal(mfs_solve(Fp, 3, x2, n, &err), MFS_OK);
  if (memcmp(x1, x2, 3 * (size_t)n * sizeof *x1) != 0) fail_msg("%s: solutions differ", what);
  for (int c = 0; c < 3; c++) {
    double res = mfs_residual(A, x2 + (size_t)c * n, b + (size_t)c * n);
    if (!(res <= 1e-12)) fail_msg("%s: scaled residual %.3e", what, res);
  }
  free(xs);
  free(b);
  free(x1);
  free(x2);
  mfs_factor_free(Fs);
  mfs_factor_free(Fp);
  mfs_symbolic_free(S);
}

static void test_bitwise_and_residuals(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:40", "lap3d:12", "lap3d27:8", MFS_GOLDEN_DIR "/solver_lap2d_10_gen.mtx",
                                MFS_GOLDEN_DIR "/solver_spd5_sym.mtx"};
  static const int nbs[] = {16, 24, 32, 4, 2};
  mfs_ordering ords[] = {MFS_ORDER_METIS, MFS_ORDER_AMD, MFS_ORDER_NATURAL};
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    mfs_status st =
        strchr(specs[t], '/') ? mfs_matrix_read_mm(specs[t], &A, &err) : mfs_matrix_generate(specs[t], &A, &err);
    if (st != MFS_OK) fail_msg("%s: %s", specs[t], err.msg);
    for (size_t c = 0; c < 3; c++) {
      if (!mfs_ordering_available(ords[c])) {
        print_message("# ordering %s not built in: skipped\n", mfs_ordering_name(ords[c]));
        continue;
      }
      mfs_options o;
      mfs_options_default(&o);
      o.ordering = ords[c];
      o.nb = nbs[t];
      char what[256];
      snprintf(what, sizeof what, "%s %s nb %d", specs[t], mfs_ordering_name(ords[c]), nbs[t]);
      compare_executors(&A, &o, NULL, what);
    }
    mfs_matrix_free(&A);
  }
  /* every front as tile tasks, and a wide memory window */
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap3d:11", &A, &err), MFS_OK);
  mfs_options o;
  mfs_options_default(&o);
  o.nb = 16;
  mfs_starpu_options so;
  mfs_starpu_options_default(&so);
  so.prune = 0;
  compare_executors(&A, &o, &so, "lap3d:11 without subtrees");
  so.prune = 1;
  so.mem_relax = 4;
  compare_executors(&A, &o, &so, "lap3d:11 window x4");
  so.mem_relax = 0;
  o.nb_big = 40; /* the large fronts' tiles (mfsolve's default on <= 2 workers) */
  o.nb_big_from = 80;
  compare_executors(&A, &o, &so, "lap3d:11 tiles of 40 in fronts of >= 80 rows");
  mfs_matrix_free(&A);
}

/* The schedulers of the issue, and one worker: same bits. */
static void test_schedulers(void **state) {
  (void)state;
  static const char *scheds[] = {"eager", "prio", "lws", "dmda"};
  mfs_matrix A;
  mfs_error err;
  assert_int_equal(mfs_matrix_generate("lap3d:12", &A, &err), MFS_OK);
  mfs_options o;
  mfs_options_default(&o);
  o.nb = 24;
  mfs_starpu_options so;
  mfs_starpu_options_default(&so);
  so.prune = 0; /* the most tasks, the most freedom for the scheduler */
  for (size_t s = 0; s < sizeof scheds / sizeof *scheds; s++) {
    mfs_runtime_stop();
    start(2, scheds[s]);
    compare_executors(&A, &o, &so, scheds[s]);
  }
  mfs_runtime_stop();
  start(1, NULL);
  compare_executors(&A, &o, NULL, "one worker");
  mfs_runtime_stop();
  start(2, NULL);
  mfs_matrix_free(&A);
}

/* Tasks per type are those of the tiled fronts' operations, plus one per sequential subtree; the
 * flops of all tasks are the analysis' (factor flops + assembly additions). */
static void test_tasks_and_flops(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_error err;
  mfs_symbolic *S = analyze_spec("lap3d:14", -1, 24, &A);
  mfs_factor *F;
  assert_int_equal(mfs_factorize_starpu(S, &A, NULL, &F, NULL, NULL, &err), MFS_OK);
  mfs_dist *D;
  assert_int_equal(dist__create(S, 0, 1, 2, 1, &D, &err), MFS_OK); /* what the executor used */
  int64_t want[MFS_NTASKTYPES] = {0};
  for (int32_t f = 0; f < S->nfronts; f++) {
    if (D->subtree_root[f] == f) want[MFS_TASK_SUBTREE]++;
    if (D->subtree_root[f] >= 0) continue;
    for (int64_t p = S->fronts[f].op_begin; p < S->fronts[f].op_end; p++) want[S->ops[p].type]++;
  }
  assert_true(want[MFS_TASK_SUBTREE] > 0 && want[MFS_OP_POTRF] > 0);
  for (int t = 0; t < MFS_NTASKTYPES; t++) {
    if (F->exec.tasks[t] != want[t])
      fail_msg("%s tasks: %lld, expected %lld", mfs_task_name(t), (long long)F->exec.tasks[t], (long long)want[t]);
    assert_int_equal(F->exec.tasks_local[t], F->exec.tasks[t]);
  }
  assert_int_equal(F->exec.subtrees, D->nsubtrees);
  assert_int_equal(F->exec.tiled_fronts, D->ntiled);
  assert_int_equal(F->exec.shared_fronts, 0);
  assert_int_equal(F->exec.nranks, 1);
  assert_int_equal(F->exec.workers, 2);
  double total = S->flops + S->flops_type[MFS_OP_ASSEMBLE];
  assert_true(fabs(F->exec.flops_local - total) <= 1e-12 * total);
  assert_string_equal(mfs_task_name(MFS_TASK_SUBTREE), "subtree");
  assert_string_equal(mfs_task_name(MFS_OP_GEMM), "gemm");
  dist__free(D);
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* predicted = tables + factor + window, window = cb_min (the automatic relaxation with 2 workers,
 * whose subtree tasks side by side cb_min holds) or ceil(relax x cb_min) for a relaxation given; the
 * measured peak stays below it (no overflow) and within 10 %; everything is given back. */
static void test_memory(void **state) {
  (void)state;
  static const char *specs[] = {"lap3d:16", "lap2d:100", "lap3d27:10"};
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_error err;
    mfs_symbolic *S = analyze_spec(specs[t], -1, 32, &A);
    int64_t before = mfs_mem_current();
    mfs_factor *F;
    assert_int_equal(mfs_factorize_starpu(S, &A, NULL, &F, NULL, NULL, &err), MFS_OK);
    const mfs_exec_stats *X = &F->exec;
    assert_int_equal(X->mem_factor, S->mem_factor);
    /* automatic, 2 workers: the larger of 1.2 x the footprint without subtree tasks side by side
     * and the footprint with them */
    mfs_dist *D;
    assert_int_equal(dist__create(S, 0, 1, 2, 1, &D, &err), MFS_OK); /* what the executor used */
    assert_int_equal(D->cb_min, X->mem_cb_min);
    int64_t one = (int64_t)ceil(1.2 * (double)dist__cb_footprint(S, D, 1));
    dist__free(D);
    assert_int_equal(X->mem_window, X->mem_cb_min > one ? X->mem_cb_min : one);
    assert_true(fabs(X->mem_relax - (double)X->mem_window / (double)X->mem_cb_min) < 1e-12);
    assert_int_equal(X->mem_predicted, X->mem_tables + X->mem_factor + X->mem_window);
    assert_int_equal(X->mem_predicted_max, X->mem_predicted);
    assert_int_equal(X->mem_peak_max, F->mem_peak);
    assert_true(X->mem_ratio_max == (double)F->mem_peak / (double)X->mem_predicted); /* one process */
    assert_int_equal(X->mem_recv_peak, 0);
    if (X->window_overflows == 0 && F->mem_peak > X->mem_predicted)
      fail_msg("%s: measured %lld > predicted %lld", specs[t], (long long)F->mem_peak, (long long)X->mem_predicted);
    if (fabs((double)(F->mem_peak - X->mem_predicted)) > 0.10 * (double)F->mem_peak)
      fail_msg("%s: measured %lld, predicted %lld: more than 10 %% apart", specs[t], (long long)F->mem_peak,
               (long long)X->mem_predicted);
    /* after the factorization: the factor and the tables (the CB arena is gone) */
    assert_true(mfs_mem_current() - before <= X->mem_tables + X->mem_factor);
    mfs_factor_free(F);
    assert_int_equal(mfs_mem_current(), before);
    /* a relaxation given is the one used */
    mfs_starpu_options so;
    mfs_starpu_options_default(&so);
    so.mem_relax = 1.2;
    assert_int_equal(mfs_factorize_starpu(S, &A, &so, &F, NULL, NULL, &err), MFS_OK);
    assert_true(F->exec.mem_relax == 1.2);
    assert_int_equal(F->exec.mem_window, (int64_t)ceil(1.2 * (double)F->exec.mem_cb_min));
    mfs_factor_free(F);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
}

static void test_errors(void **state) {
  (void)state;
  mfs_error err;
  /* indefinite 3 x 3 (same as the command's test): the pivot of column 3 fails */
  int32_t ri[] = {0, 1, 2, 2}, ci[] = {0, 1, 1, 2};
  double v[] = {4, 1, 2, 1};
  mfs_matrix A, B;
  assert_int_equal(mfs_matrix_from_triplets(3, 4, ri, ci, v, &A, &err), MFS_OK);
  mfs_options o;
  mfs_options_default(&o);
  o.ordering = MFS_ORDER_NATURAL;
  mfs_symbolic *S;
  assert_int_equal(mfs_analyze(&A, &o, &S, &err), MFS_OK);
  mfs_factor *F = (mfs_factor *)1;
  assert_int_equal(mfs_factorize_starpu(S, &A, NULL, &F, NULL, NULL, &err), MFS_ERR_NOT_SPD);
  assert_null(F);
  assert_int_equal(err.column, 2);
  assert_non_null(strstr(err.msg, "column 3 "));
  /* a larger one with a bad diagonal entry somewhere in the middle */
  assert_int_equal(mfs_matrix_generate("lap2d:20", &B, &err), MFS_OK);
  B.val[B.colptr[150]] = -50;
  mfs_symbolic *S2;
  o.ordering = MFS_ORDER_NATURAL;
  o.nb = 8;
  assert_int_equal(mfs_analyze(&B, &o, &S2, &err), MFS_OK);
  assert_int_equal(mfs_factorize_starpu(S2, &B, NULL, &F, NULL, NULL, &err), MFS_ERR_NOT_SPD);
  assert_true(err.column >= 0 && err.column < 400);
  /* wrong matrix, bad window */
  assert_int_equal(mfs_factorize_starpu(S2, &A, NULL, &F, NULL, NULL, &err), MFS_ERR_ARG);
  mfs_starpu_options so;
  mfs_starpu_options_default(&so);
  assert_true(so.mem_relax == 0 && so.prune == 1); /* 0: automatic */
  so.mem_relax = 0.5;
  assert_int_equal(mfs_factorize_starpu(S, &A, &so, &F, NULL, NULL, &err), MFS_ERR_ARG);
  /* the runtime: one at a time, sane worker counts, rank 0 of 1 without MPI */
  mfs_runtime_options ro = {2, NULL, 0};
  assert_int_equal(mfs_runtime_start(&ro, NULL, NULL, &err), MFS_ERR_ARG);
  assert_int_equal(mfs_runtime_rank(), 0);
  assert_int_equal(mfs_runtime_nranks(), 1);
  mfs_runtime_stop();
  assert_int_equal(mfs_factorize_starpu(S, &A, NULL, &F, NULL, NULL, &err), MFS_ERR_ARG);
  assert_non_null(strstr(err.msg, "not running"));
  ro.workers = 0;
  assert_int_equal(mfs_runtime_start(&ro, NULL, NULL, &err), MFS_ERR_ARG);
  start(2, NULL);
  mfs_symbolic_free(S);
  mfs_symbolic_free(S2);
  mfs_matrix_free(&A);
  mfs_matrix_free(&B);
}

/* CPU time (ns) the process's StarPU CPU workers (threads named "CPU <n>") have run so far. */
static uint64_t workers_cpu_ns(void) {
  uint64_t sum = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d) fail_msg("cannot list /proc/self/task");
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[300], comm[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    int named = fgets(comm, sizeof comm, f) && !strncmp(comm, "CPU ", 4);
    fclose(f);
    if (!named) continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
    unsigned long long run = 0;
    f = fopen(path, "r");
    if (f && fscanf(f, "%llu", &run) == 1) sum += run;
    if (f) fclose(f);
  }
  closedir(d);
  return sum;
}

/* CPU time the lone worker of an idle runtime burns in 300 ms, with MFS_IDLE_NAP_US = nap. */
static uint64_t idle_worker_cpu_ns(const char *nap) {
  mfs_runtime_stop();
  setenv("MFS_IDLE_NAP_US", nap, 1);
  start(1, NULL);
  struct timespec settle = {0, 20000000}, idle = {0, 300000000};
  nanosleep(&settle, NULL);
  uint64_t before = workers_cpu_ns();
  nanosleep(&idle, NULL);
  uint64_t used = workers_cpu_ns() - before;
  mfs_runtime_stop();
  unsetenv("MFS_IDLE_NAP_US");
  start(2, NULL);
  return used;
}

/* StarPU 1.3 never lets the last worker awake block: alone, an idle worker polls for tasks on its
 * CPU all the time (mfs_idle.c). With the idle hook it naps: naps of 200 us leave it a few percent
 * of that CPU time, the default 50 us (taken for a value that is not a number) ~15 %. Under make -j
 * the polling worker may share its CPU: below half of it, the machine is too busy to tell. */
static void test_idle_worker_naps(void **state) {
  (void)state;
  if (access("/proc/self/task", R_OK) != 0) skip();
  uint64_t spin = idle_worker_cpu_ns("0"), nap = idle_worker_cpu_ns("200"), bad = idle_worker_cpu_ns("fifty");
  print_message("idle worker CPU in 300 ms: polling %.1f ms, napping 200 us %.1f ms, bad setting (50 us) %.1f ms\n",
                spin / 1e6, nap / 1e6, bad / 1e6);
  if (spin < 150000000u) skip();
  assert_true(nap * 4 < spin);
  assert_true(bad * 2 < spin);
}

static int group_setup(void **state) {
  (void)state;
  start(2, NULL);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  mfs_runtime_stop();
  return 0;
}

/* The priority slice: schedulers allowing all of int (lws, prio, ws, dmdas) get 100000 levels; the
 * width INT_MAX - INT_MIN must not overflow (it did, and the slice was never taken). */
static void test_priority_slice(void **state) {
  (void)state;
  static const struct {
    int lo, hi, want_lo, want_hi;
  } cases[] = {
      {INT_MIN, INT_MAX, 0, 100000},                          /* lws, prio, ws, dmdas */
      {0, INT_MAX, 0, 100000},                                /* unbounded above */
      {1, INT_MAX, 1, 100001},                                /* all positive: starts at its minimum */
      {INT_MIN, 0, INT_MIN, INT_MIN + 100000},                /* all negative */
      {INT_MIN, -1, INT_MIN, INT_MIN + 100000},               /* */
      {INT_MIN, INT_MIN + 100000, INT_MIN, INT_MIN + 100000}, /* exactly 100000 levels: kept */
      {INT_MAX - 100000, INT_MAX, INT_MAX - 100000, INT_MAX},
      {-5, 5, -5, 5}, /* eager, dmda: small ranges are kept */
      {0, 0, 0, 0},   /* no priorities */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    int lo = cases[c].lo, hi = cases[c].hi;
    exec__priority_slice(&lo, &hi);
    if (lo != cases[c].want_lo || hi != cases[c].want_hi)
      fail_msg("[%d, %d] gave [%d, %d], expected [%d, %d]", cases[c].lo, cases[c].hi, lo, hi, cases[c].want_lo,
               cases[c].want_hi);
  }
}

#if MFS_TEST_RUNTIME
/* Buffers StarPU allocates itself (tiles that arrive before their receive is posted): in the given
 * window's high end while it has room, else on the heap, counted apart; the hooks keep the window
 * while it holds any of them. */
static void test_recv_buffers_in_window(void **state) {
  (void)state;
  const size_t window = (size_t)1 << 20, big = (size_t)2 << 20;
  int64_t before = mfs_mem_current();
  mfs_arena a;
  assert_int_equal(arena__create(&a, window, 0), MFS_OK);
  runtime__recv_reset_peak();
  assert_int_equal(runtime__recv_arena_set(&a), 0);
  void *p, *q;
  assert_int_equal(runtime__recv_malloc(0, &p, 100000, 0), 0);
  assert_ptr_equal(p, a.base + window - 100032); /* the high end, 64-byte multiples */
  assert_int_equal(a.used, 100032);
  assert_int_equal(runtime__recv_malloc(0, &q, big, 0), 0); /* no room: the heap */
  assert_false(arena__owns(&a, q));
  assert_int_equal(runtime__recv_bytes(), 100000 + (int64_t)big);
  assert_int_equal(runtime__recv_peak(), 100000 + (int64_t)big);
  assert_int_equal(runtime__recv_heap_peak(), (int64_t)big);
  assert_int_equal(runtime__recv_arena_set(NULL), 1); /* p is still in it: kept */
  mfs_arena other;
  assert_int_equal(arena__create(&other, window, 0), MFS_OK);
  assert_int_equal(runtime__recv_arena_set(&other), 1); /* nor replaced */
  void *r;
  assert_int_equal(runtime__recv_malloc(0, &r, 1000, 0), 0);
  assert_true(arena__owns(&a, r)); /* still the first window */
  assert_int_equal(runtime__recv_free(0, r, 1000, 0), 0);
  arena__destroy(&other);
  assert_int_equal(runtime__recv_free(0, p, 100000, 0), 0);
  assert_int_equal(a.used, 0);
  assert_int_equal(runtime__recv_free(0, q, big, 0), 0);
  assert_int_equal(runtime__recv_arena_set(NULL), 0);
  assert_int_equal(runtime__recv_bytes(), 0);
  assert_int_equal(runtime__recv_malloc(0, &p, 100000, 0), 0); /* no window: the heap */
  assert_false(arena__owns(&a, p));
  assert_int_equal(runtime__recv_free(0, p, 100000, 0), 0);
  arena__destroy(&a);
  assert_int_equal(mfs_mem_current(), before);
}
#endif

int main(void) {
  if (!mfs_starpu_built()) {
    printf("1..0 # SKIP libmfsolve was built without StarPU\n");
    return 0;
  }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_priority_slice),
    cmocka_unit_test(test_bitwise_and_residuals),
    cmocka_unit_test(test_schedulers),
    cmocka_unit_test(test_tasks_and_flops),
    cmocka_unit_test(test_memory),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_idle_worker_naps),
#if MFS_TEST_RUNTIME
    cmocka_unit_test(test_recv_buffers_in_window),
#endif
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
