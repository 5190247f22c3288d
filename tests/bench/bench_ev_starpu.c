/* One event kind of the per-event benchmark (bench_events.sh), StarPU side: N empty tasks (no
 * data) in chains of 10 (each task depends on the previous one of its chain), 2 CPU workers,
 * submitted while StarPU is paused and then executed (with tasks trickling in, whether a worker
 * sleeps between tasks depends on tiny timing differences, which would swamp the tool's cost).
 * Prints the time per task: submission + execution.
 *   bench_ev_starpu N          (STARPU_NCPU=2 STARPU_SCHED=eager are set unless given) */
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHAIN 10

static void empty(void *buffers[], void *arg) {
  (void)buffers;
  (void)arg;
}
static struct starpu_codelet cl = {.cpu_funcs = {empty}, .nbuffers = 0, .name = "empty"};

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int run(long n) {
  starpu_pause();
  /* a chain's dependencies are declared before any of its tasks is submitted: StarPU forbids
   * naming a submitted task that it destroys by itself */
  for (long i = 0; i < n; i += CHAIN) {
    struct starpu_task *t[CHAIN];
    int k, len = n - i < CHAIN ? (int)(n - i) : CHAIN;
    for (k = 0; k < len; k++) {
      t[k] = starpu_task_create();
      t[k]->cl = &cl;
      if (k) starpu_task_declare_deps(t[k], 1, t[k - 1]);
    }
    for (k = 0; k < len; k++)
      if (starpu_task_submit(t[k]) != 0) return -1;
  }
  starpu_resume();
  return starpu_task_wait_for_all();
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  setenv("STARPU_NCPU", "2", 0);
  setenv("STARPU_SCHED", "eager", 0);
  setenv("STARPU_SILENT", "1", 0);
  if (starpu_init(NULL) != 0) return 77;
  if (run(n / 10 > 1000 ? n / 10 : 1000) != 0) return 1; /* warm-up */
  double t0 = now_ns();
  if (run(n) != 0) return 1;
  printf("%.2f\n", (now_ns() - t0) / (double)n);
  starpu_shutdown();
  return 0;
}
