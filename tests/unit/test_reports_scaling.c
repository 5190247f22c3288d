/* Scaling values of the report from the JSON fixtures of tests/golden/reports/ (see its README for
 * the numbers in each file): every expected value below is derived by hand from those numbers and
 * checked exactly as the CSV prints it (six decimals). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "test_reports_common.h"

static const char *const strong[] = {"strong/4x1", "strong/1x1", "strong/2x1", NULL};

typedef struct {
  const char *config, *metric, *value;
} expect;

static void check_all(const char *csv, const char *section, const char *region, const expect *e) {
  for (; e->config; e++) assert_csv(csv, section, region, e->config, e->metric, CSV_VALUE, e->value);
}

/* R = 10, 6, 4 s; useful 8 | 4.5+3.5 | 4 x 2.5 s; G-CUE 8, 5, 3 s.
 * 2x1: PE = 8/(2*6), LB = 4/4.5, CommE = 4.5/6, SerE = 4.5/5, TE = 5/6, CompScal = 8/8.
 * 4x1: PE = 10/16, LB = 1, CommE = 2.5/4, SerE = 2.5/3, TE = 3/4, CompScal = 8/10, GE = 0.5,
 * speedup = 10/4. Detection: 4x1 has 10/4 = 2.5 s per location, 1x1 8: 0.3125 < 0.75 -> strong. */
static void test_strong(void **state) {
  static const expect e[] = {{"1x1", "ge", "0.800000"},
                             {"1x1", "ge/pe", "0.800000"},
                             {"1x1", "ge/pe/lb", "1.000000"},
                             {"1x1", "ge/pe/comme", "0.800000"},
                             {"1x1", "ge/pe/comme/sere", "1.000000"},
                             {"1x1", "ge/pe/comme/te", "0.800000"},
                             {"1x1", "ge/compscal", "1.000000"},
                             {"1x1", "speedup", "1.000000"},
                             {"1x1", "runtime", "10.000000"},
                             {"2x1", "ge", "0.666667"},
                             {"2x1", "ge/pe", "0.666667"},
                             {"2x1", "ge/pe/lb", "0.888889"},
                             {"2x1", "ge/pe/comme", "0.750000"},
                             {"2x1", "ge/pe/comme/sere", "0.900000"},
                             {"2x1", "ge/pe/comme/te", "0.833333"},
                             {"2x1", "ge/compscal", "1.000000"},
                             {"2x1", "speedup", "1.666667"},
                             {"2x1", "runtime", "6.000000"},
                             {"4x1", "ge", "0.500000"},
                             {"4x1", "ge/pe", "0.625000"},
                             {"4x1", "ge/pe/lb", "1.000000"},
                             {"4x1", "ge/pe/comme", "0.625000"},
                             {"4x1", "ge/pe/comme/sere", "0.833333"},
                             {"4x1", "ge/pe/comme/te", "0.750000"},
                             {"4x1", "ge/compscal", "0.800000"},
                             {"4x1", "speedup", "2.500000"},
                             {"4x1", "runtime", "4.000000"},
                             {NULL, NULL, NULL}};
  rp_study s;
  char *csv;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, strong);
  csv = csv_of(&s);
  /* sorted by size whatever the argument order; the smallest is the reference */
  assert_int_equal(s.ncfg, 3);
  assert_string_equal(s.cfg[0].label, "1x1");
  assert_string_equal(s.cfg[2].label, "4x1");
  assert_int_equal(s.ref, 0);
  check_all(csv, "scaling", "", e);
  assert_csv(csv, "study", "", "", "mode", CSV_NOTE, "strong (detected)");
  assert_csv(csv, "study", "", "1x1", "reference", CSV_VALUE, "");
  /* counters are not in popmeter.json: n/a with the reason, never 0 */
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal/ipc_scal", CSV_VALUE, "");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal/ipc_scal", CSV_NOTE,
             "no hardware counters in this run or the reference");
  /* one run per configuration: no range */
  assert_csv(csv, "scaling", "", "4x1", "ge", CSV_MIN, "");
  /* per-rank load: useful / R of each process: 4.5/6 and 3.5/6 */
  assert_csv(csv, "load", "", "2x1", "rank_0", CSV_VALUE, "0.750000");
  assert_csv(csv, "load", "", "2x1", "rank_1", CSV_VALUE, "0.583333");
  assert_csv(csv, "load", "", "4x1", "rank_3", CSV_VALUE, "0.625000");
  free(csv);
  rp_study_free(&s);
}

