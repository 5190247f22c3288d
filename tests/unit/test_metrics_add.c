/* Hybrid additive model, NAG (docs/metrics.md §3): hand-derived cases. Inefficiencies add up:
 * 1 - PE = (1 - Process) + (1 - Thread), etc. (checked by tm_check_tree on every case). */
#include "test_metrics_common.h"
#include <stdlib.h>

/* Thread of process p: serial useful su, parallel-region time inpar, useful inside regions ou.
 * useful = su + ou (the convention the model's Thread split relies on). */
static pm_location_input thr(int p, double su, double inpar, double ou) {
  pm_location_input l = tm_loc(p, PM_LOC_THREAD, su + ou);
  l.serial_useful = su;
  l.in_parallel = inpar;
  l.omp_useful = ou;
  return l;
}

/* Balanced processes with a serial part: 2 processes x 2 threads, R = 10. Masters: serial 2, in
 * parallel regions 8 all useful (useful 10); other threads: in regions 8 all useful (useful 8).
 *   avg(useful) = (10+8+10+8)/4 = 9             PE = 0.9
 *   avg(su) = (2*2 + 2*2)/4 = 2, avg(omp) = (2*8 + 2*8)/4 = 8
 *   Process eff = (8+2)/10 = 1; MPI CommE = max(10,10)/10 = 1; Process LB = 1-(10-8-2)/10 = 1
 *   Thread eff = 1 - (8+2-9)/10 = 0.9
 *   Amdahl = 1 - ((2*1 + 2*1)/4)/10 = 0.9; OpenMP = 1 - (8 - 32/4)/10 = 1
 *   check: 1 + 0.9 - 1 = 0.9 = PE; 0.9 + 1 - 1 = 0.9 = Thread */
static void test_balanced(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  tm_counts c;
  (void)state;
  l[0] = thr(0, 2, 8, 8);
  l[1] = thr(0, 0, 8, 8);
  l[2] = thr(1, 2, 8, 8);
  l[3] = thr(1, 0, 8, 8);
  in = tm_run(l, 4, 2, 10.0);
  t = pm_model_additive(&in);
  assert_string_equal(t->id, "additive");
  ASSERT_VAL(t, "pe", 0.9);
  ASSERT_VAL(t, "pe/process", 1.0);
  ASSERT_VAL(t, "pe/process/mpi_comme", 1.0);
  ASSERT_VAL(t, "pe/process/process_lb", 1.0);
  ASSERT_VAL(t, "pe/thread", 0.9);
  ASSERT_VAL(t, "pe/thread/amdahl", 0.9);
  ASSERT_VAL(t, "pe/thread/omp", 1.0);
  c = tm_check_tree(t, 1);
  assert_int_equal(c.additives, 3); /* pe, process, thread (omp has no region children) */
  tm_check_render(t);
  pm_metric_free(t);
}

/* Imbalanced, with MPI and two regions; R = 10.
 *   p0 master: su 1, regions 6, omp useful 5 (useful 6), MPI 3;  p0 thread: regions 6, useful 3
 *   p1 master: su 1, regions 4, omp useful 4 (useful 5), MPI 5;  p1 thread: regions 4, useful 2
 *   T = 4, sum useful = 6+3+5+2 = 16, avg = 4                      PE = 0.4
 *   avg(su) = (2*1 + 2*1)/4 = 1, avg(omp) = (2*6 + 2*4)/4 = 5
 *   Process eff = (5+1)/10 = 0.6; max_p(omp+su) = max(7, 5) = 7: MPI CommE = 0.7,
 *   Process LB = 1 - (7-5-1)/10 = 0.9                     (0.7 + 0.9 - 1 = 0.6)
 *   Thread eff = 1 - (5+1-4)/10 = 0.8                      (0.6 + 0.8 - 1 = 0.4)
 *   Amdahl = 1 - ((1*1 + 1*1)/4)/10 = 0.95; avg(omp useful) = (5+3+4+2)/4 = 3.5,
 *   OpenMP = 1 - (5-3.5)/10 = 0.85                         (0.95 + 0.85 - 1 = 0.8)
 *   Region a (p0, span 6, useful 5 and 3): lost 1+3 = 4 -> 1 - 4/(4*10) = 0.9
 *   Region b (p1, span 4, useful 4 and 2): lost 0+2 = 2 -> 1 - 2/40 = 0.95 (0.1+0.05 = 0.15 = 1-0.85)
 */
