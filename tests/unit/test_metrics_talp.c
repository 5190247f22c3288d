/* TALP-style model, DLB hybrid v2 (docs/metrics.md §5): hand-derived cases. */
#include "test_metrics_common.h"
#include <stdlib.h>

/* Imbalanced MPI across nodes + OpenMP: 4 processes x 2 threads, R = 10; p0, p1 on node 0, p2, p3
 * on node 1. Process p (m = p+1): master MPI m; other thread mpi_worker_idle m (waits meanwhile).
 *   M_p = (m + m)/2 = m: 1, 2, 3, 4;  M = (2+4+6+8)/8 = 2.5;  min_p M_p = 1
 *   M_node0 = (2+4)/4 = 1.5, M_node1 = (6+8)/4 = 3.5;  min_n = 1.5
 *   MPI PE = (10-2.5)/10 = 0.75, MPI CommE = (10-1)/10 = 0.9, MPI LB = 7.5/9 = 5/6
 *   LB in = (10-1.5)/(10-1) = 17/18, LB out = 7.5/8.5 = 15/17   (17/18 * 15/17 = 5/6)
 * OpenMP: one region per process, 2 threads, span 6, thread idle 0.5 and 1.5:
 *   sched = 4 * (2 * 0.5) = 4, lb = 4 * (0 + 1) = 4
 *   ser: the non-master thread of p is outside regions 10 - 6 = 4, of which m is MPI idle:
 *        ser = (4-1) + (4-2) + (4-3) + (4-4) = 6
 *   useful: master 5.5 (region) + (4 - m) serial = 9.5 - m; other thread 6 - 1.5 = 4.5
 *   A' = sum (useful + mpi + mpi_worker_idle) = sum_p (9.5 - m + m + 4.5 + m) = 56 + 10 = 66
 *   OMP PE = 66/(66+6+4+4) = 0.825; Ser = 66/72 = 11/12; LB = 72/76 = 18/19; Sched = 76/80 = 0.95
 *   (11/12 * 18/19 * 19/20 = 198/240 = 0.825) */
static void test_imbalanced(void **state) {
  pm_location_input l[8];
  pm_omp_region_input r[4];
  static const double idle[2] = {0.5, 1.5}, useful[2] = {5.5, 4.5};
  pm_run_input in;
  pm_metric *t;
  tm_counts c;
  int p;
  (void)state;
  for (p = 0; p < 4; p++) {
    double m = p + 1;
    l[2 * p] = tm_loc(p, PM_LOC_THREAD, 9.5 - m);
    l[2 * p].mpi = m;
    l[2 * p].calls_mpi = 1;
    l[2 * p].in_parallel = 6;
    l[2 * p].node = p / 2;
    l[2 * p + 1] = tm_loc(p, PM_LOC_THREAD, 4.5);
    l[2 * p + 1].mpi_worker_idle = m;
    l[2 * p + 1].in_parallel = 6;
    l[2 * p + 1].node = p / 2;
    r[p] = (pm_omp_region_input){"loop", p, 2, 6.0, idle, useful};
  }
  in = tm_run(l, 8, 4, 10.0);
  in.nnodes = 2;
  in.omp_regions = r;
  in.nomp_regions = 4;
  t = pm_model_talp(&in);
  assert_string_equal(t->id, "talp");
  ASSERT_VAL(t, "mpi_pe", 0.75);
  ASSERT_VAL(t, "mpi_pe/mpi_comme", 0.9);
  ASSERT_VAL(t, "mpi_pe/mpi_lb", 5.0 / 6.0);
  ASSERT_VAL(t, "mpi_pe/mpi_lb/lb_in", 17.0 / 18.0);
  ASSERT_VAL(t, "mpi_pe/mpi_lb/lb_out", 15.0 / 17.0);
  ASSERT_VAL(t, "omp_pe", 0.825);
  ASSERT_VAL(t, "omp_pe/omp_ser", 11.0 / 12.0);
  ASSERT_VAL(t, "omp_pe/omp_lb", 18.0 / 19.0);
  ASSERT_VAL(t, "omp_pe/omp_sched", 0.95);
  ASSERT_NA(t, "offload", "no device activity measured");
  ASSERT_NA(t, "device_pe", "no device streams measured");
  c = tm_check_tree(t, 1);
  assert_int_equal(c.products, 3);
  tm_check_render(t);
  pm_metric_free(t);
}

/* Balanced: 2 processes x 1 thread on one node, MPI 2 each, R = 10.
 *   M_p = 2, M = 2, min_p = min_n = 2: MPI PE = CommE = 8/10 = 0.8, LB = LB in = LB out = 1.
 * No OpenMP region: the OpenMP part is n/a. */
