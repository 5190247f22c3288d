/* Task-based runtime model, StarPU (docs/metrics.md §6) and the area bound: hand-derived cases. */
#include "test_metrics_common.h"
#include <stdlib.h>

static pm_location_input worker(int p, pm_loc_kind kind, double exec, double runtime) {
  pm_location_input l = tm_loc(p, kind, exec);
  l.exec = exec;
  l.runtime = runtime;
  return l;
}

/* 2 processes x 2 CPU workers, R = 10: exec 8, 4 on process 0 and 6, 2 on process 1; each worker of
 * process p has runtime rt[p]. */
static pm_run_input two_by_two(pm_location_input l[4], double rt0, double rt1) {
  l[0] = worker(0, PM_LOC_WORKER, 8, rt0);
  l[1] = worker(0, PM_LOC_WORKER, 4, rt0);
  l[2] = worker(1, PM_LOC_WORKER, 6, rt1);
  l[3] = worker(1, PM_LOC_WORKER, 2, rt1);
  return tm_run(l, 4, 2, 10.0);
}

/* Balanced: 1 process, 4 CPU workers, R = 10, each exec 8, runtime 1 (idle 1).
 *   e_runtime = 32/(32+4) = 8/9, e_pipeline = 36/(4*10) = 0.9
 *   codelet gemm: exec 32, predicted 32 -> online e_locality = 32/32 = 1
 *   no reference run: e_granularity n/a, so e is n/a
 *   ABE = 32/4 = 8 (one worker type), CPB = cp_bound 5: bound = max(5, 8)/10 = 0.8
 * With reference runs: one worker took 28.8 in total, the sequential kernels 24:
 *   e_locality = 28.8/32 = 0.9, e_granularity = 24/28.8 = 5/6,
 *   e = 5/6 * 0.9 * 8/9 * 0.9 = 0.75 * 0.8 = 0.6 */
