/* OpenMP parallel regions in the run profile: built at finalize from the live aggregates, written
 * to and read back from popmeter.json (with validation), merged across processes, and handed to
 * the models (pm_profile_to_input -> omp_regions: per-region additive efficiency, TALP split).
 * Expected values are derived by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_omp.h"
#include "pm_profile.h"
#include "pm_profile_json.h"
#include "pm_profile_input.h"
#include "popmetrics.h"
#include "pm_module.h"
#include "omp_region_name.h"

#define T0 1000000000ull
#define NS 1e-9

volatile int omp_profile_sink;
void omp_profile_region(void) { omp_profile_sink = 1; }
enum { REGION_LINE = __LINE__ - 1 };
#define REGION omp_region_name("omp_profile_region", "test_omp_profile.c", REGION_LINE)

static void at(uint64_t t) { pm_clock_advance(T0 + t - pm_clock_now()); }

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  return 0;
}

/* One instance of a 2-thread region: fork 200, begin 210, master ends 310, worker 410, join 415:
 * span 215 ns, useful [100, 200], idle [115, 5] (as in test_omp_team.c). */
static pm_profile *live_profile(void) {
  pm_loc *L0 = pm_loc_self(), *L1 = pm_loc_create_virtual(PM_ROLE_THREAD, NULL);
  pm_state_set(L1, PM_STATE_IDLE, pm_clock_now());
  at(200);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_profile_region, 2, pm_clock_now());
  at(210);
  pm_omp_frame *f0 = pm_omp_implicit_begin(L0, t, 0, 2, pm_clock_now());
  pm_omp_frame *f1 = pm_omp_implicit_begin(L1, t, 1, 2, pm_clock_now());
  at(310);
  pm_omp_implicit_end(L0, f0, 1, pm_clock_now());
  at(410);
  pm_omp_implicit_end(L1, f1, 1, pm_clock_now());
  at(415);
  pm_omp_join(L0, t, pm_clock_now());
  at(500);
  return pm_profile_build_process(T0, pm_clock_now());
}

static void check_region(const pm_prof_omp_region *r, int process) {
  assert_string_equal(r->name, REGION);
  assert_int_equal(r->process, process);
  assert_int_equal(r->nthreads, 2);
  assert_int_equal(r->instances, 1);
  assert_double_equal(r->span, 215 * NS, 1e-18);
  assert_double_equal(r->thread_useful[0], 100 * NS, 1e-18);
  assert_double_equal(r->thread_useful[1], 200 * NS, 1e-18);
  assert_double_equal(r->thread_idle[0], 115 * NS, 1e-18);
  assert_double_equal(r->thread_idle[1], 5 * NS, 1e-18);
}

static void test_build_and_roundtrip(void **state) {
  (void)state;
  pm_profile *p = live_profile();
  assert_non_null(p);
  assert_int_equal(p->nomp_regions, 1);
  check_region(&p->omp_region[0], 0);
  char *text = pm_profile_to_json_string(p);
  assert_non_null(text);
  char err[256] = "";
  pm_profile *q = pm_profile_from_json_string(text, err, sizeof err);
  if (!q) fail_msg("read back: %s", err);
  assert_int_equal(q->nomp_regions, 1);
  check_region(&q->omp_region[0], 0);
  free(text);
  pm_profile_free(p);
  pm_profile_free(q);
}

/* One instance of the region on master L alone: fork at f, begin at b, end at e (its join wait),
 * join at j. */
static void one_thread_instance(pm_loc *L, uint64_t f, uint64_t b, uint64_t e, uint64_t j) {
  at(f);
  pm_omp_team *t = pm_omp_fork(L, (const void *)omp_profile_region, 1, pm_clock_now());
  assert_non_null(t);
  at(b);
  pm_omp_frame *fr = pm_omp_implicit_begin(L, t, 0, 1, pm_clock_now());
  at(e);
  pm_omp_implicit_end(L, fr, 1, pm_clock_now());
  at(j);
  pm_omp_join(L, t, pm_clock_now());
}

/* Two masters join the same region (two threads forking the same code): L0 at [200, 260) and
 * [400, 425), L1 at [300, 345). Per instance useful = end - begin, idle = (begin - fork) + (join -
 * end): L0 50 / 10 and 10 / 15, L1 30 / 15. The region's record holds all three instances: span
 * 60 + 45 + 25 = 130, useful 90, idle 40. */
