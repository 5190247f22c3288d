/* OMPT: threads, parallel regions and implicit tasks.
 *
 * parallel_begin (master) -> pm_omp_fork, keyed by codeptr_ra (the fork call site: OMPT does not
 * name the outlined function); implicit_task begin/end (every member) -> frames; parallel_end ->
 * pm_omp_join. libomp reports a worker's join barrier end and implicit-task end only at its next
 * fork: the core closes the worker's frame at the join time the master recorded (pm_omp.h).
 * A worker thread is idle from its creation until its first implicit task. */
#include "ompt_adapter.h"

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  if (type != ompt_thread_worker) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_state_set(L, PM_STATE_IDLE, pm_clock_now());
  pm_leave_tool(L);
}

static void on_thread_end(ompt_data_t *thread_data) {
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_omp_thread_end(L, pm_clock_now());
  pm_leave_tool(L);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data, const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism, int flags,
                              const void *codeptr_ra) {
  parallel_data->ptr = NULL;
  if (flags & ompt_parallel_league) return; /* a league of teams, not a thread team */
  pm_loc *L = pm_ompt_enter(1);             /* the first region activates popmeter */
  if (!L) return;
  parallel_data->ptr = pm_omp_fork(L, codeptr_ra, requested_parallelism, pm_clock_now());
  pm_leave_tool(L);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data, int flags,
                            const void *codeptr_ra) {
  pm_omp_team *t = parallel_data->ptr;
  if (!t) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_omp_join(L, t, pm_clock_now());
  parallel_data->ptr = NULL;
  pm_leave_tool(L);
}

/* task_data of an implicit task holds its frame; explicit tasks are tagged (ompt_tasks.c). */
static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags) {
  if (flags & ompt_task_initial) return; /* a thread's initial task: no region */
  if (endpoint == ompt_scope_begin) task_data->ptr = NULL;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  if (endpoint == ompt_scope_begin) {
    pm_omp_team *t = parallel_data ? parallel_data->ptr : NULL;
    task_data->ptr = pm_omp_implicit_begin(L, t, index, actual_parallelism, pm_clock_now());
  } else if (!pm_omp_frame_done(task_data->ptr)) { /* a worker's frame is closed at the join already */
    pm_omp_implicit_end(L, task_data->ptr, 0, pm_omp_implicit_end_time(L, task_data->ptr));
  }
  pm_leave_tool(L);
}

int pm_ompt_register_parallel(ompt_set_callback_t set) {
  int ok = pm_ompt_set(set, ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin) &&
           pm_ompt_set(set, ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end) &&
           pm_ompt_set(set, ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  pm_ompt_set(set, ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  pm_ompt_set(set, ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
  return ok;
}