static void test_balanced(void **state) {
  pm_location_input l[4];
  pm_codelet_input c = {"gemm", 0, 32.0, 32.0, 64};
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) l[i] = worker(0, PM_LOC_WORKER, 8, 1);
  in = tm_run(l, 4, 1, 10.0);
  in.codelets = &c;
  in.ncodelets = 1;
  in.nworker_types = 1;
  in.cp_bound = 5.0;
  t = pm_model_task(&in);
  assert_string_equal(t->id, "task");
  ASSERT_VAL(t, "e/e_runtime", 8.0 / 9.0);
  ASSERT_VAL(t, "e/e_pipeline", 0.9);
  ASSERT_VAL(t, "e/e_locality", 1.0);
  ASSERT_NA(t, "e/e_granularity", "needs a reference run (sequential kernels and one worker)");
  ASSERT_NA(t, "e", "needs a reference run (sequential kernels and one worker)");
  ASSERT_VAL(t, "bound", 0.8);
  ASSERT_VAL(t, "bound/cpb", 5.0);
  ASSERT_VAL(t, "bound/abe", 8.0);
  assert_null(pm_metric_find(t, "per_process")); /* one process: no per-process split */
  tm_check_tree(t, 1);
  tm_check_render(t);
  pm_metric_free(t);

  in.task_ref_exec_1worker = 28.8;
  in.task_ref_exec_seq = 24.0;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_locality", 0.9);
  ASSERT_VAL(t, "e/e_granularity", 5.0 / 6.0);
  ASSERT_VAL(t, "e", 0.6);
  assert_true(pm_metric_find(t, "e")->may_exceed_one);
  assert_true(pm_metric_find(t, "e/e_locality")->may_exceed_one);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Runtime overhead not observable (StarPU 1.4's tool interface): 2 processes x 2 CPU workers, R = 10,
 * exec 8, 4 | 6, 2 and runtime 0 (the non-body time was counted idle).
 *   e_runtime n/a (also per process); e_pipeline = 20/40 = 0.5, with a warning that it includes the
 *   runtime overhead; per process: p0 pipeline 12/20 = 0.6, p1 8/20 = 0.4; product n/a */
static void test_runtime_unobserved(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  (void)state;
  in = two_by_two(l, 0, 0);
  in.task_runtime_unobserved = 1;
  t = pm_model_task(&in);
  ASSERT_NA(t, "e/e_runtime", "runtime overhead not observable through StarPU's tool interface (task bodies only)");
  ASSERT_VAL(t, "e/e_pipeline", 0.5);
  assert_non_null(pm_metric_find(t, "e/e_pipeline")->warning);
  ASSERT_NA(t, "per_process/p0/p0_runtime",
            "runtime overhead not observable through StarPU's tool interface (task bodies only)");
  ASSERT_VAL(t, "per_process/p0/p0_pipeline", 0.6);
  ASSERT_VAL(t, "per_process/p1/p1_pipeline", 0.4);
  ASSERT_NA(t, "per_process/p1", "runtime overhead not observable through StarPU's tool interface (task bodies only)");
  tm_check_tree(t, 1);
  tm_check_render(t);
  pm_metric_free(t);
  /* observed (the default): the same input gives e_runtime 1 and no warning */
  in.task_runtime_unobserved = 0;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_runtime", 1.0);
  assert_null(pm_metric_find(t, "e/e_pipeline")->warning);
  pm_metric_free(t);
}

/* Imbalanced: 2 processes x 2 CPU workers, R = 10.
 *   p0: exec 8, 4; runtime 1, 1      p1: exec 6, 2; runtime 2, 2
 *   sum exec 20, sum runtime 6: e_runtime = 20/26 = 10/13, e_pipeline = 26/40 = 0.65
 *   per process: p0 runtime 12/14 = 6/7, pipeline 14/20 = 0.7, product 0.6;
 *                p1 runtime 8/12 = 2/3, pipeline 12/20 = 0.6, product 0.4
 *   codelets: a (exec 12, predicted 9), b (exec 8, no prediction): e_locality = 9/12 = 0.75
 *   ABE = 20/4 = 5; no cp_bound but G-CUE = 7 measured: CPB = 7; bound = 7/10 = 0.7 */
static void test_imbalanced(void **state) {
  pm_location_input l[4];
  pm_codelet_input c[2] = {{"a", 0, 12.0, 9.0, 10}, {"b", 0, 8.0, 0.0, 10}};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  in = two_by_two(l, 1, 2);
  in.codelets = c;
  in.ncodelets = 2;
  in.has_critical_path = 1;
  in.g_cue = 7.0;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_runtime", 10.0 / 13.0);
  ASSERT_VAL(t, "e/e_pipeline", 0.65);
  ASSERT_VAL(t, "e/e_locality", 0.75);
  ASSERT_VAL(t, "per_process/p0", 0.6);
  ASSERT_VAL(t, "per_process/p0/p0_runtime", 6.0 / 7.0);
  ASSERT_VAL(t, "per_process/p0/p0_pipeline", 0.7);
  ASSERT_VAL(t, "per_process/p1", 0.4);
  ASSERT_VAL(t, "per_process/p1/p1_runtime", 2.0 / 3.0);
  ASSERT_VAL(t, "per_process/p1/p1_pipeline", 0.6);
  ASSERT_VAL(t, "bound/cpb", 7.0);
  ASSERT_VAL(t, "bound/abe", 5.0);
  ASSERT_VAL(t, "bound", 0.7);
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* Serialized: a chain of tasks on 1 process with 4 workers, R = 10: one worker executes 10, the
 * others idle. e_runtime = 10/10 = 1, e_pipeline = 10/40 = 0.25. The task graph is a chain,
 * CPB = 10: bound = max(10, ABE 10/4)/10 = 1 -- the schedule is optimal, the graph is the limit. */
static void test_serialized(void **state) {
  pm_location_input l[4];
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  l[0] = worker(0, PM_LOC_WORKER, 10, 0);
  for (i = 1; i < 4; i++) l[i] = worker(0, PM_LOC_WORKER, 0, 0);
  in = tm_run(l, 4, 1, 10.0);
  in.cp_bound = 10.0;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_runtime", 1.0);
  ASSERT_VAL(t, "e/e_pipeline", 0.25);
  ASSERT_VAL(t, "bound", 1.0);
  ASSERT_VAL(t, "bound/abe", 2.5);
  ASSERT_NA(t, "e/e_locality", "no reference run and no duration-model predictions");
  tm_check_tree(t, 1);
  pm_metric_free(t);
}

/* What lies on the critical path. 2 processes x 2 CPU workers, R = 10, each exec 8, runtime 1.
 * The task-DAG path has CPB = 6: potrf on rank 0 for 2.5, gemm on rank 1 for 3, other codelets 0.5
 * (2.5 + 3 + 0.5 = 6); per rank: rank 0 2.5, rank 1 3; with transfers (COO) the path is 7.5, of
 * which MPI 1.5. The children of bound/cpb carry exactly those seconds; ABE = 32/4 = 8, so
 * bound = max(6, 8)/10 = 0.8 is unchanged by them. With one rank only, no per-rank children. */
static void test_cp_composition(void **state) {
  pm_location_input l[4];
  pm_cp_part_input parts[3] = {{"potrf", 0, 2.5}, {"gemm", 1, 3.0}, {"(other codelets)", -1, 0.5}};
  pm_cp_part_input ranks[2] = {{NULL, 0, 2.5}, {NULL, 1, 3.0}};
  pm_run_input in;
  pm_metric *t;
  int i;
  (void)state;
  for (i = 0; i < 4; i++) l[i] = worker(i / 2, PM_LOC_WORKER, 8, 1);
  in = tm_run(l, 4, 2, 10.0);
  in.cp_bound = 6.0;
  in.cp_parts = parts;
  in.ncp_parts = 3;
  in.cp_ranks = ranks;
  in.ncp_ranks = 2;
  in.cp_coo = 7.5;
  in.cp_coo_mpi = 1.5;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "bound", 0.8);
  ASSERT_VAL(t, "bound/cpb", 6.0);
  ASSERT_VAL(t, "bound/cpb/cp_part0", 2.5);
  ASSERT_VAL(t, "bound/cpb/cp_part1", 3.0);
  ASSERT_VAL(t, "bound/cpb/cp_part2", 0.5);
  assert_string_equal(pm_metric_find(t, "bound/cpb/cp_part0")->name, "on the path: potrf (rank 0)");
  assert_string_equal(pm_metric_find(t, "bound/cpb/cp_part2")->name, "on the path: (other codelets)");
  ASSERT_VAL(t, "bound/cpb/cp_rank0", 2.5);
  ASSERT_VAL(t, "bound/cpb/cp_rank1", 3.0);
  ASSERT_VAL(t, "bound/cpb/cp_mpi", 1.5);
  assert_string_equal(pm_metric_find(t, "bound/cpb/cp_mpi")->unit, "s");
  tm_check_tree(t, 1);
  tm_check_render(t);
  pm_metric_free(t);

  /* one rank: parts without the rank, no per-rank split; no COO path: no MPI child */
  in.ncp_ranks = 1;
  in.nprocesses = 1;
  for (i = 0; i < 4; i++) l[i].process = 0;
  in.cp_coo = 0;
  t = pm_model_task(&in);
  assert_string_equal(pm_metric_find(t, "bound/cpb/cp_part0")->name, "on the path: potrf");
  assert_null(pm_metric_find(t, "bound/cpb/cp_rank0"));
  assert_null(pm_metric_find(t, "bound/cpb/cp_mpi"));
  tm_check_tree(t, 1);
  pm_metric_free(t);

  /* no task path measured (cp_bound 0, G-CUE used instead): no composition */
  in.cp_bound = 0;
  in.has_critical_path = 1;
  in.g_cue = 6.0;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "bound/cpb", 6.0);
  assert_null(pm_metric_find(t, "bound/cpb/cp_part0"));
  pm_metric_free(t);
}