/* Regions, inclusive: compute = compute's useful + MPI_Allreduce inside it.
 *   1x1: R 8, useful 6: PE 0.75.   2x1: locations 3.5+1.5 and 2.5+2.5: R 5, useful 6:
 *   PE 6/10, LB 3/3.5, CommE 3.5/5, CompScal 6/6, speedup 8/5.
 *   4x1: 4 x (2 + 1.5): R 3.5, useful 8: PE 8/14, CommE 2/3.5, CompScal 6/8, GE 0.6*... = 3/7,
 *   speedup 8/3.5.  MPI_Allreduce: no useful time; its time 2, 2.5, 1.5 -> speedup 2/2.5, 2/1.5. */
static void test_strong_regions(void **state) {
  static const expect compute[] = {
      {"1x1", "ge", "0.750000"},          {"1x1", "ge/pe", "0.750000"},       {"1x1", "time", "8.000000"},
      {"2x1", "ge", "0.600000"},          {"2x1", "ge/pe", "0.600000"},       {"2x1", "ge/pe/lb", "0.857143"},
      {"2x1", "ge/pe/comme", "0.700000"}, {"2x1", "ge/compscal", "1.000000"}, {"2x1", "speedup", "1.600000"},
      {"2x1", "time", "5.000000"},        {"4x1", "ge", "0.428571"},          {"4x1", "ge/pe", "0.571429"},
      {"4x1", "ge/pe/lb", "1.000000"},    {"4x1", "ge/pe/comme", "0.571429"}, {"4x1", "ge/compscal", "0.750000"},
      {"4x1", "speedup", "2.285714"},     {"4x1", "time", "3.500000"},        {NULL, NULL, NULL}};
  static const expect allreduce[] = {{"1x1", "speedup", "1.000000"}, {"2x1", "speedup", "0.800000"},
                                     {"4x1", "speedup", "1.333333"}, {"2x1", "ge/pe", "0.000000"},
                                     {"4x1", "time", "1.500000"},    {NULL, NULL, NULL}};
  rp_study s;
  char *csv;
  int order[8], n, g_compute, g_main, g_allreduce;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, strong);
  csv = csv_of(&s);
  check_all(csv, "region", "compute", compute);
  /* SerE / TE of a region from its time on an ideal network: 2x1 measured MPI transfer time */
  assert_csv(csv, "region", "main", "2x1", "ge/pe/comme/sere", CSV_VALUE, "0.900000");
  assert_csv(csv, "region", "main", "2x1", "ge/pe/comme/te", CSV_VALUE, "0.833333");
  assert_csv(csv, "region", "compute", "2x1", "ge/pe/comme/sere", CSV_VALUE, "0.875000");
  assert_csv(csv, "region", "compute", "2x1", "ge/pe/comme/te", CSV_VALUE, "0.800000");
  assert_csv(csv, "region", "compute", "4x1", "ge/pe/comme/sere", CSV_NOTE, "no critical path measured");
  check_all(csv, "region", "MPI_Allreduce", allreduce);
  assert_csv(csv, "region", "MPI_Allreduce", "2x1", "ge", CSV_NOTE, "parallel efficiency of the run not known");
  assert_csv(csv, "region", "MPI_Allreduce", "2x1", "ge/compscal", CSV_NOTE, "no useful time measured");
  /* main holds everything: the whole run's values */
  assert_csv(csv, "region", "main", "4x1", "ge", CSV_VALUE, "0.500000");
  assert_int_equal(s.nregions, 3);
  g_compute = rp_region_find(&s, "compute");
  g_main = rp_region_find(&s, "main");
  g_allreduce = rp_region_find(&s, "MPI_Allreduce");
  /* compute is below 0.8 from the reference on (0.75), main from 2x1 (0.67), MPI never valued */
  assert_int_equal(rp_region_first_below(&s, g_compute, 0.8), 0);
  assert_int_equal(rp_region_first_below(&s, g_main, 0.8), 1);
  assert_int_equal(rp_region_first_below(&s, g_allreduce, 0.8), -1);
  /* worst global efficiency at 4x1 first (3/7 < 0.5), the region without a value last */
  n = rp_regions_ranked(&s, order, 0);
  assert_int_equal(n, 3);
  assert_int_equal(order[0], g_compute);
  assert_int_equal(order[1], g_main);
  assert_int_equal(order[2], g_allreduce);
  /* limited to the 2 regions with the most time in the reference: main (10 s), compute (8 s) */
  n = rp_regions_ranked(&s, order, 2);
  assert_int_equal(n, 2);
  assert_int_equal(order[0], g_compute);
  assert_int_equal(order[1], g_main);
  free(csv);
  rp_study_free(&s);
}

