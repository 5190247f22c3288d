/* An OMPT tool that registers the callbacks popmeter registers, each with an empty body: what
 * libomp's own dispatch of those events costs, the floor under any OMPT tool's figure
 * (bench_events.sh's "OMPT alone" column).
 *
 * Built with -DBENCH_OMPT_TIMED (bench_ompt_floor.so, the "floor" column): the least a tool that
 * times the events can do. It registers only the callbacks that open and close an interval such a
 * tool must time -- an implicit task's begin and end (a member's time in the region), a
 * synchronisation region's (a barrier's or a taskwait's), a task switch (a task's body) -- and
 * they read the time stamp counter and add the interval to a thread-local total; nothing else (no
 * call path, no states, no critical-path clocks, no exchange between threads). */
#include <omp-tools.h>
#include <stddef.h>
#include <stdint.h>

static void nothing(void) {}

#ifdef BENCH_OMPT_TIMED
#include "bench_floor_stamp.h"
/* exported, so that the compiler keeps every read (nobody reads them); an interval of each kind
 * (implicit task, synchronisation region, task body) has its own start, as they nest */
enum { IMPLICIT, SYNC, TASK };
__thread uint64_t bench_ompt_floor_total __attribute__((tls_model("initial-exec")));
__thread uint64_t bench_ompt_floor_since[3] __attribute__((tls_model("initial-exec")));

static inline void edge(int kind, ompt_scope_endpoint_t endpoint) {
  uint64_t t = floor_stamp();
  if (endpoint == ompt_scope_begin)
    bench_ompt_floor_since[kind] = t;
  else
    bench_ompt_floor_total += t - bench_ompt_floor_since[kind];
}
static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                             unsigned int actual_parallelism, unsigned int index, int flags) {
  (void)parallel_data, (void)task_data, (void)actual_parallelism, (void)index, (void)flags;
  edge(IMPLICIT, endpoint);
}
static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task_data, const void *codeptr_ra) {
  (void)kind, (void)parallel_data, (void)task_data, (void)codeptr_ra;
  edge(SYNC, endpoint);
}
/* a switch ends the body that ran since the last one and starts the next */
static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data) {
  (void)prior_task_data, (void)prior_task_status, (void)next_task_data;
  uint64_t t = floor_stamp();
  bench_ompt_floor_total += t - bench_ompt_floor_since[TASK];
  bench_ompt_floor_since[TASK] = t;
}
#endif

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num;
  (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set) return 0;
  static const ompt_callbacks_t events[] = {
      ompt_callback_thread_begin,     ompt_callback_thread_end,     ompt_callback_parallel_begin,
      ompt_callback_parallel_end,     ompt_callback_implicit_task,  ompt_callback_sync_region,
      ompt_callback_sync_region_wait, ompt_callback_work,           ompt_callback_task_create,
      ompt_callback_task_schedule,    ompt_callback_dependences,    ompt_callback_task_dependence,
      ompt_callback_mutex_acquire,    ompt_callback_mutex_acquired, ompt_callback_mutex_released};
#ifdef BENCH_OMPT_TIMED
  (void)events;
  (void)nothing;
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
#else
  for (size_t i = 0; i < sizeof events / sizeof *events; i++) set(events[i], (ompt_callback_t)nothing);
#endif
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