/* Two worker types, the LP. 2 CPU workers, 1 accelerator worker.
 *   gemm: 4 tasks on CPUs (exec 40: d0 = 10), 6 on the GPU (exec 6: d1 = 1); n = 10
 *   potrf: 2 tasks on CPUs only (exec 4): forced on the CPUs
 * By hand: x gemm tasks on the GPU: GPU load x <= T, CPU load 4 + 10*(10-x) <= 2T;
 * equal loads: x = T and 104 - 10T = 2T -> T = 104/12 = 26/3 (x = 26/3 <= 10, feasible). */
static void test_area_bound_two_types(void **state) {
  pm_codelet_input c[3] = {{"gemm", 0, 40.0, 0.0, 4}, {"gemm", 1, 6.0, 0.0, 6}, {"potrf", 0, 4.0, 0.0, 2}};
  pm_location_input l[3];
  pm_run_input in;
  pm_metric *t;
  double T = 0.0;
  const char *why = "x";
  (void)state;
  assert_int_equal(pm_task_area_bound(c, 3, 2, 1, &T, &why), 1);
  assert_null(why);
  assert_double_equal(T, 26.0 / 3.0, TOL);
  /* the same through the model: R = 10, bound = 26/3 / 10 (no CPB) */
  l[0] = worker(0, PM_LOC_WORKER, 22, 0);
  l[1] = worker(0, PM_LOC_WORKER, 22, 0);
  l[2] = worker(0, PM_LOC_ACCEL, 6, 0);
  in = tm_run(l, 3, 1, 10.0);
  in.codelets = c;
  in.ncodelets = 3;
  in.nworker_types = 2;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "bound/abe", 26.0 / 3.0);
  ASSERT_VAL(t, "bound", 26.0 / 30.0);
  ASSERT_NA(t, "bound/cpb", "no critical path through the task graph measured");
  pm_metric_free(t);
}

