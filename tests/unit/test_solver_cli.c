/*
 * test_solver_cli.c — the mfsolve command: exit codes (0 ok, 1 problem failed, 2 bad arguments),
 * messages that name the problem, the report lines, and silence on a non-terminal stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mfs.h"

#ifndef MFS_MFSOLVE
#define MFS_MFSOLVE "solver/mfsolve"
#endif
#ifndef MFS_GOLDEN_DIR
#define MFS_GOLDEN_DIR "tests/golden"
#endif

typedef struct {
  int code;
  char out[16384];
  char err[4096];
} result;

static void slurp(int fd, char *buf, size_t cap) {
  lseek(fd, 0, SEEK_SET);
  ssize_t k = read(fd, buf, cap - 1);
  buf[k > 0 ? k : 0] = '\0';
  close(fd);
}

/* A mkstemp template in $TMPDIR (or the system's temporary directory). */
static void tmp_template(char *buf, size_t n, const char *stem) {
  const char *tmp = getenv("TMPDIR");
  snprintf(buf, n, "%s/%sXXXXXX", tmp && tmp[0] ? tmp : P_tmpdir, stem);
}

/* Runs mfsolve with the NULL-terminated argument list; stdout/stderr go to temporary files. */
static void run(result *r, const char *const *args) {
  char fo[4096], fe[4096];
  tmp_template(fo, sizeof fo, "mfs_cli_out");
  tmp_template(fe, sizeof fe, "mfs_cli_err");
  int o = mkstemp(fo), e = mkstemp(fe);
  assert_true(o >= 0 && e >= 0);
  unlink(fo);
  unlink(fe);
  const char *argv[32];
  int n = 0;
  argv[n++] = MFS_MFSOLVE;
  for (; *args; args++) argv[n++] = *args;
  argv[n] = NULL;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(o, 1);
    dup2(e, 2);
    execv(MFS_MFSOLVE, (char *const *)argv);
    _exit(127);
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  r->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  slurp(o, r->out, sizeof r->out);
  slurp(e, r->err, sizeof r->err);
}

#define RUN(r, ...)                               \
  do {                                            \
    const char *const a_[] = {__VA_ARGS__, NULL}; \
    run(r, a_);                                   \
  } while (0)

static void expect_bad(const char *needle, const char *const *args) {
  result r;
  run(&r, args);
  if (r.code != 2 || !strstr(r.err, needle) || !strstr(r.err, "--help"))
    fail_msg("args starting '%s': exit %d, stderr '%s' (expected 2 and '%s')", args[0] ? args[0] : "", r.code, r.err,
             needle);
  assert_string_equal(r.out, "");
}

static void test_help(void **state) {
  (void)state;
  result r;
  RUN(&r, "--help");
  assert_int_equal(r.code, 0);
  assert_non_null(strstr(r.out, "Usage: "));
  assert_non_null(strstr(r.out, "--ordering"));
  RUN(&r, "-h");
  assert_int_equal(r.code, 0);
}

