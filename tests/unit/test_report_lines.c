/* Lines of the end-of-run table (lib/report/pm_report_lines.c): a phrase or a word that does not fit
 * what is left of a line goes on an indented new line instead of being cut. Expected texts written
 * out by hand from the widths. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_report_lines.h"

typedef struct {
  char *text;
  size_t size;
  FILE *f;
  pm_lines t;
} sink;

static void sink_open(sink *s, int width, int max_lines) {
  s->text = NULL;
  s->size = 0;
  s->f = open_memstream(&s->text, &s->size);
  assert_non_null(s->f);
  pm_lines_init(&s->t, s->f, width, 0, max_lines);
}

static const char *sink_close(sink *s) {
  fclose(s->f);
  return s->text;
}

static void test_phrase_fits_or_wraps(void **state) {
  (void)state;
  sink s;
  sink_open(&s, 30, 10);
  pm_lines_add(&s.t, "   abc");                         /* 6 columns */
  pm_lines_phrase(&s.t, 5, "; ", "%s", "0123456789");   /* 6 + 2 + 10 = 18: fits */
  pm_lines_phrase(&s.t, 5, "; ", "%s", "ABCDEFGHIJKL"); /* 18 + 2 + 12 = 32 > 30: new line */
  pm_lines_phrase(&s.t, 5, "; ", "%s", "abcdefghijk");  /* 17 + 2 + 11 = 30: fits exactly */
  pm_lines_end(&s.t);
  assert_string_equal(sink_close(&s), "   abc; 0123456789\n     ABCDEFGHIJKL; abcdefghijk\n");
  assert_int_equal(s.t.lines, 2);
  free(s.text);
}

static void test_phrase_wider_than_a_line_is_cut(void **state) {
  (void)state;
  sink s;
  sink_open(&s, 12, 10);
  pm_lines_add(&s.t, "   x:");
  pm_lines_phrase(&s.t, 2, " ", "%s", "abcdefghijklmnop"); /* 10 + 2 = 12 columns kept of 18 */
  pm_lines_end(&s.t);
  assert_string_equal(sink_close(&s), "   x:\n  abcdefghij\n");
  free(s.text);
}

static void test_words_wrap_under_the_indent(void **state) {
  (void)state;
  sink s;
  sink_open(&s, 20, 10);
  pm_lines_add(&s.t, "   Note: ");
  /* "   Note: the quick" is 18; " brown" would make 24. "     brown fox jumps" is 20; " over" 25. */
  pm_lines_words(&s.t, 5, "the quick  brown fox jumps over ");
  pm_lines_end(&s.t);
  assert_string_equal(sink_close(&s), "   Note: the quick\n     brown fox jumps\n     over\n");
  free(s.text);
}

static void test_wrapped_lines_count_against_the_budget(void **state) {
  (void)state;
  sink s;
  sink_open(&s, 20, 2);
  pm_lines_add(&s.t, "   Note: ");
  pm_lines_words(&s.t, 5, "the quick brown fox jumps over");
  pm_lines_end(&s.t);
  assert_string_equal(sink_close(&s), "   Note: the quick\n     brown fox jumps\n");
  assert_int_equal(s.t.lines, 2);
  assert_int_equal(s.t.dropped, 1);
  free(s.text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_phrase_fits_or_wraps),
      cmocka_unit_test(test_phrase_wider_than_a_line_is_cut),
      cmocka_unit_test(test_words_wrap_under_the_indent),
      cmocka_unit_test(test_wrapped_lines_count_against_the_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