static void test_balanced(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 8);
  l[1] = tm_loc(1, PM_LOC_THREAD, 8);
  l[0].mpi = l[1].mpi = 2;
  in = tm_run(l, 2, 2, 10.0);
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "mpi_pe", 0.8);
  ASSERT_VAL(t, "mpi_pe/mpi_comme", 0.8);
  ASSERT_VAL(t, "mpi_pe/mpi_lb", 1.0);
  ASSERT_VAL(t, "mpi_pe/mpi_lb/lb_in", 1.0);
  ASSERT_VAL(t, "mpi_pe/mpi_lb/lb_out", 1.0);
  ASSERT_NA(t, "omp_pe", "no OpenMP parallel regions measured");
  ASSERT_NA(t, "omp_pe/omp_sched", "no OpenMP parallel regions measured");
  pm_metric_free(t);
  /* without node indices LB in/out are n/a */
  in.nnodes = 0;
  t = pm_model_talp(&in);
  ASSERT_NA(t, "mpi_pe/mpi_lb/lb_in", "node indices not measured");
  ASSERT_NA(t, "mpi_pe/mpi_lb/lb_out", "node indices not measured");
  ASSERT_VAL(t, "mpi_pe/mpi_lb", 1.0);
  pm_metric_free(t);
}

/* Serialized OpenMP: 1 process x 4 threads, R = 10; one region of span 2 with no idle, the master
 * runs 8 serially, the 3 other threads idle outside the region: ser = 3 * (10 - 2) = 24.
 *   useful: master 10, others 2 each: A' = 16; OMP PE = 16/40 = 0.4 = Ser; LB = Sched = 1.
 *   MPI: none, M = 0: MPI PE = CommE = LB = 1. */
static void test_serialized(void **state) {
  pm_location_input l[4];
  pm_omp_region_input r;
  static const double idle[4] = {0, 0, 0, 0}, useful[4] = {2, 2, 2, 2};
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 10);
  l[0].in_parallel = 2;
  for (i = 1; i < 4; i++) {
    l[i] = tm_loc(0, PM_LOC_THREAD, 2);
    l[i].in_parallel = 2;
  }
  r = (pm_omp_region_input){"tiny", 0, 4, 2.0, idle, useful};
  in = tm_run(l, 4, 1, 10.0);
  in.omp_regions = &r;
  in.nomp_regions = 1;
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "omp_pe", 0.4);
  ASSERT_VAL(t, "omp_pe/omp_ser", 0.4);
  ASSERT_VAL(t, "omp_pe/omp_lb", 1.0);
  ASSERT_VAL(t, "omp_pe/omp_sched", 1.0);
  ASSERT_VAL(t, "mpi_pe", 1.0);
  ASSERT_VAL(t, "mpi_pe/mpi_lb", 1.0);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Devices: 2 device streams, R = 10.
 *   dev0: kernel 6, memcpy 3 of which 1 overlapped -> non-overlapped 2, active 8
 *   dev1: kernel 4, memcpy 1 all overlapped       -> non-overlapped 0, active 4
 *   Device PE = (6+4)/(10*2) = 0.5; LB_dev = 10/(2*6) = 5/6; CommE_dev = 6/8 = 0.75;
 *   Orchestration = 8/10 = 0.8          (5/6 * 3/4 * 4/5 = 1/2)
 * Host: 1 thread, useful 6, blocked in device runtime 2, no OpenMP:
 *   Device offload = 6/(6+2) = 0.75 */
static void test_devices(void **state) {
  pm_location_input l[3];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 6);
  l[0].gpu_runtime = 2;
  l[1] = tm_loc(0, PM_LOC_DEVICE, 0);
  l[1].kernel = 6;
  l[1].memcpy = 3;
  l[1].memcpy_overlapped = 1;
  l[2] = tm_loc(0, PM_LOC_DEVICE, 0);
  l[2].kernel = 4;
  l[2].memcpy = 1;
  l[2].memcpy_overlapped = 1;
  in = tm_run(l, 3, 1, 10.0);
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "device_pe", 0.5);
  ASSERT_VAL(t, "device_pe/dev_lb", 5.0 / 6.0);
  ASSERT_VAL(t, "device_pe/dev_comme", 0.75);
  ASSERT_VAL(t, "device_pe/dev_orch", 0.8);
  ASSERT_VAL(t, "offload", 0.75);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Offload with OpenMP losses: the serialized case above plus 4 s of device runtime on the master.
 *   ser+lb+sched = 24; useful = 10 + 2*3 = 16: offload = (16+24)/(16+24+4) = 40/44 = 10/11.
 *   A' becomes 20: OMP PE = 20/44 = 5/11. */
