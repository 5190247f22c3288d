/* Hardware counters through the whole path with injected values: the real observer on the real
 * core (virtual clock), the process profile, popmeter.json and back, pm_run_input, and the models.
 *
 * The test backend below stands for PAPI. Event e of a thread reads rate[e] x (virtual clock in
 * ns), so the count of any interval is rate x its length: every expected value is the interval
 * arithmetic written next to it. Rates by event kind: instructions 5/ns, cycles 2/ns, FP scalar
 * double 1/ns, FP 256-bit packed double 2/ns, PAPI_L1_DCM ("other") 7/ns, other FP classes 0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include "pm_profile_counters.h"
#include "pm_profile_input.h"
#include "pm_report_models.h"
#include "pm_counters.h"
#include "pm_module.h"

#define T0 1000000000ull
#define US 1000ull

/* --------------------------------------------------------------------------------- test backend */
static struct {
  int inits, selects, reads, starts, stops;
  int init_fails;     /* init returns -1 */
  const char *reject; /* select rejects events whose name contains this */
  const char *reject_why;
  int fp_known;           /* known() accepts the FP classes */
  int fail_other_threads; /* thread_start fails on threads other than the main one */
  int nacc;
  uint64_t rate[PM_CTR_MAX];
  pthread_t main_thread;
} TB;

static uint64_t rate_of(const char *event) {
  switch (pm_ctr_kind_of_event(event)) {
  case PM_CTR_INSTRUCTIONS: return 5;
  case PM_CTR_CYCLES: return 2;
  case PM_CTR_FP_DP_SCALAR: return 1;
  case PM_CTR_FP_DP_256: return 2;
  case PM_CTR_OTHER: return 7;
  default: return 0;
  }
}
static int t_init(char *why, size_t len) {
  TB.inits++;
  if (TB.init_fails) {
    snprintf(why, len, "library not initialised (test)");
    return -1;
  }
  return 0;
}
static int t_known(const char *event, char *why, size_t len) {
  if (TB.fp_known) return 1;
  snprintf(why, len, "no such event on the test machine (%s)", event);
  return 0;
}
static int t_select(int n, const char *const *events, int *ok, char (*why)[PM_CTR_WHY]) {
  TB.selects++;
  TB.nacc = 0;
  for (int i = 0; i < n; i++) {
    ok[i] = !(TB.reject && strstr(events[i], TB.reject));
    if (!ok[i])
      snprintf(why[i], PM_CTR_WHY, "%s", TB.reject_why ? TB.reject_why : "Event does not exist");
    else
      TB.rate[TB.nacc++] = rate_of(events[i]);
  }
  return TB.nacc;
}
static void *t_thread_start(char *why, size_t len) {
  if (TB.fail_other_threads && !pthread_equal(pthread_self(), TB.main_thread)) {
    snprintf(why, len, "no counter for this thread (test)");
    return NULL;
  }
  TB.starts++;
  return &TB;
}
static int t_read(void *ctx, uint64_t *v) {
  (void)ctx;
  __atomic_fetch_add(&TB.reads, 1, __ATOMIC_RELAXED);
  uint64_t now = pm_clock_now();
  for (int e = 0; e < TB.nacc; e++) v[e] = TB.rate[e] * now;
  return 0;
}
static void t_thread_stop(void *ctx) {
  (void)ctx;
  TB.stops++;
}
static int t_width(void) { return 256; }
static const pm_ctr_backend test_backend = {"test",         t_init, t_known,       t_select,
                                            t_thread_start, t_read, t_thread_stop, t_width};

#define EVENTS4 "PAPI_TOT_INS,PAPI_TOT_CYC,FP_ARITH_INST_RETIRED:SCALAR_DOUBLE,FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE"

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  memset(&TB, 0, sizeof TB);
  TB.main_thread = pthread_self();
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_PAPI_EVENTS", EVENTS4, 1);
  unsetenv("POPMETER_COUNTERS");
  pm_counters_use_backend(&test_backend);
  pm_clock_use_virtual(T0);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  return 0;
}