/* LP cases: (1) forced accelerator work dominates; (2) one codelet moved whole, the next split. */
static void test_area_bound_cases(void **state) {
  double T = 0.0;
  const char *why = NULL;
  (void)state;
  /* (1) w0 = w1 = 1. k: 1 task on the CPU (10), 1 on the GPU (1) -> n = 2, d0 = 10, d1 = 1;
   *     GPU-only work 20. CPU load if all k on CPU: 20 = GPU load 20: nothing to move, T = 20. */
  {
    pm_codelet_input c[3] = {{"k", 0, 10, 0, 1}, {"k", 1, 1, 0, 1}, {"g", 1, 20, 0, 5}};
    assert_int_equal(pm_task_area_bound(c, 3, 1, 1, &T, &why), 1);
    assert_double_equal(T, 20.0, TOL);
  }
  /* (2) w0 = w1 = 1. x: CPU 1 task 4, GPU 1 task 1 -> n 2, d0 4, d1 1 (ratio 4);
   *     y: CPU 1 task 2, GPU 1 task 2 -> n 2, d0 2, d1 2 (ratio 1).
   *     Start CPU = 8 + 4 = 12, GPU 0. Move x whole: CPU 4, GPU 2. Move z tasks of y:
   *     CPU 4 - 2z = GPU 2 + 2z -> z = 0.5, T = 3. */
  {
    pm_codelet_input c[4] = {{"x", 0, 4, 0, 1}, {"x", 1, 1, 0, 1}, {"y", 0, 2, 0, 1}, {"y", 1, 2, 0, 1}};
    assert_int_equal(pm_task_area_bound(c, 4, 1, 1, &T, &why), 1);
    assert_double_equal(T, 3.0, TOL);
  }
  /* (3) one worker type: T = sum exec / W = (6 + 4)/4 = 2.5 */
  {
    pm_codelet_input c[2] = {{"a", 0, 6, 0, 3}, {"b", 0, 4, 0, 2}};
    assert_int_equal(pm_task_area_bound(c, 2, 4, 0, &T, &why), 1);
    assert_double_equal(T, 2.5, TOL);
  }
  /* (4) a codelet free on the GPU (d1 = 0) goes there first: CPU 1 task 6, GPU 1 task 0;
   *     w0 = w1 = 1: all to the GPU at no cost, T = max(0, 0) = 0 */
  {
    pm_codelet_input c[2] = {{"f", 0, 6, 0, 1}, {"f", 1, 0, 0, 1}};
    assert_int_equal(pm_task_area_bound(c, 2, 1, 1, &T, &why), 1);
    assert_double_equal(T, 0.0, TOL);
  }
  /* errors */
  {
    pm_codelet_input c[1] = {{"a", 2, 6, 0, 3}};
    assert_int_equal(pm_task_area_bound(c, 1, 1, 1, &T, &why), 0);
    assert_string_equal(why, "unknown worker type in codelet totals");
    c[0].worker_type = 1;
    assert_int_equal(pm_task_area_bound(c, 1, 1, 0, &T, &why), 0);
    assert_string_equal(why, "codelet executed on a worker type without workers");
    assert_int_equal(pm_task_area_bound(c, 1, 0, 0, &T, &why), 0);
    assert_string_equal(why, "no task workers");
    assert_int_equal(pm_task_area_bound(NULL, 0, 1, 1, &T, &why), 0);
    assert_string_equal(why, "no per-codelet execution totals");
  }
}

