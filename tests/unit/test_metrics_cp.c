/* Critical-path model, RWTH / OTF-CPT (docs/metrics.md §4): hand-derived cases. */
#include "test_metrics_common.h"
#include <stdlib.h>

static pm_location_input cue(int p, double t) {
  pm_location_input l = tm_loc(p, PM_LOC_THREAD, t);
  l.tl_cue = t;
  return l;
}

static pm_run_input cp_run(const pm_location_input *l, int n, int P, double R, const double *pl, double gcue,
                           double gcoo) {
  pm_run_input in = tm_run(l, n, P, R);
  in.has_critical_path = 1;
  in.pl_cue = pl;
  in.g_cue = gcue;
  in.g_coo = gcoo;
  return in;
}

/* Balanced: 2 processes x 2 threads, every t_i = 8, PL-CUE = 8, 8, G-CUE = 8, G-COO = 9, R = 10.
 *   LB_X = 32/(2*8 + 2*8) = 1, LB_mpi = 32/(4*8) = 1, LB = 1
 *   SerE_X = 8/8 = 1, SerE_mpi = 8/8 = 1, SerE = 1
 *   TE_X = 9/10 = 0.9, TE_mpi = 8/9, TE = 8/10 = 0.8
 *   CommE = 8/10 = 0.8, PE = 0.8 */
