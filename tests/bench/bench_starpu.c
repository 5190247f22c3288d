/* Cost of the StarPU adapter, measured side by side in one run (make bench): the same program is
 * run as a child process with and without LD_PRELOAD=libpopmeter.so, alternately, several times.
 *  1. 100k empty tasks (no data) on one CPU worker: added time per task = added submission time
 *     (application thread) + added execution time (worker) -- target <= 1 us;
 *  2. a workload of 100 us tasks (busy-wait, one read-write handle each, one worker): added
 *     execution time in percent -- target <= 1 %.
 * Tasks are submitted while StarPU is paused, then executed: with tasks trickling in, a worker
 * sleeps and wakes up for each task, and whether it does so depends on tiny timing differences
 * (a bimodal wall time, measured at 2x on this machine for the same binary), which would swamp
 * the tool's cost. Submission and execution are each timed (wall and CPU of the process).
 * Medians over the repetitions are reported (the machine may be shared: the minimum is shown too).
 * bench_starpu14 is the same program linked with the static StarPU 1.4 (tool interface).
 *   bench_starpu [REPS]          (libpopmeter.so: $POPMETER_LIB, else ../lib/.libs next to tests)
 *   bench_starpu --child empty|work N [US]   (one measurement, printed as "wall cpu") */
#define _GNU_SOURCE
#include <starpu.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "bench_util.h"
#include "bench_tasks.h"

static double cpu_s(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec + (double)r.ru_stime.tv_sec +
         1e-6 * (double)r.ru_stime.tv_usec;
}

static struct starpu_codelet cl_empty = {.cpu_funcs = {bench_task_empty}, .nbuffers = 0, .name = "empty"};
static struct starpu_codelet cl_busy = {
    .cpu_funcs = {bench_task_busy}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "busy"};

static int child(const char *mode, int n, int us) {
  if (starpu_init(NULL) != 0) return 77;
  starpu_data_handle_t h[64];
  long v[64];
  for (int i = 0; i < 64; i++) starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t)&v[i], sizeof v[i]);
  starpu_pause();
  double t0 = bench_now_s(), c0 = cpu_s();
  for (int i = 0; i < n; i++) {
    struct starpu_task *t = starpu_task_create();
    if (!strcmp(mode, "empty")) {
      t->cl = &cl_empty;
    } else {
      t->cl = &cl_busy;
      t->handles[0] = h[i % 64];
      t->cl_arg = (void *)(intptr_t)us;
    }
    if (starpu_task_submit(t) != 0) return 1;
  }
  double t1 = bench_now_s(), c1 = cpu_s();
  starpu_resume();
  if (starpu_task_wait_for_all() != 0) return 1;
  double t2 = bench_now_s(), c2 = cpu_s();
  for (int i = 0; i < 64; i++) starpu_data_unregister(h[i]);
  starpu_shutdown();
  printf("%.9f %.9f %.9f %.9f\n", t1 - t0, t2 - t1, c1 - c0, c2 - c1);
  return 0;
}

/* Runs this program as a child (with or without the preload); returns 0 and fills the submission
 * and execution wall times (sub, exe) and the process CPU times of both phases. */
static int run(const char *self, const char *lib, const char *ncpu, const char *mode, int n, int us, double *sub,
               double *exe, double *csub, double *cexe) {
  setenv("STARPU_NCPU", ncpu, 1);
  setenv("STARPU_SILENT", "1", 1);
  setenv("STARPU_SCHED", "eager", 1);
  bench_quiet_popmeter();
  /* StarPU 1.4 (bench_starpu14) loads popmeter's tool adapter from STARPU_PROF_TOOL; 1.3 ignores it */
  if (lib)
    setenv("STARPU_PROF_TOOL", lib, 1);
  else
    unsetenv("STARPU_PROF_TOOL");
  char nb[32], ub[32], buf[128];
  snprintf(nb, sizeof nb, "%d", n);
  snprintf(ub, sizeof ub, "%d", us);
  char *const argv[] = {(char *)self, "--child", (char *)mode, nb, ub, NULL};
  if (bench_run_child(argv, lib, buf, sizeof buf) != 0) return -1;
  return sscanf(buf, "%lf %lf %lf %lf", sub, exe, csub, cexe) == 4 ? 0 : -1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static double minimum(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] < m) m = v[i];
  return m;
}
/* Median of the differences b[r] - a[r] of runs made back to back: drifts of the machine's load
 * cancel within a pair. */
