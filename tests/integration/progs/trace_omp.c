/* Programs for the trace read-back tests (tests/integration/test_trace_omp.sh); user regions are
 * called through weak references, so the program also runs without popmeter.
 *   trace_omp omp      4 parallel regions of 2 threads; in each, every thread runs the user region
 *                      "work" (1 ms busy); then the user region "serial" on the master.
 *   trace_omp filter   user regions for POPMETER_TRACE_FILTER="skip*,min=20000" (20 ms):
 *                        3 x "long" (30 ms busy)                          kept
 *                        20 x "tiny" (empty)                              dropped (too short)
 *                        "skip_outer" (excluded by name) holding "inner" (30 ms)  inner kept alone
 *                        "outer" (60 ms) holding 5 x "tiny" and 1 x "mid" (40 ms)  outer, mid kept
 *                        "short" (empty) holding 3 x "tiny"               all dropped
 *   trace_omp exec     the user region "before_exec", then re-executes itself (the same process,
 *                      as mfsolve may to choose its BLAS kernels, once popmeter has started),
 *                      then runs "filter".
 *   trace_omp exec-foreign DIR   the same, after giving the staging directories in DIR (the first
 *                      image's) to the user nobody; exit 77 when that is not allowed. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "popmeter.h"
#pragma weak pm_region_begin
#pragma weak pm_region_end

static void begin(const char *n) {
  if (pm_region_begin) pm_region_begin(n);
}
static void end(const char *n) {
  if (pm_region_end) pm_region_end(n);
}
static void busy_ms(double ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6 < ms);
}

static void omp(void) {
  for (int i = 0; i < 4; i++) {
#pragma omp parallel num_threads(2)
    {
      begin("work");
      busy_ms(1);
      end("work");
    }
  }
  begin("serial");
  busy_ms(1);
  end("serial");
}

static void tiny(void) {
  begin("tiny");
  end("tiny");
}

static void filter(void) {
  for (int i = 0; i < 3; i++) {
    begin("long");
    busy_ms(30);
    end("long");
  }
  for (int i = 0; i < 20; i++) tiny();
  begin("skip_outer");
  begin("inner");
  busy_ms(30);
  end("inner");
  end("skip_outer");
  begin("outer");
  for (int i = 0; i < 5; i++) tiny();
  begin("mid");
  busy_ms(40);
  end("mid");
  busy_ms(20);
  end("outer");
  begin("short");
  for (int i = 0; i < 3; i++) tiny();
  end("short");
}

/* Gives every popmeter staging directory in dir to the user nobody (65534): another user's
 * directory of the name the next image of this process will look for. 0 when one was given. */
static int give_stage_away(const char *dir) {
  DIR *d = opendir(dir);
  int given = -1;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (!strncmp(e->d_name, ".popmeter-trace.", 16)) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      if (chown(path, 65534, 65534) == 0) given = 0;
    }
  if (d) closedir(d);
  return given;
}

int main(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "exec") || !strcmp(argv[1], "exec-foreign"))) {
    begin("before_exec"); /* popmeter starts (and opens the trace) at its first event */
    end("before_exec");
    if (!strcmp(argv[1], "exec-foreign") && (argc < 3 || give_stage_away(argv[2]) != 0)) {
      fprintf(stderr, "trace_omp: no staging directory in %s could be given away (not root?)\n",
              argc < 3 ? "(none named)" : argv[2]);
      return 77;
    }
    char *const args[] = {argv[0], "filter", NULL};
    execv("/proc/self/exe", args);
    perror("trace_omp: execv /proc/self/exe");
    return 1;
  }
  if (argc > 1 && !strcmp(argv[1], "filter"))
    filter();
  else
    omp();
  return 0;
}
