/* File I/O model (docs/metrics.md §7.1): hand-derived cases, the 5 % warning and its boundary. */
#include "test_metrics_common.h"
#include <stdlib.h>
#include <string.h>

#define WARN "I/O share above 5 %: it biases load balance and communication efficiency"

/* Balanced: 4 ranks, R = 10, useful 8 and I/O 1 each.
 *   I/O eff = 32/(32+4) = 8/9;  I/O share = 100 * 4/(4*10) = 10 % > 5 %: warning */
static void test_balanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  char *text;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) {
    l[i] = tm_loc(i, PM_LOC_THREAD, 8);
    l[i].io = 1;
  }
  in = tm_run(l, 4, 4, 10.0);
  t = pm_model_io(&in);
  assert_string_equal(t->id, "io");
  ASSERT_VAL(t, "io_eff", 8.0 / 9.0);
  ASSERT_VAL(t, "io_share", 10.0);
  assert_string_equal(pm_metric_find(t, "io_share")->unit, "%");
  assert_non_null(pm_metric_find(t, "io_share")->warning);
  assert_string_equal(pm_metric_find(t, "io_share")->warning, WARN);
  text = pm_render_text_string((const pm_metric *const *)&t, 1, NULL, 100);
  assert_non_null(strstr(text, "10.00[1]"));
  assert_non_null(strstr(text, "[1] " WARN));
  free(text);
  tm_check_tree(t, 0);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Imbalanced: 2 ranks, R = 10, useful 9 and 7, I/O 0 and 1.
 *   I/O eff = 16/17;  share = 100 * 1/20 = 5 % exactly: not above 5 %, no warning. */
static void test_imbalanced_boundary(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 9);
  l[1] = tm_loc(1, PM_LOC_THREAD, 7);
  l[1].io = 1;
  in = tm_run(l, 2, 2, 10.0);
  t = pm_model_io(&in);
  ASSERT_VAL(t, "io_eff", 16.0 / 17.0);
  ASSERT_VAL(t, "io_share", 5.0);
  assert_null(pm_metric_find(t, "io_share")->warning);
  pm_metric_free(t);
}

/* Serialized I/O: rank 0 writes for 6 while the 2 others wait in MPI; R = 10, useful 4 each.
 *   I/O eff = 12/(12+6) = 2/3; share = 100 * 6/30 = 20 %: warning.
 * io_as_useful does not change the I/O model (it measures I/O itself). */
static void test_serialized(void **state) {
  pm_location_input l[3];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 4);
  l[0].io = 6;
  l[1] = tm_loc(1, PM_LOC_THREAD, 4);
  l[1].mpi = 6;
  l[2] = tm_loc(2, PM_LOC_THREAD, 4);
  l[2].mpi = 6;
  in = tm_run(l, 3, 3, 10.0);
  in.io_as_useful = 1;
  t = pm_model_io(&in);
  ASSERT_VAL(t, "io_eff", 2.0 / 3.0);
  ASSERT_VAL(t, "io_share", 20.0);
  assert_non_null(pm_metric_find(t, "io_share")->warning);
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l[1];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  t = pm_model_io(NULL);
  ASSERT_NA(t, "io_eff", "no run input");
  ASSERT_NA(t, "io_share", "no run input");
  assert_null(pm_metric_find(t, "io_share")->warning);
  pm_metric_free(t);
  l[0] = tm_loc(0, PM_LOC_THREAD, 0);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_io(&in);
  ASSERT_NA(t, "io_eff", "no useful or I/O time measured");
  ASSERT_VAL(t, "io_share", 0.0);
  pm_metric_free(t);
  l[0] = tm_loc(0, PM_LOC_PROGRESS, 0);
  t = pm_model_io(&in);
  ASSERT_NA(t, "io_eff", "no thread, worker or accelerator locations");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced),
      cmocka_unit_test(test_imbalanced_boundary),
      cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