/* Weak fixtures: R 5, 5.5, 6; useful 4 | 4.4+4.0 | 4 x 5. Per location 4 -> 5 at 4x1: 1.25 >= 0.75
 * -> weak.  2x1: PE 8.4/11, LB 4.2/4.4, CommE 4.4/5.5, CompScal 4/8.4*2, GE 8/11, speedup 5/5.5.
 * 4x1: PE 20/24, CompScal 4/20*4, GE 2/3, speedup 5/6. No critical path: SerE, TE n/a. */
static void test_weak_detected(void **state) {
  static const char *const weak[] = {"weak/1x1", "weak/2x1", "weak/4x1", NULL};
  static const expect e[] = {{"2x1", "ge/pe", "0.763636"},
                             {"2x1", "ge/pe/lb", "0.954545"},
                             {"2x1", "ge/pe/comme", "0.800000"},
                             {"2x1", "ge/compscal", "0.952381"},
                             {"2x1", "ge", "0.727273"},
                             {"2x1", "speedup", "0.909091"},
                             {"4x1", "ge/pe", "0.833333"},
                             {"4x1", "ge/compscal", "0.800000"},
                             {"4x1", "ge", "0.666667"},
                             {"4x1", "speedup", "0.833333"},
                             {NULL, NULL, NULL}};
  rp_study s;
  char *csv;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, weak);
  csv = csv_of(&s);
  assert_int_equal(s.mode, PM_SCALING_WEAK);
  assert_csv(csv, "study", "", "", "mode", CSV_NOTE, "weak (detected)");
  check_all(csv, "scaling", "", e);
  assert_csv(csv, "scaling", "", "4x1", "ge/pe/comme/sere", CSV_NOTE, "no critical path measured");
  free(csv);
  rp_study_free(&s);
}

/* Declared modes override detection: weak runs read as strong (4x1 CompScal 4/20, GE 5/6*0.2)
 * and strong runs read as weak (4x1 CompScal 8/10*4 = 3.2: exceeds 1, shown unclamped). */
static void test_declared_mode(void **state) {
  static const char *const weak[] = {"weak/1x1", "weak/4x1", NULL};
  rp_study s;
  char *csv;
  (void)state;
  study_of(&s, PM_SCALING_STRONG, NULL, weak);
  csv = csv_of(&s);
  assert_csv(csv, "study", "", "", "mode", CSV_NOTE, "strong (declared)");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal", CSV_VALUE, "0.200000");
  assert_csv(csv, "scaling", "", "4x1", "ge", CSV_VALUE, "0.166667");
  free(csv);
  rp_study_free(&s);
  study_of(&s, PM_SCALING_WEAK, NULL, strong);
  csv = csv_of(&s);
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal", CSV_VALUE, "3.200000");
  assert_csv(csv, "scaling", "", "4x1", "ge", CSV_VALUE, "2.000000");
  free(csv);
  rp_study_free(&s);
}