static void test_imbalanced(void **state) {
  pm_location_input l[4];
  pm_omp_region_input r[2];
  static const double ua[2] = {5, 3}, ub[2] = {4, 2}, idle[2] = {0, 0};
  pm_run_input in;
  pm_metric *t;
  tm_counts c;
  (void)state;
  l[0] = thr(0, 1, 6, 5);
  l[0].mpi = 3;
  l[0].calls_mpi = 1;
  l[1] = thr(0, 0, 6, 3);
  l[2] = thr(1, 1, 4, 4);
  l[2].mpi = 5;
  l[2].calls_mpi = 1;
  l[3] = thr(1, 0, 4, 2);
  r[0] = (pm_omp_region_input){"a", 0, 2, 6.0, idle, ua};
  r[1] = (pm_omp_region_input){"b", 1, 2, 4.0, idle, ub};
  in = tm_run(l, 4, 2, 10.0);
  in.omp_regions = r;
  in.nomp_regions = 2;
  t = pm_model_additive(&in);
  ASSERT_VAL(t, "pe", 0.4);
  ASSERT_VAL(t, "pe/process", 0.6);
  ASSERT_VAL(t, "pe/process/mpi_comme", 0.7);
  ASSERT_VAL(t, "pe/process/process_lb", 0.9);
  ASSERT_VAL(t, "pe/thread", 0.8);
  ASSERT_VAL(t, "pe/thread/amdahl", 0.95);
  ASSERT_VAL(t, "pe/thread/omp", 0.85);
  ASSERT_VAL(t, "pe/thread/omp/region_0", 0.9);
  ASSERT_VAL(t, "pe/thread/omp/region_1", 0.95);
  assert_string_equal(pm_metric_find(t, "pe/thread/omp/region_0")->name, "Region a (process 0)");
  c = tm_check_tree(t, 1);
  assert_int_equal(c.additives, 4);
  pm_metric_free(t);
}

/* Serialized: 1 process x 4 threads, R = 10, everything runs serially on the master (su 10,
 * no parallel region); the other threads do nothing.
 *   avg(useful) = 10/4 = 2.5: PE = 0.25; avg(su) = 4*10/4 = 10, avg(omp) = 0
 *   Process eff = 10/10 = 1, MPI CommE = 1, Process LB = 1 - (10-0-10)/10 = 1
 *   Thread eff = 1 - (0+10-2.5)/10 = 0.25; Amdahl = 1 - (10*3/4)/10 = 0.25; OpenMP = 1 - 0 = 1 */
