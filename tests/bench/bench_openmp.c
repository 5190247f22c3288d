/* Benchmark (not a test): cost popmeter adds to an empty OpenMP parallel region, side by side in
 * one run. Built twice: with gcc (libgomp: the GOMP wrappers) and with clang (libomp: OMPT).
 * The program runs itself as children (fork + exec, so each starts fresh): once without popmeter
 * and once with libpopmeter.so preloaded and measuring (its report and files off). Each child
 * times batches of empty regions on 2 threads and prints the best batch in ns per region; the
 * parent prints both, the difference and the ratio, alternating the two children REPS times so a
 * load change on the machine hits both alike.
 *   bench_openmp_gomp [REGIONS]    (default 20000 per batch)
 * POPMETER_LIB overrides the library (default: the build tree's). */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"

#ifndef PM_RUNTIME
#define PM_RUNTIME "OpenMP"
#endif
#define BATCHES 7
#define REPS 5

static volatile int sink;

/* Child: best of BATCHES batches of n empty regions, in ns per region. */
static int child(long n) {
  double best = 1e30;
  for (long i = 0; i < 1000; i++) { /* warm-up: threads created, popmeter activated */
#pragma omp parallel
    sink = 1;
  }
  for (int b = 0; b < BATCHES; b++) {
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
#pragma omp parallel
      sink = 1;
    }
    double t = (bench_now_s() - t0) / (double)n * 1e9;
    if (t < best) best = t;
  }
  printf("%.1f\n", best);
  return 0;
}

/* Runs this program as a child with or without the preload; returns its ns per region (-1: failed). */
static double run_child(const char *self, const char *nstr, const char *lib) {
  char buf[64];
  char *const argv[] = {(char *)self, "--child", (char *)nstr, NULL};
  return bench_run_child(argv, lib, buf, sizeof buf) == 0 ? atof(buf) : -1;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--child")) return child(atol(argv[2]));
  const char *nstr = argc > 1 ? argv[1] : "20000";
  setenv("OMP_NUM_THREADS", "2", 0);
  /* for the preloaded child: measure, but no report or files */
  bench_quiet_popmeter();
  char self[4096], lib[4096];
  if (bench_self_and_lib(self, sizeof self, lib, sizeof lib) != 0) {
    fprintf(stderr, "%s: %s not found (set POPMETER_LIB)\n", argv[0], lib);
    return 1;
  }
  double base = 1e30, with = 1e30;
  for (int r = 0; r < REPS; r++) {
    double b = run_child(self, nstr, NULL), w = run_child(self, nstr, lib);
    if (b < 0 || w < 0) {
      fprintf(stderr, "bench_openmp: a child failed (library %s)\n", lib);
      return 1;
    }
    if (b < base) base = b;
    if (w < with) with = w;
  }
  printf("empty parallel region, %s, %s threads (best of %d x %d batches of %s):\n", PM_RUNTIME,
         getenv("OMP_NUM_THREADS"), REPS, BATCHES, nstr);
  printf("  without popmeter  %8.1f ns\n", base);
  printf("  with popmeter     %8.1f ns   (+%.1f ns per region, %.2fx)\n", with, with - base, with / base);
  return 0;
}