static void test_edges(void **state) {
  pm_location_input l[2];
  pm_codelet_input c[1] = {{"a", 0, 5, 6, 1}};
  pm_run_input in;
  pm_metric *t;
  (void)state;
  t = pm_model_task(NULL);
  ASSERT_NA(t, "e", "no run input");
  ASSERT_NA(t, "bound/abe", "no run input");
  pm_metric_free(t);
  /* threads only: no workers */
  l[0] = tm_loc(0, PM_LOC_THREAD, 5);
  in = tm_run(l, 1, 1, 10.0);
  t = pm_model_task(&in);
  ASSERT_NA(t, "e/e_runtime", "no task workers");
  pm_metric_free(t);
  /* idle workers: no exec, no runtime; locality from a prediction above the observation (> 1,
   * flagged); more than two worker types; accelerator-only workers use sum exec / W */
  l[0] = worker(0, PM_LOC_ACCEL, 0, 0);
  l[1] = worker(0, PM_LOC_ACCEL, 0, 0);
  in = tm_run(l, 2, 1, 10.0);
  in.codelets = c;
  in.ncodelets = 1;
  t = pm_model_task(&in);
  ASSERT_NA(t, "e/e_runtime", "no task execution or runtime time");
  ASSERT_VAL(t, "e/e_pipeline", 0.0);
  ASSERT_VAL(t, "e/e_locality", 1.2); /* 6 / 5 */
  ASSERT_VAL(t, "bound/abe", 0.0);
  ASSERT_VAL(t, "bound", 0.0);
  pm_metric_free(t);
  in.nworker_types = 3;
  t = pm_model_task(&in);
  ASSERT_NA(t, "bound/abe", "more than two worker types");
  ASSERT_NA(t, "bound", "neither the critical-path nor the area bound is known");
  pm_metric_free(t);
  /* two types without codelet totals */
  l[0] = worker(0, PM_LOC_WORKER, 5, 0);
  in = tm_run(l, 2, 1, 10.0);
  in.cp_bound = 4.0;
  t = pm_model_task(&in);
  ASSERT_NA(t, "bound/abe", "no per-codelet execution totals");
  ASSERT_VAL(t, "bound", 0.4); /* CPB alone: 4/10 */
  pm_metric_free(t);
  /* reference run with no execution in this run */
  l[0] = worker(0, PM_LOC_WORKER, 0, 1);
  in = tm_run(l, 1, 1, 10.0);
  in.task_ref_exec_1worker = 3.0;
  t = pm_model_task(&in);
  ASSERT_NA(t, "e/e_locality", "no task execution time");
  ASSERT_VAL(t, "e/e_runtime", 0.0);
  pm_metric_free(t);
}

/* Reference runs per codelet (docs/metrics.md §6.3). 1 process, 2 CPU workers, R = 10, each with
 * exec 6, runtime 1 (idle 3). This run's codelets: A 6 s (3 tasks), B 4 s (2), C 2 s (1).
 * One worker: A 5 s (3 tasks), B 3 s (2); sequential kernels: A 4 s (3 calls), B 2.4 s (2), C 1 s.
 * C is not in the one-worker run: A and B are matched, 10 of the 12 s of task time (83.33 %).
 *   e_locality = (5 + 3)/(6 + 4) = 0.8, e_granularity = (4 + 2.4)/(5 + 3) = 0.8
 *   e_runtime = 12/14 = 6/7, e_pipeline = 14/20 = 0.7, e = 0.8 x 0.8 x 6/7 x 0.7 = 0.384
 *   per codelet: A granularity 4/5, locality 5/6; B granularity 2.4/3 = 0.8, locality 3/4.
 * With C on one worker too (1 task, 1.5 s): all matched, one = 9.5, seq = 7.4:
 *   e = 7.4/9.5 x 9.5/12 x 6/7 x 0.7 = 0.37 and e x W x R = 0.37 x 2 x 10 = 7.4 = the kernels' time.
 * With B's task count different on one worker (3 tasks): B is not matched either. */
