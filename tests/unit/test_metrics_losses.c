/* Where the time went (metrics/pm_losses.c, docs/metrics.md §10): losses in seconds derived by
 * hand, and that they add up to R - A and agree with the critical-path model's ratios. */
#include "test_metrics_common.h"
#include "pm_losses.h"
#include <string.h>

/* Two processes of two threads, a progress thread and a device stream (both ignored), R = 10:
 *   useful (= t): process 0: 4, 2; process 1: 3, 1      A = 10 / 4 = 2.5, C = 4
 *   M_0 = 4, M_1 = 3: B = (2 x 4 + 2 x 3) / 4 = 3.5
 *   PL-CUE 5, 6 (P = 6), G-CUE 7, G-COO 9
 * Losses: LB within 3.5 - 2.5 = 1, LB across 4 - 3.5 = 0.5, serialization within 6 - 4 = 2,
 * across 7 - 6 = 1, transfer MPI 9 - 7 = 2, transfer runtime 10 - 9 = 1; sum 7.5 = R - A.
 * Useful per process: 6 and 4: the busiest is 0, the least busy 1. */
static pm_location_input L4[6];
static const double pl[2] = {5, 6};
static pm_run_input run(void) {
  memset(L4, 0, sizeof L4);
  static const double u[4] = {4, 2, 3, 1};
  for (int i = 0; i < 4; i++) {
    L4[i].process = i / 2;
    L4[i].kind = PM_LOC_THREAD;
    L4[i].useful = L4[i].tl_cue = u[i];
    L4[i].mpi = 10 - u[i];
  }
  L4[4] = (pm_location_input){.process = 0, .kind = PM_LOC_PROGRESS, .useful = 9, .tl_cue = 9};
  L4[5] = (pm_location_input){.process = 1, .kind = PM_LOC_DEVICE, .kernel = 8, .useful = 8, .tl_cue = 8};
  pm_run_input in = {.runtime = 10,
                     .nprocesses = 2,
                     .nnodes = 1,
                     .nlocations = 6,
                     .loc = L4,
                     .has_critical_path = 1,
                     .g_cue = 7,
                     .g_com = 8,
                     .g_coo = 9,
                     .pl_cue = pl};
  return in;
}

static void test_split(void **state) {
  (void)state;
  pm_run_input in = run();
  pm_time_losses x;
  assert_int_equal(pm_losses_compute(&in, &x), 1);
  assert_int_equal(x.has_split, 1);
  assert_double_equal(x.avg_useful, 2.5, TOL);
  assert_double_equal(x.max_useful, 4, TOL);
  assert_double_equal(x.seconds[PM_LOSS_LB_THREADS], 1, TOL);
  assert_double_equal(x.seconds[PM_LOSS_LB_PROCESSES], 0.5, TOL);
  assert_double_equal(x.seconds[PM_LOSS_SER_THREADS], 2, TOL);
  assert_double_equal(x.seconds[PM_LOSS_SER_PROCESSES], 1, TOL);
  assert_double_equal(x.seconds[PM_LOSS_TRANSFER_MPI], 2, TOL);
  assert_double_equal(x.seconds[PM_LOSS_TRANSFER_RUNTIME], 1, TOL);
  assert_double_equal(x.seconds[PM_LOSS_COMMUNICATION], 0, TOL);
  double sum = 0;
  for (int k = 0; k < PM_LOSS_COUNT; k++) sum += x.seconds[k];
  assert_double_equal(sum, in.runtime - x.avg_useful, TOL);
  assert_int_equal(x.busiest, 0);
  assert_int_equal(x.least_busy, 1);
  assert_double_equal(x.busiest_useful, 6, TOL);
  assert_double_equal(x.least_busy_useful, 4, TOL);
  /* each loss is the runtime the critical-path model's ratio costs: PE = A / R, and e.g.
   * LB_X = A / B, TE_mpi = G / O */
  pm_metric *cp = pm_model_critical_path(&in);
  ASSERT_VAL(cp, "pe", 2.5 / 10);
  ASSERT_VAL(cp, "pe/lb/lb_x", 2.5 / 3.5);
  ASSERT_VAL(cp, "pe/comme/te/te_mpi", 7.0 / 9.0);
  pm_metric_free(cp);
}

/* Without a critical path: R - C is one loss (communication); the load-balance split stays.
 * t is then the useful time, the same numbers: communication 10 - 4 = 6. */
static void test_without_critical_path(void **state) {
  (void)state;
  pm_run_input in = run();
  in.has_critical_path = 0;
  pm_time_losses x;
  assert_int_equal(pm_losses_compute(&in, &x), 1);
  assert_int_equal(x.has_split, 0);
  assert_double_equal(x.seconds[PM_LOSS_LB_THREADS], 1, TOL);
  assert_double_equal(x.seconds[PM_LOSS_LB_PROCESSES], 0.5, TOL);
  assert_double_equal(x.seconds[PM_LOSS_COMMUNICATION], 6, TOL);
  assert_double_equal(x.seconds[PM_LOSS_SER_PROCESSES] + x.seconds[PM_LOSS_TRANSFER_MPI], 0, TOL);
}

/* I/O counted as useful by the table but not by the critical path (the run's setting): the path is
 * not used, as without one. Each thread adds 1 s of I/O: useful 5, 3, 4, 2 (A = 3.5, C = 5), M_0 = 5,
 * M_1 = 4: B = 4.5; LB within 1, across 0.5, communication 10 - 5 = 5. */
static void test_io_useful_mismatch(void **state) {
  (void)state;
  pm_run_input in = run();
  for (int i = 0; i < 4; i++) L4[i].io = 1;
  in.io_as_useful = 1;
  pm_time_losses x;
  assert_int_equal(pm_losses_compute(&in, &x), 1);
  assert_int_equal(x.has_split, 0);
  assert_double_equal(x.avg_useful, 3.5, TOL);
  assert_double_equal(x.seconds[PM_LOSS_LB_THREADS], 1, TOL);
  assert_double_equal(x.seconds[PM_LOSS_LB_PROCESSES], 0.5, TOL);
  assert_double_equal(x.seconds[PM_LOSS_COMMUNICATION], 5, TOL);
  in.cue_io_useful = 1; /* the path counted it too: the split is back */
  assert_int_equal(pm_losses_compute(&in, &x), 1);
  assert_int_equal(x.has_split, 1);
}

/* Inconsistent clocks never give a negative loss; no compute location gives nothing. */
static void test_degenerate(void **state) {
  (void)state;
  pm_run_input in = run();
  in.g_coo = 6.5; /* below G-CUE: transfer MPI would be -0.5 */
  pm_time_losses x;
  assert_int_equal(pm_losses_compute(&in, &x), 1);
  assert_double_equal(x.seconds[PM_LOSS_TRANSFER_MPI], 0, TOL);
  assert_double_equal(x.seconds[PM_LOSS_TRANSFER_RUNTIME], 3.5, TOL);
  for (int i = 0; i < 4; i++) L4[i].kind = PM_LOC_PROGRESS;
  assert_int_equal(pm_losses_compute(&in, &x), 0);
  assert_int_equal(x.valid, 0);
  in.runtime = 0;
  assert_int_equal(pm_losses_compute(&in, &x), 0);
  assert_int_equal(pm_losses_compute(NULL, &x), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split),
      cmocka_unit_test(test_without_critical_path),
      cmocka_unit_test(test_io_useful_mismatch),
      cmocka_unit_test(test_degenerate),
  };
  return cmocka_run_group_tests_name("time losses", tests, NULL, NULL);
}
