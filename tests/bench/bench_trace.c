/* Cost of the OTF2 trace (POPMETER_TRACE=1), measured side by side in one run (make bench): the
 * same workload runs as a child process under popmeter without the trace and with it, alternately,
 * several times; medians of the paired differences (drifts of a shared machine's load cancel within
 * a pair). Built twice from this file:
 *   bench_trace_starpu   N empty StarPU tasks on one CPU worker (submitted while StarPU is paused,
 *                        then executed, as in bench_starpu.c); and 100 us tasks (% of runtime)
 *   bench_trace_mpi      an MPI call loop in an MPI singleton: per iteration MPI_Irecv + MPI_Isend to
 *                        itself, MPI_Waitall, MPI_Allreduce
 * Besides the time per task / iteration and per event, it reports the events per task and the bytes
 * per event (event files / events, from popmeter.json), and the same run with a 1 MiB trace buffer,
 * where the buffer fills and is flushed (the flush count and time come from popmeter.json).
 *   bench_trace_* [REPS]               (libpopmeter.so: $POPMETER_LIB, else ../lib/.libs)
 *   bench_trace_* --child MODE N [US]  (one measurement, printed as "seconds") */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench_util.h"
#include "bench_tasks.h"
#ifdef BENCH_TRACE_MPI
#include <mpi.h>
#define NAME "bench_trace_mpi"
#else
#include <starpu.h>
#define NAME "bench_trace_starpu"
#endif