/* stderr of f() (popmeter's warnings) */
static char captured[8192];
static void capture_stderr(void (*f)(void)) {
  FILE *tmp = tmpfile();
  assert_non_null(tmp);
  int fd = fileno(tmp);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  f();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  lseek(fd, 0, SEEK_SET);
  ssize_t n = read(fd, captured, sizeof captured - 1);
  captured[n > 0 ? n : 0] = '\0';
  fclose(tmp);
}
static void do_activate(void) { assert_int_equal(pm_core_activate(), 1); }

/* Flushes the locations, lets the module finish, builds this process's profile. */
static pm_profile *finish(void) {
  uint64_t now = pm_clock_now();
  for (uint32_t i = 0; i < pm_loc_count(); i++) pm_loc_flush(pm_loc_at(i), now);
  pm_counters_finalize(now);
  pm_profile *p = pm_profile_build_process(T0, now);
  assert_non_null(p);
  assert_non_null(p->counters);
  return p;
}

/* The JSON round trip the offline tools take. */
static pm_profile *roundtrip(const pm_profile *p) {
  char *s = pm_profile_to_json_string(p), err[256];
  assert_non_null(s);
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  if (!q) fail_msg("reading back: %s", err);
  char *s2 = pm_profile_to_json_string(q);
  assert_string_equal(s, s2);
  free(s);
  free(s2);
  return q;
}

static int event_index(const pm_prof_counters *c, const char *name) {
  for (int e = 0; e < c->nevents; e++)
    if (!strcmp(c->event[e].name, name)) return e;
  fail_msg("event %s not in the profile", name);
  return -1;
}
static uint64_t loc_useful(const pm_profile *p, int loc, const char *event) {
  const pm_prof_counters *c = p->counters;
  int e = event_index(c, event);
  assert_true(c->loc_mask[loc] >> e & 1);
  return c->loc_useful[(size_t)loc * c->nevents + e];
}
/* useful count of an event at the call path whose leaf region is 'region', location loc */
static uint64_t node_useful(const pm_profile *p, int loc, const char *region, const char *event) {
  const pm_prof_counters *c = p->counters;
  int e = event_index(c, event);
  for (int i = 0; i < p->nvalues; i++)
    if (p->val[i].location == loc && !strcmp(p->reg[p->cnode[p->val[i].cnode].region].name, region))
      return i < c->nval ? c->val[(size_t)i * c->nevents + e] : 0;
  fail_msg("no value for %s", region);
  return 0;
}

static double model_value(const pm_model_set *set, const char *path) {
  double v = -1;
  char root[64];
  snprintf(root, sizeof root, "%.*s", (int)strcspn(path, "/"), path);
  for (int i = 0; i < set->n; i++)
    if (!strcmp(set->tree[i]->id, root)) {
      if (!pm_metric_get_path(set->tree[i], path, &v)) fail_msg("%s has no value", path);
      return v;
    }
  fail_msg("no model %s", root);
  return v;
}
static const char *model_na(const pm_model_set *set, const char *path) {
  char root[64];
  snprintf(root, sizeof root, "%.*s", (int)strcspn(path, "/"), path);
  for (int i = 0; i < set->n; i++)
    if (!strcmp(set->tree[i]->id, root)) {
      pm_metric *m = pm_metric_find(set->tree[i], path);
      assert_non_null(m);
      if (m->state != PM_METRIC_NA) fail_msg("%s is not n/a", path);
      return m->na_reason;
    }
  fail_msg("no model %s", root);
  return NULL;
}
static void compute(const pm_profile *p, pm_model_set *set) {
  pm_report_options o = {"auto", 100, 0};
  assert_int_equal(pm_report_compute(p, &o, set), 0);
}

/* ------------------------------------------------------------------------------------- the tests */

/* One thread, one event stream (microseconds; the location starts useful at activation):
 *   +10 enter MPI_Send (p2p) | +5 exit | +7 enter user region "work" | +20 state idle |
 *   +4 state useful | +6 exit "work" | +3 pause (off) | +100 paused | resume | +8 end.
 * useful = 10 + 7 + 20 + 6 + 3 + 8 = 54 us: on main 10 + 7 + 3 + 8 = 28, on work 20 + 6 = 26;
 * outside useful, measured: p2p 5 + idle 4 = 9 us (the 100 us paused count nowhere).
 * Reads only at useful boundaries: attach 1, close useful before MPI_Send 1, open after it 1,
 * close before "work" 1, close before idle 1, open after idle 1, close before leaving "work" 1,
 * close before pause 1, re-base at resume 1, close at the end 1 = 10 (enter/leave/state changes
 * between non-useful states and useful -> useful region changes read nothing more). */