/* Three repeats of 2 processes x 2 threads against a 1x1 reference (R 4, useful 4):
 *   R 1.25, 1.0, 1.6 with 1.0, 0.9, 1.2 s useful per location (balanced):
 *   PE = u/R = 0.8, 0.9, 0.75; CompScal = 4/(4u) = 1, 1.111111, 0.833333;
 *   GE = 0.8, 1.0, 0.625; speedup = 4/R = 3.2, 4, 2.5.  Median and min-max of each. */
static void test_repeats(void **state) {
  static const char *const runs[] = {"repeat/2x2-2", "repeat/1x1", "repeat/2x2-3", "repeat/2x2-1", NULL};
  static const struct {
    const char *metric, *med, *min, *max;
  } e[] = {{"ge/pe", "0.800000", "0.750000", "0.900000"},   {"ge/compscal", "1.000000", "0.833333", "1.111111"},
           {"ge", "0.800000", "0.625000", "1.000000"},      {"speedup", "3.200000", "2.500000", "4.000000"},
           {"runtime", "1.250000", "1.000000", "1.600000"}, {"ge/pe/lb", "1.000000", "1.000000", "1.000000"}};
  rp_study s;
  char *csv;
  unsigned i;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, runs);
  csv = csv_of(&s);
  assert_int_equal(s.ncfg, 2);
  assert_string_equal(s.cfg[1].label, "2x2"); /* 2 processes of 2 compute locations */
  assert_int_equal(s.cfg[1].nruns, 3);
  assert_int_equal(s.mode, PM_SCALING_STRONG); /* 1 s of work per location against 4 */
  for (i = 0; i < sizeof e / sizeof *e; i++) {
    assert_csv(csv, "scaling", "", "2x2", e[i].metric, CSV_VALUE, e[i].med);
    assert_csv(csv, "scaling", "", "2x2", e[i].metric, CSV_MIN, e[i].min);
    assert_csv(csv, "scaling", "", "2x2", e[i].metric, CSV_MAX, e[i].max);
  }
  assert_csv(csv, "scaling", "", "2x2", "ge", 5, "3"); /* repeats column */
  assert_csv(csv, "load", "", "2x2", "rank_1", CSV_VALUE, "0.800000");
  assert_csv(csv, "load", "", "2x2", "rank_1", CSV_MIN, "0.750000");
  assert_csv(csv, "load", "", "2x2", "rank_1", CSV_MAX, "0.900000");
  assert_csv(csv, "region", "main", "2x2", "ge", CSV_MAX, "1.000000");
  free(csv);
  rp_study_free(&s);
}

/* With counters (set on the runs as a profile carrying them would): instructions / cycles
 * 1x1 1000/500, 2x1 1000/600, 4x1 1250/800; useful 8, 8, 10 s.
 *   4x1: IPC 1.5625/2 = 0.78125, instructions 1000/1250 = 0.8, frequency (800/10)/(500/8) = 1.28;
 *        product 0.8 = CompScal.   2x1: IPC (1000/600)/2, instr 1, frequency 75/62.5 = 1.2. */