static void test_serialized(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  l[0] = thr(0, 10, 0, 0);
  for (i = 1; i < 4; i++) l[i] = thr(0, 0, 0, 0);
  in = tm_run(l, 4, 1, 10.0);
  t = pm_model_additive(&in);
  ASSERT_VAL(t, "pe", 0.25);
  ASSERT_VAL(t, "pe/process", 1.0);
  ASSERT_VAL(t, "pe/process/mpi_comme", 1.0);
  ASSERT_VAL(t, "pe/process/process_lb", 1.0);
  ASSERT_VAL(t, "pe/thread", 0.25);
  ASSERT_VAL(t, "pe/thread/amdahl", 0.25);
  ASSERT_VAL(t, "pe/thread/omp", 1.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Regions: a team smaller than the process (2 of 4 threads), a region of an unknown process
 * (skipped), a region without per-thread useful time (n/a), an unnamed region.
 * 1 process x 4 threads, R = 10; master su 0, regions span 5, all threads omp useful per below.
 *   region 0 ("half", n = 2, useful 5, 5): lost 0 + 0 + (4-2)*5 = 10 -> 1 - 10/(4*10) = 0.75
 *   region 2 (no useful array): n/a;  region 3 (unnamed, n = 0): lost 4*1 = 4 -> 0.9 */
static void test_regions(void **state) {
  pm_location_input l[4];
  pm_omp_region_input r[4];
  static const double u[2] = {5, 5};
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) l[i] = thr(0, 0, 5, i < 2 ? 5 : 0);
  r[0] = (pm_omp_region_input){"half", 0, 2, 5.0, NULL, u};
  r[1] = (pm_omp_region_input){"elsewhere", 3, 2, 5.0, NULL, u};
  r[2] = (pm_omp_region_input){"nouseful", 0, 2, 5.0, NULL, NULL};
  r[3] = (pm_omp_region_input){NULL, 0, 0, 1.0, NULL, NULL};
  in = tm_run(l, 4, 1, 10.0);
  in.omp_regions = r;
  in.nomp_regions = 4;
  t = pm_model_additive(&in);
  ASSERT_VAL(t, "pe/thread/omp/region_0", 0.75);
  assert_null(pm_metric_find(t, "pe/thread/omp/region_1"));
  ASSERT_NA(t, "pe/thread/omp/region_2", "no per-thread useful time for this region");
  ASSERT_VAL(t, "pe/thread/omp/region_3", 0.9);
  assert_string_equal(pm_metric_find(t, "pe/thread/omp/region_3")->name, "Region region_3 (process 0)");
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Task workers beside the threads are left out (no serial / region structure): the balanced case
 * above plus a worker with useful 3 per process (listed first) gives the same figures. */
static void test_workers_ignored(void **state) {
  pm_location_input l[6];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_WORKER, 3);
  l[1] = thr(0, 2, 8, 8);
  l[2] = thr(0, 0, 8, 8);
  l[3] = tm_loc(1, PM_LOC_WORKER, 3);
  l[4] = thr(1, 2, 8, 8);
  l[5] = thr(1, 0, 8, 8);
  in = tm_run(l, 6, 2, 10.0);
  t = pm_model_additive(&in);
  ASSERT_VAL(t, "pe", 0.9);
  ASSERT_VAL(t, "pe/process", 1.0);
  ASSERT_VAL(t, "pe/thread/amdahl", 0.9);
  ASSERT_VAL(t, "pe/thread/omp", 1.0);
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  t = pm_model_additive(NULL);
  ASSERT_NA(t, "pe", "no run input");
  ASSERT_NA(t, "pe/thread/omp", "no run input");
  pm_metric_free(t);
  /* useful time but no serial / parallel split: PE defined, the rest n/a */
  l[0] = tm_loc(0, PM_LOC_THREAD, 4);
  l[1] = tm_loc(0, PM_LOC_THREAD, 6);
  in = tm_run(l, 2, 1, 10.0);
  t = pm_model_additive(&in);
  ASSERT_VAL(t, "pe", 0.5);
  ASSERT_NA(t, "pe/process", "no serial / parallel-region split measured (serial_useful, in_parallel)");
  ASSERT_NA(t, "pe/thread/amdahl", "no serial / parallel-region split measured (serial_useful, in_parallel)");
  tm_check_render(t);
  pm_metric_free(t);
  /* task workers and a progress thread only: no application thread */
  l[0] = tm_loc(0, PM_LOC_PROGRESS, 0);
  l[1] = tm_loc(0, PM_LOC_WORKER, 6);
  in = tm_run(l, 2, 1, 10.0);
  t = pm_model_additive(&in);
  ASSERT_NA(t, "pe", "no application threads");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced), cmocka_unit_test(test_imbalanced),      cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_regions),  cmocka_unit_test(test_workers_ignored), cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
