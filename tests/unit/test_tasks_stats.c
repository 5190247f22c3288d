/* Per-codelet statistics and outlier tests (lib/tasks/pm_task_stats.c): the estimators alone
 * (P-square quantiles, log-log regression, Student t), then whole streams of task samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pm_task_stats.h"

static int setup(void **state) {
  (void)state;
  pm_ts_reset();
  return 0;
}

/* Up to 7 samples the quantiles are the exact sample quantiles (linear interpolation). */
static void test_p2_exact_small(void **state) {
  (void)state;
  pm_p2 e = {0};
  double x[5] = {5, 1, 4, 2, 3};
  for (int i = 0; i < 5; i++) pm_p2_add(&e, x[i]);
  assert_double_equal(pm_p2_quantile(&e, 0), 1.0, 0);
  assert_double_equal(pm_p2_quantile(&e, 1), 2.0, 0); /* h = 4 * 0.25 = 1 -> 2nd smallest */
  assert_double_equal(pm_p2_quantile(&e, 2), 3.0, 0);
  assert_double_equal(pm_p2_quantile(&e, 3), 4.0, 0);
  assert_double_equal(pm_p2_quantile(&e, 4), 5.0, 0);
  pm_p2_add(&e, 6); /* 6 samples: h = 1.25 -> 2.25 */
  assert_double_equal(pm_p2_quantile(&e, 1), 2.25, 1e-12);
}

/* A shuffled 1..2000: the estimates stay within 1 % of the true quartiles (500.75, 1500.25)
 * with 7 markers of memory. */
