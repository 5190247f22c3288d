/* Scalability across runs (docs/metrics.md §8): strong, weak, detection, hand-derived. */
#include "test_metrics_common.h"
#include <math.h>
#include <stdlib.h>

static pm_scaling_run srun(int P, int t, double R, double useful, double pe, int counters, double ins, double cyc) {
  pm_scaling_run r = {P, t, R, useful, pe, counters, ins, cyc};
  return r;
}

/* Strong: reference 4x1, R 100, useful 360, 4e11 instructions, 2e11 cycles (IPC 2);
 * run 8x1, R 50, useful 400, 4.4e11 instructions, 2.5e11 cycles, PE 0.9.
 *   detection: instructions per location (4.4e11/8)/(4e11/4) = 0.55 < 0.75 -> strong
 *   CompScal = 360/400 = 0.9
 *   IPC scal = (4.4/2.5)/(4/2) = 1.76/2 = 0.88; Instr scal = 4/4.4 = 10/11
 *   Freq scal = (2.5e11/400)/(2e11/360) = 900/800 = 1.125   (0.88 * 10/11 * 1.125 = 0.9)
 *   GE = 0.9 * 0.9 = 0.81; Speedup = 100/50 = 2 */
static void test_strong(void **state) {
  pm_scaling_run r[2];
  pm_metric *t;
  tm_counts c;
  (void)state;
  r[0] = srun(4, 1, 100, 360, 0.95, 1, 4e11, 2e11);
  r[1] = srun(8, 1, 50, 400, 0.9, 1, 4.4e11, 2.5e11);
  assert_int_equal(pm_scaling_detect(r, 2, 0), PM_SCALING_STRONG);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_AUTO);
  assert_string_equal(t->id, "scaling");
  assert_string_equal(t->name, "Scalability (strong)");
  ASSERT_VAL(t, "ge/compscal", 0.9);
  ASSERT_VAL(t, "ge/compscal/ipc_scal", 0.88);
  ASSERT_VAL(t, "ge/compscal/instr_scal", 10.0 / 11.0);
  ASSERT_VAL(t, "ge/compscal/freq_scal", 1.125);
  ASSERT_VAL(t, "ge/pe", 0.9);
  ASSERT_VAL(t, "ge", 0.81);
  ASSERT_VAL(t, "speedup", 2.0);
  assert_true(pm_metric_find(t, "ge/compscal")->may_exceed_one);
  c = tm_check_tree(t, 0);
  assert_int_equal(c.products, 2);
  tm_check_render(t);
  pm_metric_free(t);
  /* the reference against itself: everything 1, GE = its PE */
  t = pm_model_scaling(r, 2, 0, 0, PM_SCALING_STRONG);
  ASSERT_VAL(t, "ge/compscal", 1.0);
  ASSERT_VAL(t, "ge", 0.95);
  ASSERT_VAL(t, "speedup", 1.0);
  pm_metric_free(t);
}

/* Weak: reference 4x1, useful 400, 4e11 instructions, 4e11 cycles, R 110;
 * run 16x1, useful 1700, 16.8e11 instructions, 17e11 cycles, R 125, PE 0.8.
 *   detection: (16.8e11/16)/(4e11/4) = 1.05 >= 0.75 -> weak
 *   CompScal = 400/1700 * 16/4 = 16/17
 *   IPC scal = (16.8/17)/(4/4) = 16.8/17; Instr scal = 4/16.8 * 4 = 16/16.8;
 *   Freq scal = (17e11/1700)/(4e11/400) = 1           (16.8/17 * 16/16.8 * 1 = 16/17)
 *   GE = 0.8 * 16/17 = 12.8/17; Speedup = 110/125 = 0.88 */
