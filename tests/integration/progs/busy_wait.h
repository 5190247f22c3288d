/* Computation of a given wall-clock length for the test programs: a loop of floating-point work
 * until the time has passed, so a tool sees useful time and the length holds on a loaded machine
 * (preemption inside it counts as the program's own time). */
#ifndef PM_TEST_BUSY_WAIT_H
#define PM_TEST_BUSY_WAIT_H
#include <time.h>

static inline double busy_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns the work's result, so that the compiler keeps the loop. */
static inline double busy_compute(double seconds) {
  double t0 = busy_now(), x = 1.0;
  while (busy_now() - t0 < seconds)
    for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
  return x;
}
#endif
