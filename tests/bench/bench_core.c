/* Benchmark (not a test): cost of the core's hot path, side by side in one run.
 *   clock       one clock_gettime(CLOCK_MONOTONIC) (what every transition must pay)
 *   transition  pm_state_set with a fresh clock read
 *   call pair   pm_call_enter + pm_call_exit with two clock reads (what an MPI wrapper adds)
 *   poll        pm_poll with its two clock reads (a polling call is timed, without a transition)
 * Prints ns per operation and the ratios: a timestamped call against its two clock reads, a poll
 * against its two clock reads. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_util.h"
#include "pm_location.h"
#include "pm_lifecycle.h"

#define REPS 5
static volatile uint64_t sink;

static void b_clock(void *L, long n) {
  (void)L;
  for (long i = 0; i < n; i++) sink += pm_clock_now();
}
static void b_transition(void *L, long n) {
  for (long i = 0; i < n; i++) pm_state_set(L, (i & 1) ? PM_STATE_MPI_P2P : PM_STATE_USEFUL, pm_clock_now());
}
static pm_region_id reg;
static void b_call(void *L, long n) {
  for (long i = 0; i < n; i++) {
    pm_call_enter(L, reg, PM_STATE_MPI_P2P, pm_clock_now());
    pm_call_exit(L, pm_clock_now());
  }
}
static void b_poll(void *L, long n) {
  for (long i = 0; i < n; i++) {
    uint64_t t0 = pm_clock_now();
    pm_poll(L, reg, t0, pm_clock_now());
  }
}

/* best of REPS, ns per iteration; the bodies get the location as their context */
static double run(void (*f)(void *, long), pm_loc *L, long n) { return bench_best_ns(f, L, n, REPS); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 2000000;
  bench_quiet_popmeter();
  pm_core_activate();
  pm_loc *L = pm_loc_self();
  reg = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  double c = run(b_clock, L, n), t = run(b_transition, L, n), p = run(b_call, L, n), q = run(b_poll, L, n);
  printf("clock read            %7.1f ns\n", c);
  printf("state transition      %7.1f ns  (%.2fx one clock read; added %.1f ns)\n", t, t / c, t - c);
  printf("call enter+exit       %7.1f ns  (%.2fx two clock reads)   budget <= 1.30x\n", p, p / (2 * c));
  printf("timed poll            %7.1f ns  (%.2fx two clock reads; added %.1f ns)\n", q, q / (2 * c), q - 2 * c);
  return 0;
}
