/* Whether the configurations of a study ran the same tasks (reports/rp_work.c): the strong-scaling
 * fixtures of tests/golden/reports (1x1, 2x1, 4x1) with task counts per codelet attached to each
 * run before the study is computed. Every expected note below is written out by hand from those
 * counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_reports_common.h"
#include "pm_profile_tasks.h"

typedef struct {
  const char *name;
  int process;
  uint64_t count;
} count;

/* Attaches the codelets (name, process, count; NULL name ends) to the run's profile. */
static void attach(rp_run *r, const count *c) {
  int n = 0;
  while (c[n].name) n++;
  pm_prof_tasks *t = calloc(1, sizeof *t);
  assert_non_null(t);
  t->codelet = calloc((size_t)n, sizeof *t->codelet);
  assert_non_null(t->codelet);
  t->ncodelets = n;
  for (int k = 0; k < n; k++) {
    snprintf(t->codelet[k].name, sizeof t->codelet[k].name, "%s", c[k].name);
    t->codelet[k].process = c[k].process;
    t->codelet[k].count = c[k].count;
  }
  r->prof->tasks = t;
}

/* The study of strong/1x1, 2x1, 4x1 with the given codelets (NULL: no task part for that run). */
static void study_with(rp_study *s, const count *c1, const count *c2, const count *c4) {
  static const char *const runs[] = {"strong/1x1", "strong/2x1", "strong/4x1"};
  const count *c[] = {c1, c2, c4};
  rp_options o = {.mode = PM_SCALING_AUTO};
  char err[512];
  rp_study_set_prog("test");
  rp_study_init(s);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(rp_study_load(s, fixture(runs[i])), 0);
    if (c[i]) attach(&s->runs[i], c[i]);
  }
  if (rp_study_compute(s, &o, err, sizeof err) != 0) fail_msg("study: %s", err);
  assert_int_equal(s->ncfg, 3);
  assert_int_equal(s->ref, 0); /* 1x1 */
}

/* Asserts that note is the one said of configuration label against the reference 1x1, with the
 * codelets ("name n against m", ...) and the totals ("n tasks against m") given. */
static void assert_note(const char *note, const char *label, const char *codelets, const char *totals) {
  char want[512];
  snprintf(want, sizeof want,
           "%s ran other tasks than the reference 1x1 (%s; %s in all): the program divided its work differently "
           "there, and the instruction scaling and computation scalability of %s include that choice",
           label, codelets, totals, label);
  assert_string_equal(note, want);
}

static const count ref_tasks[] = {{"gemm", 0, 100}, {"syrk", 0, 10}, {NULL, 0, 0}};

/* The same tasks cut over more processes (2x1: 50 + 50 and 5 + 5), and 101 against 100 (within
 * 1 %): the same work, no note. */
static void test_same_work(void **state) {
  (void)state;
  static const count two[] = {{"gemm", 0, 50}, {"gemm", 1, 50}, {"syrk", 0, 5}, {"syrk", 1, 5}, {NULL, 0, 0}};
  static const count four[] = {{"syrk", 2, 10}, {"gemm", 3, 101}, {NULL, 0, 0}};
  rp_study s;
  study_with(&s, ref_tasks, two, four);
  assert_int_equal(s.nnotes, 0);
  assert_int_equal(s.nproblems, 0);
  rp_study_free(&s);
}

/* 4x1 ran 400 gemm (100 in the reference), 10 syrk, and 3 potrf the reference did not have;
 * 2x1 102 gemm (2 % more) and 10 syrk. Gaps, |log((here + 1) / (ref + 1))|: potrf log(4) = 1.386,
 * gemm at 4x1 log(401 / 101) = 1.379, gemm at 2x1 log(103 / 101) = 0.020. Notes in configuration
 * order, largest gap first; totals 413 against 110 and 112 against 110. */
static void test_other_work(void **state) {
  (void)state;
  static const count two[] = {{"gemm", 0, 51}, {"gemm", 1, 51}, {"syrk", 1, 10}, {NULL, 0, 0}};
  static const count four[] = {{"gemm", 0, 400}, {"syrk", 0, 10}, {"potrf", 1, 3}, {NULL, 0, 0}};
  rp_study s;
  study_with(&s, ref_tasks, two, four);
  assert_int_equal(s.nnotes, 2);
  assert_note(s.notes[0], "2x1", "gemm 102 against 100", "112 tasks against 110");
  assert_note(s.notes[1], "4x1", "potrf 3 against 0, gemm 400 against 100", "413 tasks against 110");
  /* a note, not a problem: nothing was left out */
  assert_int_equal(s.nproblems, 0);
  /* the writers show it */
  char *text = capture(rp_write_text, &s), *json = capture(rp_write_json, &s), *md = capture(rp_write_markdown, &s),
       *html = capture(rp_write_html, &s);
  assert_non_null(strstr(text, "   - 4x1 ran other tasks than the reference 1x1 (potrf 3 against 0"));
  assert_non_null(strstr(json, "\"notes\": ["));
  assert_non_null(strstr(json, "\"4x1 ran other tasks than the reference 1x1 (potrf 3 against 0"));
  assert_non_null(strstr(md, "- 4x1 ran other tasks than the reference 1x1 (potrf 3 against 0"));
  assert_non_null(strstr(html, "<ul class=\"notes\">\n<li>2x1 ran other tasks"));
  free(text);
  free(json);
  free(md);
  free(html);
  rp_study_free(&s);
}

/* More differing codelets than a note names: the three with the largest gaps, largest first
 * (d: log(81 / 1) = 4.39, c: log(41 / 11) = 1.32, a: log(21 / 11) = 0.65, b: log(13 / 11) = 0.17
 * is left out). */
static void test_three_named(void **state) {
  (void)state;
  static const count ref[] = {{"a", 0, 10}, {"b", 0, 10}, {"c", 0, 10}, {NULL, 0, 0}};
  static const count four[] = {{"b", 0, 12}, {"a", 0, 20}, {"d", 0, 80}, {"c", 0, 40}, {NULL, 0, 0}};
  rp_study s;
  study_with(&s, ref, ref, four);
  assert_int_equal(s.nnotes, 1);
  assert_note(s.notes[0], "4x1", "d 80 against 0, c 40 against 10, a 20 against 10", "152 tasks against 30");
  rp_study_free(&s);
}

/* No task part in the reference, or in a configuration: nothing to compare, no note. */
static void test_no_tasks(void **state) {
  (void)state;
  static const count four[] = {{"gemm", 0, 400}, {NULL, 0, 0}};
  rp_study s;
  study_with(&s, NULL, ref_tasks, four);
  assert_int_equal(s.nnotes, 0);
  rp_study_free(&s);
  study_with(&s, ref_tasks, NULL, ref_tasks);
  assert_int_equal(s.nnotes, 0);
  rp_study_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_work),
      cmocka_unit_test(test_other_work),
      cmocka_unit_test(test_three_named),
      cmocka_unit_test(test_no_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