static void test_balanced(void **state) {
  pm_location_input l[4];
  static const double pl[2] = {8, 8};
  pm_run_input in;
  pm_metric *t;
  tm_counts c;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) l[i] = cue(i / 2, 8);
  in = cp_run(l, 4, 2, 10.0, pl, 8.0, 9.0);
  t = pm_model_critical_path(&in);
  assert_string_equal(t->id, "critical_path");
  ASSERT_VAL(t, "pe", 0.8);
  ASSERT_VAL(t, "pe/lb", 1.0);
  ASSERT_VAL(t, "pe/lb/lb_x", 1.0);
  ASSERT_VAL(t, "pe/lb/lb_mpi", 1.0);
  ASSERT_VAL(t, "pe/comme", 0.8);
  ASSERT_VAL(t, "pe/comme/sere", 1.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 1.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_mpi", 1.0);
  ASSERT_VAL(t, "pe/comme/te", 0.8);
  ASSERT_VAL(t, "pe/comme/te/te_x", 0.9);
  ASSERT_VAL(t, "pe/comme/te/te_mpi", 8.0 / 9.0);
  c = tm_check_tree(t, 1);
  assert_int_equal(c.products, 5);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Imbalanced: p0 threads t = 8, 4; p1 threads t = 6, 6; PL-CUE = 8, 6; G-CUE = 9, G-COO = 9.5,
 * R = 10.
 *   sum t = 24, sum_j |PT_j| max_j = 2*8 + 2*6 = 28, |T| max t = 4*8 = 32
 *   LB_X = 24/28 = 6/7, LB_mpi = 28/32 = 7/8, LB = 24/32 = 0.75
 *   SerE_X = 8/8 = 1, SerE_mpi = 8/9, SerE = 8/9
 *   TE_X = 9.5/10 = 0.95, TE_mpi = 9/9.5 = 18/19, TE = 0.9
 *   CommE = 8/10 = 0.8 (= 8/9 * 0.9), PE = 6/10 = 0.6 (= 0.75 * 0.8) */
static void test_imbalanced(void **state) {
  pm_location_input l[4];
  static const double pl[2] = {8, 6};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = cue(0, 8);
  l[1] = cue(0, 4);
  l[2] = cue(1, 6);
  l[3] = cue(1, 6);
  in = cp_run(l, 4, 2, 10.0, pl, 9.0, 9.5);
  t = pm_model_critical_path(&in);
  ASSERT_VAL(t, "pe", 0.6);
  ASSERT_VAL(t, "pe/lb", 0.75);
  ASSERT_VAL(t, "pe/lb/lb_x", 6.0 / 7.0);
  ASSERT_VAL(t, "pe/lb/lb_mpi", 7.0 / 8.0);
  ASSERT_VAL(t, "pe/comme", 0.8);
  ASSERT_VAL(t, "pe/comme/sere", 8.0 / 9.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 1.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_mpi", 8.0 / 9.0);
  ASSERT_VAL(t, "pe/comme/te", 0.9);
  ASSERT_VAL(t, "pe/comme/te/te_x", 0.95);
  ASSERT_VAL(t, "pe/comme/te/te_mpi", 18.0 / 19.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Serialized: 2 ranks x 1 thread each working 5 one after the other: PL-CUE = 5, 5, the global
 * path chains them: G-CUE = G-COO = R = 10.
 *   LB_X = 10/(5+5) = 1, LB_mpi = 10/(2*5) = 1; SerE_X = 5/5 = 1, SerE_mpi = 5/10 = 0.5;
 *   TE_X = 10/10 = 1, TE_mpi = 10/10 = 1; PE = 5/10 = 0.5 */
static void test_serialized(void **state) {
  pm_location_input l[2];
  static const double pl[2] = {5, 5};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = cue(0, 5);
  l[1] = cue(1, 5);
  in = cp_run(l, 2, 2, 10.0, pl, 10.0, 10.0);
  t = pm_model_critical_path(&in);
  ASSERT_VAL(t, "pe", 0.5);
  ASSERT_VAL(t, "pe/lb/lb_x", 1.0);
  ASSERT_VAL(t, "pe/lb/lb_mpi", 1.0);
  ASSERT_VAL(t, "pe/comme/sere", 0.5);
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 1.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_mpi", 0.5);
  ASSERT_VAL(t, "pe/comme/te/te_x", 1.0);
  ASSERT_VAL(t, "pe/comme/te/te_mpi", 1.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Thread-level serialization inside one process: 1 process x 2 threads, t = 3 and 3, but the two
 * run one after the other: PL-CUE = 6 = G-CUE, G-COO = 8, R = 10.
 *   SerE_X = 3/6 = 0.5, SerE_mpi = 6/6 = 1; TE_X = 0.8, TE_mpi = 6/8 = 0.75; PE = 3/10 = 0.3 */
static void test_serialized_threads(void **state) {
  pm_location_input l[2];
  static const double pl[1] = {6};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = cue(0, 3);
  l[1] = cue(0, 3);
  in = cp_run(l, 2, 1, 10.0, pl, 6.0, 8.0);
  t = pm_model_critical_path(&in);
  ASSERT_VAL(t, "pe", 0.3);
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 0.5);
  ASSERT_VAL(t, "pe/comme/sere/sere_mpi", 1.0);
  ASSERT_VAL(t, "pe/comme/te/te_x", 0.8);
  ASSERT_VAL(t, "pe/comme/te/te_mpi", 0.75);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l[3];
  static const double pl[3] = {0, 4, 0};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  /* no critical path measured: everything n/a */
  l[0] = cue(0, 5);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_critical_path(&in);
  ASSERT_NA(t, "pe", "no critical path measured");
  ASSERT_NA(t, "pe/lb/lb_x", "no critical path measured");
  ASSERT_NA(t, "pe/comme/te/te_mpi", "no critical path measured");
  tm_check_render(t);
  pm_metric_free(t);
  /* no PL-CUE: only the SerE split is n/a; SerE = 5/5 = 1 */
  in = cp_run(l, 1, 1, 10.0, NULL, 5.0, 5.0);
  t = pm_model_critical_path(&in);
  ASSERT_VAL(t, "pe/comme/sere", 1.0);
  ASSERT_NA(t, "pe/comme/sere/sere_x", "no process-local critical paths (PL-CUE) measured");
  ASSERT_NA(t, "pe/comme/sere/sere_mpi", "no process-local critical paths (PL-CUE) measured");
  pm_metric_free(t);
  /* zeros: no useful time, zero critical paths. Process 2 has no compute location (device). */
  l[0] = cue(0, 0);
  l[1] = cue(1, 0);
  l[2] = tm_loc(2, PM_LOC_DEVICE, 0);
  in = cp_run(l, 3, 3, 10.0, pl, 0.0, 0.0);
  t = pm_model_critical_path(&in);
  ASSERT_VAL(t, "pe", 0.0);
  ASSERT_NA(t, "pe/lb", "no useful time measured");
  ASSERT_NA(t, "pe/lb/lb_x", "no useful time measured");
  ASSERT_NA(t, "pe/comme/sere", "critical path (G-CUE) is zero");
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 0.0); /* max t 0 / max PL-CUE 4 */
  ASSERT_NA(t, "pe/comme/sere/sere_mpi", "critical path (G-CUE) is zero");
  ASSERT_NA(t, "pe/comme/te/te_mpi", "critical path without OpenMP/runtime time (G-COO) is zero");
  tm_check_tree(t, 1);
  pm_metric_free(t);
  /* PL-CUE all zero */
  in = cp_run(l, 2, 2, 10.0, pl + 2, 0.0, 0.0);
  in.pl_cue = (const double[]){0, 0};
  t = pm_model_critical_path(&in);
  ASSERT_NA(t, "pe/comme/sere/sere_x", "process-local critical paths (PL-CUE) are zero");
  pm_metric_free(t);
  /* only a device */
  l[0] = tm_loc(0, PM_LOC_DEVICE, 0);
  in = cp_run(l, 1, 1, 10.0, pl, 1.0, 1.0);
  t = pm_model_critical_path(&in);
  ASSERT_NA(t, "pe", "no thread, worker or accelerator locations");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced),           cmocka_unit_test(test_imbalanced), cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_serialized_threads), cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
