/* The published consistency check (docs/metrics.md §9.3) (BasicAnalysis, NAS BT-IO, 4 ranks):
 *   LB 99.37 % x CommE 94.47 % = PE 93.87 %;  SerE 94.80 % x TE 99.65 % = CommE 94.47 %.
 * Inputs reproducing it (R = 100):
 *   useful = 94.47, 93.80, 93.70, 93.52: sum 375.49, avg 93.8725, max 94.47
 *   LB    = 93.8725/94.47 = 0.993675...  -> 99.37 %
 *   CommE = 94.47/100     = 0.9447       -> 94.47 %
 *   PE    = 375.49/400    = 0.938725     -> 93.87 %
 *   G-CUE = 99.65: SerE = 94.47/99.65 = 0.948018... -> 94.80 %, TE = 0.9965 -> 99.65 %
 * The products hold exactly (1e-12) on the computed values, and the published rounded figures
 * multiply to the published parent within rounding (0.9937*0.9447 = 0.93875, 0.9480*0.9965 =
 * 0.94468). The critical-path model gives the same figures when TL-CUE = useful. */
#include "test_metrics_common.h"
#include <math.h>

static double round4(double x) { return floor(x * 10000.0 + 0.5) / 10000.0; }

static void fill(pm_location_input *l, pm_run_input *in) {
  static const double u[4] = {94.47, 93.80, 93.70, 93.52};
  static const double pl[4] = {94.47, 93.80, 93.70, 93.52};
  int i;
  for (i = 0; i < 4; i++) {
    l[i] = tm_loc(i, PM_LOC_THREAD, u[i]);
    l[i].tl_cue = u[i];
    l[i].mpi = 100.0 - u[i];
    l[i].calls_mpi = 1;
  }
  *in = tm_run(l, 4, 4, 100.0);
  in->has_critical_path = 1;
  in->g_cue = 99.65;
  in->g_coo = 99.65;
  in->g_com = 99.65;
  in->pl_cue = pl;
}

static void test_btio_basic(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  double lb, ce, pe, se, te;
  (void)state;
  fill(l, &in);
  t = pm_model_basic(&in);
  lb = VAL(t, "pe/lb");
  ce = VAL(t, "pe/comme");
  pe = VAL(t, "pe");
  se = VAL(t, "pe/comme/sere");
  te = VAL(t, "pe/comme/te");
  assert_double_equal(round4(lb), 0.9937, TOL);
  assert_double_equal(round4(ce), 0.9447, TOL);
  assert_double_equal(round4(pe), 0.9387, TOL);
  assert_double_equal(round4(se), 0.9480, TOL);
  assert_double_equal(round4(te), 0.9965, TOL);
  assert_double_equal(lb * ce, pe, TOL);
  assert_double_equal(se * te, ce, TOL);
  /* the published figures are consistent within their rounding */
  assert_true(fabs(0.9937 * 0.9447 - 0.9387) < 1e-4);
  assert_true(fabs(0.9480 * 0.9965 - 0.9447) < 1e-4);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

static void test_btio_critical_path(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  fill(l, &in);
  t = pm_model_critical_path(&in);
  assert_double_equal(round4(VAL(t, "pe/lb")), 0.9937, TOL);
  assert_double_equal(round4(VAL(t, "pe/comme")), 0.9447, TOL);
  assert_double_equal(round4(VAL(t, "pe")), 0.9387, TOL);
  assert_double_equal(round4(VAL(t, "pe/comme/sere")), 0.9480, TOL);
  assert_double_equal(round4(VAL(t, "pe/comme/te")), 0.9965, TOL);
  /* one thread per process: the X split is 1, the MPI split carries everything */
  ASSERT_VAL(t, "pe/lb/lb_x", 1.0);
  ASSERT_VAL(t, "pe/comme/sere/sere_x", 1.0);
  ASSERT_VAL(t, "pe/comme/te/te_x", 0.9965);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Pure MPI: the multiplicative model's MPI level equals the basic model and X is 1. */
static void test_btio_multiplicative(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  fill(l, &in);
  t = pm_model_multiplicative(&in);
  assert_double_equal(round4(VAL(t, "pe/mpi_pe")), 0.9387, TOL);
  assert_double_equal(round4(VAL(t, "pe/mpi_pe/mpi_lb")), 0.9937, TOL);
  assert_double_equal(round4(VAL(t, "pe/mpi_pe/mpi_comme")), 0.9447, TOL);
  assert_double_equal(round4(VAL(t, "pe/mpi_pe/mpi_comme/mpi_sere")), 0.9480, TOL);
  assert_double_equal(round4(VAL(t, "pe/mpi_pe/mpi_comme/mpi_te")), 0.9965, TOL);
  assert_double_equal(VAL(t, "pe/x_pe"), 1.0, TOL);
  tm_check_tree(t, 0);
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_btio_basic),
      cmocka_unit_test(test_btio_critical_path),
      cmocka_unit_test(test_btio_multiplicative),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
