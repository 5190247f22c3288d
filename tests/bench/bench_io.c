/* Benchmark (not a test): cost popmeter adds to one POSIX / stdio I/O call, side by side in one run.
 * The program runs itself as children (fork + exec, so each starts fresh): once without popmeter and
 * once with libpopmeter.so preloaded and measuring (report and files off), alternating REPS times so
 * that a load change on the machine hits both alike. Each child times, best of BATCHES batches:
 *   pwrite  4 KiB at offset 0 of a regular file (page cache: no disk in the loop)
 *   pread   4 KiB at offset 0 of the same file
 *   fwrite  64 bytes + fflush every 64 calls (stdio buffering, as applications use it)
 *   write   1 byte into a pipe (not a file: the adapter's early exit, the cost every socket or pipe
 *           write of an MPI transport pays)
 * and prints ns per call. The file lives in $TMPDIR (default /tmp).
 *   bench_io [CALLS]    (default 100000 per batch)
 * POPMETER_LIB overrides the library (default: the build tree's). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_util.h"

#define BATCHES 5
#define REPS 5
enum { K_PWRITE, K_PREAD, K_FWRITE, K_PIPE, K_COUNT };
static const char *const kind_name[K_COUNT] = {"pwrite 4 KiB (file)", "pread 4 KiB (file)", "fwrite 64 B (stdio)",
                                               "write 1 B (pipe)"};

static double best_of(int kind, long n, int fd, FILE *f, int pfd[2]) {
  static char buf[4096];
  char drain[4096];
  double best = 1e30;
  for (int b = 0; b < BATCHES; b++) {
    double t0 = bench_now_s();
    for (long i = 0; i < n; i++) {
      switch (kind) {
      case K_PWRITE:
        if (pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) return -1;
        break;
      case K_PREAD:
        if (pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) return -1;
        break;
      case K_FWRITE:
        if (fwrite(buf, 64, 1, f) != 1) return -1;
        if ((i & 63) == 63) {
          fflush(f);
          rewind(f);
        }
        break;
      case K_PIPE:
        if (write(pfd[1], buf, 1) != 1) return -1;
        if ((i & 1023) == 1023 && read(pfd[0], drain, sizeof drain) < 0) return -1;
        break;
      }
    }
    double t = (bench_now_s() - t0) / (double)n * 1e9;
    if (t < best) best = t;
    if (kind == K_PIPE)
      while (read(pfd[0], drain, sizeof drain) == (ssize_t)sizeof drain) {}
  }
  return best;
}

static int child(long n) {
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/bench_io.XXXXXX", dir);
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("bench_io: mkstemp");
    return 1;
  }
  FILE *f = fdopen(dup(fd), "w+");
  int pfd[2];
  if (!f || pipe2(pfd, O_NONBLOCK) != 0) return 1;
  static char buf[4096];
  if (pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) return 1;
  double ns[K_COUNT];
  for (int k = 0; k < K_COUNT; k++) {
    best_of(k, n / 10, fd, f, pfd); /* warm-up: activation, classification */
    if ((ns[k] = best_of(k, n, fd, f, pfd)) < 0) {
      fprintf(stderr, "bench_io: %s failed\n", kind_name[k]);
      return 1;
    }
  }
  fclose(f);
  close(fd);
  unlink(path);
  for (int k = 0; k < K_COUNT; k++) printf("%.1f ", ns[k]);
  printf("\n");
  return 0;
}

static int run_child(const char *self, const char *nstr, const char *lib, double ns[K_COUNT]) {
  char out[256];
  char *const argv[] = {(char *)self, "--child", (char *)nstr, NULL};
  if (bench_run_child(argv, lib, out, sizeof out) != 0) return -1;
  char *p = out;
  for (int k = 0; k < K_COUNT; k++) ns[k] = strtod(p, &p);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--child")) return child(atol(argv[2]));
  const char *nstr = argc > 1 ? argv[1] : "100000";
  bench_quiet_popmeter();
  setenv("POPMETER_TARGET", "bench_io", 1); /* a non-MPI program is measured when named (popmeter run) */
  char self[4096], lib[4096];
  if (bench_self_and_lib(self, sizeof self, lib, sizeof lib) != 0) {
    fprintf(stderr, "%s: %s not found (set POPMETER_LIB)\n", argv[0], lib);
    return 1;
  }
  double base[K_COUNT], with[K_COUNT];
  for (int k = 0; k < K_COUNT; k++) base[k] = with[k] = 1e30;
  for (int r = 0; r < REPS; r++) {
    double b[K_COUNT], w[K_COUNT];
    if (run_child(self, nstr, NULL, b) != 0 || run_child(self, nstr, lib, w) != 0) {
      fprintf(stderr, "bench_io: a child failed (library %s)\n", lib);
      return 1;
    }
    for (int k = 0; k < K_COUNT; k++) {
      if (b[k] < base[k]) base[k] = b[k];
      if (w[k] < with[k]) with[k] = w[k];
    }
  }
  printf("I/O call cost (best of %d x %d batches of %s calls):\n", REPS, BATCHES, nstr);
  printf("  %-22s %12s %12s %10s %7s\n", "call", "without", "with", "added", "ratio");
  for (int k = 0; k < K_COUNT; k++)
    printf("  %-22s %9.1f ns %9.1f ns %7.1f ns %6.2fx\n", kind_name[k], base[k], with[k], with[k] - base[k],
           with[k] / base[k]);
  return 0;
}