static double paired(const double *a, const double *b, int n) {
  double d[50];
  for (int i = 0; i < n; i++) d[i] = b[i] - a[i];
  return median(d, n);
}
static double paired2(const double *a, const double *b, const double *c, const double *e, int n) {
  double d[50];
  for (int i = 0; i < n; i++) d[i] = b[i] - a[i] + e[i] - c[i];
  return median(d, n);
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--child")) return child(argv[2], atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 0);
  int reps = argc > 1 ? atoi(argv[1]) : 9;
  if (reps < 1 || reps > 50) reps = 9;
  char self[PATH_MAX], lib[PATH_MAX];
  if (bench_self_and_lib(self, sizeof self, lib, sizeof lib) != 0) {
    fprintf(stderr, "bench_starpu: %s not found (set POPMETER_LIB)\n", lib);
    return 1;
  }
  struct {
    const char *mode, *ncpu;
    int n, us;
  } cases[2] = {{"empty", "1", 100000, 0}, {"work", "1", 10000, 100}};
  printf("StarPU adapter overhead (%d alternating runs each, medians; min in brackets)\n", reps);
  int failed = 0;
  for (int c = 0; c < 2; c++) {
    double s0[50], s1[50], e0[50], e1[50], cs0[50], cs1[50], ce0[50], ce1[50];
    for (int r = 0; r < reps; r++) {
      if (run(self, NULL, cases[c].ncpu, cases[c].mode, cases[c].n, cases[c].us, &s0[r], &e0[r], &cs0[r], &ce0[r]) ||
          run(self, lib, cases[c].ncpu, cases[c].mode, cases[c].n, cases[c].us, &s1[r], &e1[r], &cs1[r], &ce1[r])) {
        fprintf(stderr, "bench_starpu: a %s run failed\n", cases[c].mode);
        return 1;
      }
    }
    double n = cases[c].n, us = 1e6 / n;
    /* paired differences first (median computes in place, sorting its array) */
    double pd = paired2(s0, s1, e0, e1, reps), pds = paired(s0, s1, reps), pde = paired(e0, e1, reps);
    double pdc = paired2(cs0, cs1, ce0, ce1, reps), pdce = paired(ce0, ce1, reps);
    double ms0 = minimum(s0, reps), ms1 = minimum(s1, reps), me0 = minimum(e0, reps), me1 = minimum(e1, reps);
    double ds0 = median(s0, reps), ds1 = median(s1, reps), de0 = median(e0, reps), de1 = median(e1, reps);
    double ce0m = median(ce0, reps);
    if (c == 0) {
      double added = pd * us;
      printf("  %d empty tasks, 1 worker (us/task without -> with popmeter):\n", cases[c].n);
      printf("    submission %.2f -> %.2f [min %.2f -> %.2f], execution %.2f -> %.2f [min %.2f -> %.2f]\n", ds0 * us,
             ds1 * us, ms0 * us, ms1 * us, de0 * us, de1 * us, me0 * us, me1 * us);
      printf("    added per task (median of paired differences): %.2f us (submission %.2f + execution %.2f)"
             " [min-based %.2f]; process CPU %.2f us  (target <= 1 us)\n",
             added, pds * us, pde * us, (ms1 - ms0 + me1 - me0) * us, pdc * us);
      failed |= added > 1.0;
    } else {
      double pct = pde / de0 * 100;
      printf("  %d tasks of %d us, 1 worker: execution %.3f s without, %.3f s with popmeter [min %.3f / %.3f]\n",
             cases[c].n, cases[c].us, de0, de1, me0, me1);
      printf("    added runtime (median of paired differences): %.2f %% [min-based %.2f %%]; process CPU %+.2f %%"
             "  (target <= 1 %%)\n",
             pct, (me1 - me0) / me0 * 100, pdce / ce0m * 100);
      failed |= pct > 1.0;
    }
  }
  printf("%s\n",
         failed ? "bench_starpu: a target is not met on this machine (see above)" : "bench_starpu: targets met");
  return 0;
}
