/* One event kind of the per-event benchmark (bench_events.sh), OpenMP side, built with clang
 * (libomp: OMPT) and with gcc (libgomp: GOMP wrappers). 2 threads; prints the time per event.
 *   bench_ev_omp parallel|barrier|for16|task N
 * parallel: an empty parallel region; barrier: an omp barrier in one region; for16: an omp for
 * of 16 iterations (static, with its implicit barrier) in one region; task: an explicit task with
 * a trivial body, created by one thread (taskwait every 64), run by both. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long sink[32];

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void run(const char *kind, long n) {
  if (!strcmp(kind, "parallel")) {
    for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
      sink[omp_get_thread_num() * 8]++;
    }
  } else if (!strcmp(kind, "barrier")) {
#pragma omp parallel num_threads(2)
    for (long i = 0; i < n; i++) {
#pragma omp barrier
    }
  } else if (!strcmp(kind, "for16")) {
#pragma omp parallel num_threads(2)
    for (long i = 0; i < n; i++) {
#pragma omp for schedule(static)
      for (int j = 0; j < 16; j++) sink[omp_get_thread_num() * 8] += j;
    }
  } else if (!strcmp(kind, "task")) {
#pragma omp parallel num_threads(2)
#pragma omp single
    for (long i = 0; i < n; i++) {
#pragma omp task
      sink[omp_get_thread_num() * 8]++;
      if ((i & 63) == 63) {
#pragma omp taskwait
      }
    }
  } else {
    fprintf(stderr, "bench_ev_omp: unknown event %s\n", kind);
    exit(2);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s parallel|barrier|for16|task N\n", argv[0]);
    return 1;
  }
  long n = atol(argv[2]);
  run(argv[1], n / 10 > 1000 ? n / 10 : 1000); /* warm-up: the thread pool, popmeter's first region */
  double t0 = now_ns();
  run(argv[1], n);
  printf("%.2f\n", (now_ns() - t0) / (double)n);
  return 0;
}