static void test_reads_and_attribution(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  assert_int_equal(L->nobs, 1);
  assert_int_equal(TB.inits, 1);
  assert_int_equal(TB.starts, 1);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_region_id work = pm_region_register("work", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  pm_clock_advance(10 * US);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(5 * US);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(7 * US);
  pm_region_enter(L, work, pm_clock_now());
  pm_clock_advance(20 * US);
  pm_state_set(L, PM_STATE_IDLE, pm_clock_now());
  pm_clock_advance(4 * US);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_clock_advance(6 * US);
  pm_region_exit(L, pm_clock_now());
  pm_clock_advance(3 * US);
  pm_core_pause();
  pm_clock_advance(100 * US);
  pm_core_resume();
  pm_clock_advance(8 * US);
  pm_profile *p = finish();
  assert_int_equal(TB.reads, 10);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 54 * US);
  const pm_prof_counters *c = p->counters;
  assert_string_equal(c->status, "counted");
  assert_string_equal(c->source, "test");
  assert_int_equal(c->nevents, 4);
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++) assert_null(c->reason[k]);
  /* location totals: rate x 54 us useful, rate x 9 us outside */
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_INS"), 5 * 54 * US);
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_CYC"), 2 * 54 * US);
  assert_int_equal(loc_useful(p, 0, "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE"), 1 * 54 * US);
  assert_int_equal(loc_useful(p, 0, "FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE"), 2 * 54 * US);
  int ins = event_index(c, "PAPI_TOT_INS"), cyc = event_index(c, "PAPI_TOT_CYC");
  assert_int_equal(c->loc_outside[ins], 5 * 9 * US);
  assert_int_equal(c->loc_outside[cyc], 2 * 9 * US);
  /* per call path: main 28 us, work 26 us, MPI_Send none */
  assert_int_equal(node_useful(p, 0, "main", "PAPI_TOT_INS"), 5 * 28 * US);
  assert_int_equal(node_useful(p, 0, "work", "PAPI_TOT_INS"), 5 * 26 * US);
  assert_int_equal(node_useful(p, 0, "work", "PAPI_TOT_CYC"), 2 * 26 * US);
  assert_int_equal(node_useful(p, 0, "MPI_Send", "PAPI_TOT_INS"), 0);
  pm_profile_free(p);
}

/* The same numbers through JSON, pm_run_input and the models, with hand-derived results.
 * One location, 54 us useful (the stream above without the region/pause parts: +54 useful end).
 *   instructions I = 5 x 54000 = 270000, cycles C = 108000, FP: scalar double n64 = 54000,
 *   256-bit packed double n256 = 108000; W_max = 256 (the backend's machine).
 *   IPC = I / C = 2.5;  frequency = C / 54e-6 s = 2.0e9 Hz = 2.0 GHz
 *   V = (64 x 54000 + 256 x 108000) / (256 x 162000) = 31104000 / 41472000 = 0.75
 *   ratio (double) = 108000 / 162000 = 2/3;  ratio (single): no SP instruction -> n/a
 *   intensity = 108000 / 270000 = 0.4
 *   OPI = (1 x 54000 + 4 x 108000) / 270000 = 486000 / 270000 = 1.8;  OPC = 2.5 x 1.8 = 4.5 */
