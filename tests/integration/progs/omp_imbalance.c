/* An OpenMP program with known imbalance and serial sections, built with gcc (libgomp: the GOMP
 * adapter) and with clang (libomp: the OMPT adapter). With the unit U (seconds, argument 1,
 * default 0.1) and n threads, every phase busy-waits on the wall clock:
 *   serial 2U | imbalanced_region: thread t waits (t+1)U | serial U |
 *   barrier_region: thread t waits (n-t)U, barrier, then U | end
 * tests/integration/test_openmp.sh derives the expected metrics for n = 2 by hand. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wall-clock busy wait: the duration holds on a loaded machine (preemption counts as useful). */
static void spin(double s) {
  double end = now() + s;
  while (now() < end) {}
}

/* non-static, never inlined: the region names (outlined function, or the function containing the
 * fork call) are these names */
__attribute__((noinline)) void imbalanced_region(double u) {
#pragma omp parallel
  spin((omp_get_thread_num() + 1) * u);
}

__attribute__((noinline)) void barrier_region(double u) {
#pragma omp parallel
  {
    spin((omp_get_num_threads() - omp_get_thread_num()) * u);
#pragma omp barrier
    spin(u);
  }
}

int main(int argc, char **argv) {
  double u = argc > 1 ? atof(argv[1]) : 0.1;
  spin(2 * u);
  imbalanced_region(u);
  spin(u);
  barrier_region(u);
  printf("omp_imbalance done (%d threads)\n", omp_get_max_threads());
  return 0;
}