static void test_region_of_two_masters(void **state) {
  (void)state;
  pm_loc *L0 = pm_loc_self(), *L1 = pm_loc_create_virtual(PM_ROLE_THREAD, NULL);
  pm_state_set(L1, PM_STATE_IDLE, pm_clock_now());
  one_thread_instance(L0, 200, 200, 250, 260);
  one_thread_instance(L1, 300, 300, 330, 345);
  one_thread_instance(L0, 400, 410, 420, 425);
  at(500);
  pm_profile *p = pm_profile_build_process(T0, pm_clock_now());
  assert_non_null(p);
  assert_int_equal(p->nomp_regions, 1);
  const pm_prof_omp_region *r = &p->omp_region[0];
  assert_int_equal(r->nthreads, 1);
  assert_int_equal(r->instances, 3);
  assert_double_equal(r->span, 130 * NS, 1e-18);
  assert_double_equal(r->thread_useful[0], 90 * NS, 1e-18);
  assert_double_equal(r->thread_idle[0], 40 * NS, 1e-18);
  pm_profile_free(p);
}

/* The call path of a cnode as "a/b/c" (region names from the root). */
static void path_of(const pm_profile *p, int c, char *out, size_t len) {
  if (p->cnode[c].parent >= 0) {
    path_of(p, p->cnode[c].parent, out, len);
    strncat(out, "/", len - strlen(out) - 1);
  }
  strncat(out, p->reg[p->cnode[c].region].name, len - strlen(out) - 1);
}
/* Useful time of profile location loc at the call path named path (0 when it has none). */
static double useful_at(const pm_profile *p, const char *path, int loc, int *found) {
  for (int i = 0; i < p->nvalues; i++) {
    char s[256] = "";
    path_of(p, p->val[i].cnode, s, sizeof s);
    if (!strcmp(s, path) && p->val[i].location == loc) {
      *found = 1;
      return p->val[i].time[PM_STATE_USEFUL];
    }
  }
  *found = 0;
  return 0;
}

/* Team members attach their implicit task under the master's fork point, as Score-P does: the
 * master enters "solve" at 100 and forks the outer region at 200; the worker L1 runs [210, 410)
 * there and, at 250, forks an inner team whose member L2 runs [260, 300). Every location has the
 * one root "main"; L1's useful time at main/solve/<outer> is [210, 250) + [300, 410) = 150 ns (the
 * fork [250, 260) is runtime), its 40 ns as the inner master and L2's 40 ns lie at
 * main/solve/<outer>/<inner>. */
volatile int omp_profile_inner_sink;
void omp_profile_inner(void) { omp_profile_inner_sink = 1; }
enum { INNER_LINE = __LINE__ - 1 };
static void test_members_under_fork_point(void **state) {
  (void)state;
  pm_loc *L0 = pm_loc_self(), *L1 = pm_loc_create_virtual(PM_ROLE_THREAD, NULL),
         *L2 = pm_loc_create_virtual(PM_ROLE_THREAD, NULL);
  pm_state_set(L1, PM_STATE_IDLE, pm_clock_now());
  pm_state_set(L2, PM_STATE_IDLE, pm_clock_now());
  at(100);
  pm_region_enter(L0, pm_region_register("solve", PM_PARADIGM_USER, PM_ROLE_FUNCTION), pm_clock_now());
  at(200);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_profile_region, 2, pm_clock_now());
  at(210);
  pm_omp_frame *f0 = pm_omp_implicit_begin(L0, t, 0, 2, pm_clock_now());
  pm_omp_frame *f1 = pm_omp_implicit_begin(L1, t, 1, 2, pm_clock_now());
  at(250);
  pm_omp_team *ti = pm_omp_fork(L1, (const void *)omp_profile_inner, 2, pm_clock_now());
  at(260);
  pm_omp_frame *g1 = pm_omp_implicit_begin(L1, ti, 0, 2, pm_clock_now());
  pm_omp_frame *g2 = pm_omp_implicit_begin(L2, ti, 1, 2, pm_clock_now());
  at(300);
  pm_omp_implicit_end(L2, g2, 0, pm_clock_now());
  pm_omp_implicit_end(L1, g1, 0, pm_clock_now());
  pm_omp_join(L1, ti, pm_clock_now());
  at(310);
  pm_omp_implicit_end(L0, f0, 1, pm_clock_now());
  at(410);
  pm_omp_implicit_end(L1, f1, 1, pm_clock_now());
  at(415);
  pm_omp_join(L0, t, pm_clock_now());
  at(500);
  pm_profile *p = pm_profile_build_process(T0, pm_clock_now());
  assert_non_null(p);
  int roots = 0;
  for (int c = 0; c < p->ncnodes; c++) roots += p->cnode[c].parent < 0;
  assert_int_equal(roots, 1);
  int found;
  char outer[256], inner[256];
  snprintf(outer, sizeof outer, "main/solve/%s", REGION);
  snprintf(inner, sizeof inner, "%s/%s", outer, omp_region_name("omp_profile_inner", "test_omp_profile.c", INNER_LINE));
  /* the master: 100 ns in its implicit task, [210, 310) */
  assert_double_equal(useful_at(p, outer, 0, &found), 100 * NS, 1e-18);
  assert_true(found);
  /* the worker: [210, 250) + [300, 410) at the outer region (its fork [250, 260) is runtime) */
  assert_double_equal(useful_at(p, outer, 1, &found), 150 * NS, 1e-18);
  assert_true(found);
  /* ... and as the inner team's master, [260, 300) at the inner region, under its own path */
  assert_double_equal(useful_at(p, inner, 1, &found), 40 * NS, 1e-18);
  assert_true(found);
  /* the inner member: under the inner master's fork point, which is itself a member's call path */
  assert_double_equal(useful_at(p, inner, 2, &found), 40 * NS, 1e-18);
  assert_true(found);
  pm_profile_free(p);
}