static void test_p2_large(void **state) {
  (void)state;
  enum { N = 2000 };
  static double v[N];
  for (int i = 0; i < N; i++) v[i] = i + 1;
  uint64_t s = 42;
  for (int i = N - 1; i > 0; i--) {
    s = s * 6364136223846793005ull + 1;
    int j = (int)((s >> 33) % (uint64_t)(i + 1));
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
  pm_p2 e = {0};
  for (int i = 0; i < N; i++) pm_p2_add(&e, v[i]);
  assert_double_equal(pm_p2_quantile(&e, 1), 500.75, 20);
  assert_double_equal(pm_p2_quantile(&e, 2), 1000.5, 20);
  assert_double_equal(pm_p2_quantile(&e, 3), 1500.25, 20);
  assert_double_equal(pm_p2_quantile(&e, 0), 1, 0);
  assert_double_equal(pm_p2_quantile(&e, 4), N, 0);
}

static void test_t975(void **state) {
  (void)state;
  assert_double_equal(pm_t975(1), 12.706, 1e-9);
  assert_double_equal(pm_t975(10), 2.228, 1e-9);
  assert_double_equal(pm_t975(60), 2.000, 2e-3); /* table value 2.000 */
  assert_double_equal(pm_t975(1e9), 1.96, 1e-3);
}

/* y = 1 + 2x with residuals +-0.01 alternating, x = 1..30: slope 2, s ~ 0.01; the 95 % upper
 * bound at x = 10 lies a few hundredths above 21; 22 is far outside. All flops equal: the bound is
 * the mean's prediction interval. */
static void test_regression(void **state) {
  (void)state;
  pm_reg r = {0};
  double up;
  assert_int_equal(pm_reg_upper(&r, 1, &up), 0);
  for (int x = 1; x <= 30; x++) pm_reg_add(&r, x, 1 + 2.0 * x + (x % 2 ? 0.01 : -0.01));
  assert_int_equal(pm_reg_upper(&r, 10, &up), 1);
  assert_true(up > 21.0 && up < 21.05);
  assert_true(22.0 > up);
  pm_reg m = {0};
  for (int i = 0; i < 20; i++) pm_reg_add(&m, 3.0, 5.0 + (i % 2 ? 0.1 : -0.1));
  assert_int_equal(pm_reg_upper(&m, 3.0, &up), 1);
  /* mean 5, s = 0.1 * sqrt(20/19), t(19) = 2.093, factor sqrt(1 + 1/20) */
  assert_double_equal(up, 5.0 + 2.093 * 0.1 * sqrt(20.0 / 19.0) * sqrt(1.05), 1e-9);
}

/* A codelet stream on one worker: 40 tasks of 1000 +- 2 ns, then one of 10000 ns (IQR outlier),
 * then flops-proportional tasks with one 5x too slow (regression outlier); tags counted exactly. */
static void test_record_stream(void **state) {
  (void)state;
  uint32_t c = pm_ts_codelet("gemm", 7);
  assert_int_equal(pm_ts_codelet("gemm", 7), c);
  assert_string_equal(pm_ts_codelet_name(c), "gemm");
  assert_int_equal(pm_ts_codelet_region(c), 7);
  pm_ts_thread *T = pm_ts_self(0, 3);
  int flagged = 0;
  for (int i = 0; i < 40; i++) {
    pm_ts_sample s = {
        1000 + (uint64_t)(i % 5) - 2, 1000000 + (uint64_t)i, 0, -1, 64, (uint64_t)(i % 2 ? 7 : 8), 1, 0, 0, 0};
    flagged |= pm_ts_record(T, c, &s);
  }
  assert_int_equal(flagged, 0);
  pm_ts_sample big = {10000, 5000000, 0, 12.5, 64, 8, 1, 0, 0, 0};
  assert_int_equal(pm_ts_record(T, c, &big), 1);
  uint32_t d = pm_ts_codelet("potrf", 8);
  int nflag = 0, last = 0;
  for (int i = 0; i < 40; i++) {
    double flops = 1e6 * (1 + i % 5);
    pm_ts_sample s = {(uint64_t)(flops * (1 + (i % 2 ? 0.01 : -0.01))), 0, flops, 0, 0, 0, 0, 0, 0, 0};
    nflag += pm_ts_record(T, d, &s) != 0;
  }
  assert_int_equal(nflag, 0);
  pm_ts_sample slow = {(uint64_t)(5 * 3e6), 9000000, 3e6, 0, 0, 0, 0, 0, 0, 0};
  last = pm_ts_record(T, d, &slow);
  assert_true(last & 2);
  /* submission -> ready -> start waits: two tasks with them (ns: 300 + 500 and 100 + 1100), one
   * without (has_waits 0: its values are not counted) */
  uint32_t w = pm_ts_codelet("syrk", 9);
  pm_ts_sample w1 = {1000, 0, 0, 0, 0, 0, 0, 1, 300, 500}, w2 = {1000, 0, 0, 0, 0, 0, 0, 1, 100, 1100},
               w3 = {1000, 0, 0, 0, 0, 0, 0, 0, 7777, 7777};
  pm_ts_record(T, w, &w1);
  pm_ts_record(T, w, &w2);
  pm_ts_record(T, w, &w3);
  pm_ts_results r;
  assert_int_equal(pm_ts_collect(&r, 1000000), 0);
  assert_int_equal(r.ncodelets, 3);
  const pm_ts_codelet_result *ws = NULL;
  for (int i = 0; i < r.ncodelets; i++)
    if (r.codelet[i].codelet == w) ws = &r.codelet[i];
  assert_non_null(ws);
  assert_int_equal(ws->count, 3);
  assert_int_equal(ws->with_waits, 2);
  assert_double_equal(ws->wait_deps, 400e-9, 1e-18);
  assert_double_equal(ws->wait_sched, 1600e-9, 1e-18);
  const pm_ts_codelet_result *g = NULL, *p = NULL;
  for (int i = 0; i < r.ncodelets; i++) {
    if (r.codelet[i].codelet == c) g = &r.codelet[i];
    if (r.codelet[i].codelet == d) p = &r.codelet[i];
  }
  assert_non_null(g);
  assert_non_null(p);
  assert_int_equal(g->with_waits, 0);
  assert_int_equal(g->count, 41);
  assert_int_equal(g->outliers_iqr, 1);
  assert_int_equal(g->with_prediction, 1);
  assert_double_equal(g->predicted, 12.5e-6, 1e-15);
  assert_double_equal(g->max, 10e-6, 1e-15);
  assert_double_equal(g->min, 998e-9, 1e-15);
  assert_double_equal(g->bytes, 41 * 64, 0);
  assert_int_equal(g->ntop, 1);
  assert_double_equal(g->top[0].duration, 10e-6, 1e-15);
  assert_double_equal(g->top[0].start, 4e-3, 1e-12);
  assert_int_equal(g->top[0].tag, 8);
  assert_int_equal(g->top[0].location, 3);
  assert_int_equal(p->outliers_reg, 1);
  assert_int_equal(p->with_flops, 41);
  assert_int_equal(r.ntags, 2); /* tags 7 (20 tasks) and 8 (20 + the outlier) */
  assert_int_equal(r.tag[0].tag, 7);
  assert_int_equal(r.tag[0].count, 20);
  assert_int_equal(r.tag[1].count, 21);
  assert_double_equal(r.tag[1].max, 10e-6, 1e-15);
  pm_ts_results_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_p2_exact_small),
      cmocka_unit_test(test_p2_large),
      cmocka_unit_test(test_t975),
      cmocka_unit_test(test_regression),
      cmocka_unit_test_setup(test_record_stream, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
