/* Model selection: names, parsing of user lists, the default set, dispatch. */
#include "test_metrics_common.h"
#include <stdlib.h>
#include <string.h>

static void test_names(void **state) {
  (void)state;
  assert_string_equal(pm_model_name(PM_MODEL_BASIC), "basic");
  assert_string_equal(pm_model_name(PM_MODEL_MULTIPLICATIVE), "multiplicative");
  assert_string_equal(pm_model_name(PM_MODEL_ADDITIVE), "additive");
  assert_string_equal(pm_model_name(PM_MODEL_CRITICAL_PATH), "critical-path");
  assert_string_equal(pm_model_name(PM_MODEL_TALP), "talp");
  assert_string_equal(pm_model_name(PM_MODEL_TASK), "task");
  assert_string_equal(pm_model_name(PM_MODEL_IO), "io");
  assert_string_equal(pm_model_name(PM_MODEL_VECTORIZATION), "vectorization");
  assert_null(pm_model_name(0));
  assert_null(pm_model_name(PM_MODEL_BASIC | PM_MODEL_IO));
  assert_null(pm_model_name(1u << 8));
}

static void test_parse(void **state) {
  unsigned mask = 12345;
  char bad[16];
  (void)state;
  assert_int_equal(pm_models_parse("basic,talp", &mask, bad, sizeof bad), 0);
  assert_int_equal(mask, PM_MODEL_BASIC | PM_MODEL_TALP);
  assert_int_equal(pm_models_parse(" Basic , IO ,critical-path", &mask, bad, sizeof bad), 0);
  assert_int_equal(mask, PM_MODEL_BASIC | PM_MODEL_IO | PM_MODEL_CRITICAL_PATH);
  assert_int_equal(pm_models_parse("all", &mask, NULL, 0), 0);
  assert_int_equal(mask, PM_MODELS_ALL);
  assert_int_equal(pm_models_parse("task,ALL", &mask, NULL, 0), 0);
  assert_int_equal(mask, 0xffu);
  assert_int_equal(pm_models_parse("multiplicative,additive,task,vectorization", &mask, NULL, 0), 0);
  assert_int_equal(mask, PM_MODEL_MULTIPLICATIVE | PM_MODEL_ADDITIVE | PM_MODEL_TASK | PM_MODEL_VECTORIZATION);
  /* errors name the bad token and leave the mask alone */
  mask = 7;
  assert_int_equal(pm_models_parse("basic, foo ,io", &mask, bad, sizeof bad), -1);
  assert_string_equal(bad, "foo");
  assert_int_equal(mask, 7);
  assert_int_equal(pm_models_parse("basic,,io", &mask, bad, sizeof bad), -1);
  assert_string_equal(bad, "");
  assert_int_equal(pm_models_parse("", &mask, bad, sizeof bad), -1);
  assert_string_equal(bad, "");
  assert_int_equal(pm_models_parse("basic,", &mask, bad, sizeof bad), -1);
  assert_int_equal(pm_models_parse("critical_path", &mask, bad, sizeof bad), -1);
  assert_string_equal(bad, "critical_path");
  assert_int_equal(pm_models_parse("basics", &mask, bad, sizeof bad), -1);
  assert_int_equal(pm_models_parse("a-very-long-unknown-model-name", &mask, bad, 8), -1);
  assert_string_equal(bad, "a-very-"); /* truncated to the buffer */
  assert_int_equal(pm_models_parse("nope", &mask, NULL, 0), -1);
  assert_int_equal(pm_models_parse(NULL, &mask, bad, sizeof bad), -1);
  assert_int_equal(pm_models_parse("basic", NULL, bad, sizeof bad), -1);
  assert_int_equal(mask, 7);
}

static void test_defaults(void **state) {
  const unsigned base = PM_MODEL_BASIC | PM_MODEL_CRITICAL_PATH | PM_MODEL_IO;
  pm_location_input l[6];
  pm_run_input in;
  int i;
  (void)state;
  assert_int_equal(pm_models_default(NULL), base);
  in = tm_run(NULL, 0, 0, 1.0);
  assert_int_equal(pm_models_default(&in), base);
  /* MPI only: 4 ranks x 1 thread */
  for (i = 0; i < 4; i++) {
    l[i] = tm_loc(i, PM_LOC_THREAD, 1);
    l[i].calls_mpi = 1;
  }
  in = tm_run(l, 4, 4, 1.0);
  assert_int_equal(pm_models_default(&in), base);
  /* MPI + threads */
  l[1].process = 0;
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_MULTIPLICATIVE | PM_MODEL_ADDITIVE);
  /* workers: 1 per process -> task only; a process with a thread and a worker -> + multiplicative */
  for (i = 0; i < 4; i++) l[i] = tm_loc(i, PM_LOC_WORKER, 1);
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_TASK);
  l[4] = tm_loc(0, PM_LOC_THREAD, 1);
  in.nlocations = 5;
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_TASK | PM_MODEL_MULTIPLICATIVE);
  /* devices, counters; progress threads count as nothing */
  l[4] = tm_loc(0, PM_LOC_PROGRESS, 1);
  l[5] = tm_loc(3, PM_LOC_DEVICE, 0);
  l[0].counters.has_instructions = 1;
  in.nlocations = 6;
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_TASK | PM_MODEL_TALP | PM_MODEL_VECTORIZATION);
  /* device runtime time alone also selects TALP; FP counters alone select vectorization */
  for (i = 0; i < 4; i++) l[i] = tm_loc(i, PM_LOC_THREAD, 1);
  l[2].gpu_runtime = 0.5;
  l[3].counters.has_fp = 1;
  in.nlocations = 4;
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_TALP | PM_MODEL_VECTORIZATION);
  /* a bad process index is ignored, not a crash */
  l[0].process = 99;
  l[1].process = -1;
  assert_int_equal(pm_models_default(&in), base | PM_MODEL_TALP | PM_MODEL_VECTORIZATION);
}

/* pm_model_compute dispatches to the model of each bit (root ids), NULL otherwise. */
static void test_compute(void **state) {
  static const char *ids[8] = {"basic", "multiplicative", "additive", "critical_path",
                               "talp",  "task",           "io",       "vectorization"};
  pm_location_input l = tm_loc(0, PM_LOC_THREAD, 1);
  pm_run_input in = tm_run(&l, 1, 1, 2.0);
  int i;
  (void)state;
  for (i = 0; i < PM_MODEL_COUNT; i++) {
    pm_metric *t = pm_model_compute(1u << i, &in);
    assert_non_null(t);
    assert_string_equal(t->id, ids[i]);
    tm_check_tree(t, 0);
    pm_metric_free(t);
  }
  assert_null(pm_model_compute(0, &in));
  assert_null(pm_model_compute(3, &in));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_parse),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_compute),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
