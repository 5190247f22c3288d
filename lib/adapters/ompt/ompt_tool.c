/* The OMPT tool: ompt_start_tool (found by libomp in the preloaded libpopmeter, or loaded through
 * OMP_TOOL_LIBRARIES), initialization and registration of the callbacks.
 *
 * ompt_start_tool is the adapter's first entry point (docs/runtime-facts.md §1): it activates popmeter. When
 * popmeter may not measure this process (a launcher, POPMETER_ENABLE=0, a forked child) it returns
 * NULL, so libomp runs without a tool and without its cost. Once initialized, the flag
 * pm_omp_ompt_active makes the GOMP wrappers pass through: libomp also implements GCC's GOMP_*
 * entry points and reports those regions through OMPT, which must not be counted twice. */
#include "ompt_adapter.h"

pm_loc *pm_ompt_enter(int activate) {
  pm_loc *L = pm_enter_tool();
  if (!L && activate && !pm_core_is_active() && pm_core_activate()) L = pm_enter_tool();
  return L;
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set || !pm_ompt_register_parallel(set)) return 0; /* 0: libomp turns the tool off */
  pm_ompt_register_sync(set);
  pm_ompt_register_tasks(set);
  __atomic_store_n(&pm_omp_ompt_active, 1, __ATOMIC_RELEASE);
  return 1;
}

PM_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  /* No finalizer: when libomp shuts down, nothing is pending here; the report is written by the
   * core's exit handler or by MPI_Finalize, whichever comes first. */
  static ompt_start_tool_result_t result = {tool_initialize, NULL, {0}};
  return pm_core_activate() ? &result : NULL;
}