static void test_bad_arguments(void **state) {
  (void)state;
  static const char *const none[] = {NULL};
  expect_bad("no matrix", none);
  static const char *const c1[] = {"--gen", "lap2d:10", "--matrix", "x.mtx", NULL};
  expect_bad("exactly one", c1);
  static const char *const c2[] = {"--gen", "lap2d:10", "--nb", "0", NULL};
  expect_bad("--nb", c2);
  static const char *const c3[] = {"--gen", "lap2d:10", "--nb", "12abc", NULL};
  expect_bad("--nb", c3);
  static const char *const c4[] = {"--gen", "lap2d:10", "--amalg", "2", NULL};
  expect_bad("--amalg", c4);
  static const char *const c5[] = {"--gen", "lap2d:10", "--ordering", "rcm", NULL};
  expect_bad("ordering", c5);
  static const char *const c6[] = {"--gen", "lap2d:10", "--refine", "-1", NULL};
  expect_bad("--refine", c6);
  static const char *const c7[] = {"--gen", "lap2d:10", "--frobnicate", NULL};
  expect_bad("unknown option", c7);
  static const char *const c8[] = {"--gen", "lap2d:10", "--nb", NULL};
  expect_bad("needs an argument", c8);
  static const char *const c9[] = {"--gen", "lap2d:10", "extra", NULL};
  expect_bad("unexpected argument", c9);
  static const char *const c10[] = {"--gen", "lap5d:3", NULL};
  expect_bad("--gen", c10);
  static const char *const c11[] = {"--gen", "lap2d:0", NULL};
  expect_bad("--gen", c11);
  static const char *const c12[] = {"--gen", "lap2d:10", "--workers", "0", NULL};
  expect_bad("--workers", c12);
  static const char *const c13[] = {"--gen", "lap2d:10", "--ranks", "x", NULL};
  expect_bad("--ranks", c13);
  static const char *const c14[] = {"--gen", "lap2d:10", "--executor", "gpu", NULL};
  expect_bad("--executor", c14);
  static const char *const c15[] = {"--gen", "lap2d:10", "--mem-relax", "0.5", NULL};
  expect_bad("--mem-relax", c15);
  static const char *const c16[] = {"--gen", "lap2d:10", "--executor", "seq", "--workers", "2", NULL};
  expect_bad("task-based executor", c16);
  static const char *const c17[] = {"--gen", "lap2d:10", "--sched", "", NULL};
  expect_bad("--sched", c17);
  static const char *const c18[] = {"--gen", "lap2d:10", "--mpi-progress", "driver", NULL};
  expect_bad("--mpi-progress 'driver'", c18);
}

/* Reads a solution file written by --solution into x (n entries); returns n or -1. */
static int read_solution(const char *path, double *x, int cap) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  int n = -1, cols = 0;
  if (!fgets(line, sizeof line, f) || strcmp(line, "%%MatrixMarket matrix array real general\n") != 0 ||
      fscanf(f, "%d %d", &n, &cols) != 2 || cols != 1 || n > cap) {
    fclose(f);
    return -1;
  }
  for (int i = 0; i < n; i++)
    if (fscanf(f, "%lf", &x[i]) != 1) n = -1;
  fclose(f);
  return n;
}

/* --workers: the task-based executor when built in (its report lines), else a clear refusal; the
 * solutions of both executors are bitwise equal (written with %.17g, read back). */