static void test_counters(void **state) {
  static const double instr[] = {1000, 1000, 1250}, cycles[] = {500, 600, 800};
  static const char *const order[] = {"strong/1x1", "strong/2x1", "strong/4x1", NULL};
  rp_options o = {.mode = PM_SCALING_AUTO};
  rp_study s;
  char err[256], *csv;
  int i;
  (void)state;
  rp_study_init(&s);
  for (i = 0; order[i]; i++) assert_int_equal(rp_study_load(&s, fixture(order[i])), 0);
  assert_int_equal(rp_study_prepare(&s, err, sizeof err), 0);
  for (i = 0; i < 3; i++) {
    s.runs[i].sr.has_counters = 1;
    s.runs[i].sr.sum_instructions = instr[i];
    s.runs[i].sr.sum_cycles = cycles[i];
  }
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), 0);
  csv = csv_of(&s);
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal/ipc_scal", CSV_VALUE, "0.781250");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal/instr_scal", CSV_VALUE, "0.800000");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal/freq_scal", CSV_VALUE, "1.280000");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal", CSV_VALUE, "0.800000");
  assert_csv(csv, "scaling", "", "2x1", "ge/compscal/ipc_scal", CSV_VALUE, "0.833333");
  assert_csv(csv, "scaling", "", "2x1", "ge/compscal/instr_scal", CSV_VALUE, "1.000000");
  assert_csv(csv, "scaling", "", "2x1", "ge/compscal/freq_scal", CSV_VALUE, "1.200000");
  assert_csv(csv, "scaling", "", "1x1", "ge/compscal/ipc_scal", CSV_VALUE, "1.000000");
  free(csv);
  rp_study_free(&s);
}

/* --reference 2x1 (by label, or by the run's directory): 4x1 against R 6, useful 8:
 * speedup 6/4, CompScal 8/10; 1x1: speedup 6/10, CompScal 8/8. Strong stays detected from the
 * smallest configuration. */
static void test_reference(void **state) {
  rp_study s;
  char *csv;
  rp_options o = {.mode = PM_SCALING_AUTO, .reference = "7x3"};
  char err[256];
  int i;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, "2x1", strong);
  csv = csv_of(&s);
  assert_int_equal(s.ref, 1);
  assert_int_equal(s.mode, PM_SCALING_STRONG);
  assert_csv(csv, "study", "", "2x1", "reference", CSV_VALUE, "");
  assert_csv(csv, "scaling", "", "4x1", "speedup", CSV_VALUE, "1.500000");
  assert_csv(csv, "scaling", "", "4x1", "ge/compscal", CSV_VALUE, "0.800000");
  assert_csv(csv, "scaling", "", "1x1", "speedup", CSV_VALUE, "0.600000");
  assert_csv(csv, "scaling", "", "1x1", "ge/compscal", CSV_VALUE, "1.000000");
  free(csv);
  rp_study_free(&s);
  study_of(&s, PM_SCALING_AUTO, fixture("strong/4x1"), strong);
  assert_int_equal(s.ref, 2);
  rp_study_free(&s);
  /* a reference that is not in the study is an error naming it */
  rp_study_init(&s);
  for (i = 0; strong[i]; i++) assert_int_equal(rp_study_load(&s, fixture(strong[i])), 0);
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), -1);
  assert_non_null(strstr(err, "7x3"));
  rp_study_free(&s);
}

/* A run of another application is left out with a message naming its file; the rest reports. */
static void test_mismatched_application(void **state) {
  static const char *const runs[] = {"strong/1x1", "bad/foreign", "strong/2x1", NULL};
  rp_study s;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, runs);
  assert_string_equal(s.app, "strongapp");
  assert_int_equal(s.ncfg, 2);
  assert_int_equal(s.cfg[1].nruns, 1); /* foreign 2x1 not counted as a repeat */
  assert_int_equal(s.nproblems, 1);
  assert_non_null(strstr(s.problems[0], "bad/foreign/popmeter.json"));
  assert_non_null(strstr(s.problems[0], "otherapp"));
  rp_study_free(&s);
}

