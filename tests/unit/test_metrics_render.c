/* Renderers (text table, JSON): exact expected output for small hand-built trees. */
#include "test_metrics_common.h"
#include <jansson.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* demo: Parallel efficiency 0.8 (= Load balance 1.0 x Communication efficiency 0.8),
 * Thread efficiency 1.25 (may exceed 1), Serialization efficiency n/a, Time 12.5 s with a warning. */
static pm_metric *demo(double pe, int with_x, int with_extra) {
  pm_metric *r = pm_metric_new("demo", "Demo model", "", "A demo.");
  pm_metric *n = pm_metric_add_new(r, "pe", "Parallel efficiency", "", "PE.");
  pm_metric_set_value(n, pe);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm_metric_set_value(pm_metric_add_new(n, "lb", "Load balance", "", "LB."), 1.0);
  pm_metric_set_value(pm_metric_add_new(n, "comme", "Communication efficiency", "", "CE."), pe);
  if (with_extra) pm_metric_set_value(pm_metric_add_new(n, "extra", "Extra", "", "Only in run B."), 0.5);
  if (with_x) {
    n = pm_metric_add_new(r, "x", "Thread efficiency", "", "X.");
    pm_metric_set_value(n, 1.25);
    pm_metric_set_may_exceed_one(n, 1);
  }
  pm_metric_set_na(pm_metric_add_new(r, "sere", "Serialization efficiency", "", "SerE."), "no critical path measured");
  n = pm_metric_add_new(r, "t", "Time", "s", "Runtime.");
  pm_metric_set_value(n, 12.5);
  pm_metric_set_warning(n, "too short");
  return r;
}

/* One column, header "run A", width 100. By hand:
 *   name column = longest label: "  Communication efficiency" = 2 + 24 = 26
 *   value cells: "0.80", "1.00", "0.80", "1.25*", "n/a[1]", "12.50[2]"
 *     number part width 5 ("12.50"), marker part width 3 ("[1]", "[2]"), column 8 >= "run A" (5)
 *   header: "Demo model" padded to 26, then 2 + 8 - 5 = 5 blanks, "run A"   (36 columns)
 *   rule: 26 + 2 + 8 = 36 dashes
 *   row: label padded to 26, 2 blanks, number right-aligned in 5, marker left-aligned in 3,
 *   trailing blanks removed. */
static void test_text_exact(void **state) {
  pm_metric *t = demo(0.8, 1, 0);
  const char *hdr[] = {"run A"};
  char *s = pm_render_text_string((const pm_metric *const *)&t, 1, hdr, 100);
  const char *expect = "Demo model                     run A\n"
                       "------------------------------------\n"
                       "Parallel efficiency          0.80\n"
                       "  Load balance               1.00\n"
                       "  Communication efficiency   0.80\n"
                       "Thread efficiency            1.25*\n"
                       "Serialization efficiency      n/a[1]\n"
                       "Time [s]                    12.50[2]\n"
                       "* derived contribution: may exceed 1 (shown unclamped)\n"
                       "[1] no critical path measured\n"
                       "[2] too short\n";
  (void)state;
  assert_non_null(s);
  assert_string_equal(s, expect);
  free(s);
  /* the FILE* variant writes the same bytes */
  {
    char buf[1024] = {0};
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(pm_render_text(f, (const pm_metric *const *)&t, 1, hdr, 100), 0);
    rewind(f);
    assert_int_equal(fread(buf, 1, sizeof buf - 1, f), strlen(expect));
    assert_string_equal(buf, expect);
    fclose(f);
  }
  pm_metric_free(t);
}

/* Two columns; tree B lacks "x" and has "extra" under "pe"; default headers "#1", "#2".
 *   rows: pe, lb, comme, extra (inserted at the end of pe's subtree), x, sere, t
 *   column 1 cells: 0.80 1.00 0.80 - 1.25* n/a[1] 12.50[2] -> number 5, marker 3, width 8
 *   column 2 cells: 0.60 1.00 0.60 0.50 - n/a[1] 12.50[2]  -> number 5, marker 3, width 8
 *   name column 26 ("  Communication efficiency"); total 26 + 10 + 10 = 46 */
static void test_text_two_columns(void **state) {
  const pm_metric *t[2];
  char *s;
  const char *expect = "Demo model                        #1        #2\n"
                       "----------------------------------------------\n"
                       "Parallel efficiency          0.80      0.60\n"
                       "  Load balance               1.00      1.00\n"
                       "  Communication efficiency   0.80      0.60\n"
                       "  Extra                         -      0.50\n"
                       "Thread efficiency            1.25*        -\n"
                       "Serialization efficiency      n/a[1]    n/a[1]\n"
                       "Time [s]                    12.50[2]  12.50[2]\n"
                       "* derived contribution: may exceed 1 (shown unclamped)\n"
                       "[1] no critical path measured\n"
                       "[2] too short\n";
  (void)state;
  t[0] = demo(0.8, 1, 0);
  t[1] = demo(0.6, 0, 1);
  s = pm_render_text_string(t, 2, NULL, 0);
  assert_string_equal(s, expect);
  free(s);
  pm_metric_free((pm_metric *)t[0]);
  pm_metric_free((pm_metric *)t[1]);
}

