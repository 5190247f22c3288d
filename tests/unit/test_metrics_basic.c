/* Basic POP model (docs/metrics.md §1): hand-derived cases and edge cases. */
#include "test_metrics_common.h"
#include <math.h>
#include <stdlib.h>

/* Balanced: 4 ranks x 1 thread, R = 10, useful = 8 each, G-CUE = 8.
 *   PE    = 32 / (4*10) = 0.8
 *   LB    = avg 8 / max 8 = 1
 *   CommE = 8 / 10 = 0.8
 *   SerE  = max 8 / G-CUE 8 = 1
 *   TE    = 8 / 10 = 0.8          (SerE * TE = 0.8 = CommE) */
static void test_balanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) l[i] = tm_loc(i, PM_LOC_THREAD, 8.0);
  in = tm_run(l, 4, 4, 10.0);
  in.has_critical_path = 1;
  in.g_cue = 8.0;
  t = pm_model_basic(&in);
  assert_non_null(t);
  assert_string_equal(t->id, "basic");
  ASSERT_VAL(t, "pe", 0.8);
  ASSERT_VAL(t, "pe/lb", 1.0);
  ASSERT_VAL(t, "pe/comme", 0.8);
  ASSERT_VAL(t, "pe/comme/sere", 1.0);
  ASSERT_VAL(t, "pe/comme/te", 0.8);
  assert_null(pm_metric_find(t, "progress_mpi"));
  tm_check_tree(t, 1);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Imbalanced: useful = 4, 6, 8, 10, R = 12, G-CUE = 11.
 *   sum = 28, avg = 7, max = 10
 *   PE    = 28 / (4*12) = 7/12
 *   LB    = 7 / 10 = 0.7
 *   CommE = 10 / 12 = 5/6         (LB * CommE = 0.7 * 5/6 = 7/12)
 *   SerE  = 10 / 11
 *   TE    = 11 / 12               (SerE * TE = 10/12 = CommE) */
static void test_imbalanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 4.0);
  l[1] = tm_loc(1, PM_LOC_THREAD, 6.0);
  l[2] = tm_loc(2, PM_LOC_THREAD, 8.0);
  l[3] = tm_loc(3, PM_LOC_THREAD, 10.0);
  in = tm_run(l, 4, 4, 12.0);
  in.has_critical_path = 1;
  in.g_cue = 11.0;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 7.0 / 12.0);
  ASSERT_VAL(t, "pe/lb", 0.7);
  ASSERT_VAL(t, "pe/comme", 5.0 / 6.0);
  ASSERT_VAL(t, "pe/comme/sere", 10.0 / 11.0);
  ASSERT_VAL(t, "pe/comme/te", 11.0 / 12.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Serialized: 4 ranks run one after the other (a pipeline), each useful = 2, R = 8; the critical
 * path chains the four: G-CUE = 8.
 *   PE = 8 / 32 = 0.25, LB = 2/2 = 1, CommE = 2/8 = 0.25
 *   SerE = 2 / 8 = 0.25 (all the loss is serialization), TE = 8/8 = 1 */
static void test_serialized(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) {
    l[i] = tm_loc(i, PM_LOC_THREAD, 2.0);
    l[i].mpi = 6.0;
    l[i].calls_mpi = 1;
  }
  in = tm_run(l, 4, 4, 8.0);
  in.has_critical_path = 1;
  in.g_cue = 8.0;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.25);
  ASSERT_VAL(t, "pe/lb", 1.0);
  ASSERT_VAL(t, "pe/comme", 0.25);
  ASSERT_VAL(t, "pe/comme/sere", 0.25);
  ASSERT_VAL(t, "pe/comme/te", 1.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Location selection: 2 threads (useful 6 and 4), a worker (useful 8), an accelerator worker
 * (useful 2), a progress thread (mpi 6, excluded) and a device stream (kernel 9, excluded); R = 8.
 *   N = 4 compute locations, sum = 20, max = 8
 *   PE = 20 / 32 = 0.625, LB = 5 / 8 = 0.625, CommE = 8/8 = 1
 *   progress thread: 100 * 6 / (1 * 8) = 75 %
 * No critical path: SerE and TE are n/a, CommE is still defined. */
static void test_selection_and_progress(void **state) {
  pm_location_input l[6];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 6.0);
  l[1] = tm_loc(0, PM_LOC_THREAD, 4.0);
  l[2] = tm_loc(0, PM_LOC_WORKER, 8.0);
  l[3] = tm_loc(0, PM_LOC_ACCEL, 2.0);
  l[4] = tm_loc(0, PM_LOC_PROGRESS, 0.0);
  l[4].mpi = 6.0;
  l[5] = tm_loc(0, PM_LOC_DEVICE, 0.0);
  l[5].kernel = 9.0;
  l[5].useful = 100.0; /* would break every ratio if counted */
  in = tm_run(l, 6, 1, 8.0);
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.625);
  ASSERT_VAL(t, "pe/lb", 0.625);
  ASSERT_VAL(t, "pe/comme", 1.0);
  ASSERT_NA(t, "pe/comme/sere", "no critical path measured");
  ASSERT_NA(t, "pe/comme/te", "no critical path measured");
  ASSERT_VAL(t, "progress_mpi", 75.0);
  assert_string_equal(pm_metric_find(t, "progress_mpi")->unit, "%");
  tm_check_tree(t, 0);
  tm_check_render(t);
  pm_metric_free(t);
}