/* Unreadable inputs are recorded with the file's name, and the study goes on with the rest. */
static void test_partial(void **state) {
  static const char *const bad[] = {"bad/version2", "bad/schema", "bad/notjson", "bad/badref", "no-such-run"};
  static const char *const why[] = {"version", "not a popmeter profile", "line 1", "out of range", "No such file"};
  rp_options o = {.mode = PM_SCALING_AUTO};
  rp_study s;
  char err[256];
  unsigned i;
  (void)state;
  rp_study_set_prog("test");
  rp_study_init(&s);
  assert_int_equal(rp_study_load(&s, fixture("strong/1x1")), 0);
  for (i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(rp_study_load(&s, fixture(bad[i])), -1);
    assert_int_equal(s.nproblems, (int)i + 1);
    assert_non_null(strstr(s.problems[i], bad[i]));
    assert_non_null(strstr(s.problems[i], why[i]));
  }
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), 0);
  assert_int_equal(s.ncfg, 1);
  rp_study_free(&s);
  /* nothing readable: an error, not an empty report */
  rp_study_init(&s);
  rp_study_load(&s, fixture("bad/notjson"));
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), -1);
  assert_string_equal(err, "no readable run");
  rp_study_free(&s);
}

/* diff A B (2 processes each, per location): main 1 s + solve 5 -> 3, assemble 2 -> 3.5,
 * old_phase 2 (A only), new_phase 1.5 (B only); R 10 -> 9.
 * speedups: assemble 2/3.5 = 0.571429 (slowed), solve 5/3 (sped up), main 10/9 (sped up). */
static void test_diff(void **state) {
  static const char *const runs[] = {"diff/A", "diff/B", NULL};
  rp_options o = {.mode = PM_SCALING_AUTO, .diff = 1};
  rp_diff_entry *d;
  rp_study s;
  char err[256], *csv;
  int n, i;
  (void)state;
  rp_study_init(&s);
  for (i = 0; runs[i]; i++) assert_int_equal(rp_study_load(&s, fixture(runs[i])), 0);
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), 0);
  assert_int_equal(s.ncfg, 2); /* same shape, yet two configurations: not repeats */
  assert_string_equal(s.cfg[0].label, "A 2x1");
  assert_string_equal(s.cfg[1].label, "B 2x1");
  n = rp_diff_regions(&s, 0.05, &d);
  assert_int_equal(n, 5);
  assert_int_equal(d[0].kind, RP_DIFF_SLOWER);
  assert_string_equal(s.regions[d[0].region].name, "assemble");
  assert_double_equal(d[0].time_a, 2.0, 1e-12);
  assert_double_equal(d[0].time_b, 3.5, 1e-12);
  assert_double_equal(d[0].speedup, 2.0 / 3.5, 1e-12);
  assert_int_equal(d[1].kind, RP_DIFF_FASTER);
  assert_string_equal(s.regions[d[1].region].name, "solve"); /* 2 s change before main's 1 s */
  assert_double_equal(d[1].speedup, 5.0 / 3.0, 1e-12);
  assert_string_equal(s.regions[d[2].region].name, "main");
  assert_int_equal(d[3].kind, RP_DIFF_NEW);
  assert_string_equal(s.regions[d[3].region].name, "new_phase");
  assert_int_equal(d[4].kind, RP_DIFF_GONE);
  assert_string_equal(s.regions[d[4].region].name, "old_phase");
  free(d);
  /* main's 11 % is within a 20 % threshold */
  n = rp_diff_regions(&s, 0.2, &d);
  assert_int_equal(n, 4);
  free(d);
  csv = csv_of(&s);
  assert_csv(csv, "region", "solve", "B 2x1", "speedup", CSV_VALUE, "1.666667");
  assert_csv(csv, "region", "new_phase", "B 2x1", "speedup", CSV_NOTE, "region not entered in the reference run");
  assert_csv(csv, "scaling", "", "B 2x1", "speedup", CSV_VALUE, "1.111111");
  free(csv);
  rp_study_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strong),        cmocka_unit_test(test_strong_regions),
      cmocka_unit_test(test_weak_detected), cmocka_unit_test(test_declared_mode),
      cmocka_unit_test(test_repeats),       cmocka_unit_test(test_counters),
      cmocka_unit_test(test_reference),     cmocka_unit_test(test_mismatched_application),
      cmocka_unit_test(test_partial),       cmocka_unit_test(test_diff),
  };
  return cmocka_run_group_tests_name("reports scaling", tests, NULL, NULL);
}
