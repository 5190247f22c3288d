/*
 * test_solver_rowsim.c — the list-scheduling simulation that chooses the rows of shared fronts
 * (solver/mfs_rowsim.c). Every expected makespan is worked out by hand in the test's comment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "mfs_rowsim.h"

static double run_from(const rowsim_task *t, int32_t n, int nproc, int workers, double latency, const double *start) {
  rowsim *W = rowsim__create(n, nproc);
  assert_non_null(W);
  double m = rowsim__makespan(W, t, n, nproc, workers, latency, start);
  rowsim__free(W);
  return m;
}

static double run(const rowsim_task *t, int32_t n, int nproc, int workers, double latency) {
  return run_from(t, n, nproc, workers, latency, NULL);
}

/* A (p0, 1) -> B (p1, 2) and C (p0, 3); D (p1, 1) after B and C */
static const rowsim_task diamond[4] = {
    {.proc = 0, .ndep = 0, .dur = 1},
    {.proc = 1, .ndep = 1, .dep = {0}, .dur = 2},
    {.proc = 0, .ndep = 1, .dep = {0}, .dur = 3},
    {.proc = 1, .ndep = 2, .dep = {1, 2}, .dur = 1},
};

/* The diamond, one worker each.
 * Latency 0.5: A 0-1; B's input reaches p1 at 1.5, B 1.5-3.5; C 1-4; D waits for C's result on p1
 * until 4.5: 4.5-5.5. Latency 0: B 1-3, C 1-4, D 4-5. */
static void test_diamond(void **state) {
  (void)state;
  assert_true(run(diamond, 4, 2, 1, 0.5) == 5.5);
  assert_true(run(diamond, 4, 2, 1, 0.0) == 5.0);
}

/* The longest path to the end first: X (p0, 2), Y (p0, 1), Z (p1, 3) after Y, latency 0. Bottom
 * levels X 2, Y 4: Y 0-1, X 1-3, Z 1-4, makespan 4. In index order (X first) Z would start at 3
 * and end at 6. */
static void test_bottom_level_first(void **state) {
  (void)state;
  rowsim_task t[3] = {
      {.proc = 0, .ndep = 0, .dur = 2},
      {.proc = 0, .ndep = 0, .dur = 1},
      {.proc = 1, .ndep = 1, .dep = {1}, .dur = 3},
  };
  assert_true(run(t, 3, 2, 1, 0.0) == 4.0);
}

/* Bottom levels count the latency of a dependency between processes: P (p0, 1) -> Q (p1, 1) and
 * R (p0, 1.5) -> U (p0, 1), latency 1, one worker each. P's bottom level 1 + 1 + 1 = 3 beats R's
 * 2.5: P 0-1, R 1-2.5, U 2.5-3.5, Q 2-3: 3.5. Without the latency in it (P 2 < R 2.5): R 0-1.5,
 * P 1.5-2.5 (its 2 beats U's 1), U 2.5-3.5, Q 3.5-4.5: 4.5. */
static void test_latency_in_bottom_level(void **state) {
  (void)state;
  rowsim_task t[4] = {
      {.proc = 0, .ndep = 0, .dur = 1},
      {.proc = 1, .ndep = 1, .dep = {0}, .dur = 1},
      {.proc = 0, .ndep = 0, .dur = 1.5},
      {.proc = 0, .ndep = 1, .dep = {2}, .dur = 1},
  };
  assert_true(run(t, 4, 2, 1, 1.0) == 3.5);
}

/* Workers of one process: three independent unit tasks take 3, 2 and 1 with 1, 2 and 3 workers;
 * latency only between processes: a chain of two unit tasks takes 2 on one process whatever the
 * latency, 1 + 10 + 1 across two. */
static void test_workers_and_latency(void **state) {
  (void)state;
  rowsim_task three[3] = {{.proc = 0, .dur = 1}, {.proc = 0, .dur = 1}, {.proc = 0, .dur = 1}};
  assert_true(run(three, 3, 1, 1, 0) == 3.0);
  assert_true(run(three, 3, 1, 2, 0) == 2.0);
  assert_true(run(three, 3, 1, 3, 0) == 1.0);
  rowsim_task chain[2] = {{.proc = 0, .dur = 1}, {.proc = 0, .ndep = 1, .dep = {0}, .dur = 1}};
  assert_true(run(chain, 2, 2, 1, 10) == 2.0);
  chain[1].proc = 1;
  assert_true(run(chain, 2, 2, 1, 10) == 12.0);
}

/* Processes that come later. The diamond of test_diamond, latency 0, p1 starting at 2: A 0-1, C 1-4
 * on p0; B ready at 1 waits for p1: 2-4; D 4-5 (B ends at 4 too): 5. p1 at 3.5: B 3.5-5.5, D 5.5-6.5.
 * p0 at 1 (p1 at 0): A 1-2, C 2-5, B 2-4, D 5-6. Two workers on p0 from 1: X and Y (1 each, no deps)
 * 1-2 side by side: 2. All zero is the same as no starts. */
static void test_late_processes(void **state) {
  (void)state;
  const double p1_at_2[2] = {0, 2}, p1_at_35[2] = {0, 3.5}, p0_at_1[2] = {1, 0}, zero[2] = {0, 0};
  assert_true(run_from(diamond, 4, 2, 1, 0, p1_at_2) == 5.0);
  assert_true(run_from(diamond, 4, 2, 1, 0, p1_at_35) == 6.5);
  assert_true(run_from(diamond, 4, 2, 1, 0, p0_at_1) == 6.0);
  assert_true(run_from(diamond, 4, 2, 1, 0, zero) == run(diamond, 4, 2, 1, 0));
  rowsim_task two[2] = {{.proc = 0, .dur = 1}, {.proc = 0, .dur = 1}};
  const double p0_at_1_only[1] = {1};
  assert_true(run_from(two, 2, 1, 2, 0, p0_at_1_only) == 2.0);
}

/* No tasks: 0. A task waiting for itself or for a later task is no graph the simulation takes:
 * infinite, not a hang. */
static void test_degenerate(void **state) {
  (void)state;
  rowsim_task t[2] = {{.proc = 0, .ndep = 1, .dep = {0}, .dur = 1}, {.proc = 0, .dur = 1}};
  assert_true(run(t, 0, 1, 1, 0) == 0.0);
  assert_true(isinf(run(t, 1, 1, 1, 0)));
  t[0].dep[0] = 1;
  assert_true(isinf(run(t, 2, 1, 1, 0)));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_diamond),
      cmocka_unit_test(test_bottom_level_first),
      cmocka_unit_test(test_latency_in_bottom_level),
      cmocka_unit_test(test_workers_and_latency),
      cmocka_unit_test(test_late_processes),
      cmocka_unit_test(test_degenerate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