static void test_models_exact(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_loc *L = pm_loc_self();
  pm_clock_advance(30 * US);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(46 * US);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(24 * US);
  pm_profile *live = finish(), *p = roundtrip(live);
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(p, 0, &buf), 0);
  const pm_counters *k = &buf.in.loc[0].counters;
  assert_true(k->has_instructions && k->has_cycles && k->has_fp);
  assert_double_equal(k->instructions, 270000, 0);
  assert_double_equal(k->cycles, 108000, 0);
  assert_double_equal(k->fp_by_width[1], 54000, 0);
  assert_double_equal(k->fp_by_width[3], 108000, 0);
  assert_double_equal(k->fp_scalar[1], 54000, 0);
  assert_double_equal(k->fp_packed[1], 108000, 0);
  assert_double_equal(k->fp_ops, 486000, 0);
  assert_int_equal(buf.in.vector_width_max, 256);
  pm_run_input_buf_free(&buf);
  pm_model_set set;
  compute(p, &set);
  assert_double_equal(model_value(&set, "vectorization/vec_eff"), 0.75, 1e-12);
  assert_double_equal(model_value(&set, "vectorization/vec_ratio_dp"), 2.0 / 3.0, 1e-12);
  assert_string_equal(model_na(&set, "vectorization/vec_ratio_sp"), "no single-precision FP instructions counted");
  assert_double_equal(model_value(&set, "vectorization/vec_intensity"), 0.4, 1e-12);
  assert_double_equal(model_value(&set, "vectorization/opc/ipc"), 2.5, 1e-12);
  assert_double_equal(model_value(&set, "vectorization/opc/opi"), 1.8, 1e-12);
  assert_double_equal(model_value(&set, "vectorization/opc"), 4.5, 1e-12);
  assert_double_equal(model_value(&set, "counters/instructions"), 270000e-9, 1e-18);
  assert_double_equal(model_value(&set, "counters/cycles"), 108000e-9, 1e-18);
  assert_double_equal(model_value(&set, "counters/ipc"), 2.5, 1e-12);
  assert_double_equal(model_value(&set, "counters/frequency"), 2.0, 1e-9);
  /* the time-based models do not change: 54 of 100 us useful */
  assert_double_equal(model_value(&set, "basic/pe"), 0.54, 1e-9);
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* A second thread counts on its own: registered at +10 us, 30 us useful, 5 us idle, exits
 * (its exit stops its counters on that thread). Main: 50 us useful in all.
 * Main I = 5 x 50000 = 250000; thread I = 5 x 30000 = 150000; sum 400000, cycles 160000, IPC 2.5;
 * frequency = 160000 / (80 us) = 2 GHz. */
