/* Benchmark (not a test): the core's share of the StarPU adapter's cost per task, without StarPU
 * and its scheduling dynamics (which make end-to-end timings on a shared machine noisy, see
 * bench_starpu.c). It replays, on one thread, the sequence of core calls the adapter makes for a
 * task with one read-write handle:
 *   submission (application thread): 2 clock reads, call enter/exit (RUNTIME), a record from the
 *     slab, one buffer, the thread's DAG clock;
 *   pop (worker): a clock read and a transition; start: a clock read, the codelet region entered,
 *     the handle's and the predecessors' clocks merged; end: a clock read, the region left, the
 *     task's clocks published, the codelet statistics (quantiles, regression) updated, the record
 *     freed.
 * Tasks run in order (a chain through the handle), so the record pool stays warm, as in a steady
 * state; the best of 5 runs is printed in ns per task, with the clock read for scale. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_util.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_taskgraph.h"
#include "pm_task_stats.h"

static volatile uint64_t sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_JSON", "0", 1);
  pm_core_activate();
  pm_loc *M = pm_loc_self();
  pm_loc *W = pm_loc_create_virtual(PM_ROLE_WORKER, "W");
  pm_region_id submit = pm_region_register("starpu_task_submit", PM_PARADIGM_STARPU, PM_ROLE_WRAPPER);
  pm_region_id cl = pm_region_register("codelet", PM_PARADIGM_STARPU, PM_ROLE_TASK);
  uint32_t c = pm_ts_codelet("codelet", cl);
  pm_ts_thread *T = pm_ts_self(0, 1);
  pm_tg_handle *h = pm_tg_handle_get((void *)0x1000);
  pm_tg_thread th = {0};
  double best = 1e30, clock_ns = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) sink += pm_clock_now();
    double t = (bench_now_s() - t0) / n * 1e9;
    if (t < clock_ns) clock_ns = t;
  }
  for (int r = 0; r < 5; r++) {
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
      uint64_t t = pm_clock_now();
      pm_call_enter(M, submit, PM_STATE_RUNTIME, t);
      pm_tg_task *rec = pm_tg_task_new_unmapped((void *)(uintptr_t)(i + 1));
      rec->flags |= PM_TG_HAS_BODY | PM_TG_FRESH;
      pm_tg_handle_ref(h);
      pm_tg_task_add_buf(rec, h, PM_TG_ACC_WRITE, 8);
      pm_tg_task_submit_by(rec, &th, M, 0, t);
      pm_call_exit(M, pm_clock_now());
      rec->t_pop = pm_clock_now();
      pm_state_set(W, PM_STATE_RUNTIME, rec->t_pop);
      t = pm_clock_now();
      pm_call_enter(W, cl, PM_STATE_USEFUL, t);
      pm_tg_task_start(rec, W, t);
      t = pm_clock_now();
      pm_call_exit(W, t);
      pm_tg_task_end(rec, W, t, pm_tg_key(0, 1));
      pm_ts_sample s = {t - rec->t_start, rec->t_start, 0, 0, rec->bytes, 0, 0, 0, 0, 0};
      pm_ts_record(T, c, &s);
      pm_tg_task_unref(rec);
      pm_state_set(W, PM_STATE_IDLE, t);
    }
    double t = (bench_now_s() - t0) / n * 1e9;
    if (t < best) best = t;
  }
  printf("clock read                        %7.1f ns\n", clock_ns);
  printf("core work per task (all threads)  %7.1f ns, of which 6 clock reads %.1f ns  (adapter target: 1000 ns)\n",
         best, 6 * clock_ns);
  pm_tg_handle_put(h);
  return 0;
}