/* ------------------------------------------------------------------------------------ children */
#ifdef BENCH_TRACE_MPI
static int child(const char *mode, int n, int us) {
  (void)mode;
  (void)us;
  MPI_Init(NULL, NULL);
  int a = 1, b = 0;
  double x = 1, y;
  double t0 = bench_now_s();
  for (int i = 0; i < n; i++) {
    MPI_Request r[2];
    MPI_Irecv(&b, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&a, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double t1 = bench_now_s();
  printf("%.9f\n", t1 - t0);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
#else
static struct starpu_codelet cl_empty = {.cpu_funcs = {bench_task_empty}, .nbuffers = 0, .name = "empty"};
static struct starpu_codelet cl_busy = {.cpu_funcs = {bench_task_busy}, .nbuffers = 0, .name = "busy"};

static int child(const char *mode, int n, int us) {
  if (starpu_init(NULL) != 0) return 77;
  starpu_pause();
  double t0 = bench_now_s();
  for (int i = 0; i < n; i++) {
    struct starpu_task *t = starpu_task_create();
    t->cl = strcmp(mode, "empty") ? &cl_busy : &cl_empty;
    t->cl_arg = (void *)(intptr_t)us;
    if (starpu_task_submit(t) != 0) return 1;
  }
  starpu_resume();
  if (starpu_task_wait_for_all() != 0) return 1;
  double t1 = bench_now_s();
  starpu_shutdown();
  printf("%.9f\n", t1 - t0);
  return 0;
}
#endif

/* ------------------------------------------------------------------------------------- parent */
typedef struct {
  unsigned long long events, bytes, flushes;
  double flush_time;
} tstats;

/* The trace statistics of popmeter.json (processes[0].trace). */
static int read_stats(const char *dir, tstats *s) {
  char path[PATH_MAX], buf[1 << 16];
  snprintf(path, sizeof path, "%s/popmeter.json", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *t = strstr(buf, "\"trace\"");
  if (!t) return -1;
  const char *e = strstr(t, "\"events\""), *b = strstr(t, "\"bytes\""), *fl = strstr(t, "\"flushes\""),
             *ft = strstr(t, "\"flush_time\"");
  if (!e || !b || !fl || !ft) return -1;
  s->events = strtoull(strchr(e, ':') + 1, NULL, 10);
  s->bytes = strtoull(strchr(b, ':') + 1, NULL, 10);
  s->flushes = strtoull(strchr(fl, ':') + 1, NULL, 10);
  s->flush_time = strtod(strchr(ft, ':') + 1, NULL);
  return 0;
}

/* One child run under popmeter (trace on or off, buffer MiB); 0 on success. With the trace, the
 * statistics come back in *s (the output directory is removed afterwards). */
static int run(const char *self, const char *lib, const char *mode, int n, int us, int trace, int buffer_mib,
               double *sec, tstats *s) {
  char dir[PATH_MAX], nb[32], ub[32], bm[32], buf[128];
  snprintf(dir, sizeof dir, "%s/bench_trace.%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  setenv("STARPU_NCPU", "1", 1);
  setenv("STARPU_SILENT", "1", 1);
  setenv("STARPU_SCHED", "eager", 1);
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_CUBE", "0", 1);
  setenv("POPMETER_OVERWRITE", "1", 1);
  setenv("POPMETER_JSON", trace ? "1" : "0", 1);
  setenv("POPMETER_TRACE", trace ? "1" : "0", 1);
  snprintf(bm, sizeof bm, "%d", buffer_mib);
  setenv("POPMETER_TRACE_BUFFER", bm, 1);
  setenv("POPMETER_OUTPUT", dir, 1);
  setenv("POPMETER_TARGET", self, 1);
  snprintf(nb, sizeof nb, "%d", n);
  snprintf(ub, sizeof ub, "%d", us);
  char *const argv[] = {(char *)self, "--child", (char *)mode, nb, ub, NULL};
  int rc = bench_run_child(argv, lib, buf, sizeof buf) != 0 || sscanf(buf, "%lf", sec) != 1;
  if (!rc && trace && read_stats(dir, s) != 0) rc = 1;
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) rc = 1;
  return rc ? -1 : 0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
  if (argc > 3 && !strcmp(argv[1], "--child")) return child(argv[2], atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 0);
  int reps = argc > 1 ? atoi(argv[1]) : 7;
  if (reps < 1 || reps > 50) reps = 7;
  char self[PATH_MAX], lib[PATH_MAX];
  if (bench_self_and_lib(self, sizeof self, lib, sizeof lib) != 0) {
    fprintf(stderr, NAME ": %s not found (set POPMETER_LIB)\n", lib);
    return 1;
  }
#ifdef BENCH_TRACE_MPI
  struct {
    const char *mode, *what;
    int n, us;
  } cases[] = {{"loop", "MPI iterations (Irecv+Isend to self, Waitall, Allreduce)", 100000, 0}};
#else
  struct {
    const char *mode, *what;
    int n, us;
  } cases[] = {{"empty", "empty StarPU tasks, 1 CPU worker", 100000, 0},
               {"work", "StarPU tasks of 100 us, 1 CPU worker", 5000, 100}};
#endif
  printf(NAME ": OTF2 trace overhead (%d alternating runs each, medians)\n", reps);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    double t0[50], t1[50], d[50], tf = 0;
    tstats s = {0}, sf = {0};
    for (int r = 0; r < reps; r++) {
      if (run(self, lib, cases[c].mode, cases[c].n, cases[c].us, 0, 64, &t0[r], NULL) ||
          run(self, lib, cases[c].mode, cases[c].n, cases[c].us, 1, 64, &t1[r], &s)) {
        fprintf(stderr, NAME ": a %s run failed\n", cases[c].mode);
        return 1;
      }
      d[r] = t1[r] - t0[r];
    }
    /* the same traced run with a 1 MiB buffer: flushes during the run */
    if (run(self, lib, cases[c].mode, cases[c].n, cases[c].us, 1, 1, &tf, &sf)) {
      fprintf(stderr, NAME ": a %s run with a 1 MiB buffer failed\n", cases[c].mode);
      return 1;
    }
    double n = cases[c].n, added = median(d, reps), m0 = median(t0, reps), m1 = median(t1, reps);
    double per_unit = (double)s.events / n;
    printf("  %d %s:\n", cases[c].n, cases[c].what);
    printf("    per unit: %.3f us without the trace, %.3f us with it: ratio %.3f; added %.3f us per unit"
           " = %.1f ns per event (%.1f events per unit)\n",
           m0 / n * 1e6, m1 / n * 1e6, m1 / m0, added / n * 1e6, s.events ? added / (double)s.events * 1e9 : 0.0,
           per_unit);
    printf("    trace: %llu events, %.2f MiB of event files, %.1f bytes per event\n", s.events,
           (double)s.bytes / 1048576.0, s.events ? (double)s.bytes / (double)s.events : 0.0);
    printf("    with POPMETER_TRACE_BUFFER=1: %llu flushes taking %.3f ms in all (%.1f us each), run %.3f s"
           " (%.3f s with 64 MiB)\n",
           sf.flushes, sf.flush_time * 1e3, sf.flushes ? sf.flush_time / (double)sf.flushes * 1e6 : 0.0, tf, m1);
  }
  return 0;
}
