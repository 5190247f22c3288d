/* OMPT: synchronisation and worksharing.
 *
 * Barriers (explicit, implicit, the join): sync_region begin/end -> pm_omp_barrier_enter/exit
 * (clock exchange); the whole barrier is synchronisation wait (as with libgomp), so its
 * sync_region_wait callbacks are not timed: they would add two clock reads and two transitions per
 * barrier (~150 ns here) to split off the runtime's own arrival and release work, which no model
 * tells apart from the wait. Taskwait: the whole construct waits, likewise. Taskgroup: sync_region
 * spans the construct's body, so it only adds a call-path node; its waiting part comes through
 * sync_region_wait.
 * Worksharing (loop, sections, single, workshare): a call-path node, no state change.
 * Mutexes (critical, locks, ordered): the node is entered waiting at acquire, useful once acquired,
 * left at release; GCC code gets the same from GOMP_critical_*. Test locks and nestable locks are
 * skipped: their acquire is not always followed by acquired/released (failed test, re-acquire). */
#include "ompt_adapter.h"

static int barrier_kind(ompt_sync_region_t kind, pm_omp_rkind *k) {
  switch ((int)kind) {
  case 1:
  case ompt_sync_region_barrier_explicit: *k = PM_OMP_R_BARRIER; return 1; /* 1: barrier (5.0) */
  case 2:
  case ompt_sync_region_barrier_implementation: /* 2: implicit (5.0) */
  case ompt_sync_region_barrier_implicit_workshare:
  case ompt_sync_region_barrier_implicit_parallel: *k = PM_OMP_R_IMPLICIT_BARRIER; return 1;
  default: return 0;
  }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task_data, const void *codeptr_ra) {
  pm_omp_rkind k;
  int barrier = barrier_kind(kind, &k);
  if (!barrier && kind != ompt_sync_region_taskwait && kind != ompt_sync_region_taskgroup) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  int begin = endpoint == ompt_scope_begin;
  if (barrier && pm_omp_is_join_barrier(L, codeptr_ra)) { /* the master's: its join does the exchange */
    if (begin)
      pm_omp_join_barrier_enter(L, pm_omp_region(k), pm_clock_now());
    else
      pm_omp_join_barrier_exit(L, pm_clock_now());
    pm_leave_tool(L);
    return;
  }
  /* a worker's join barrier ends at the join time the master recorded: no clock to read, and no
   * slot to prefetch */
  int late = barrier && !begin && pm_omp_late_join(L);
  if (barrier && !begin && !late) pm_omp_barrier_prefetch(L);
  uint64_t now = late ? UINT64_MAX : pm_clock_now();
  if (barrier) {
    if (begin)
      pm_omp_barrier_enter(L, pm_omp_region(k), PM_STATE_SYNC_WAIT, now);
    else
      pm_omp_barrier_exit(L, now);
  } else if (kind == ompt_sync_region_taskwait) {
    if (begin)
      pm_omp_taskwait_enter(L, pm_omp_region(PM_OMP_R_TASKWAIT), now);
    else
      pm_omp_taskwait_exit(L, now);
  } else {
    if (begin)
      pm_region_enter(L, pm_omp_region(PM_OMP_R_TASKGROUP), now);
    else
      pm_omp_taskwait_exit(L, now); /* leaves the node, merges the tasks' clocks */
  }
  pm_leave_tool(L);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                ompt_data_t *task_data, const void *codeptr_ra) {
  if (kind != ompt_sync_region_taskgroup) return; /* barriers and taskwait wait as a whole */
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  if (!pm_omp_late_join(L)) pm_omp_wait(L, endpoint == ompt_scope_begin, pm_clock_now());
  pm_leave_tool(L);
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra) {
  pm_omp_rkind k;
  switch (wstype) {
  case ompt_work_loop:
  case ompt_work_taskloop: k = PM_OMP_R_LOOP; break;
  case ompt_work_sections: k = PM_OMP_R_SECTIONS; break;
  case ompt_work_single_executor:
  case ompt_work_single_other: k = PM_OMP_R_SINGLE; break;
  case ompt_work_workshare: k = PM_OMP_R_WORKSHARE; break;
  default: return; /* distribute, scope: no node */
  }
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  if (endpoint == ompt_scope_begin)
    pm_region_enter(L, pm_omp_region(k), pm_clock_now());
  else
    pm_region_exit(L, pm_clock_now());
  pm_leave_tool(L);
}

static int mutex_kind(ompt_mutex_t kind, pm_omp_rkind *k) {
  switch (kind) {
  case ompt_mutex_critical: *k = PM_OMP_R_CRITICAL; return 1;
  case ompt_mutex_lock: *k = PM_OMP_R_LOCK; return 1;
  case ompt_mutex_ordered: *k = PM_OMP_R_ORDERED; return 1;
  default: return 0;
  }
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr_ra) {
  pm_omp_rkind k;
  if (!mutex_kind(kind, &k)) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_call_enter(L, pm_omp_region(k), PM_STATE_SYNC_WAIT, pm_clock_now());
  pm_leave_tool(L);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  pm_omp_rkind k;
  if (!mutex_kind(kind, &k)) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_leave_tool(L);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  pm_omp_rkind k;
  if (!mutex_kind(kind, &k)) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_call_exit(L, pm_clock_now());
  pm_leave_tool(L);
}

void pm_ompt_register_sync(ompt_set_callback_t set) {
  pm_ompt_set(set, ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  pm_ompt_set(set, ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
  pm_ompt_set(set, ompt_callback_work, (ompt_callback_t)on_work);
  /* acquire and acquired/released come as a pair or not at all: a missing half would unbalance */
  if (pm_ompt_set(set, ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire) &&
      (!pm_ompt_set(set, ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired) ||
       !pm_ompt_set(set, ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released))) {
    set(ompt_callback_mutex_acquire, NULL);
    set(ompt_callback_mutex_acquired, NULL);
    set(ompt_callback_mutex_released, NULL);
  }
}
