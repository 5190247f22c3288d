/* Hybrid multiplicative model, BSC (docs/metrics.md §2): hand-derived cases. */
#include "test_metrics_common.h"
#include <stdlib.h>
#include <string.h>

/* A master thread of process p that calls MPI, with useful u and MPI time m. */
static pm_location_input master(int p, double u, double m) {
  pm_location_input l = tm_loc(p, PM_LOC_THREAD, u);
  l.calls_mpi = 1;
  l.mpi = m;
  return l;
}

/* Balanced: 2 processes x 2 threads, R = 10. Masters: useful 8, MPI 2; other threads: useful 8.
 *   Hybrid PE = avg 8 / 10 = 0.8, Hybrid CommE = 8/10 = 0.8, Hybrid LB = 1
 *   outsideMPI = 10 - 2 = 8 for both: MPI PE = (8*2 + 8*2) / (10*4) = 0.8, MPI CommE = 0.8,
 *   MPI LB = 1; G-COM = 8: MPI SerE = 8/8 = 1, MPI TE = 0.8 / 1 = 0.8
 *   X PE = 0.8/0.8 = 1, X CommE = 1, X LB = 1 */
static void test_balanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = master(0, 8, 2);
  l[1] = tm_loc(0, PM_LOC_THREAD, 8);
  l[2] = master(1, 8, 2);
  l[3] = tm_loc(1, PM_LOC_THREAD, 8);
  in = tm_run(l, 4, 2, 10.0);
  in.has_critical_path = 1;
  in.g_com = 8.0;
  t = pm_model_multiplicative(&in);
  assert_string_equal(t->id, "multiplicative");
  ASSERT_VAL(t, "pe", 0.8);
  ASSERT_VAL(t, "pe/mpi_pe", 0.8);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_lb", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme", 0.8);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_sere", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_te", 0.8);
  ASSERT_VAL(t, "pe/x_pe", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_lb", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_comme", 1.0);
  ASSERT_VAL(t, "hybrid_lb", 1.0);
  ASSERT_VAL(t, "hybrid_comme", 0.8);
  assert_true(pm_metric_find(t, "pe/x_pe")->may_exceed_one);
  assert_true(pm_metric_find(t, "pe/x_pe/x_lb")->may_exceed_one);
  assert_true(pm_metric_find(t, "pe/x_pe/x_comme")->may_exceed_one);
  assert_false(pm_metric_find(t, "pe/mpi_pe")->may_exceed_one);
  tm_check_tree(t, 0);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Imbalanced: R = 10. p0: master useful 8 MPI 2, thread useful 4; p1: master useful 6 MPI 4,
 * thread useful 6.
 *   sum useful 24, T = 4, avg 6, max 8: Hybrid PE = 0.6, Hybrid CommE = 0.8, Hybrid LB = 0.75
 *   outsideMPI: p0 = 8, p1 = 6: MPI PE = (8*2 + 6*2)/(10*4) = 0.7, MPI CommE = 8/10 = 0.8,
 *   MPI LB = 0.7/0.8 = 0.875; G-COM = 9: MPI SerE = 8/9, MPI TE = 0.8 / (8/9) = 0.9
 *   X PE = 0.6/0.7 = 6/7, X CommE = 0.8/0.8 = 1, X LB = 0.75/0.875 = 6/7 */
static void test_imbalanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = master(0, 8, 2);
  l[1] = tm_loc(0, PM_LOC_THREAD, 4);
  l[2] = master(1, 6, 4);
  l[3] = tm_loc(1, PM_LOC_THREAD, 6);
  in = tm_run(l, 4, 2, 10.0);
  in.has_critical_path = 1;
  in.g_com = 9.0;
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe", 0.6);
  ASSERT_VAL(t, "hybrid_comme", 0.8);
  ASSERT_VAL(t, "hybrid_lb", 0.75);
  ASSERT_VAL(t, "pe/mpi_pe", 0.7);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme", 0.8);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_lb", 0.875);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_sere", 8.0 / 9.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_te", 0.9);
  ASSERT_VAL(t, "pe/x_pe", 6.0 / 7.0);
  ASSERT_VAL(t, "pe/x_pe/x_comme", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_lb", 6.0 / 7.0);
  tm_check_tree(t, 0);
  pm_metric_free(t);
}

/* Serialized across processes: 2 ranks x 1 thread in a pipeline, each useful 5 then waits 5 in
 * MPI; R = 10 and the critical path without MPI chains both: G-COM = 10.
 *   outsideMPI = 5 each: MPI PE = (5+5)/(10*2) = 0.5, MPI CommE = 0.5, MPI LB = 1,
 *   MPI SerE = 5/10 = 0.5, MPI TE = 0.5/0.5 = 1; Hybrid PE = 0.5, so X = 1 everywhere. */
static void test_serialized_mpi(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = master(0, 5, 5);
  l[1] = master(1, 5, 5);
  in = tm_run(l, 2, 2, 10.0);
  in.has_critical_path = 1;
  in.g_com = 10.0;
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe", 0.5);
  ASSERT_VAL(t, "pe/mpi_pe", 0.5);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_lb", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme", 0.5);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_sere", 0.5);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_te", 1.0);
  ASSERT_VAL(t, "pe/x_pe", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_lb", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_comme", 1.0);
  pm_metric_free(t);
}

/* Serialized threads, no MPI at all: 1 process x 4 threads, R = 10, only the master works
 * (useful 10), the others have useful 0. No thread calls MPI: outsideMPI = R = 10.
 *   MPI PE = 10*4/(10*4) = 1, MPI CommE = 1, MPI LB = 1; G-COM = 10: SerE = 1, TE = 1
 *   Hybrid PE = 2.5/10 = 0.25, Hybrid CommE = 1, Hybrid LB = 0.25
 *   X PE = 0.25, X CommE = 1, X LB = 0.25 */