/* Applies one corruption to omp_regions[0] of a valid file; the reader must refuse it naming the
 * region, never crash. */
typedef void (*corrupt_fn)(json_t *region, json_t *root);
static void c_short_array(json_t *g, json_t *root) {
  (void)root;
  json_array_remove(json_object_get(g, "thread_idle"), 1);
}
static void c_process(json_t *g, json_t *root) {
  (void)root;
  json_object_set_new(g, "process", json_integer(3));
}
static void c_negative(json_t *g, json_t *root) {
  (void)root;
  json_array_set_new(json_object_get(g, "thread_useful"), 0, json_real(-1));
}
static void c_no_span(json_t *g, json_t *root) {
  (void)root;
  json_object_del(g, "span");
}
static void c_string_time(json_t *g, json_t *root) {
  (void)root;
  json_array_set_new(json_object_get(g, "thread_idle"), 0, json_string("x"));
}
static void c_not_array(json_t *g, json_t *root) {
  (void)g;
  json_object_set_new(root, "omp_regions", json_string("none"));
}

static void test_reader_validates(void **state) {
  (void)state;
  pm_profile *p = live_profile();
  static const struct {
    corrupt_fn fn;
    const char *expect;
  } cases[] = {
      {c_short_array, "omp_regions[0]: thread_useful / thread_idle do not have nthreads (2) entries"},
      {c_process, "omp_regions[0]: \"process\" 3 out of range"},
      {c_negative, "omp_regions[0]: bad time for thread 0"},
      {c_no_span, "omp_regions[0]: missing or wrong type for \"span\""},
      {c_string_time, "omp_regions[0]: bad time for thread 0"},
      {c_not_array, "\"omp_regions\" is not an array"},
  };
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
    json_t *root = pm_profile_to_json(p);
    cases[i].fn(json_array_get(json_object_get(root, "omp_regions"), 0), root);
    char err[256] = "";
    pm_profile *q = pm_profile_from_json(root, err, sizeof err);
    assert_null(q);
    if (!strstr(err, cases[i].expect)) fail_msg("case %u: error \"%s\", expected \"%s\"", i, err, cases[i].expect);
    json_decref(root);
  }
  /* a profile without OpenMP regions (older files, non-OpenMP runs) has none */
  json_t *root = pm_profile_to_json(p);
  json_object_del(root, "omp_regions");
  char err[256];
  pm_profile *q = pm_profile_from_json(root, err, sizeof err);
  assert_non_null(q);
  assert_int_equal(q->nomp_regions, 0);
  pm_profile_free(q);
  json_decref(root);
  pm_profile_free(p);
}

/* Two process profiles merged: the second one's region belongs to process 1. */
static void test_merge(void **state) {
  (void)state;
  pm_profile *p = live_profile();
  pm_profile *run = pm_profile_new();
  assert_int_equal(pm_profile_merge(run, p), 0);
  assert_int_equal(pm_profile_merge(run, p), 0);
  pm_profile_finish(run);
  assert_int_equal(run->nprocesses, 2);
  assert_int_equal(run->nomp_regions, 2);
  check_region(&run->omp_region[0], 0);
  check_region(&run->omp_region[1], 1);
  pm_profile_free(run);
  pm_profile_free(p);
}

