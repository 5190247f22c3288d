/* OMPT adapter (LLVM libomp): translates OMPT callbacks into the OpenMP accounting of
 * lib/omp/pm_omp.h. Built when configure finds omp-tools.h (PM_OMP_TOOLS_H, a full path: Debian
 * ships it in clang's resource directory, which must not be on the include path). */
#ifndef PM_OMPT_ADAPTER_H
#define PM_OMPT_ADAPTER_H
#include "config.h"
#include PM_OMP_TOOLS_H
#include "pm_core.h"
#include "pm_omp.h"

#define PM_EXPORT __attribute__((visibility("default")))

/* Registers the callbacks of each part; 0 when a callback the part cannot do without is missing. */
PM_HIDDEN int pm_ompt_register_parallel(ompt_set_callback_t set);
PM_HIDDEN void pm_ompt_register_sync(ompt_set_callback_t set);
PM_HIDDEN void pm_ompt_register_tasks(ompt_set_callback_t set);

/* The calling thread's location for a callback (reentrancy-guarded), activating popmeter when
 * activate is set and it is not active yet. NULL: do nothing. Release with pm_leave_tool. */
PM_HIDDEN pm_loc *pm_ompt_enter(int activate);

/* Registration helper: a callback the runtime never delivers counts as missing. */
static inline int pm_ompt_set(ompt_set_callback_t set, ompt_callbacks_t which, ompt_callback_t fn) {
  ompt_set_result_t r = set(which, fn);
  return r != ompt_set_never && r != ompt_set_error;
}
#endif