static void test_executors(void **state) {
  (void)state;
  char p1[4096], p2[4096];
  tmp_template(p1, sizeof p1, "mfs_cli_x1");
  tmp_template(p2, sizeof p2, "mfs_cli_x2");
  int f1 = mkstemp(p1), f2 = mkstemp(p2);
  assert_true(f1 >= 0 && f2 >= 0);
  close(f1);
  close(f2);
  result r;
  RUN(&r, "--gen", "lap3d:9", "--nb", "16", "--solution", p1);
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "executor        sequential"));
  assert_non_null(strstr(r.out, "nb = 16, tiles")); /* the tile size given is the only one */
  /* without --nb the sequential executor's large fronts take tiles twice as large, its largest ones
   * 4 times */
  RUN(&r, "--gen", "lap2d:20", "--executor", "seq", "-q");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "nb = 512 (1024 in fronts of >= 2048, 2048 in fronts of >= 4096 rows), tiles"));
  /* the task model's sequential reference runs the task-based executor's operations */
  RUN(&r, "--gen", "lap2d:20", "--executor", "seq", "--no-subtrees", "-q");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "nb = 512, tiles"));
  if (!mfs_starpu_built()) {
    RUN(&r, "--gen", "lap3d:9", "--workers", "2");
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "not built"));
    unlink(p1);
    unlink(p2);
    return;
  }
  RUN(&r, "--gen", "lap3d:9", "--nb", "16", "--workers", "2", "--sched", "eager", "--solution", p2);
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  static const char *lines[] = {"executor        starpu: 1 process(es) x 2 worker(s), scheduler eager",
                                "tasks ",
                                "subtree ",
                                "cleanup ",
                                "memory window ",
                                "measured/predicted"};
  for (size_t t = 0; t < sizeof lines / sizeof *lines; t++)
    if (!strstr(r.out, lines[t])) fail_msg("report lacks '%s':\n%s", lines[t], r.out);
  assert_string_equal(r.err, "");
  static double x1[1000], x2[1000];
  assert_int_equal(read_solution(p1, x1, 1000), 729);
  assert_int_equal(read_solution(p2, x2, 1000), 729);
  assert_memory_equal(x1, x2, 729 * sizeof(double));
  /* one worker, explicitly */
  RUN(&r, "--gen", "lap2d:20", "--executor", "starpu", "--no-subtrees", "-q");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "x 1 worker(s)"));
  assert_non_null(strstr(r.out, ", 0 sequential subtree tasks"));
  /* without --workers, StarPU's STARPU_NCPU gives the count (popmeter scale --threads sets it);
   * --workers wins over it, an explicitly sequential run ignores it, a bad value is refused */
  setenv("STARPU_NCPU", "2", 1);
  RUN(&r, "--gen", "lap2d:20", "-q");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "starpu: 1 process(es) x 2 worker(s)"));
  /* 2 workers share tiles of 1024 in fronts of 4 of them */
  assert_non_null(strstr(r.out, "nb = 512 (1024 in fronts of >= 4096 rows), tiles"));
  RUN(&r, "--gen", "lap2d:20", "--workers", "3", "-q"); /* more workers: tiles of 512 everywhere */
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "nb = 512, tiles"));
  RUN(&r, "--gen", "lap2d:20", "--no-subtrees", "-q"); /* the task model's runs: the reference's tiles */
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "nb = 512, tiles"));
  RUN(&r, "--gen", "lap2d:20", "--workers", "1", "--executor", "starpu", "-q");
  assert_non_null(strstr(r.out, "starpu: 1 process(es) x 1 worker(s)"));
  RUN(&r, "--gen", "lap2d:20", "--executor", "seq", "-q");
  assert_int_equal(r.code, 0);
  assert_non_null(strstr(r.out, "executor        sequential"));
  setenv("STARPU_NCPU", "two", 1);
  static const char *const bad_ncpu[] = {"--gen", "lap2d:20", NULL};
  expect_bad("invalid STARPU_NCPU 'two'", bad_ncpu);
  unsetenv("STARPU_NCPU");
  /* an unknown scheduler is StarPU's to refuse; the command must not crash */
  RUN(&r, "--gen", "lap2d:8", "--sched", "no-such-policy", "-q");
  assert_true(r.code == 0 || r.code == 1);
  unlink(p1);
  unlink(p2);
  RUN(&r, "--gen", "lap2d:8", "--solution", "/nonexistent/dir/x.mtx", "-q");
  assert_int_equal(r.code, 1);
  assert_non_null(strstr(r.err, "cannot write the solution"));
}

static void test_generated_run(void **state) {
  (void)state;
  result r;
  RUN(&r, "--gen", "lap3d:10", "--nb", "32", "--refine", "1", "--workers", "4", "--ranks", "3");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  static const char *lines[] = {"matrix ",       "analysis ", "fronts ",        "nnz(L) ", "flops ",  "operations ",
                                "subtrees ",     "mapping ",  "factorization ", "GFlop/s", "memory ", "predicted peak",
                                "measured peak", "solve ",    "residual ",      "potrf",   "assemble"};
  for (size_t t = 0; t < sizeof lines / sizeof *lines; t++)
    if (!strstr(r.out, lines[t])) fail_msg("report lacks '%s':\n%s", lines[t], r.out);
  /* stderr is a file here, not a terminal: no progress output at all */
  assert_string_equal(r.err, "");
  double res = 1;
  const char *p = strstr(r.out, "residual ");
  assert_int_equal(sscanf(p, "residual %lf", &res), 1);
  assert_true(res <= 1e-12);
  RUN(&r, "-g", "lap3d27:6", "-o", mfs_ordering_available(MFS_ORDER_AMD) ? "amd" : "natural", "--amalg", "0", "-q");
  assert_int_equal(r.code, 0);
  RUN(&r, "--gen", "lap2d:30", "--ordering", "natural");
  assert_int_equal(r.code, 0);
}

