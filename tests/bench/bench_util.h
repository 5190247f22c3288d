/* Helpers shared by the benchmarks (header-only: some are built by plain compiler rules). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs argv[0] (fresh process: fork + exec) with LD_PRELOAD=preload, or without any preload when
 * preload is NULL, and captures its standard output into out. Returns 0 when the child exited 0
 * and printed something. Settings for the child go into the environment before the call. */
static inline int bench_run_child(char *const argv[], const char *preload, char *out, size_t len) {
  int fd[2];
  if (len == 0 || pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    if (preload)
      setenv("LD_PRELOAD", preload, 1);
    else
      unsetenv("LD_PRELOAD");
    execv(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t k;
  while (got + 1 < len && (k = read(fd[0], out + got, len - 1 - got)) > 0) got += (size_t)k;
  out[got] = '\0';
  close(fd[0]);
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || got == 0) return -1;
  return 0;
}
/* The running benchmark's own path (to run itself as a child) and the popmeter library to preload:
 * $POPMETER_LIB, else the build tree's (lib/.libs next to tests/). 0, or -1 when either is missing. */
static inline int bench_self_and_lib(char *self, size_t slen, char *lib, size_t llen) {
  ssize_t k = readlink("/proc/self/exe", self, slen - 1);
  if (k <= 0) return -1;
  self[k] = '\0';
  const char *env = getenv("POPMETER_LIB");
  const char *d = strrchr(self, '/');
  if (env && env[0])
    snprintf(lib, llen, "%s", env);
  else
    snprintf(lib, llen, "%.*s/../../lib/.libs/libpopmeter.so", (int)(d ? d - self : 0), self);
  return access(lib, R_OK) == 0 ? 0 : -1;
}

/* The preloaded child measures but writes nothing (no table, no files). */
static inline void bench_quiet_popmeter(void) {
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_JSON", "0", 1);
  setenv("POPMETER_CUBE", "0", 1);
}

/* Best of reps runs of body(ctx, n), in ns per iteration. */
static inline double bench_best_ns(void (*body)(void *ctx, long n), void *ctx, long n, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now_s();
    body(ctx, n);
    double t = (bench_now_s() - t0) / (double)n * 1e9;
    if (t < best) best = t;
  }
  return best;
}
#endif
