/* OMPT: explicit tasks and their dependences, for the location states (a task body is useful,
 * whatever its thread was waiting in) and the process-local critical path (pm_omp_tasks.c).
 *
 * A task's ompt_data_t holds its record with the low bit set, which tells explicit tasks apart
 * from implicit tasks (whose data holds a frame, or nothing). Dependence edges arrive through
 * task_dependence (src, sink) while src is incomplete; dependences only confirms that the new
 * task takes part in them. A late fulfill (detached task) reports a completion whose body already
 * ended: nothing left to account. */
#include "ompt_adapter.h"
#include <stdint.h>

static inline pm_omp_task *task_of(const ompt_data_t *d) {
  return d && (d->value & 1) ? (pm_omp_task *)(uintptr_t)(d->value & ~(uint64_t)1) : NULL;
}

static void on_task_create(ompt_data_t *encountering_task_data, const ompt_frame_t *encountering_task_frame,
                           ompt_data_t *new_task_data, int flags, int has_dependences, const void *codeptr_ra) {
  new_task_data->value = 0;
  if (!(flags & ompt_task_explicit)) return;
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_omp_task *t = pm_omp_task_new(L, has_dependences, pm_clock_now());
  if (t) new_task_data->value = (uint64_t)(uintptr_t)t | 1;
  pm_leave_tool(L);
}

static void on_dependences(ompt_data_t *task_data, const ompt_dependence_t *deps, int ndeps) {
  if (ndeps > 0) pm_omp_task_mark_deps(task_of(task_data));
}

static void on_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data) {
  pm_omp_task_depend(task_of(src_task_data), task_of(sink_task_data));
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data) {
  int done;
  switch (prior_task_status) {
  case ompt_task_complete:
  case ompt_task_cancel: done = 1; break;
  case ompt_task_early_fulfill: done = 2; break; /* body ended, completion comes later */
  case ompt_task_late_fulfill: return;
  default: done = 0; break; /* yield, detach, switch: suspended */
  }
  pm_loc *L = pm_ompt_enter(0);
  if (!L) return;
  pm_omp_task_switch(L, task_of(prior_task_data), done, task_of(next_task_data), pm_clock_now());
  pm_leave_tool(L);
}

void pm_ompt_register_tasks(ompt_set_callback_t set) {
  /* without task_schedule, task bodies run in a barrier would count as waiting: take all or none */
  if (!pm_ompt_set(set, ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule)) return;
  pm_ompt_set(set, ompt_callback_task_create, (ompt_callback_t)on_task_create);
  pm_ompt_set(set, ompt_callback_dependences, (ompt_callback_t)on_dependences);
  pm_ompt_set(set, ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence);
}
