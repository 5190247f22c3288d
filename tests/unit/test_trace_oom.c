/* Out of memory while rank 0 unifies the trace definitions (lib/trace/trace_defs.c): every
 * allocation of pm_tdefs_write is made to fail in turn (the test is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=strdup, which reroutes the
 * calls of popmeter's own code through the wrappers below; libotf2's go to the C library). Each
 * such run must return -1 or 0 (never crash), leave no block of its own allocated, and leave the
 * archive closable, and say "out of memory" when it drops a process's part for that reason (not
 * "unreadable", the words for a corrupt part); the run without a failure must return 0 and write
 * the definitions that OTF2's reader reads back. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "pm_trace.h"
#include "otf2_flush.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static long countdown = -1; /* fail the allocation that brings it to 0; -1: never */
static long nallocs, live;

static int should_fail(void) {
  nallocs++;
  return countdown > 0 && --countdown == 0;
}
void *__wrap_malloc(size_t n) {
  if (should_fail()) return NULL;
  void *p = __real_malloc(n);
  if (p) live++;
  return p;
}
void *__wrap_calloc(size_t n, size_t s) {
  if (should_fail()) return NULL;
  void *p = __real_calloc(n, s);
  if (p) live++;
  return p;
}
void *__wrap_realloc(void *q, size_t n) {
  if (should_fail()) return NULL;
  void *p = __real_realloc(q, n);
  if (p && !q) live++;
  return p;
}
void __wrap_free(void *p) {
  if (p) live--;
  __real_free(p);
}
char *__wrap_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = __wrap_malloc(n);
  return p ? memcpy(p, s, n) : NULL;
}

/* Two processes as pm_tdefs_local describes them: a main thread and a worker each, regions of
 * three paradigms (some shared by name), MPI_COMM_WORLD, a self communicator and a thread team. */
static const char *PART0 = "P 0 2 1000 100 900 0 host\\\\a\n"
                           "L 0 0 12 main\n"
                           "L 4294967296 1 8 worker 0\n"
                           "R 0 0 8 main\n"
                           "R 1 1 2 MPI_Allreduce\n"
                           "R 2 2 4 !$omp parallel @ solver.c:10\n"
                           "R 3 1 1 MPI_Send\n"
                           "C 0 0 0 2 0 1\n"
                           "C 1 1 0 1 0\n"
                           "C 2 2 7 2 0 4294967296\n";
static const char *PART1 = "P 1 2 1001 110 950 1 host\\nb\n"
                           "L 1 0 10 main\n"
                           "L 4294967297 1 6 worker 0\n"
                           "R 0 0 8 main\n"
                           "R 1 1 1 MPI_Recv\n"
                           "R 2 1 2 MPI_Allreduce\n"
                           "C 0 0 0 2 0 1\n"
                           "C 1 2 3 2 1 4294967297\n";

/* One archive in a fresh directory, the definitions written from copies of the two parts (the
 * writer parses them in place). Returns pm_tdefs_write's result; *closed: the archive closed. */
static int write_defs(const char *dir, int *closed) {
  char *parts[2] = {__real_malloc(strlen(PART0) + 1), __real_malloc(strlen(PART1) + 1)};
  assert_non_null(parts[0]);
  assert_non_null(parts[1]);
  strcpy(parts[0], PART0);
  strcpy(parts[1], PART1);
  OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
  assert_non_null(a);
  OTF2_Archive_SetFlushCallbacks(a, &otf2_flush_callbacks, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  assert_int_equal(OTF2_Archive_OpenDefFiles(a), OTF2_SUCCESS);
  int rc = pm_tdefs_write(a, parts, 2);
  *closed = OTF2_Archive_CloseDefFiles(a) == OTF2_SUCCESS && OTF2_Archive_Close(a) == OTF2_SUCCESS;
  __real_free(parts[0]);
  __real_free(parts[1]);
  return rc;
}

static OTF2_CallbackCode count_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                        uint64_t nev, OTF2_LocationGroupRef g) {
  (void)self, (void)name, (void)t, (void)nev, (void)g;
  ++*(int *)u;
  return OTF2_CALLBACK_SUCCESS;
}
static int locations_read_back(const char *dir) {
  char anchor[600];
  snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
  OTF2_Reader *r = OTF2_Reader_Open(anchor);
  if (!r) return -1;
  OTF2_Reader_SetSerialCollectiveCallbacks(r);
  OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
  int n = 0;
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, count_location);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, &n);
  uint64_t read = 0;
  OTF2_Reader_ReadAllGlobalDefinitions(r, g, &read);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  OTF2_Reader_Close(r);
  return n;
}

static void rmrf(const char *dir) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static void test_every_allocation_fails_in_turn(void **state) {
  (void)state;
  char tmpl[512];
  const char *tmp = getenv("TMPDIR");
  snprintf(tmpl, sizeof tmpl, "%s/pm-trace-oom.XXXXXX", tmp && tmp[0] ? tmp : P_tmpdir);
  char *top = mkdtemp(tmpl);
  assert_non_null(top);
  char dir[600];
  int closed;

  /* no failure: the definitions are complete */
  snprintf(dir, sizeof dir, "%s/ok", top);
  countdown = -1;
  nallocs = 0;
  long live0 = live;
  assert_int_equal(write_defs(dir, &closed), 0);
  assert_true(closed);
  assert_int_equal(live, live0);
  long total = nallocs;
  assert_true(total > 10); /* the injection below has allocations to fail */
  assert_int_equal(locations_read_back(dir), 4);

  /* the warnings of the runs below, to a file: a part dropped for lack of memory must say so */
  char errpath[700];
  snprintf(errpath, sizeof errpath, "%s/stderr", top);
  fflush(stderr);
  int saved = dup(2), errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  assert_true(saved >= 0 && errfd >= 0);
  dup2(errfd, 2);
  close(errfd);
  int failed = 0;
  for (long k = 1; k <= total; k++) {
    snprintf(dir, sizeof dir, "%s/k%ld", top, k);
    countdown = k;
    nallocs = 0;
    live0 = live;
    int rc = write_defs(dir, &closed);
    countdown = -1;
    assert_true(rc == 0 || rc == -1);
    assert_true(closed);
    if (live != live0) fail_msg("allocation %ld failing leaks %ld block(s)", k, live - live0);
    failed += rc == -1;
    rmrf(dir);
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char log[1 << 16];
  FILE *f = fopen(errpath, "r");
  assert_non_null(f);
  size_t len = fread(log, 1, sizeof log - 1, f);
  fclose(f);
  log[len] = '\0';
  assert_non_null(strstr(log, "trace: out of memory reading the definitions of process"));
  assert_null(strstr(log, "unreadable")); /* the parts are well formed */
  assert_true(failed > 0);                /* some failures cannot be done without */
  print_message("%ld allocations failed in turn, %d of them made the definitions fail\n", total, failed);
  rmrf(top);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_allocation_fails_in_turn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