static void test_reference_runs(void **state) {
  (void)state;
  pm_location_input l[2] = {worker(0, PM_LOC_WORKER, 6, 1), worker(0, PM_LOC_WORKER, 6, 1)};
  pm_codelet_input run[3] = {{"A", 0, 6, 0, 3}, {"B", 0, 4, 0, 2}, {"C", 0, 2, 0, 1}};
  pm_codelet_input one[3] = {{"A", 0, 5, 0, 3}, {"B", 0, 3, 0, 2}, {"C", 0, 1.5, 0, 1}};
  pm_codelet_input seq[3] = {{"A", 0, 4, 0, 3}, {"B", 0, 2.4, 0, 2}, {"C", 0, 1, 0, 1}};
  pm_run_input in = tm_run(l, 2, 1, 10.0);
  in.codelets = run;
  in.ncodelets = 3;
  in.nworker_types = 1;
  in.ref_one = one;
  in.nref_one = 2; /* without C */
  in.ref_seq = seq;
  in.nref_seq = 3;
  pm_metric *t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_locality", 0.8);
  ASSERT_VAL(t, "e/e_granularity", 0.8);
  ASSERT_VAL(t, "e/e_runtime", 6.0 / 7.0);
  ASSERT_VAL(t, "e/e_pipeline", 0.7);
  ASSERT_VAL(t, "e", 0.384);
  ASSERT_VAL(t, "reference/coverage", 100.0 * 10.0 / 12.0);
  ASSERT_VAL(t, "reference/c0_granularity", 0.8);
  ASSERT_VAL(t, "reference/c0_locality", 5.0 / 6.0);
  ASSERT_VAL(t, "reference/c1_granularity", 0.8);
  ASSERT_VAL(t, "reference/c1_locality", 0.75);
  assert_null(pm_metric_find(t, "reference/c2_locality"));
  assert_string_equal(pm_metric_find(t, "e/e_granularity")->warning,
                      "on 83.3 % of the task time; not matched: C (not in the one-worker run)");
  tm_check_tree(t, 0);
  pm_metric_free(t);

  in.nref_one = 3;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e", 0.37);
  assert_double_equal(VAL(t, "e") * 2 * 10.0, 7.4, 1e-12);
  ASSERT_VAL(t, "reference/coverage", 100.0);
  assert_null(pm_metric_find(t, "e/e_granularity")->warning);
  pm_metric_free(t);

  one[1].count = 3;
  t = pm_model_task(&in);
  ASSERT_VAL(t, "e/e_locality", 6.5 / 8.0); /* A and C: (5 + 1.5)/(6 + 2) */
  ASSERT_VAL(t, "e/e_granularity", 5.0 / 6.5);
  assert_string_equal(pm_metric_find(t, "e/e_granularity")->warning,
                      "on 66.7 % of the task time; not matched: B (2 tasks, 3 on one worker, 2 sequential)");
  pm_metric_free(t);

  /* nothing matched: n/a, saying so */
  in.nref_seq = 0;
  in.ref_seq = seq;
  pm_codelet_input other = {"Z", 0, 1, 0, 1};
  in.ref_seq = &other;
  in.nref_seq = 1;
  t = pm_model_task(&in);
  ASSERT_NA(t, "e/e_granularity",
            "no codelet matched the reference runs by name and task count: A (not among the sequential kernels), "
            "B (not among the sequential kernels), C (not among the sequential kernels)");
  ASSERT_VAL(t, "reference/coverage", 0.0);
  pm_metric_free(t);
}