/* Width 30, a 47-character name, header "v": value column 4 ("0.50"), name column
 * 30 - (2 + 4) = 24 >= 20: the name is cut to 21 characters + "..." = 24.
 *   "An extremely long met..." + 2 blanks + "0.50" = 30 columns
 *   header: "R" padded to 24, 2 + 4 - 1 = 5 blanks, "v" */
static void test_text_ellipsis(void **state) {
  pm_metric *r = pm_metric_new("r", "R", "", "");
  const char *hdr[] = {"v"};
  char *s;
  (void)state;
  pm_metric_set_value(pm_metric_add_new(r, "long", "An extremely long metric name that will not fit", "", ""), 0.5);
  s = pm_render_text_string((const pm_metric *const *)&r, 1, hdr, 30);
  assert_string_equal(s, "R                            v\n"
                         "------------------------------\n"
                         "An extremely long met...  0.50\n");
  free(s);
  pm_metric_free(r);
}

/* Many columns: 10 runs with 10-character headers, each column 2 + 10 wide; with the minimal
 * name column of 20, floor((100 - 20)/12) = 6 columns fit in 100, 1 in 33, at least 1 in 10. */
static void test_columns_fit(void **state) {
  const pm_metric *t[10];
  const char *hdr[10];
  char *s, *line;
  int i;
  (void)state;
  for (i = 0; i < 10; i++) {
    t[i] = demo(0.5, 1, 0);
    hdr[i] = "run-012345";
  }
  assert_int_equal(pm_render_text_columns_fit(t, 10, hdr, 100), 6);
  assert_int_equal(pm_render_text_columns_fit(t, 10, hdr, 33), 1);
  assert_int_equal(pm_render_text_columns_fit(t, 10, hdr, 10), 1);
  assert_int_equal(pm_render_text_columns_fit(t, 10, hdr, 0), 6);
  assert_int_equal(pm_render_text_columns_fit(NULL, 0, NULL, 100), 0);
  /* rendering the 6 that fit: every line within 100 columns */
  s = pm_render_text_string(t, 6, hdr, 100);
  for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) assert_true(strlen(line) <= 100);
  free(s);
  for (i = 0; i < 10; i++) pm_metric_free((pm_metric *)t[i]);
}

/* Long footnotes wrap at word boundaries within the width, continuation lines indented under the
 * text; a word longer than a line is cut. A long header is ellipsized to 24 characters. A root
 * with a value gets its own row. UTF-8 names count one column per character. */
static void test_text_wrapping(void **state) {
  pm_metric *r = pm_metric_new("r", "Root \xc3\xa9t\xc3\xa9", "", "");
  const char *hdr[] = {"a header that is much longer than twenty-four characters"};
  char reason[400], *s, *line;
  int i, nlines = 0;
  (void)state;
  strcpy(reason, "");
  for (i = 0; i < 30; i++) strcat(reason, "word ");
  strcat(reason, "x0123456789012345678901234567890123456789012345678901234567890123456789"
                 "01234567890123456789012345678901234567890123456789");
  pm_metric_set_value(r, 0.25);
  pm_metric_set_na(pm_metric_add_new(r, "a", "\xc3\x89nergie", "", ""), reason);
  s = pm_render_text_string((const pm_metric *const *)&r, 1, hdr, 40);
  assert_non_null(strstr(s, "a header that is much..."));
  assert_non_null(strstr(s, "[1] word word"));
  assert_non_null(strstr(s, "\n    word")); /* continuation indented under the text */
  assert_non_null(strstr(s, "\xc3\x89nergie"));
  assert_non_null(strstr(s, "Root \xc3\xa9t\xc3\xa9"));
  assert_non_null(strstr(s, "0.25")); /* the root row */
  for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
    size_t w = 0;
    const char *p;
    for (p = line; *p; p++) w += ((unsigned char)*p & 0xC0) != 0x80;
    /* table lines: name column 20 + 2 + 24 = 46 > 40 (the caller must split); notes: <= 40 */
    if (line[0] == '[' || line[0] == ' ') assert_true(w <= 40);
    assert_true(line[strlen(line) - 1] != ' ');
    nlines++;
  }
  assert_true(nlines >= 8);
  free(s);
  pm_metric_free(r);
}

