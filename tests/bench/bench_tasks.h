/* Task bodies of the StarPU benchmarks: an empty one, and one that busy-waits (intptr_t)arg
 * microseconds. Header-only; include after bench_util.h. */
#ifndef BENCH_TASKS_H
#define BENCH_TASKS_H
#include <stdint.h>
__attribute__((unused)) static void bench_task_empty(void *buffers[], void *arg) {
  (void)buffers;
  (void)arg;
}
__attribute__((unused)) static void bench_task_busy(void *buffers[], void *arg) {
  (void)buffers;
  double end = bench_now_s() + 1e-6 * (double)(intptr_t)arg;
  while (bench_now_s() < end) {}
}
#endif
