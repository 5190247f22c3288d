/* Benchmark (not a test): the CUDA module's own costs, side by side in one run, without a GPU.
 *   call pair   pm_call_enter + pm_call_exit with two clock reads (the core's cost of any call)
 *   host sync   the host side of a synchronising CUDA call (pm_cuda_host_enter + exit through the
 *               plugin's table): what an application thread pays per cudaDeviceSynchronize etc.
 *   feed        one device record (CUPTI's buffer thread): table lock, clock map, the stream's lock,
 *               enter + exit on its location, the interval kept for the overlap; 4 streams, kernels
 *               and copies alternating
 * Prints ns per operation and ratios: host sync should cost about a call pair (budget <= 1.5x);
 * feed gives the records per second the module sustains on one thread. */
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"
#include "cuda_module.h"
#include "pm_location.h"
#include "pm_lifecycle.h"

#define REPS 5
static pm_region_id reg;
static uint64_t next_t;

static void b_call(void *L, long n) {
  for (long i = 0; i < n; i++) {
    pm_call_enter(L, reg, PM_STATE_DEVICE, pm_clock_now());
    pm_call_exit(L, pm_clock_now());
  }
}
static void b_host(void *L, long n) {
  (void)L;
  const pm_cuda_host *h = pm_cuda_host_api();
  for (long i = 0; i < n; i++)
    if (h->host_enter(0, "cudaDeviceSynchronize")) h->host_exit();
}
static void b_feed(void *L, long n) {
  (void)L;
  const pm_cuda_host *h = pm_cuda_host_api();
  for (long i = 0; i < n; i++) {
    pm_cuda_activity a = {(i & 1) ? PM_CUDA_ACT_MEMCPY : PM_CUDA_ACT_KERNEL,
                          PM_CUDA_COPY_HTOD,
                          0,
                          1,
                          (uint32_t)(i & 3),
                          next_t,
                          next_t + 1000,
                          4096,
                          "kernel"};
    next_t += 500;
    h->activity(&a);
  }
}

/* best of REPS, ns per iteration; the bodies get the location as their context */
static double run(void (*f)(void *, long), pm_loc *L, long n) { return bench_best_ns(f, L, n, REPS); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  bench_quiet_popmeter();
  setenv("POPMETER_CUDA", "0", 1); /* the loader is not measured here: the bench plays the plugin */
  pm_core_activate();
  pm_loc *L = pm_loc_self();
  reg = pm_region_register("cudaDeviceSynchronize", PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
  pm_cuda_module_open();
  pm_cuda_host_api()->clock_is_host();
  next_t = pm_clock_now();
  /* feed: fewer records (each keeps an interval for the overlap, bounded per device) */
  double c = run(b_call, L, n), h = run(b_host, L, n), f = run(b_feed, L, n / 10);
  printf("call enter+exit          %7.1f ns\n", c);
  printf("host sync enter+exit     %7.1f ns  (%.2fx a call pair)   budget <= 1.50x\n", h, h / c);
  printf("device record fed        %7.1f ns  (%.2fx a call pair; %.1f M records/s on one thread)\n", f, f / c, 1e3 / f);
  return 0;
}
