/* Corrupt and odd inputs through the whole report: every truncation and many byte flips of a
 * fixture, garbage files, and valid-but-strange profiles built in C (no runtime, no useful time,
 * only progress threads, no locations, odd region names). Each gives an error naming the file or
 * a complete report whose CSV never shows nan or inf; none crashes (run under valgrind or ASan,
 * none reads out of bounds). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test_reports_common.h"

/* Computes and writes every format (plots aside) of a study; the CSV must hold no nan/inf. */
static void report_all(rp_study *s, int expect_ok) {
  static int (*const writers[])(FILE *, const rp_study *, const rp_plots *, const rp_write_options *) = {
      rp_write_text, rp_write_markdown, rp_write_json, rp_write_html};
  rp_options o = {.mode = PM_SCALING_AUTO};
  char err[256], *csv, *js;
  json_t *j;
  unsigned i;
  if (rp_study_compute(s, &o, err, sizeof err) != 0) {
    assert_false(expect_ok);
    return;
  }
  csv = csv_of(s);
  assert_null(strstr(csv, "nan"));
  assert_null(strstr(csv, "inf"));
  free(csv);
  for (i = 0; i < sizeof writers / sizeof *writers; i++) free(capture(writers[i], s));
  js = capture(rp_write_json, s); /* valid JSON whatever the names hold */
  j = json_loads(js, 0, NULL);
  assert_non_null(j);
  json_decref(j);
  free(js);
}

static char *read_fixture(const char *rel) {
  size_t n;
  char *text = rp_read_all(fixture(rel), &n);
  assert_non_null(text);
  return text;
}

/* One corrupted document next to a valid reference run. */
static int try_document(const char *text) {
  char err[256];
  pm_profile *p = pm_profile_from_json_string(text, err, sizeof err), *ref;
  rp_study s;
  if (!p) return 0;
  ref = pm_profile_from_json_string(text, err, sizeof err); /* same again, as its own run */
  rp_study_init(&s);
  assert_int_equal(rp_study_add_profile(&s, "a.json", p), 0);
  assert_int_equal(rp_study_add_profile(&s, "b.json", ref), 0);
  report_all(&s, 1);
  rp_study_free(&s);
  return 1;
}

static void test_truncations_and_flips(void **state) {
  static const char flips[] = {'0', '9', '-', '"', '}', ']', 'e', ' '};
  char *text = read_fixture("strong/2x1/popmeter.json"), *buf;
  size_t n = strlen(text), k, f;
  int accepted = 0, flipped_ok = 0;
  (void)state;
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
    text[--n] = '\0'; /* else the prefix without the final newline is the whole document */
  rp_study_set_prog("test");
  buf = malloc(n + 1);
  for (k = 0; k < n; k++) {
    memcpy(buf, text, k);
    buf[k] = '\0';
    accepted += try_document(buf);
  }
  assert_int_equal(accepted, 0); /* no strict prefix is a whole document */
  /* every 13th byte: lands in every kind of field of the fixture and keeps the test near 2 s */
  for (k = 0; k < n; k += 13)
    for (f = 0; f < sizeof flips; f++) {
      memcpy(buf, text, n + 1);
      buf[k] = flips[f];
      flipped_ok += try_document(buf);
    }
  assert_true(flipped_ok > 0); /* digits flipped in numbers still read: the report ran */
  free(buf);
  free(text);
}

/* Garbage files: an error naming the file, the study goes on. */
static void test_garbage_files(void **state) {
  static const char *const junk[] = {"",
                                     "{",
                                     "null",
                                     "[]",
                                     "{\"schema\":\"popmeter-profile\"}",
                                     "\xff\xfe\x00\x01",
                                     "{\"schema\":\"popmeter-profile\","
                                     "\"version\":1,\"processes\":[]}"};
  char path[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/pmreportfuzzXXXXXX", tmp && tmp[0] ? tmp : P_tmpdir);
  rp_study s;
  unsigned i;
  (void)state;
  rp_study_set_prog("test");
  rp_study_init(&s);
  assert_int_equal(rp_study_load(&s, fixture("strong/1x1")), 0);
  for (i = 0; i < sizeof junk / sizeof *junk; i++) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, junk[i], strlen(junk[i])), (ssize_t)strlen(junk[i]));
    close(fd);
    assert_int_equal(rp_study_load(&s, path), -1);
    assert_non_null(strstr(s.problems[s.nproblems - 1], path));
    unlink(path);
    memcpy(path + strlen(path) - 6, "XXXXXX", 6);
  }
  report_all(&s, 1);
  rp_study_free(&s);
}

static pm_profile *odd_profile(int nloc, int role, double runtime, double useful, const char *reg) {
  pm_profile *p = pm_profile_new();
  int i, r, c;
  snprintf(p->app, sizeof p->app, "odd");
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].window = runtime;
  p->loc = calloc((size_t)nloc + 1, sizeof *p->loc);
  p->nlocations = nloc;
  for (i = 0; i < nloc; i++) {
    p->loc[i].role = role;
    p->loc[i].thread = i;
    p->loc[i].time[0][PM_STATE_USEFUL] = useful;
  }
  r = pm_profile_add_region(p, reg, PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  c = pm_profile_add_cnode(p, -1, r);
  p->val = calloc((size_t)nloc + 1, sizeof *p->val);
  for (i = 0; i < nloc; i++) {
    p->val[i] = (pm_prof_value){.cnode = c, .location = i, .visits = 1};
    p->val[i].time[PM_STATE_USEFUL] = useful;
  }
  p->nvalues = nloc;
  pm_profile_finish(p);
  return p;
}

/* Valid documents a real run could produce at the edges. */
static void test_odd_profiles(void **state) {
  static const struct {
    int nloc, role;
    double runtime, useful;
    const char *reg;
  } odd[] = {
      {1, PM_ROLE_MAIN, 0.0, 0.0, "main"},             /* no runtime at all */
      {2, PM_ROLE_MAIN, 1.0, 0.0, ""},                 /* no useful time, empty region name */
      {2, PM_ROLE_PROGRESS, 1.0, 0.5, "x"},            /* no compute location */
      {0, PM_ROLE_MAIN, 1.0, 0.0, "none"},             /* no location */
      {3, PM_ROLE_WORKER, 1e14, 1e14, "<b>&\"|,\xff"}, /* huge, a hostile name */
  };
  unsigned i, j;
  (void)state;
  for (i = 0; i < sizeof odd / sizeof *odd; i++) {
    for (j = 0; j < 2; j++) { /* alone, and as the reference of a normal run */
      rp_study s;
      rp_study_init(&s);
      assert_int_equal(
          rp_study_add_profile(&s, "odd.json",
                               odd_profile(odd[i].nloc, odd[i].role, odd[i].runtime, odd[i].useful, odd[i].reg)),
          0);
      if (j) assert_int_equal(rp_study_add_profile(&s, "n.json", odd_profile(2, PM_ROLE_MAIN, 2, 1, "m")), 0);
      report_all(&s, 1);
      rp_study_free(&s);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncations_and_flips),
      cmocka_unit_test(test_garbage_files),
      cmocka_unit_test(test_odd_profiles),
  };
  return cmocka_run_group_tests_name("reports fuzz", tests, NULL, NULL);
}