/* Writes text to a new temporary file whose path goes to path. */
static void write_tmp(char *path, size_t n, const char *stem, const char *text) {
  tmp_template(path, n, stem);
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

/* A file declaring n = 10^7 and one entry is refused at its size line, naming the file and the
 * reason (it used to allocate gigabytes and fail in the factorization, after printing a negative
 * entry count); the full count of a matrix whose diagonal is incomplete is 2 nnz - (diagonal
 * entries), not 2 nnz - n. */
static void test_too_few_entries(void **state) {
  (void)state;
  result r;
  char path[4096];
  write_tmp(path, sizeof path, "mfs_cli_huge",
            "%%MatrixMarket matrix coordinate real symmetric\n10000000 10000000 1\n1 1 1.0\n");
  RUN(&r, "-m", path, "-q");
  unlink(path);
  assert_int_equal(r.code, 1);
  if (!strstr(r.err, path) || !strstr(r.err, "at least 10000000 entries"))
    fail_msg("stderr does not name the file and the reason: %s", r.err);
  assert_string_equal(r.out, "");

  write_tmp(path, sizeof path, "mfs_cli_nodiag",
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 1 1\n3 2 1\n");
  RUN(&r, "-m", path, "-o", "natural", "-q");
  unlink(path);
  assert_int_equal(r.code, 1);
  if (!strstr(r.out, "nnz = 3 (lower triangle), 6 (full)")) fail_msg("summary: %s", r.out);
}

static void test_files(void **state) {
  (void)state;
  result r;
  RUN(&r, "--matrix", MFS_GOLDEN_DIR "/solver_spd5_sym.mtx");
  if (r.code != 0) fail_msg("exit %d: %s", r.code, r.err);
  assert_non_null(strstr(r.out, "n = 5"));
  RUN(&r, "-m", MFS_GOLDEN_DIR "/solver_malformed.mtx");
  assert_int_equal(r.code, 1);
  assert_non_null(strstr(r.err, "solver_malformed.mtx:7:"));
  RUN(&r, "-m", "/nonexistent/file.mtx");
  assert_int_equal(r.code, 1);
  assert_non_null(strstr(r.err, "/nonexistent/file.mtx: cannot open: No such file or directory"));
  RUN(&r, "-m", MFS_GOLDEN_DIR);
  assert_int_equal(r.code, 1);
  if (!strstr(r.err, MFS_GOLDEN_DIR ": is a directory")) fail_msg("stderr: %s", r.err);

  char path[4096];
  tmp_template(path, sizeof path, "mfs_cli_indef");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char *text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 2 1\n3 2 2\n3 3 1\n";
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  RUN(&r, "-m", path, "-o", "natural");
  unlink(path);
  assert_int_equal(r.code, 1);
  assert_non_null(strstr(r.err, "not positive definite"));
  assert_non_null(strstr(r.err, "column 3 "));

  /* a denormal pivot is too small, not "not positive" (both executors: the codelets share the check) */
  write_tmp(path, sizeof path, "mfs_cli_denormal",
            "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2\n2 2 1e-320\n");
  RUN(&r, "-m", path, "-q");
  assert_int_equal(r.code, 1);
  if (!strstr(r.err, "column 2 ") || !strstr(r.err, "1e-320") || !strstr(r.err, "too small"))
    fail_msg("stderr: %s", r.err);
  if (mfs_starpu_built()) {
    RUN(&r, "-m", path, "-q", "--workers", "2");
    assert_int_equal(r.code, 1);
    if (!strstr(r.err, "column 2 ") || !strstr(r.err, "1e-320") || !strstr(r.err, "too small"))
      fail_msg("stderr: %s", r.err);
  }
  unlink(path);
}

int main(void) {
  if (access(MFS_MFSOLVE, X_OK) != 0) {
    printf("1..0 # SKIP %s not built\n", MFS_MFSOLVE);
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help),  cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_generated_run),
      cmocka_unit_test(test_files), cmocka_unit_test(test_executors),     cmocka_unit_test(test_too_few_entries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