/* A codelet name has one entry per process and worker type, in any order, and unnamed entries
 * take no part. This run (2 types): B 2 s (1 task, CPU), A 3 s (2, CPU), an unnamed 5 s, B 1 s (1,
 * accelerator), A 1 s (1, accelerator), C 4 s (2, CPU): per name B 3 s (2 tasks), A 4 s (3), C 4 s
 * (2). One worker: A 2 s (1) and A 2 s (2), B 1.5 s (2): A 4 s (3), B 1.5 s (2), no C. Sequential:
 * B 1.2 (2), A 1 (1) and 2 (2), C 2 (2): B 1.2, A 3. Matched: B and A (7 of the 11 s), in the order
 * they first appear; C not in the one-worker run.
 *   coverage 7/11; e_granularity (1.2 + 3)/(1.5 + 4) = 4.2/5.5, e_locality 5.5/7
 *   CPU: B 2 s -> one 1.5 x 2/3 = 1, seq 1.2 x 2/3 = 0.8; A 3 s -> one 4 x 3/4 = 3, seq 3 x 3/4 = 2.25
 *        granularity 3.05/4 = 0.7625, locality 4/5 = 0.8
 *   accelerator: B 1 s -> one 0.5, seq 0.4; A 1 s -> one 1, seq 0.75: granularity 1.15/1.5, locality 1.5/2
 *   c0 = B: granularity 1.2/1.5 = 0.8, locality 1.5/3 = 0.5; c1 = A: granularity 3/4, locality 4/4 = 1 */
static void test_reference_runs_by_name(void **state) {
  (void)state;
  pm_location_input l[2] = {worker(0, PM_LOC_WORKER, 6, 1), worker(0, PM_LOC_WORKER, 6, 1)};
  pm_codelet_input run[6] = {{"B", 0, 2, 0, 1}, {"A", 0, 3, 0, 2}, {NULL, 0, 5, 0, 9},
                             {"B", 1, 1, 0, 1}, {"A", 1, 1, 0, 1}, {"C", 0, 4, 0, 2}};
  pm_codelet_input one[3] = {{"A", 0, 2, 0, 1}, {"B", 0, 1.5, 0, 2}, {"A", 0, 2, 0, 2}};
  pm_codelet_input seq[4] = {{"B", 0, 1.2, 0, 2}, {"A", 0, 1, 0, 1}, {"A", 0, 2, 0, 2}, {"C", 0, 2, 0, 2}};
  pm_run_input in = tm_run(l, 2, 1, 10.0);
  in.codelets = run;
  in.ncodelets = 6;
  in.nworker_types = 2;
  in.ref_one = one;
  in.nref_one = 3;
  in.ref_seq = seq;
  in.nref_seq = 4;
  pm_task_ref ref;
  assert_int_equal(pm_task_reference(&in, &ref), 1);
  assert_int_equal(ref.nmatched, 2);
  assert_int_equal(ref.nunmatched, 1);
  assert_double_equal(ref.w_total, 11.0, 1e-12);
  assert_double_equal(ref.w_matched, 7.0, 1e-12);
  assert_string_equal(ref.unmatched, "C (not in the one-worker run)");
  pm_metric *t = pm_model_task(&in);
  ASSERT_VAL(t, "reference/coverage", 100.0 * 7.0 / 11.0);
  ASSERT_VAL(t, "e/e_granularity", 4.2 / 5.5);
  ASSERT_VAL(t, "e/e_locality", 5.5 / 7.0);
  ASSERT_VAL(t, "reference/type0_granularity", 0.7625);
  ASSERT_VAL(t, "reference/type0_locality", 0.8);
  ASSERT_VAL(t, "reference/type1_granularity", 1.15 / 1.5);
  ASSERT_VAL(t, "reference/type1_locality", 0.75);
  ASSERT_VAL(t, "reference/c0_granularity", 0.8);
  ASSERT_VAL(t, "reference/c0_locality", 0.5);
  ASSERT_VAL(t, "reference/c1_granularity", 0.75);
  ASSERT_VAL(t, "reference/c1_locality", 1.0);
  assert_null(pm_metric_find(t, "reference/c2_granularity"));
  assert_string_equal(pm_metric_find(t, "e/e_granularity")->warning,
                      "on 63.6 % of the task time; not matched: C (not in the one-worker run)");
  pm_metric_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_balanced),           cmocka_unit_test(test_imbalanced),
      cmocka_unit_test(test_runtime_unobserved), cmocka_unit_test(test_serialized),
      cmocka_unit_test(test_cp_composition),     cmocka_unit_test(test_area_bound_two_types),
      cmocka_unit_test(test_area_bound_cases),   cmocka_unit_test(test_edges),
      cmocka_unit_test(test_reference_runs),     cmocka_unit_test(test_reference_runs_by_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
