/* Vectorization model (docs/metrics.md §7.2): hand-derived cases and missing counters. */
#include "test_metrics_common.h"
#include <stdlib.h>

static pm_location_input counted(double ins, double cyc, double s32, double s64, double v128, double v256, double v512,
                                 double fpops) {
  pm_location_input l = tm_loc(0, PM_LOC_THREAD, 1.0);
  pm_counters *c = &l.counters;
  c->has_instructions = c->has_cycles = c->has_fp = 1;
  c->instructions = ins;
  c->cycles = cyc;
  c->fp_by_width[0] = s32;
  c->fp_by_width[1] = s64;
  c->fp_by_width[2] = v128;
  c->fp_by_width[3] = v256;
  c->fp_by_width[4] = v512;
  c->fp_ops = fpops;
  return l;
}

/* Mixed: 2 locations, W_max = 512.
 *   loc0: 1000 instr, 500 cycles, 100 scalar double (64 bit) + 100 x 256-bit double, fp_ops
 *         100 + 4*100 = 500; scalar/packed double 100/100
 *   loc1: 1000 instr, 1500 cycles, 200 x 512-bit double, fp_ops 8*200 = 1600; packed double 200
 *   V = (64*100 + 256*100 + 512*200)/(512*400) = 134400/204800 = 0.65625
 *   double ratio = 300/(100+300) = 0.75; single: no SP instructions -> n/a
 *   intensity = (100+200)/2000 = 0.15
 *   IPC = 2000/2000 = 1, OPI = 2100/2000 = 1.05, OPC = 1.05 */
