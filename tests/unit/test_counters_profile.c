/* The hardware-counter part of the run profile: event kinds, what the models get per location,
 * merging processes with different event sets, the JSON reader's validation, and the counter
 * metrics of profile.cubex read back with the project's CUBE checker. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_profile.h"
#include "pm_profile_json.h"
#include "pm_profile_counters.h"
#include "pm_cube.h"
#include "cube_fixture.h"
#include "cubex_read.h"

static void test_kinds(void **state) {
  (void)state;
  static const struct {
    const char *name;
    pm_ctr_kind kind;
  } cases[] = {{"PAPI_TOT_INS", PM_CTR_INSTRUCTIONS},
               {"perf::INSTRUCTIONS", PM_CTR_INSTRUCTIONS},
               {"INST_RETIRED:ANY_P:u=1", PM_CTR_INSTRUCTIONS},
               {"skx::inst_retired:any", PM_CTR_INSTRUCTIONS},
               {"PAPI_TOT_CYC", PM_CTR_CYCLES},
               {"perf::CPU-CYCLES", PM_CTR_CYCLES},
               {"CPU_CLK_UNHALTED:THREAD_P", PM_CTR_CYCLES},
               {"FP_ARITH_INST_RETIRED:SCALAR_SINGLE", PM_CTR_FP_SP_SCALAR},
               {"FP_ARITH:SCALAR_DOUBLE", PM_CTR_FP_DP_SCALAR},
               {"FP_ARITH:128B_PACKED_SINGLE:k=0", PM_CTR_FP_SP_128},
               {"FP_ARITH_INST_RETIRED:256B_PACKED_DOUBLE", PM_CTR_FP_DP_256},
               {"FP_ARITH_INST_RETIRED:512B_PACKED_SINGLE", PM_CTR_FP_SP_512},
               /* two classes in one counter, or an unrelated event: not a class the models can use */
               {"FP_ARITH:SCALAR_DOUBLE:SCALAR_SINGLE", PM_CTR_OTHER},
               {"PAPI_FP_OPS", PM_CTR_OTHER},
               {"PAPI_L1_DCM", PM_CTR_OTHER},
               {"sde:::popmeter::useful_ns", PM_CTR_OTHER},
               {"", PM_CTR_OTHER}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (pm_ctr_kind_of_event(cases[i].name) != cases[i].kind)
      fail_msg("%s: kind %d, expected %d", cases[i].name, pm_ctr_kind_of_event(cases[i].name), cases[i].kind);
  }
  /* width index, precision, lanes: 256-bit double = 4 lanes, 512-bit single = 16, scalar = 1 */
  assert_int_equal(pm_ctr_fp_width_index(PM_CTR_FP_SP_SCALAR), 0);
  assert_int_equal(pm_ctr_fp_width_index(PM_CTR_FP_DP_SCALAR), 1);
  assert_int_equal(pm_ctr_fp_width_index(PM_CTR_FP_DP_128), 2);
  assert_int_equal(pm_ctr_fp_width_index(PM_CTR_FP_SP_256), 3);
  assert_int_equal(pm_ctr_fp_width_index(PM_CTR_FP_DP_512), 4);
  assert_int_equal(pm_ctr_fp_ops(PM_CTR_FP_DP_256), 4);
  assert_int_equal(pm_ctr_fp_ops(PM_CTR_FP_SP_512), 16);
  assert_int_equal(pm_ctr_fp_ops(PM_CTR_FP_SP_128), 4);
  assert_int_equal(pm_ctr_fp_ops(PM_CTR_FP_DP_SCALAR), 1);
  assert_int_equal(pm_ctr_fp_precision(PM_CTR_FP_SP_256), 0);
  assert_int_equal(pm_ctr_fp_precision(PM_CTR_FP_DP_128), 1);
  for (int k = 0; k < PM_CTR_KIND_COUNT; k++) assert_int_equal(pm_ctr_kind_from_name(pm_ctr_kind_name(k)), k);
  assert_int_equal(pm_ctr_kind_from_name("bogus"), -1);
}

