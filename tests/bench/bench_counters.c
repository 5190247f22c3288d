/* Benchmark (not a test): what the hardware-counter module adds per transition, side by side in one
 * run, best of REPS each:
 *   off         POPMETER_COUNTERS=off: no observer (the baseline every location pays without counters)
 *   null read   the module with a backend whose read costs nothing: the module's own bookkeeping
 *               (observer dispatch, deltas, per-call-path attribution) per transition
 *   PAPI        the module reading PAPI_TOT_INS + PAPI_TOT_CYC through PAPI_read, where the machine
 *               has counters (otherwise the reason is printed)
 * on three patterns: an MPI call (useful -> MPI -> useful: 2 reads), a user region inside useful
 * code (useful -> useful on another call path: 2 reads), and a state change between two non-useful
 * states (MPI -> runtime -> MPI: no read). Prints ns per pattern and the ratio to "off". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_profile.h"
#include "pm_profile_counters.h"
#include "pm_counters.h"

#define REPS 7
static pm_region_id send_r, work_r;

static int n_init(char *why, size_t len) {
  (void)why;
  (void)len;
  return 0;
}
static int n_known(const char *e, char *why, size_t len) {
  (void)e;
  (void)why;
  (void)len;
  return 1;
}
static int nacc;
static int n_select(int n, const char *const *ev, int *ok, char (*why)[PM_CTR_WHY]) {
  (void)ev;
  (void)why;
  for (int i = 0; i < n; i++) ok[i] = 1;
  return nacc = n;
}
static void *n_start(char *why, size_t len) {
  (void)why;
  (void)len;
  static int x;
  return &x;
}
static uint64_t tick;
static int n_read(void *ctx, uint64_t *v) {
  (void)ctx;
  tick++;
  for (int e = 0; e < nacc; e++) v[e] = tick;
  return 0;
}
static void n_stop(void *ctx) { (void)ctx; }
static const pm_ctr_backend null_backend = {"null", n_init, n_known, n_select, n_start, n_read, n_stop, NULL};

typedef void (*body_fn)(pm_loc *, long);
static void b_mpi(pm_loc *L, long n) {
  for (long i = 0; i < n; i++) {
    pm_call_enter(L, send_r, PM_STATE_MPI_P2P, pm_clock_now());
    pm_call_exit(L, pm_clock_now());
  }
}
static void b_region(pm_loc *L, long n) {
  for (long i = 0; i < n; i++) {
    pm_region_enter(L, work_r, pm_clock_now());
    pm_region_exit(L, pm_clock_now());
  }
}
static void b_nonuseful(pm_loc *L, long n) {
  pm_state_set(L, PM_STATE_MPI_SYNC, pm_clock_now());
  for (long i = 0; i < n; i++) {
    pm_state_set(L, PM_STATE_RUNTIME, pm_clock_now());
    pm_state_set(L, PM_STATE_MPI_SYNC, pm_clock_now());
  }
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
}
static double once(body_fn f, pm_loc *L, long n) {
  double t0 = bench_now_s();
  f(L, n);
  return (bench_now_s() - t0) / (double)n * 1e9;
}

/* Activates a fresh measurement with these settings; returns the calling thread's location. */
static pm_loc *start(const char *mode, const char *events, const pm_ctr_backend *be) {
  pm_core_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_JSON", "0", 1);
  setenv("POPMETER_VERBOSE", "0", 1); /* no warning for events this machine cannot count */
  setenv("POPMETER_COUNTERS", mode, 1);
  if (events)
    setenv("POPMETER_PAPI_EVENTS", events, 1);
  else
    unsetenv("POPMETER_PAPI_EVENTS");
  pm_counters_use_backend(be);
  pm_module_register(&pm_counters_module);
  pm_core_activate();
  send_r = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  work_r = pm_region_register("work", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  return pm_loc_self();
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  static const struct {
    const char *name;
    body_fn f;
    int reads;
  } pat[3] = {{"MPI call (useful->MPI->useful)", b_mpi, 2},
              {"user region in useful code", b_region, 2},
              {"non-useful state change pair", b_nonuseful, 0}};
  double t[3][3]; /* [config][pattern], best over the rounds */
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < 3; k++) t[c][k] = 1e30;
  int papi_counts = 0;
  char why[512] = "";
  /* the configurations take turns in every round, so a change of load on this shared machine
   * hits all of them alike */
  for (int r = 0; r < REPS; r++)
    for (int c = 0; c < 3; c++) {
      pm_loc *L =
          c == 0 ? start("off", NULL, NULL) : start("auto", "PAPI_TOT_INS,PAPI_TOT_CYC", c == 1 ? &null_backend : NULL);
      if (c == 2 && !(papi_counts = L && L->nobs > 0)) {
        pm_profile *p = pm_profile_build_process(pm_clock_now(), pm_clock_now());
        snprintf(why, sizeof why, "%s",
                 p && p->counters && p->counters->reason[PM_CTR_CAT_INSTRUCTIONS]
                     ? p->counters->reason[PM_CTR_CAT_INSTRUCTIONS]
                     : "not counting");
        pm_profile_free(p);
        continue;
      }
      for (int k = 0; k < 3; k++) {
        double x = once(pat[k].f, L, n);
        if (x < t[c][k]) t[c][k] = x;
      }
    }
  double *off = t[0], *nul = t[1], *papi = t[2];
  printf("hardware counters: cost per pattern (2 clock reads each), best of %d x %ld\n", REPS, n);
  printf("%-32s %10s %22s %22s\n", "pattern", "off", "null read (2 events)", "PAPI (2 events)");
  for (int k = 0; k < 3; k++) {
    char a[64], b[64] = "n/a";
    snprintf(a, sizeof a, "%.1f ns (%.2fx)", nul[k], nul[k] / off[k]);
    if (papi_counts) snprintf(b, sizeof b, "%.1f ns (%.2fx)", papi[k], papi[k] / off[k]);
    printf("%-32s %7.1f ns %22s %22s   %d reads\n", pat[k].name, off[k], a, b, pat[k].reads);
  }
  printf("module bookkeeping per read: %.1f ns (MPI call pattern, null read)\n", (nul[0] - off[0]) / 2);
  if (papi_counts)
    printf("PAPI per read: %.1f ns (MPI call pattern)\n", (papi[0] - off[0]) / 2);
  else
    printf("PAPI: not measured on this machine: %s\n", why);
  return 0;
}
