/* An OMPT tool that registers the callbacks popmeter registers, each with an empty body: what
 * libomp's own dispatch of those events costs, the floor under any OMPT tool's figure
 * (bench_events.sh's "OMPT alone" column). */
#include <omp-tools.h>
#include <stddef.h>

static void nothing(void) {}

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
  for (size_t i = 0; i < sizeof events / sizeof *events; i++) set(events[i], (ompt_callback_t)nothing);
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