static void test_serialized_threads(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 10);
  for (i = 1; i < 4; i++) l[i] = tm_loc(0, PM_LOC_THREAD, 0);
  in = tm_run(l, 4, 1, 10.0);
  in.has_critical_path = 1;
  in.g_com = 10.0;
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe", 0.25);
  ASSERT_VAL(t, "pe/mpi_pe", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_lb", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_sere", 1.0);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme/mpi_te", 1.0);
  ASSERT_VAL(t, "pe/x_pe", 0.25);
  ASSERT_VAL(t, "pe/x_pe/x_comme", 1.0);
  ASSERT_VAL(t, "pe/x_pe/x_lb", 0.25);
  pm_metric_free(t);
}

/* X above 1: 1 process, R = 10; the master spends 5 in MPI (useful 5) while the other thread
 * computes all along (useful 10).
 *   Hybrid PE = 7.5/10 = 0.75, Hybrid CommE = 10/10 = 1, Hybrid LB = 7.5/10 = 0.75
 *   outsideMPI = 5: MPI PE = 5*2/(10*2) = 0.5, MPI CommE = 0.5, MPI LB = 1
 *   X PE = 0.75/0.5 = 1.5, X CommE = 1/0.5 = 2, X LB = 0.75 -- shown as they are, not clamped. */
static void test_x_exceeds_one(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  char *text;
  (void)state;
  l[0] = master(0, 5, 5);
  l[1] = tm_loc(0, PM_LOC_THREAD, 10);
  in = tm_run(l, 2, 1, 10.0);
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe/x_pe", 1.5);
  ASSERT_VAL(t, "pe/x_pe/x_comme", 2.0);
  ASSERT_VAL(t, "pe/x_pe/x_lb", 0.75);
  ASSERT_VAL(t, "pe/mpi_pe", 0.5);
  ASSERT_NA(t, "pe/mpi_pe/mpi_comme/mpi_sere", "no critical path measured");
  ASSERT_NA(t, "pe/mpi_pe/mpi_comme/mpi_te", "no critical path measured");
  tm_check_tree(t, 0);
  text = pm_render_text_string((const pm_metric *const *)&t, 1, NULL, 100);
  assert_non_null(strstr(text, "1.50*"));
  assert_non_null(strstr(text, "2.00*"));
  assert_non_null(strstr(text, "* derived contribution: may exceed 1 (shown unclamped)"));
  free(text);
  pm_metric_free(t);
}

/* MPI_THREAD_MULTIPLE: both threads of p0 call MPI (2 and 4): outsideMPI = 10 - avg 3 = 7.
 * A progress thread (excluded, MPI 8 of R = 10 -> 80 %), a device stream and a process made only
 * of a device (no say in the MPI level). Useful 6 and 6: Hybrid PE = 0.6.
 *   MPI PE = 7*2/(10*2) = 0.7, MPI CommE = 0.7, MPI LB = 1, X PE = 0.6/0.7 = 6/7 */
static void test_multiple_and_excluded(void **state) {
  pm_location_input l[5];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = master(0, 6, 2);
  l[1] = master(0, 6, 4);
  l[2] = tm_loc(0, PM_LOC_PROGRESS, 0);
  l[2].mpi = 8;
  l[3] = tm_loc(0, PM_LOC_DEVICE, 0);
  l[4] = tm_loc(1, PM_LOC_DEVICE, 0);
  in = tm_run(l, 5, 2, 10.0);
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe", 0.6);
  ASSERT_VAL(t, "pe/mpi_pe", 0.7);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_comme", 0.7);
  ASSERT_VAL(t, "pe/mpi_pe/mpi_lb", 1.0);
  ASSERT_VAL(t, "pe/x_pe", 6.0 / 7.0);
  ASSERT_VAL(t, "progress_mpi", 80.0);
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  t = pm_model_multiplicative(NULL);
  ASSERT_NA(t, "pe", "no run input");
  ASSERT_NA(t, "pe/x_pe/x_lb", "no run input");
  ASSERT_NA(t, "hybrid_lb", "no run input");
  pm_metric_free(t);
  /* all time in MPI: outside = 0 -> MPI LB and X undefined */
  l[0] = master(0, 0, 10);
  l[1] = master(1, 0, 10);
  in = tm_run(l, 2, 2, 10.0);
  in.has_critical_path = 1;
  in.g_com = 0.0;
  t = pm_model_multiplicative(&in);
  ASSERT_VAL(t, "pe/mpi_pe", 0.0);
  ASSERT_NA(t, "pe/mpi_pe/mpi_lb", "no time outside MPI");
  ASSERT_NA(t, "pe/x_pe", "no time outside MPI");
  ASSERT_NA(t, "pe/mpi_pe/mpi_comme/mpi_sere", "critical path without MPI (G-COM) is zero");
  ASSERT_NA(t, "hybrid_lb", "no useful time measured");
  tm_check_tree(t, 0);
  tm_check_render(t);
  pm_metric_free(t);
  /* only devices */
  l[0] = tm_loc(0, PM_LOC_DEVICE, 0);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_multiplicative(&in);
  ASSERT_NA(t, "pe", "no thread, worker or accelerator locations");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced),       cmocka_unit_test(test_imbalanced),
      cmocka_unit_test(test_serialized_mpi), cmocka_unit_test(test_serialized_threads),
      cmocka_unit_test(test_x_exceeds_one),  cmocka_unit_test(test_multiple_and_excluded),
      cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