static void *second_thread(void *arg) {
  (void)arg;
  pm_loc *L = pm_loc_self();
  assert_non_null(L);
  pm_clock_advance(30 * US);
  pm_state_set(L, PM_STATE_IDLE, pm_clock_now());
  pm_clock_advance(5 * US);
  return NULL;
}
static void test_two_threads(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_clock_advance(10 * US);
  pthread_t t;
  pthread_create(&t, NULL, second_thread, NULL);
  pthread_join(t, NULL);
  pm_clock_advance(5 * US);
  /* main was useful all along: 10 + 35 + 5 = 50 us */
  pm_profile *live = finish(), *p = roundtrip(live);
  assert_int_equal(TB.starts, 2);
  assert_int_equal(TB.stops, 1);
  assert_int_equal(p->nlocations, 2);
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_INS"), 250000);
  assert_int_equal(loc_useful(p, 1, "PAPI_TOT_INS"), 150000);
  assert_int_equal(loc_useful(p, 1, "PAPI_TOT_CYC"), 60000);
  double ins, cyc;
  assert_int_equal(pm_prof_counters_sums(p, &ins, &cyc), 1); /* what reports/ scalability gets */
  assert_double_equal(ins, 400000, 0);
  assert_double_equal(cyc, 160000, 0);
  pm_model_set set;
  compute(p, &set);
  assert_double_equal(model_value(&set, "counters/ipc"), 2.5, 1e-12);
  assert_double_equal(model_value(&set, "counters/frequency"), 2.0, 1e-9);
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* A thread that cannot count: its location has no counters, so every counter metric is n/a with
 * the run's reason (once, not per thread), and the time-based models are unaffected. */
static void test_thread_cannot_count(void **state) {
  (void)state;
  TB.fail_other_threads = 1;
  assert_int_equal(pm_core_activate(), 1);
  pthread_t t;
  pthread_create(&t, NULL, second_thread, NULL);
  pthread_join(t, NULL);
  pm_profile *live = finish(), *p = roundtrip(live);
  const char *why = "test: 1 thread could not count: no counter for this thread (test)";
  assert_string_equal(p->counters->status, "partial");
  assert_string_equal(p->counters->reason[PM_CTR_CAT_INSTRUCTIONS], why);
  assert_string_equal(p->counters->reason[PM_CTR_CAT_FP], why);
  assert_int_equal(p->counters->loc_mask[1], 0);
  double ins, cyc;
  assert_int_equal(pm_prof_counters_sums(p, &ins, &cyc), 0);
  pm_model_set set;
  compute(p, &set);
  assert_string_equal(model_na(&set, "vectorization/vec_eff"), why);
  assert_string_equal(model_na(&set, "vectorization/opc/ipc"), why);
  assert_string_equal(model_na(&set, "counters/frequency"), why);
  double pe;
  assert_true(pm_metric_get_path(set.tree[0], "pe", &pe)); /* basic model still computed */
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* A bad POPMETER_PAPI_EVENTS entry: one warning naming it; the other events are counted.
 * 20 us useful: PAPI_TOT_INS 100000, PAPI_L1_DCM (other, 7/ns) 140000, PAPI_TOT_CYC 40000. */
static void test_bad_event(void **state) {
  (void)state;
  setenv("POPMETER_PAPI_EVENTS", " PAPI_TOT_INS, BAD_EVENT ,PAPI_L1_DCM,,PAPI_TOT_CYC", 1);
  TB.reject = "BAD";
  capture_stderr(do_activate);
  assert_non_null(strstr(captured, "POPMETER_PAPI_EVENTS: event 'BAD_EVENT' is not counted (Event does not exist); "
                                   "the other events are"));
  assert_null(strstr(captured, "PAPI_TOT_INS"));
  pm_clock_advance(20 * US);
  pm_profile *live = finish(), *p = roundtrip(live);
  const pm_prof_counters *c = p->counters;
  assert_int_equal(c->nevents, 4);
  assert_false(c->event[event_index(c, "BAD_EVENT")].counted);
  assert_string_equal(c->event[event_index(c, "BAD_EVENT")].why, "Event does not exist");
  assert_int_equal(c->event[event_index(c, "PAPI_L1_DCM")].kind, PM_CTR_OTHER);
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_INS"), 100000);
  assert_int_equal(loc_useful(p, 0, "PAPI_L1_DCM"), 140000);
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_CYC"), 40000);
  /* no FP class in the user's list: the FP metrics say so */
  assert_string_equal(c->reason[PM_CTR_CAT_FP], "no FP instruction-class event in POPMETER_PAPI_EVENTS");
  assert_null(c->reason[PM_CTR_CAT_INSTRUCTIONS]);
  pm_model_set set;
  compute(p, &set);
  assert_double_equal(model_value(&set, "vectorization/opc/ipc"), 2.5, 1e-12);
  assert_string_equal(model_na(&set, "vectorization/vec_eff"), "no FP instruction-class event in POPMETER_PAPI_EVENTS");
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* One FP class cannot be counted (no counter left): a partial set of classes is no measurement, so
 * the FP metrics are n/a naming that event; IPC is still exact. */
static void test_fp_class_missing(void **state) {
  (void)state;
  TB.reject = "256B";
  TB.reject_why = "no hardware counter left for it next to the events before it (test)";
  assert_int_equal(pm_core_activate(), 1);
  pm_clock_advance(10 * US);
  pm_profile *live = finish(), *p = roundtrip(live);
  const char *why = "test: FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE not available: no hardware counter left for it "
                    "next to the events before it (test)";
  assert_string_equal(p->counters->reason[PM_CTR_CAT_FP], why);
  assert_string_equal(p->counters->status, "partial");
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(p, 0, &buf), 0);
  assert_false(buf.in.loc[0].counters.has_fp);
  assert_double_equal(buf.in.loc[0].counters.fp_by_width[1], 0, 0); /* nothing half-measured is kept */
  pm_run_input_buf_free(&buf);
  pm_model_set set;
  compute(p, &set);
  assert_string_equal(model_na(&set, "vectorization/vec_eff"), why);
  assert_string_equal(model_na(&set, "vectorization/opc"), why); /* OPI needs the FP classes */
  assert_double_equal(model_value(&set, "vectorization/opc/ipc"), 2.5, 1e-12);
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* Nothing can be counted (a machine without PMU): every counter metric is n/a with the library's
 * reason for the event; the table shows it, the time-based metrics are complete. */
static void test_unavailable(void **state) {
  (void)state;
  TB.reject = ""; /* every name contains "" */
  TB.reject_why = "Component containing event is disabled (test: no PMU)";
  assert_int_equal(pm_core_activate(), 1);
  assert_int_equal(pm_loc_self()->nobs, 0); /* nothing counted: no observer, no cost */
  pm_clock_advance(10 * US);
  pm_profile *live = finish(), *p = roundtrip(live);
  const char *ins = "test: PAPI_TOT_INS not available: Component containing event is disabled (test: no PMU)";
  assert_string_equal(p->counters->status, "unavailable");
  assert_string_equal(p->counters->reason[PM_CTR_CAT_INSTRUCTIONS], ins);
  assert_string_equal(p->counters->reason[PM_CTR_CAT_CYCLES],
                      "test: PAPI_TOT_CYC not available: Component containing event is disabled (test: no PMU)");
  pm_model_set set;
  compute(p, &set);
  assert_string_equal(model_na(&set, "vectorization/opc/ipc"), ins);
  assert_string_equal(model_na(&set, "counters/instructions"), ins);
  assert_double_equal(model_value(&set, "basic/pe"), 1.0, 0);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_int_equal(pm_report_write_table(f, p, &set, 100, NULL, 0), 0);
  fclose(f);
  assert_non_null(strstr(text, "PAPI_TOT_INS not available: Component containing event is disabled (test: no"));
  assert_null(strstr(text, "no hardware counters")); /* the generic reason was replaced everywhere */
  free(text);
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* POPMETER_COUNTERS=off: the backend is never touched, no observer; n/a "counters disabled". */
static void test_off(void **state) {
  (void)state;
  setenv("POPMETER_COUNTERS", "off", 1);
  assert_int_equal(pm_core_activate(), 1);
  assert_int_equal(TB.inits + TB.selects + TB.starts + TB.reads, 0);
  assert_int_equal(pm_loc_self()->nobs, 0);
  pm_clock_advance(10 * US);
  pm_profile *live = finish(), *p = roundtrip(live);
  assert_string_equal(p->counters->status, "disabled");
  assert_int_equal(p->counters->nevents, 0);
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++)
    assert_string_equal(p->counters->reason[k], "counters disabled (POPMETER_COUNTERS=off)");
  pm_model_set set;
  compute(p, &set);
  assert_string_equal(model_na(&set, "vectorization/vec_eff"), "counters disabled (POPMETER_COUNTERS=off)");
  assert_string_equal(model_na(&set, "counters/frequency"), "counters disabled (POPMETER_COUNTERS=off)");
  pm_model_set_free(&set);
  pm_profile_free(p);
  pm_profile_free(live);
}

/* A bad POPMETER_COUNTERS value: one warning, and the default (auto) is used. papi mode with
 * nothing countable warns; auto does not. */
static void test_modes(void **state) {
  (void)state;
  setenv("POPMETER_COUNTERS", "sometimes", 1);
  capture_stderr(do_activate);
  assert_non_null(strstr(captured, "POPMETER_COUNTERS='sometimes' is not auto, papi or off; using the default auto"));
  assert_int_equal(TB.starts, 1);
  pm_core_reset_for_tests();
  setenv("POPMETER_COUNTERS", "papi", 1);
  TB.reject = "";
  capture_stderr(do_activate);
  assert_non_null(strstr(captured, "POPMETER_COUNTERS=papi, but no hardware counter can be counted: test: "
                                   "PAPI_TOT_INS not available: Event does not exist"));
  pm_core_reset_for_tests();
  setenv("POPMETER_COUNTERS", "AUTO", 1);
  unsetenv("POPMETER_PAPI_EVENTS"); /* default list: nothing to warn about */
  capture_stderr(do_activate);
  assert_string_equal(captured, "");
  assert_int_equal(pm_ctr_parse_mode("Off"), PM_CTR_MODE_OFF);
  assert_int_equal(pm_ctr_parse_mode("papi"), PM_CTR_MODE_PAPI);
  assert_int_equal(pm_ctr_parse_mode("yes"), -1);
}

/* The backend cannot start at all (PAPI_library_init failing): one reason for every category. */
static void test_init_fails(void **state) {
  (void)state;
  TB.init_fails = 1;
  assert_int_equal(pm_core_activate(), 1);
  assert_int_equal(TB.selects, 0);
  pm_profile *p = finish();
  assert_string_equal(p->counters->status, "unavailable");
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++)
    assert_string_equal(p->counters->reason[k], "test: library not initialised (test)");
  pm_profile_free(p);
}

/* The default list: instructions, cycles, then the FP classes the machine knows, double precision
 * first; without any FP class the FP reason names the first one tried. */
static void test_default_list(void **state) {
  (void)state;
  unsetenv("POPMETER_PAPI_EVENTS");
  TB.fp_known = 1;
  assert_int_equal(pm_core_activate(), 1);
  pm_profile *p = finish();
  static const char *const want[10] = {"PAPI_TOT_INS",
                                       "PAPI_TOT_CYC",
                                       "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE",
                                       "FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE",
                                       "FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE",
                                       "FP_ARITH_INST_RETIRED:512B_PACKED_DOUBLE",
                                       "FP_ARITH_INST_RETIRED:SCALAR_SINGLE",
                                       "FP_ARITH_INST_RETIRED:128B_PACKED_SINGLE",
                                       "FP_ARITH_INST_RETIRED:256B_PACKED_SINGLE",
                                       "FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE"};
  assert_int_equal(p->counters->nevents, 10);
  for (int e = 0; e < 10; e++) {
    assert_string_equal(p->counters->event[e].name, want[e]);
    assert_true(p->counters->event[e].counted);
  }
  assert_string_equal(p->counters->status, "counted");
  pm_profile_free(p);
  pm_core_reset_for_tests();
  TB.fp_known = 0;
  assert_int_equal(pm_core_activate(), 1);
  p = finish();
  assert_int_equal(p->counters->nevents, 2);
  assert_string_equal(p->counters->reason[PM_CTR_CAT_FP],
                      "test: FP_ARITH_INST_RETIRED:SCALAR_DOUBLE not available: no such event on the test machine "
                      "(FP_ARITH_INST_RETIRED:SCALAR_DOUBLE) (no FP instruction class can be counted)");
  assert_string_equal(p->counters->status, "partial");
  pm_profile_free(p);
}

/* A window restart (MPI_Init returning) forgets what was counted before: 10 us before, 6 after
 * -> instructions 5 x 6000 = 30000 on the location and on main. */
static void test_restart(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_clock_advance(10 * US);
  pm_core_restart_window();
  pm_clock_advance(6 * US);
  uint64_t now = pm_clock_now();
  pm_loc_flush(pm_loc_self(), now);
  pm_counters_finalize(now);
  pm_profile *p = pm_profile_build_process(now - 6 * US, now);
  assert_int_equal(loc_useful(p, 0, "PAPI_TOT_INS"), 30000);
  assert_int_equal(node_useful(p, 0, "main", "PAPI_TOT_INS"), 30000);
  pm_profile_free(p);
}

/* POPMETER_PAPI_EVENTS parsing. */
static void test_parse_events(void **state) {
  (void)state;
  char names[3][PM_CTR_NAME], longname[200];
  int dropped;
  assert_int_equal(pm_ctr_parse_events(" A , ,B:u=0,C ", names, 3, &dropped), 3);
  assert_string_equal(names[0], "A");
  assert_string_equal(names[1], "B:u=0");
  assert_string_equal(names[2], "C");
  assert_int_equal(dropped, 0);
  assert_int_equal(pm_ctr_parse_events("A,B,C,D,E", names, 3, &dropped), 3);
  assert_int_equal(dropped, 2);
  memset(longname, 'X', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  assert_int_equal(pm_ctr_parse_events(longname, names, 3, &dropped), 0);
  assert_int_equal(dropped, 1);
  assert_int_equal(pm_ctr_parse_events("", names, 3, &dropped), 0);
}

int main(void) {
  pm_module_register(&pm_counters_module); /* what libpopmeter.so registers (lib/pm_modules.c) */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_reads_and_attribution, setup, teardown),
      cmocka_unit_test_setup_teardown(test_models_exact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_thread_cannot_count, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_event, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fp_class_missing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unavailable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_off, setup, teardown),
      cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_init_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(test_default_list, setup, teardown),
      cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
      cmocka_unit_test(test_parse_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
