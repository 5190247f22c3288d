/* OpenMP constructs beyond plain regions, with known amounts of work (unit U seconds, argument 1,
 * default 0.1), for the GOMP wrappers and the OMPT callbacks alike:
 *   tasks_region     one thread creates 4 tasks of U/2 (2U of work), run by whoever is free,
 *                    mostly from the barrier that ends the single construct
 *   loop_region      combined parallel loop, schedule(dynamic, 1), 4 iterations of U/4 (U of work)
 *   critical_region  each thread holds a critical section for U/4: the other one waits
 *   chain_region     3 tasks chained by depend(inout), U/4 each, then taskwait
 * The output line lets the test check that the program's own results are intact. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void spin(double s) {
  double end = now() + s;
  while (now() < end) {}
}

__attribute__((noinline)) int tasks_region(double u) {
  int done = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < 4; i++) {
#pragma omp task shared(done) firstprivate(u)
    {
      spin(u / 2);
#pragma omp atomic
      done++;
    }
  }
  return done;
}

__attribute__((noinline)) int loop_region(double u) {
  int iters = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : iters)
  for (int i = 0; i < 4; i++) {
    spin(u / 4);
    iters++;
  }
  return iters;
}

__attribute__((noinline)) int critical_region(double u) {
  int entered = 0;
#pragma omp parallel
  {
#pragma omp critical
    {
      spin(u / 4);
      entered++;
    }
  }
  return entered;
}

__attribute__((noinline)) void chain_region(double u, char *order) {
  int pos = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < 3; i++) {
#pragma omp task depend(inout : pos) shared(pos, order) firstprivate(i, u)
      {
        spin(u / 4);
        order[pos++] = (char)('0' + i);
      }
    }
#pragma omp taskwait
  }
  order[pos] = '\0';
}

int main(int argc, char **argv) {
  double u = argc > 1 ? atof(argv[1]) : 0.1;
  char order[8];
  int t = tasks_region(u), l = loop_region(u), c = critical_region(u);
  chain_region(u, order);
  printf("omp_constructs: tasks %d loop %d critical %d chain %s\n", t, l, c, order);
  return 0;
}