/* A hand-made profile, R = 1 s, one process, master and one worker, two regions:
 *   r0: span 0.5, useful [0.5, 0.3], idle [0, 0.2];  r1: span 0.2, useful [0.1, 0.2], idle [0.1, 0]
 * master: serial useful 0.3, parallel useful 0.6 + sync_wait 0.1 (in_parallel 0.7);
 * worker: parallel useful 0.5 + sync_wait 0.2, serial idle 0.3.
 * Additive regions: 1 - lost/(T R): r0 lost (0.5-0.5)+(0.5-0.3) = 0.2 -> 0.9; r1 0.1 + 0 -> 0.95;
 * OpenMP node 1 - avg_t(0.7 - omp_useful_t)/R = 1 - (0.1 + 0.2)/2 = 0.85 = 0.9 + 0.95 - 1.
 * TALP: sched = 2 min w = 0 in both; lb = 0.2 + 0.1 = 0.3; ser = R - 0.7 = 0.3 (worker); A' = 1.4:
 * OMP PE = 1.4/2.0 = 0.7, serialization 1.4/1.7, LB 1.7/2.0 = 0.85, scheduling 1. */
static void test_input_models(void **state) {
  (void)state;
  pm_profile *p = pm_profile_new();
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].window = 1.0;
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "h");
  p->nlocations = 2;
  p->loc = calloc(2, sizeof *p->loc);
  p->loc[0].role = PM_ROLE_MAIN;
  p->loc[0].time[PM_CTX_SERIAL][PM_STATE_USEFUL] = 0.3;
  p->loc[0].time[PM_CTX_PARALLEL][PM_STATE_USEFUL] = 0.6;
  p->loc[0].time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT] = 0.1;
  p->loc[1].role = PM_ROLE_THREAD;
  p->loc[1].time[PM_CTX_PARALLEL][PM_STATE_USEFUL] = 0.5;
  p->loc[1].time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT] = 0.2;
  p->loc[1].time[PM_CTX_SERIAL][PM_STATE_IDLE] = 0.3;
  double u0[] = {0.5, 0.3}, w0[] = {0, 0.2}, u1[] = {0.1, 0.2}, w1[] = {0.1, 0};
  pm_prof_omp_region r0 = {"r0", 0, 2, 3, 0.5, u0, w0}, r1 = {"r1", 0, 2, 1, 0.2, u1, w1};
  assert_int_equal(pm_profile_add_omp_region(p, &r0), 0);
  assert_int_equal(pm_profile_add_omp_region(p, &r1), 1);
  pm_profile_finish(p);
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(p, 0, &buf), 0);
  assert_int_equal(buf.in.nomp_regions, 2);
  assert_string_equal(buf.in.omp_regions[1].name, "r1");
  assert_int_equal(buf.in.omp_regions[0].nthreads, 2);
  assert_double_equal(buf.in.omp_regions[0].thread_useful[1], 0.3, 0);
  assert_double_equal(buf.in.omp_regions[1].thread_idle[0], 0.1, 0);

  double v;
  pm_metric *add = pm_model_additive(&buf.in);
  assert_int_equal(pm_metric_get_path(add, "pe/thread/omp", &v), 1);
  assert_double_equal(v, 0.85, 1e-12);
  assert_int_equal(pm_metric_get_path(add, "pe/thread/omp/region_0", &v), 1);
  assert_double_equal(v, 0.9, 1e-12);
  assert_int_equal(pm_metric_get_path(add, "pe/thread/omp/region_1", &v), 1);
  assert_double_equal(v, 0.95, 1e-12);
  pm_metric *talp = pm_model_talp(&buf.in);
  assert_int_equal(pm_metric_get_path(talp, "omp_pe", &v), 1);
  assert_double_equal(v, 0.7, 1e-12);
  assert_int_equal(pm_metric_get_path(talp, "omp_pe/omp_ser", &v), 1);
  assert_double_equal(v, 1.4 / 1.7, 1e-12);
  assert_int_equal(pm_metric_get_path(talp, "omp_pe/omp_lb", &v), 1);
  assert_double_equal(v, 0.85, 1e-12);
  assert_int_equal(pm_metric_get_path(talp, "omp_pe/omp_sched", &v), 1);
  assert_double_equal(v, 1.0, 1e-12);
  pm_metric_free(add);
  pm_metric_free(talp);
  pm_run_input_buf_free(&buf);
  pm_profile_free(p);
}

int main(void) {
  pm_module_register(&pm_omp_module); /* what libpopmeter.so registers (lib/pm_modules.c) */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_build_and_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region_of_two_masters, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reader_validates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_members_under_fork_point, setup, teardown),
      cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
      cmocka_unit_test(test_input_models),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