static void test_weak(void **state) {
  pm_scaling_run r[2];
  pm_metric *t;
  (void)state;
  r[0] = srun(4, 1, 110, 400, 0.9, 1, 4e11, 4e11);
  r[1] = srun(16, 1, 125, 1700, 0.8, 1, 16.8e11, 17e11);
  assert_int_equal(pm_scaling_detect(r, 2, 0), PM_SCALING_WEAK);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_AUTO);
  assert_string_equal(t->name, "Scalability (weak)");
  ASSERT_VAL(t, "ge/compscal", 16.0 / 17.0);
  ASSERT_VAL(t, "ge/compscal/ipc_scal", 16.8 / 17.0);
  ASSERT_VAL(t, "ge/compscal/instr_scal", 16.0 / 16.8);
  ASSERT_VAL(t, "ge/compscal/freq_scal", 1.0);
  ASSERT_VAL(t, "ge", 12.8 / 17.0);
  ASSERT_VAL(t, "speedup", 0.88);
  tm_check_tree(t, 0);
  pm_metric_free(t);
  /* declared strong overrides detection: CompScal = 400/1700 = 4/17 */
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_STRONG);
  ASSERT_VAL(t, "ge/compscal", 4.0 / 17.0);
  ASSERT_VAL(t, "ge/compscal/instr_scal", 4.0 / 16.8);
  tm_check_tree(t, 0);
  pm_metric_free(t);
}

/* Serialized (no gain from more processes): reference 2x1, R 100, useful 200; run 4x1, R 100,
 * useful 220, PE 0.5, no counters; declared strong.
 *   CompScal = 200/220 = 10/11; GE = 0.5 * 10/11 = 5/11; Speedup = 1; counter factors n/a.
 * Detection without counters uses useful per location: (220/4)/(200/2) = 0.55 -> strong. */
static void test_serialized(void **state) {
  pm_scaling_run r[2];
  pm_metric *t;
  (void)state;
  r[0] = srun(2, 1, 100, 200, 0.9, 1, 1e9, 1e9);
  r[1] = srun(4, 1, 100, 220, 0.5, 0, 0, 0);
  assert_int_equal(pm_scaling_detect(r, 2, 0), PM_SCALING_STRONG);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_STRONG);
  ASSERT_VAL(t, "ge/compscal", 10.0 / 11.0);
  ASSERT_VAL(t, "ge", 5.0 / 11.0);
  ASSERT_VAL(t, "speedup", 1.0);
  ASSERT_NA(t, "ge/compscal/ipc_scal", "no hardware counters in this run or the reference");
  ASSERT_NA(t, "ge/compscal/freq_scal", "no hardware counters in this run or the reference");
  pm_metric_free(t);
}

/* Detection picks the run whose location count differs most from the reference:
 * ref 4 locations (1e10 instr -> 2.5e9 each); run A 5 locations with 1e10 (2e9 each: 0.8 -> alone
 * it would say weak); run B 16 locations with 1e10 (6.25e8 each: 0.25). B is farther
 * (|log 4| > |log 1.25|): strong. Same-size runs and invalid runs are ignored. */
static void test_detection(void **state) {
  pm_scaling_run r[5];
  (void)state;
  r[0] = srun(4, 1, 10, 40, 0.9, 1, 1e10, 1e10);
  r[1] = srun(5, 1, 9, 40, 0.9, 1, 1e10, 1e10);
  r[2] = srun(16, 1, 4, 40, 0.9, 1, 1e10, 1e10);
  r[3] = srun(2, 2, 10, 40, 0.9, 1, 1e12, 1e10); /* same N as the reference */
  r[4] = srun(0, 1, 10, 40, 0.9, 1, 1e12, 1e10); /* invalid */
  assert_int_equal(pm_scaling_detect(r, 2, 0), PM_SCALING_WEAK);
  assert_int_equal(pm_scaling_detect(r, 3, 0), PM_SCALING_STRONG);
  assert_int_equal(pm_scaling_detect(r, 5, 0), PM_SCALING_STRONG);
  assert_int_equal(pm_scaling_detect(r + 3, 1, 0), PM_SCALING_STRONG); /* nothing to compare */
  assert_int_equal(pm_scaling_detect(r, 1, 0), PM_SCALING_STRONG);
  assert_int_equal(pm_scaling_detect(NULL, 0, 0), PM_SCALING_STRONG);
  assert_int_equal(pm_scaling_detect(r, 2, 4), PM_SCALING_STRONG);      /* ref out of range */
  assert_int_equal(pm_scaling_detect(r + 4, 1, -1), PM_SCALING_STRONG); /* invalid ref */
  /* reference run 1 given explicitly (ref 5 locations; run 0 has 4: 2.5e9 / 2e9 = 1.25 -> weak) */
  assert_int_equal(pm_scaling_detect(r, 2, 1), PM_SCALING_WEAK);
  /* zero work in the reference: cannot tell, strong */
  r[0].sum_instructions = 0;
  assert_int_equal(pm_scaling_detect(r, 2, 0), PM_SCALING_STRONG);
}