/* Values: negative zero and rounding noise print as 0.00; huge values switch to exponent form;
 * a decimal-comma locale does not leak into the output. By hand: name column 5 ("Group"), value
 * column 8 ("2.50e+20"): "A" + 4 blanks + 2 + (8-4) blanks + "0.00" = "A" + 10 blanks + "0.00",
 * "B" + 4 + 2 + 0 blanks + "2.50e+20". */
static void test_text_numbers(void **state) {
  pm_metric *r = pm_metric_new("r", "R", "", "");
  char *s;
  (void)state;
  pm_metric_set_value(pm_metric_add_new(r, "a", "A", "", ""), -1e-17);
  pm_metric_set_value(pm_metric_add_new(r, "b", "B", "", ""), 2.5e20);
  pm_metric_set_value(pm_metric_add_new(r, "c", "C", "", ""), 0.125);
  pm_metric_add_new(r, "d", "Group", "", ""); /* heading: blank cell */
  /* a decimal-comma locale when the system has one */
  (void)(setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8"));
  s = pm_render_text_string((const pm_metric *const *)&r, 1, NULL, 100);
  setlocale(LC_NUMERIC, "C");
  assert_non_null(strstr(s, "A          0.00\n"));
  assert_non_null(strstr(s, "B      2.50e+20\n"));
  assert_non_null(strstr(s, "C          0.12\n")); /* 0.125 is exact; glibc rounds half to even */
  assert_non_null(strstr(s, "\nGroup\n"));
  assert_null(strstr(s, ","));
  free(s);
  pm_metric_free(r);
}

static void test_text_errors(void **state) {
  pm_metric *t = demo(0.8, 1, 0);
  const pm_metric *two[2] = {t, NULL};
  (void)state;
  assert_null(pm_render_text_string(NULL, 1, NULL, 100));
  assert_null(pm_render_text_string((const pm_metric *const *)&t, 0, NULL, 100));
  assert_null(pm_render_text_string(two, 2, NULL, 100));
  assert_int_equal(pm_render_text(NULL, (const pm_metric *const *)&t, 1, NULL, 100), -1);
  assert_int_equal(pm_render_text(stdout, NULL, 1, NULL, 100), -1);
  assert_int_equal(pm_render_text_columns_fit(two, 2, NULL, 100), 1);
  { /* a write error: a read-only stream */
    FILE *f = fopen("/dev/null", "r");
    if (f) {
      assert_int_equal(pm_render_text(f, (const pm_metric *const *)&t, 1, NULL, 100), -1);
      assert_int_equal(pm_render_json(f, t, 0), -1);
      fclose(f);
    }
  }
  pm_metric_free(t);
}

/* Compact JSON of a two-node tree, written out by hand. */
static void test_json_exact(void **state) {
  pm_metric *r = pm_metric_new("m", "M", "", "Root.");
  pm_metric *a = pm_metric_add_new(r, "a", "A \"q\"", "%", "Line\nbreak\ttab\\ \x01");
  char *s;
  (void)state;
  pm_metric_set_combine(r, PM_COMBINE_PRODUCT);
  pm_metric_set_value(a, 0.5);
  pm_metric_set_may_exceed_one(a, 1);
  pm_metric_set_warning(a, "w");
  s = pm_render_json_string(r, 0);
  assert_string_equal(s, "{\"id\":\"m\",\"name\":\"M\",\"value\":null,\"unit\":\"\",\"description\":\"Root.\","
                         "\"combine\":\"product\",\"may_exceed_one\":false,\"children\":["
                         "{\"id\":\"a\",\"name\":\"A \\\"q\\\"\",\"value\":0.5,\"warning\":\"w\",\"unit\":\"%\","
                         "\"description\":\"Line\\nbreak\\ttab\\\\ \\u0001\",\"combine\":\"none\","
                         "\"may_exceed_one\":true,\"children\":[]}]}");
  free(s);
  pm_metric_set_na(a, "why");
  s = pm_render_json_string(a, PM_JSON_PRETTY);
  assert_string_equal(s, "{\n"
                         "  \"id\": \"a\",\n"
                         "  \"name\": \"A \\\"q\\\"\",\n"
                         "  \"value\": null,\n"
                         "  \"na_reason\": \"why\",\n"
                         "  \"warning\": \"w\",\n"
                         "  \"unit\": \"%\",\n"
                         "  \"description\": \"Line\\nbreak\\ttab\\\\ \\u0001\",\n"
                         "  \"combine\": \"none\",\n"
                         "  \"may_exceed_one\": true,\n"
                         "  \"children\": []\n"
                         "}\n");
  free(s);
  pm_metric_free(r);
}

/* A real model rendered as JSON parses back with jansson with the right values (also in pretty
 * form), invalid UTF-8 in names becomes U+FFFD, and all the escapes read back as the original. */
static void test_json_parse_back(void **state) {
  pm_location_input l[2];
  pm_run_input in;
  pm_metric *t;
  char *s;
  json_t *j, *pe, *lb, *sere;
  json_error_t err;
  FILE *f;
  (void)state;
  l[0] = tm_loc(0, PM_LOC_THREAD, 4.0);
  l[1] = tm_loc(1, PM_LOC_THREAD, 6.0);
  in = tm_run(l, 2, 2, 12.0);
  t = pm_model_basic(&in);
  /* PE = 10/24, LB = 5/6, CommE = 6/12 = 0.5, SerE n/a */
  s = pm_render_json_string(t, PM_JSON_PRETTY);
  j = json_loads(s, 0, &err);
  assert_non_null(j);
  assert_string_equal(json_string_value(json_object_get(j, "id")), "basic");
  assert_true(json_is_null(json_object_get(j, "value")));
  assert_null(json_object_get(j, "na_reason"));
  pe = json_array_get(json_object_get(j, "children"), 0);
  assert_string_equal(json_string_value(json_object_get(pe, "combine")), "product");
  assert_double_equal(json_real_value(json_object_get(pe, "value")), 10.0 / 24.0, 0.0);
  lb = json_array_get(json_object_get(pe, "children"), 0);
  assert_string_equal(json_string_value(json_object_get(lb, "id")), "lb");
  assert_double_equal(json_real_value(json_object_get(lb, "value")), 5.0 / 6.0, 0.0);
  sere = json_array_get(json_object_get(json_array_get(json_object_get(pe, "children"), 1), "children"), 0);
  assert_string_equal(json_string_value(json_object_get(sere, "id")), "sere");
  assert_true(json_is_null(json_object_get(sere, "value")));
  assert_string_equal(json_string_value(json_object_get(sere, "na_reason")), "no critical path measured");
  assert_false(json_is_true(json_object_get(sere, "may_exceed_one")));
  json_decref(j);
  free(s);
  tm_check_render(t);
  /* the FILE* variant */
  f = tmpfile();
  assert_int_equal(pm_render_json(f, t, 0), 0);
  rewind(f);
  j = json_loadf(f, 0, &err);
  assert_non_null(j);
  json_decref(j);
  fclose(f);
  assert_int_equal(pm_render_json(NULL, t, 0), -1);
  assert_int_equal(pm_render_json(stdout, NULL, 0), -1);
  assert_null(pm_render_json_string(NULL, 0));
  pm_metric_free(t);

  /* strings: invalid UTF-8 (lone continuation, overlong, surrogate, truncated, > U+10FFFF) */
  t = pm_metric_new("u",
                    "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 bad \x80 \xc0\xaf \xed\xa0\x80 \xe2\x82 "
                    "\xf4\x90\x80\x80 \xff end",
                    "", "\r\b\f");
  s = pm_render_json_string(t, 0);
  j = json_loads(s, 0, &err);
  assert_non_null(j);
  assert_string_equal(json_string_value(json_object_get(j, "name")),
                      "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 bad \xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd end");
  assert_string_equal(json_string_value(json_object_get(j, "description")), "\r\b\f");
  json_decref(j);
  free(s);
  pm_metric_free(t);
}

/* Numbers round-trip exactly and never use a locale's decimal comma. */
static void test_json_numbers(void **state) {
  pm_metric *r = pm_metric_new("r", "R", "", "");
  static const double v[] = {0.1, 1.0 / 3.0, 1e-300, 2.5e300, -0.0, 123456789.125};
  char *s;
  json_t *j;
  json_error_t err;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof v / sizeof v[0]; i++) {
    char id[8];
    snprintf(id, sizeof id, "v%zu", i);
    pm_metric_set_value(pm_metric_add_new(r, id, "V", "", ""), v[i]);
  }
  (void)(setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8"));
  s = pm_render_json_string(r, 0);
  setlocale(LC_NUMERIC, "C");
  j = json_loads(s, 0, &err);
  assert_non_null(j);
  for (i = 0; i < sizeof v / sizeof v[0]; i++) {
    json_t *c = json_array_get(json_object_get(j, "children"), i);
    assert_true(json_number_value(json_object_get(c, "value")) == v[i]);
  }
  json_decref(j);
  free(s);
  pm_metric_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text_exact),      cmocka_unit_test(test_text_two_columns),
      cmocka_unit_test(test_text_ellipsis),   cmocka_unit_test(test_columns_fit),
      cmocka_unit_test(test_text_wrapping),   cmocka_unit_test(test_text_numbers),
      cmocka_unit_test(test_text_errors),     cmocka_unit_test(test_json_exact),
      cmocka_unit_test(test_json_parse_back), cmocka_unit_test(test_json_numbers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