/* Events [INS, CYC, FP_SP_SCALAR, FP_DP_256, other]; one location. */
static pm_prof_counters *five_events(uint64_t mask, const uint64_t *useful) {
  pm_prof_counters *c = pm_prof_counters_new();
  pm_prof_counters_add_event(c, "PAPI_TOT_INS", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_add_event(c, "PAPI_TOT_CYC", PM_CTR_CYCLES, 1, NULL);
  pm_prof_counters_add_event(c, "FP_ARITH:SCALAR_SINGLE", PM_CTR_FP_SP_SCALAR, 1, NULL);
  pm_prof_counters_add_event(c, "FP_ARITH:256B_PACKED_DOUBLE", PM_CTR_FP_DP_256, 1, NULL);
  pm_prof_counters_add_event(c, "PAPI_L1_DCM", PM_CTR_OTHER, 1, NULL);
  assert_int_equal(pm_prof_counters_resize(c, 1, 0), 0);
  c->loc_mask[0] = mask;
  memcpy(c->loc_useful, useful, 5 * sizeof *useful);
  return c;
}

/* What a model sees: FP sums per width / precision / packing, ops = lanes x count; a class of the
 * list not counted on the location makes has_fp 0 and keeps no FP number. */
static void test_model_input(void **state) {
  (void)state;
  const uint64_t u[5] = {1000, 400, 30, 20, 99};
  pm_prof_counters *c = five_events(0x1f, u);
  pm_counters k;
  pm_prof_counters_input(c, 0, &k);
  assert_true(k.has_instructions && k.has_cycles && k.has_fp);
  assert_double_equal(k.instructions, 1000, 0);
  assert_double_equal(k.cycles, 400, 0);
  assert_double_equal(k.fp_by_width[0], 30, 0); /* 32-bit scalar */
  assert_double_equal(k.fp_by_width[3], 20, 0); /* 256-bit */
  assert_double_equal(k.fp_scalar[0], 30, 0);
  assert_double_equal(k.fp_packed[1], 20, 0);
  assert_double_equal(k.fp_ops, 30 + 4 * 20, 0); /* 110 */
  pm_prof_counters_input(c, 1, &k);              /* no such row: nothing */
  assert_false(k.has_instructions || k.has_fp);
  pm_prof_counters_free(c);
  c = five_events(0x17, u); /* FP_DP_256 (bit 3) not counted */
  pm_prof_counters_input(c, 0, &k);
  assert_true(k.has_instructions && k.has_cycles);
  assert_false(k.has_fp);
  assert_double_equal(k.fp_by_width[0], 0, 0);
  assert_double_equal(k.fp_ops, 0, 0);
  pm_prof_counters_free(c);
  c = five_events(0x1e, u); /* instructions not counted */
  pm_prof_counters_input(c, 0, &k);
  assert_false(k.has_instructions);
  assert_double_equal(k.instructions, 0, 0);
  assert_true(k.has_cycles && k.has_fp);
  pm_prof_counters_free(c);
}

/* Process A counted [INS, CYC] on 1 location with 2 values; process B [CYC, FP_DP_SCALAR] on 2
 * locations with 3 values. Merged into an empty run and then B after A (l0 = 1, v0 = 2): events
 * INS, CYC, FP; A's location keeps INS+CYC, B's get CYC+FP at rows 1 and 2; B's value rows land at
 * 2..4 with its columns moved (CYC 0 -> 1, FP 1 -> 2). */
static void test_merge(void **state) {
  (void)state;
  pm_prof_counters *a = pm_prof_counters_new(), *b = pm_prof_counters_new(), *run = NULL;
  strcpy(a->status, "counted");
  strcpy(b->status, "unavailable");
  pm_prof_counters_add_event(a, "PAPI_TOT_INS", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_add_event(a, "PAPI_TOT_CYC", PM_CTR_CYCLES, 1, NULL);
  pm_prof_counters_add_event(b, "PAPI_TOT_CYC", PM_CTR_CYCLES, 1, NULL);
  pm_prof_counters_add_event(b, "FP_ARITH:SCALAR_DOUBLE", PM_CTR_FP_DP_SCALAR, 0, "no counter (b)");
  pm_prof_counters_set_reason(b, PM_CTR_CAT_FP, "B's FP reason");
  b->vector_width_max = 512;
  a->vector_width_max = 256;
  pm_prof_counters_resize(a, 1, 2);
  pm_prof_counters_resize(b, 2, 3);
  a->loc_mask[0] = 3;
  a->loc_useful[0] = 100;
  a->loc_useful[1] = 50;
  a->loc_outside[1] = 7;
  a->val[0] = 60;
  a->val[1] = 30;
  a->val[2] = 40;
  a->val[3] = 20;
  b->loc_mask[0] = 1;
  b->loc_mask[1] = 3;
  b->loc_useful[0] = 11;
  b->loc_useful[2] = 22;
  b->loc_useful[3] = 33;
  for (int i = 0; i < 6; i++) b->val[i] = (uint64_t)(i + 1);
  assert_int_equal(pm_prof_counters_merge(&run, a, 0, 0), 0);
  assert_int_equal(pm_prof_counters_merge(&run, b, 1, 2), 0);
  assert_int_equal(run->nevents, 3);
  assert_string_equal(run->event[2].name, "FP_ARITH:SCALAR_DOUBLE");
  assert_false(run->event[2].counted);
  assert_string_equal(run->event[2].why, "no counter (b)");
  assert_string_equal(run->status, "partial");
  assert_string_equal(run->reason[PM_CTR_CAT_FP], "B's FP reason");
  assert_int_equal(run->vector_width_max, 512);
  assert_int_equal(run->nloc, 3);
  assert_int_equal(run->nval, 5);
  assert_int_equal(run->loc_mask[0], 3);
  assert_int_equal(run->loc_useful[0], 100);
  assert_int_equal(run->loc_useful[1], 50);
  assert_int_equal(run->loc_outside[1], 7);
  assert_int_equal(run->loc_mask[1], 2); /* B loc 0: CYC only -> column 1 */
  assert_int_equal(run->loc_useful[3 + 1], 11);
  assert_int_equal(run->loc_mask[2], 6); /* B loc 1: CYC, FP -> columns 1, 2 */
  assert_int_equal(run->loc_useful[6 + 1], 22);
  assert_int_equal(run->loc_useful[6 + 2], 33);
  assert_int_equal(run->val[0 * 3 + 0], 60);
  assert_int_equal(run->val[1 * 3 + 1], 20);
  assert_int_equal(run->val[2 * 3 + 1], 1); /* B value 0 -> row 2 */
  assert_int_equal(run->val[2 * 3 + 2], 2);
  assert_int_equal(run->val[4 * 3 + 1], 5);
  assert_int_equal(run->val[4 * 3 + 2], 6);
  assert_int_equal(run->val[4 * 3 + 0], 0);
  pm_prof_counters_free(a);
  pm_prof_counters_free(b);
  pm_prof_counters_free(run);
}

/* A profile with 2 processes (1 location, 2 call paths each) and counters: pm_profile_merge wires
 * the location and value offsets. */
static pm_profile *small(int rank, uint64_t ins) {
  pm_profile *p = pm_profile_new();
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].rank = rank;
  p->proc[0].window = 1;
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "h");
  p->nlocations = 1;
  p->loc = calloc(1, sizeof *p->loc);
  p->loc[0].time[0][PM_STATE_USEFUL] = 1;
  int r0 = pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int r1 = pm_profile_add_region(p, "work", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int c0 = pm_profile_add_cnode(p, -1, r0), c1 = pm_profile_add_cnode(p, c0, r1);
  p->val = calloc(2, sizeof *p->val);
  p->val[0] = (pm_prof_value){.cnode = c0, .location = 0, .visits = 1};
  p->val[1] = (pm_prof_value){.cnode = c1, .location = 0, .visits = 1};
  p->nvalues = 2;
  pm_prof_counters *c = p->counters = pm_prof_counters_new();
  strcpy(c->status, "counted");
  pm_prof_counters_add_event(c, "PAPI_TOT_INS", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_resize(c, 1, 2);
  c->loc_mask[0] = 1;
  c->loc_useful[0] = ins;
  c->val[0] = ins / 4;
  c->val[1] = ins - ins / 4;
  pm_profile_finish(p);
  return p;
}
static void test_profile_merge_offsets(void **state) {
  (void)state;
  pm_profile *run = pm_profile_new(), *a = small(0, 400), *b = small(1, 800);
  assert_int_equal(pm_profile_merge(run, a), 0);
  assert_int_equal(pm_profile_merge(run, b), 0);
  pm_profile_finish(run);
  assert_int_equal(run->counters->nloc, 2);
  assert_int_equal(run->counters->loc_useful[1], 800);
  assert_int_equal(run->counters->val[2], 200); /* b's values are rows 2 and 3 */
  assert_int_equal(run->counters->val[3], 600);
  assert_int_equal(run->val[3].location, 1);
  char *s = pm_profile_to_json_string(run), err[256];
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_int_equal(q->counters->val[3], 600);
  free(s);
  pm_profile_free(q);
  pm_profile_free(run);
  pm_profile_free(a);
  pm_profile_free(b);
}

/* The reader names the problem of a broken "counters" part and never crashes. */
static void test_json_validation(void **state) {
  (void)state;
  pm_profile *p = small(0, 400);
  char *s = pm_profile_to_json_string(p), err[256];
  json_t *good = json_loads(s, 0, NULL);
  assert_non_null(good);
  static const struct {
    const char *path, *json, *expect;
  } bad[] = {
      {"status", "\"sometimes\"", "unknown status"},
      {"events", "[{\"name\":\"X\",\"kind\":\"bogus\",\"counted\":true}]", "known kind"},
      {"events",
       "[{\"name\":\"X\",\"kind\":\"other\",\"counted\":true},{\"name\":\"X\",\"kind\":\"other\",\"counted\":true}]",
       "listed twice"},
      {"locations", "[{\"location\":5,\"useful\":[1],\"outside_useful\":[1]}]", "location index below 1"},
      {"locations", "[{\"location\":0,\"useful\":[1,2],\"outside_useful\":[1]}]", "two arrays of 1 counts"},
      {"locations", "[{\"location\":0,\"useful\":[-3],\"outside_useful\":[1]}]", "not a count"},
      {"values", "[[9,1]]", "value index below 2"},
      {"values", "[[0,1.5]]", "not a count"},
      {"vector_width_max", "-1", "width in bits"},
      {"reasons", "{\"fp\":3}", "reasons.fp is not a string"},
      {"reasons", "[]", "missing or of the wrong type"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *root = json_deep_copy(good), *ctr = json_object_get(root, "counters");
    json_object_set_new(ctr, bad[i].path, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
    err[0] = '\0';
    pm_profile *q = pm_profile_from_json(root, err, sizeof err);
    if (q || !strstr(err, bad[i].expect)) fail_msg("case %zu: got '%s', expected '%s'", i, err, bad[i].expect);
    json_decref(root);
  }
  /* a profile without "counters" (an older file) reads as "nothing known about counters" */
  json_t *root = json_deep_copy(good);
  json_object_del(root, "counters");
  pm_profile *q = pm_profile_from_json(root, err, sizeof err);
  assert_non_null(q);
  assert_null(q->counters);
  pm_profile_free(q);
  json_decref(root);
  json_decref(good);
  free(s);
  pm_profile_free(p);
}

/* profile.cubex: one UINT64 root metric per counted event (event 2 is not counted: no metric),
 * the value at a call path and location is the sum of its profile values' counts, and a derived
 * IPC follows. Counts: PAPI_TOT_INS = 100 (i + 1), INST_RETIRED:ANY_P:u=1 (named with '_' for
 * the characters CubePL does not allow) = 3 (i + 1), PAPI_TOT_CYC = 40 (i + 1), for value row i. */
static void test_cube_metrics(void **state) {
  (void)state;
  pm_profile *p = cube_fixture_golden();
  char *dir = cube_fixture_tmpdir(), path[512], err[512];
  snprintf(path, sizeof path, "%s/c.cubex", dir);
  pm_prof_counters *c = p->counters = pm_prof_counters_new();
  strcpy(c->status, "partial");
  pm_prof_counters_add_event(c, "PAPI_TOT_INS", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_add_event(c, "INST_RETIRED:ANY_P:u=1", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_add_event(c, "FP_ARITH:SCALAR_DOUBLE", PM_CTR_FP_DP_SCALAR, 0, "no counter");
  pm_prof_counters_add_event(c, "PAPI_TOT_CYC", PM_CTR_CYCLES, 1, NULL);
  assert_int_equal(pm_prof_counters_resize(c, p->nlocations, p->nvalues), 0);
  for (int i = 0; i < p->nvalues; i++) {
    c->val[i * 4 + 0] = 100u * (uint64_t)(i + 1);
    c->val[i * 4 + 1] = 3u * (uint64_t)(i + 1);
    c->val[i * 4 + 3] = 40u * (uint64_t)(i + 1);
  }
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  cubex *x = cubex_open(path, err, sizeof err);
  if (!x) fail_msg("checker: %s", err);
  int ins = cubex_metric_find(x, "PAPI_TOT_INS"), any = cubex_metric_find(x, "INST_RETIRED:ANY_P:u_1");
  int cyc = cubex_metric_find(x, "PAPI_TOT_CYC"), ipc = cubex_metric_find(x, "counters_ipc");
  assert_true(ins >= 0 && any >= 0 && cyc >= 0 && ipc >= 0);
  assert_int_equal(cubex_metric_find(x, "FP_ARITH:SCALAR_DOUBLE"), -1);
  assert_string_equal(cubex_metric_dtype(x, ins), "UINT64");
  assert_string_equal(cubex_metric_type(x, ins), "EXCLUSIVE");
  assert_int_equal(cubex_metric_parent(x, ins), -1);
  assert_string_equal(cubex_metric_type(x, ipc), "POSTDERIVED");
  assert_string_equal(cubex_metric_cubepl(x, ipc), "metric::PAPI_TOT_INS(i) / metric::PAPI_TOT_CYC(i)");
  /* every (call path, location): the sum over its value rows (the fixture has two rows for one cell) */
  int checked = 0;
  for (int cn = 0; cn < p->ncnodes; cn++)
    for (int l = 0; l < p->nlocations; l++) {
      uint64_t want_i = 0, want_c = 0, want_a = 0;
      for (int i = 0; i < p->nvalues; i++)
        if (p->val[i].cnode == cn && p->val[i].location == l) {
          want_i += 100u * (uint64_t)(i + 1);
          want_a += 3u * (uint64_t)(i + 1);
          want_c += 40u * (uint64_t)(i + 1);
        }
      /* the CUBE location of profile location l: by process, then thread (2 x 2, interleaved) */
      int col = (l % 2) * 2 + l / 2;
      double v;
      assert_int_equal(cubex_value(x, ins, cn, col, CUBEX_STORED, &v), 0);
      assert_double_equal(v, (double)want_i, 0);
      assert_int_equal(cubex_value(x, any, cn, col, CUBEX_STORED, &v), 0);
      assert_double_equal(v, (double)want_a, 0);
      assert_int_equal(cubex_value(x, cyc, cn, col, CUBEX_STORED, &v), 0);
      assert_double_equal(v, (double)want_c, 0);
      checked += want_i > 0;
    }
  assert_int_equal(checked, p->nvalues - 1); /* every value row seen; one cell has two */
  cubex_close(x);
  /* no counters part: the fixed metrics only */
  pm_prof_counters_free(p->counters);
  p->counters = NULL;
  snprintf(path, sizeof path, "%s/d.cubex", dir);
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  x = cubex_open(path, err, sizeof err);
  assert_non_null(x);
  assert_int_equal(cubex_metric_find(x, "PAPI_TOT_INS"), -1);
  assert_int_equal(cubex_metric_find(x, "counters_ipc"), -1);
  cubex_close(x);
  cube_fixture_rmdir(dir);
  pm_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinds),           cmocka_unit_test(test_model_input),
      cmocka_unit_test(test_merge),           cmocka_unit_test(test_profile_merge_offsets),
      cmocka_unit_test(test_json_validation), cmocka_unit_test(test_cube_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