/* io_as_useful: useful 6 + io 2 = 8 on both of 2 ranks, R = 10 -> PE 16/20 = 0.8 (0.6 without). */
static void test_io_as_useful(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 6.0);
  l[1] = tm_loc(1, PM_LOC_THREAD, 6.0);
  l[0].io = l[1].io = 2.0;
  in = tm_run(l, 2, 2, 10.0);
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.6);
  pm_metric_free(t);
  in.io_as_useful = 1;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.8);
  ASSERT_VAL(t, "pe/lb", 1.0);
  pm_metric_free(t);
}

/* I/O on the critical path: one location, useful 6 + I/O 2, R = 10. Measured without I/O as useful,
 * the path is G-CUE = 6: with io_as_useful SerE would be 8 / 6 > 1, so SerE and TE are n/a with the
 * reason. Measured with it (G-CUE = 8): SerE = 8 / 8 = 1, TE = 8 / 10 = 0.8. Measured with it and
 * shown without: n/a again (max useful 6 over a path that holds I/O). */
static void test_io_on_critical_path(void **state) {
  pm_location_input l = tm_loc(0, PM_LOC_THREAD, 6.0);
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l.io = 2.0;
  in = tm_run(&l, 1, 1, 10.0);
  in.has_critical_path = 1;
  in.g_cue = 6.0;
  in.io_as_useful = 1;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe/comme", 0.8);
  ASSERT_NA(t, "pe/comme/sere",
            "the critical path counted I/O as not useful (POPMETER_IO_AS_USEFUL=1 at run time counts it)");
  ASSERT_NA(t, "pe/comme/te",
            "the critical path counted I/O as not useful (POPMETER_IO_AS_USEFUL=1 at run time counts it)");
  pm_metric_free(t);
  in.cue_io_useful = 1;
  in.g_cue = 8.0;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe/comme/sere", 1.0);
  ASSERT_VAL(t, "pe/comme/te", 0.8);
  pm_metric_free(t);
  in.io_as_useful = 0;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe/comme", 0.6);
  ASSERT_NA(t, "pe/comme/sere", "the critical path counted I/O as useful (the run had POPMETER_IO_AS_USEFUL=1)");
  pm_metric_free(t);
}

