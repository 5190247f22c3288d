/* StarPU adapter: StarPU calls that do the runtime's work on the calling (application) thread and
 * can last long enough to matter -- building OpenCL programs (pocl compiles kernels: seconds).
 * Without this the time would count as the application thread's useful work, and, through the
 * submissions that follow, as part of the task critical path. */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include <errno.h>

#ifdef STARPU_USE_OPENCL
static pm_loc *runtime_begin(void) {
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_call_enter(L, sp_region[SP_R_INIT], PM_STATE_RUNTIME, pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}
static void runtime_end(pm_loc *L) {
  if (L && (L = pm_enter_tool()) != NULL) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
}

SP_EXPORT int starpu_opencl_load_opencl_from_string(const char *src, struct starpu_opencl_program *programs,
                                                    const char *build_options) {
  static int (*real)(const char *, struct starpu_opencl_program *, const char *);
  SP_REAL(real, starpu_opencl_load_opencl_from_string);
  if (!real) return -ENOSYS;
  pm_loc *L = runtime_begin();
  int rc = real(src, programs, build_options);
  runtime_end(L);
  return rc;
}

SP_EXPORT int starpu_opencl_load_opencl_from_file(const char *source_file_name, struct starpu_opencl_program *programs,
                                                  const char *build_options) {
  static int (*real)(const char *, struct starpu_opencl_program *, const char *);
  SP_REAL(real, starpu_opencl_load_opencl_from_file);
  if (!real) return -ENOSYS;
  pm_loc *L = runtime_begin();
  int rc = real(source_file_name, programs, build_options);
  runtime_end(L);
  return rc;
}
#endif
