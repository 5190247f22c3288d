/* The host side of CUDA: a thread blocked in a synchronising CUDA call (cudaDeviceSynchronize,
 * cudaStreamSynchronize, a synchronous cudaMemcpy...) enters a region named after the call,
 * paradigm CUDA, in state device (its time is the models' gpu_runtime). Runs on application threads
 * for every such call: no lock once a call's region is registered. */
#include "cuda_module.h"
#include "pm_location.h"

static pm_region_id call_region[PM_CUDA_MAX_CALLS]; /* id + 1; 0 = not registered yet */

static pm_region_id region_of(unsigned call, const char *name) {
  pm_region_id r = __atomic_load_n(&call_region[call], __ATOMIC_ACQUIRE);
  if (PM_LIKELY(r != 0)) return r - 1;
  r = pm_region_register(name, PM_PARADIGM_CUDA, PM_ROLE_FUNCTION); /* once per call (locked) */
  if (r != PM_REGION_NONE) __atomic_store_n(&call_region[call], r + 1, __ATOMIC_RELEASE);
  return r;
}

int pm_cuda_host_enter(unsigned call, const char *name) {
  if (call >= PM_CUDA_MAX_CALLS || !name) return 0;
  pm_loc *L = pm_enter_tool(); /* NULL: inactive, or inside popmeter (its MPI calls...) */
  if (!L) return 0;
  int entered = 0;
  if (L->state != PM_STATE_OFF) { /* paused by the application: stays off */
    pm_region_id r = region_of(call, name);
    if (r != PM_REGION_NONE) {
      pm_call_enter(L, r, PM_STATE_DEVICE, pm_clock_now());
      entered = 1;
    }
  }
  pm_leave_tool(L);
  return entered;
}

void pm_cuda_host_exit(void) {
  /* not pm_enter_tool: an exit must balance its enter even if the guard is held meanwhile */
  pm_loc *L = pm_loc_self();
  if (L) pm_call_exit(L, pm_clock_now());
}

void pm_cuda_host_reset(void) {
  for (unsigned i = 0; i < PM_CUDA_MAX_CALLS; i++) __atomic_store_n(&call_region[i], 0, __ATOMIC_RELAXED);
}