/* One location: useful 4 of R = 5 -> PE = CommE = 0.8, LB = 1 (balanced by definition). */
static void test_one_location(void **state) {
  pm_location_input l = tm_loc(0, PM_LOC_THREAD, 4.0);
  pm_run_input in = tm_run(&l, 1, 1, 5.0);
  pm_metric *t;
  (void)state;
  in.has_critical_path = 1;
  in.g_cue = 4.0;
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.8);
  ASSERT_VAL(t, "pe/lb", 1.0);
  ASSERT_VAL(t, "pe/comme", 0.8);
  ASSERT_VAL(t, "pe/comme/sere", 1.0);
  ASSERT_VAL(t, "pe/comme/te", 0.8);
  pm_metric_free(t);
}

/* Every metric of the tree is n/a with the given reason. */
static void assert_all_na(const pm_metric *t, const char *reason) {
  static const char *paths[] = {"pe", "pe/lb", "pe/comme", "pe/comme/sere", "pe/comme/te"};
  size_t i;
  for (i = 0; i < 5; i++) ASSERT_NA(t, paths[i], reason);
}

static void test_edges(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  /* no input */
  t = pm_model_basic(NULL);
  assert_all_na(t, "no run input");
  tm_check_render(t);
  pm_metric_free(t);
  /* zero locations */
  in = tm_run(NULL, 0, 0, 10.0);
  t = pm_model_basic(&in);
  assert_all_na(t, "no locations measured");
  pm_metric_free(t);
  /* zero runtime */
  l[0] = tm_loc(0, PM_LOC_THREAD, 0.0);
  l[1] = tm_loc(1, PM_LOC_THREAD, 0.0);
  in = tm_run(l, 2, 2, 0.0);
  t = pm_model_basic(&in);
  assert_all_na(t, "zero runtime");
  tm_check_render(t);
  pm_metric_free(t);
  /* no useful time at all: PE = CommE = 0, LB undefined (0/0) */
  in = tm_run(l, 2, 2, 10.0);
  t = pm_model_basic(&in);
  ASSERT_VAL(t, "pe", 0.0);
  ASSERT_VAL(t, "pe/comme", 0.0);
  ASSERT_NA(t, "pe/lb", "no useful time measured");
  pm_metric_free(t);
  /* critical path present but zero */
  in.has_critical_path = 1;
  t = pm_model_basic(&in);
  ASSERT_NA(t, "pe/comme/sere", "critical path (G-CUE) is zero");
  ASSERT_NA(t, "pe/comme/te", "critical path (G-CUE) is zero");
  pm_metric_free(t);
  /* process index out of range */
  l[1].process = 7;
  in = tm_run(l, 2, 2, 10.0);
  t = pm_model_basic(&in);
  assert_all_na(t, "invalid input: location process index out of range");
  pm_metric_free(t);
  /* locations array missing */
  in = tm_run(NULL, 2, 2, 10.0);
  t = pm_model_basic(&in);
  assert_all_na(t, "invalid input: location array missing");
  pm_metric_free(t);
  /* only a device stream */
  l[0] = tm_loc(0, PM_LOC_DEVICE, 0.0);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_basic(&in);
  assert_all_na(t, "no thread, worker or accelerator locations");
  pm_metric_free(t);
  /* NaN runtime counts as no runtime; NaN useful gives n/a, never NaN */
  l[0] = tm_loc(0, PM_LOC_THREAD, NAN);
  in = tm_run(l, 1, 1, NAN);
  t = pm_model_basic(&in);
  assert_all_na(t, "zero runtime");
  pm_metric_free(t);
  in.runtime = 10.0;
  t = pm_model_basic(&in);
  ASSERT_NA(t, "pe", "invalid input: a time or count is not a finite number");
  tm_check_tree(t, 1);
  tm_check_render(t);
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced),     cmocka_unit_test(test_imbalanced),
      cmocka_unit_test(test_serialized),   cmocka_unit_test(test_selection_and_progress),
      cmocka_unit_test(test_io_as_useful), cmocka_unit_test(test_io_on_critical_path),
      cmocka_unit_test(test_one_location), cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