/* Published check (docs/metrics.md §9.3): NAS BT-IO at 9 ranks against 4,
 * PE 86.21 % x CompScal 108.93 % = GE 93.91 %. Inputs: useful 108.93 (ref) vs 100, PE 0.8621:
 *   CompScal = 108.93/100 = 1.0893, GE = 0.8621 * 1.0893 = 0.93908553 -> 93.91 % */
static void test_btio_scaling(void **state) {
  pm_scaling_run r[2];
  pm_metric *t;
  (void)state;
  r[0] = srun(4, 1, 100, 108.93, 0.9387, 0, 0, 0);
  r[1] = srun(9, 1, 50, 100, 0.8621, 0, 0, 0);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_STRONG);
  ASSERT_VAL(t, "ge/compscal", 1.0893);
  ASSERT_VAL(t, "ge", 0.8621 * 1.0893);
  assert_true(fabs(VAL(t, "ge") - 0.9391) < 5e-5); /* the published, rounded GE */
  assert_true(VAL(t, "ge/compscal") > 1.0);        /* super-linear: shown, not clamped */
  tm_check_tree(t, 0);
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_scaling_run r[2];
  pm_metric *t;
  (void)state;
  t = pm_model_scaling(NULL, 0, 0, 0, PM_SCALING_STRONG);
  ASSERT_NA(t, "ge", "no runs");
  ASSERT_NA(t, "speedup", "no runs");
  pm_metric_free(t);
  r[0] = srun(4, 1, 100, 360, 0.9, 1, 1, 1);
  r[1] = srun(0, 1, 0, 0, 0, 0, 0, 0);
  t = pm_model_scaling(r, 2, 2, 0, PM_SCALING_STRONG);
  ASSERT_NA(t, "ge/compscal", "run index out of range");
  pm_metric_free(t);
  t = pm_model_scaling(r, 2, 1, -1, PM_SCALING_STRONG);
  ASSERT_NA(t, "ge/compscal", "invalid run: no processes or threads");
  pm_metric_free(t);
  /* zero runtime and useful, unknown PE, counters without cycles */
  r[1] = srun(4, 1, 0, 0, 0, 1, 5, 0);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_STRONG);
  ASSERT_NA(t, "speedup", "zero runtime");
  ASSERT_NA(t, "ge/compscal", "no useful time measured");
  ASSERT_NA(t, "ge/pe", "parallel efficiency of the run not known");
  ASSERT_NA(t, "ge/compscal/ipc_scal", "no cycles counted");
  tm_check_render(t);
  pm_metric_free(t);
  /* reference without useful time */
  r[0].sum_useful = 0;
  r[1] = srun(4, 1, 10, 10, NAN, 0, 0, 0);
  t = pm_model_scaling(r, 2, 1, 0, PM_SCALING_STRONG);
  ASSERT_NA(t, "ge/compscal", "no useful time in the reference run");
  ASSERT_NA(t, "ge/pe", "parallel efficiency of the run not known");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strong),    cmocka_unit_test(test_weak),         cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_detection), cmocka_unit_test(test_btio_scaling), cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