static void test_mixed(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = counted(1000, 500, 0, 100, 0, 100, 0, 500);
  l[0].counters.fp_scalar[1] = 100;
  l[0].counters.fp_packed[1] = 100;
  l[1] = counted(1000, 1500, 0, 0, 0, 0, 200, 1600);
  l[1].counters.fp_packed[1] = 200;
  l[1].process = 1;
  in = tm_run(l, 2, 2, 10.0);
  in.vector_width_max = 512;
  t = pm_model_vectorization(&in);
  assert_string_equal(t->id, "vectorization");
  ASSERT_VAL(t, "vec_eff", 0.65625);
  ASSERT_VAL(t, "vec_ratio_dp", 0.75);
  ASSERT_NA(t, "vec_ratio_sp", "no single-precision FP instructions counted");
  ASSERT_VAL(t, "vec_intensity", 0.15);
  ASSERT_VAL(t, "opc/ipc", 1.0);
  ASSERT_VAL(t, "opc/opi", 1.05);
  ASSERT_VAL(t, "opc", 1.05);
  tm_check_tree(t, 0);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Scalar only: 1000 scalar single (32-bit), W_max = 256: V = 32/256 = 0.125; single ratio
 * 0/(1000+0) = 0; intensity 0/4000 = 0; IPC = 4000/2000 = 2, OPI = 1000/4000 = 0.25, OPC = 0.5. */
static void test_scalar(void **state) {
  pm_location_input l = counted(4000, 2000, 1000, 0, 0, 0, 0, 1000);
  pm_run_input in = tm_run(&l, 1, 1, 1.0);
  pm_metric *t;
  (void)state;
  l.counters.fp_scalar[0] = 1000;
  in.vector_width_max = 256;
  t = pm_model_vectorization(&in);
  ASSERT_VAL(t, "vec_eff", 0.125);
  ASSERT_VAL(t, "vec_ratio_sp", 0.0);
  ASSERT_VAL(t, "vec_intensity", 0.0);
  ASSERT_VAL(t, "opc/ipc", 2.0);
  ASSERT_VAL(t, "opc/opi", 0.25);
  ASSERT_VAL(t, "opc", 0.5);
  pm_metric_free(t);
}

/* Fully vectorized: 500 x 256-bit single on a 256-bit machine: V = 256*500/(256*500) = 1;
 * single ratio 500/500 = 1; intensity 500/1000 = 0.5. */
static void test_vector(void **state) {
  pm_location_input l = counted(1000, 1000, 0, 0, 0, 500, 0, 4000);
  pm_run_input in = tm_run(&l, 1, 1, 1.0);
  pm_metric *t;
  (void)state;
  l.counters.fp_packed[0] = 500;
  in.vector_width_max = 256;
  t = pm_model_vectorization(&in);
  ASSERT_VAL(t, "vec_eff", 1.0);
  ASSERT_VAL(t, "vec_ratio_sp", 1.0);
  ASSERT_VAL(t, "vec_intensity", 0.5);
  ASSERT_VAL(t, "opc", 4.0);
  pm_metric_free(t);
}

static void test_missing_counters(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  /* no counters at all: every metric n/a, never 0 */
  l[0] = tm_loc(0, PM_LOC_THREAD, 1);
  l[1] = tm_loc(0, PM_LOC_THREAD, 1);
  in = tm_run(l, 2, 1, 1.0);
  in.vector_width_max = 512;
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "vec_eff", "no hardware counters: FP instruction counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "vec_ratio_sp", "no hardware counters: FP instruction counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "vec_ratio_dp", "no hardware counters: FP instruction counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "vec_intensity", "no hardware counters: FP instruction counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "opc/ipc", "no hardware counters: instruction counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "opc/opi", "no hardware counters: FP operation counts unavailable on 2 of 2 locations");
  ASSERT_NA(t, "opc", "no hardware counters: instruction counts unavailable on 2 of 2 locations");
  tm_check_render(t);
  pm_metric_free(t);
  /* one location lacks cycles, the other lacks FP: partial sums are refused */
  l[0] = counted(100, 100, 0, 10, 0, 0, 0, 10);
  l[1] = counted(100, 100, 0, 10, 0, 0, 0, 10);
  l[0].counters.has_cycles = 0;
  l[1].counters.has_fp = 0;
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "opc/ipc", "no hardware counters: cycle counts unavailable on 1 of 2 locations");
  ASSERT_NA(t, "opc", "no hardware counters: cycle counts unavailable on 1 of 2 locations");
  ASSERT_NA(t, "opc/opi", "no hardware counters: FP operation counts unavailable on 1 of 2 locations");
  ASSERT_NA(t, "vec_eff", "no hardware counters: FP instruction counts unavailable on 1 of 2 locations");
  pm_metric_free(t);
  /* only instructions missing: intensity names instructions; IPC fine means OPC follows OPI */
  l[1].counters.has_fp = 1;
  l[0].counters.has_cycles = 1;
  l[0].counters.has_instructions = 0;
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "vec_intensity", "no hardware counters: instruction counts unavailable on 1 of 2 locations");
  ASSERT_VAL(t, "vec_eff", 64.0 / 512.0);
  pm_metric_free(t);
  /* OPI n/a alone: FP missing, instructions and cycles fine -> OPC takes OPI's reason */
  l[0].counters.has_instructions = 1;
  l[0].counters.has_fp = 0;
  t = pm_model_vectorization(&in);
  ASSERT_VAL(t, "opc/ipc", 1.0);
  ASSERT_NA(t, "opc", "no hardware counters: FP operation counts unavailable on 1 of 2 locations");
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l = counted(0, 0, 0, 0, 0, 0, 1, 0);
  pm_run_input in = tm_run(&l, 1, 1, 1.0);
  pm_metric *t;
  (void)state;
  /* widest unit unknown */
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "vec_eff", "widest vector unit of the machine unknown");
  ASSERT_NA(t, "opc/ipc", "no cycles counted");
  ASSERT_NA(t, "opc/opi", "no instructions counted");
  ASSERT_NA(t, "vec_intensity", "no instructions counted");
  pm_metric_free(t);
  /* 512-bit instructions on a machine declared 256 bits wide */
  in.vector_width_max = 256;
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "vec_eff", "FP instructions wider than the declared widest vector unit (256 bits)");
  pm_metric_free(t);
  /* no FP instructions at all */
  l.counters.fp_by_width[4] = 0;
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "vec_eff", "no FP instructions counted");
  pm_metric_free(t);
  t = pm_model_vectorization(NULL);
  ASSERT_NA(t, "vec_eff", "no run input");
  ASSERT_NA(t, "opc/opi", "no run input");
  pm_metric_free(t);
  l = tm_loc(0, PM_LOC_DEVICE, 0);
  t = pm_model_vectorization(&in);
  ASSERT_NA(t, "opc", "no thread, worker or accelerator locations");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mixed),  cmocka_unit_test(test_scalar),
      cmocka_unit_test(test_vector), cmocka_unit_test(test_missing_counters),
      cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