static void test_offload_with_omp(void **state) {
  pm_location_input l[4];
  pm_omp_region_input r;
  static const double idle[4] = {0, 0, 0, 0}, useful[4] = {2, 2, 2, 2};
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 10);
  l[0].in_parallel = 2;
  l[0].gpu_runtime = 4;
  for (i = 1; i < 4; i++) {
    l[i] = tm_loc(0, PM_LOC_THREAD, 2);
    l[i].in_parallel = 2;
  }
  r = (pm_omp_region_input){"tiny", 0, 4, 2.0, idle, useful};
  in = tm_run(l, 4, 1, 10.0);
  in.omp_regions = &r;
  in.nomp_regions = 1;
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "offload", 10.0 / 11.0);
  ASSERT_VAL(t, "omp_pe", 5.0 / 11.0);
  ASSERT_NA(t, "device_pe", "no device streams measured");
  pm_metric_free(t);
}

static void test_edges(void **state) {
  pm_location_input l[2];
  pm_omp_region_input r[2];
  static const double idle[2] = {1, 1};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  t = pm_model_talp(NULL);
  ASSERT_NA(t, "mpi_pe", "no run input");
  ASSERT_NA(t, "omp_pe/omp_lb", "no run input");
  ASSERT_NA(t, "offload", "no run input");
  ASSERT_NA(t, "device_pe/dev_orch", "no run input");
  pm_metric_free(t);
  /* everything in MPI */
  l[0] = tm_loc(0, PM_LOC_THREAD, 0);
  l[0].mpi = 10;
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "mpi_pe", 0.0);
  ASSERT_NA(t, "mpi_pe/mpi_lb", "every process spent the whole run in MPI");
  ASSERT_NA(t, "mpi_pe/mpi_lb/lb_in", "every process spent the whole run in MPI");
  ASSERT_NA(t, "mpi_pe/mpi_lb/lb_out", "every node spent the whole run in MPI");
  pm_metric_free(t);
  /* regions without per-thread idle; an empty region is skipped */
  l[0] = tm_loc(0, PM_LOC_THREAD, 5);
  r[0] = (pm_omp_region_input){"empty", 0, 0, 1.0, NULL, NULL};
  r[1] = (pm_omp_region_input){"noidle", 0, 2, 1.0, NULL, NULL};
  in = tm_run(l, 1, 1, 10.0);
  in.omp_regions = r;
  in.nomp_regions = 2;
  t = pm_model_talp(&in);
  ASSERT_NA(t, "omp_pe", "no per-thread idle time in parallel regions");
  pm_metric_free(t);
  /* no active time at all: OpenMP efficiencies undefined */
  l[0] = tm_loc(0, PM_LOC_THREAD, 0);
  r[1] = (pm_omp_region_input){"r", 0, 2, 0.0, idle, NULL};
  in.nomp_regions = 2;
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "omp_pe", 0.0); /* A' = 0, idle 2: 0/2 */
  pm_metric_free(t);
  r[1] = (pm_omp_region_input){"r", 0, 2, 0.0, (const double[]){0, 0}, NULL};
  t = pm_model_talp(&in);
  ASSERT_NA(t, "omp_pe", "no active thread time");
  pm_metric_free(t);
  /* devices without kernels or transfers; a device-only run */
  l[0] = tm_loc(0, PM_LOC_DEVICE, 0);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_talp(&in);
  ASSERT_VAL(t, "device_pe", 0.0);
  ASSERT_NA(t, "device_pe/dev_lb", "no kernel time on the devices");
  ASSERT_NA(t, "device_pe/dev_comme", "no kernel or transfer time on the devices");
  ASSERT_VAL(t, "device_pe/dev_orch", 0.0);
  ASSERT_NA(t, "mpi_pe", "no thread, worker or accelerator locations");
  ASSERT_NA(t, "offload", "no thread, worker or accelerator locations");
  pm_metric_free(t);
  /* a host thread with a device but no host time at all */
  l[1] = tm_loc(0, PM_LOC_THREAD, 0);
  in = tm_run(l, 2, 1, 10.0);
  t = pm_model_talp(&in);
  ASSERT_NA(t, "offload", "no useful, OpenMP or device runtime time");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_imbalanced), cmocka_unit_test(test_balanced),         cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_devices),    cmocka_unit_test(test_offload_with_omp), cmocka_unit_test(test_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
