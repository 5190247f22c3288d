/* The report's building blocks and formats: repeat statistics, tree summaries, inclusive region
 * time (recursion counted once, popmeter's own regions left out), escaping, base64, and what the
 * Markdown, HTML and JSON writers put out for the fixtures. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "test_reports_common.h"
#include "rp_cli.h"

static void test_stats(void **state) {
  double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7};
  (void)state;
  assert_double_equal(rp_stat(odd, 3, RP_MEDIAN), 2, 0);
  assert_double_equal(rp_stat(even, 4, RP_MEDIAN), 2.5, 0);
  assert_double_equal(rp_stat(even, 4, RP_MIN), 1, 0);
  assert_double_equal(rp_stat(even, 4, RP_MAX), 4, 0);
  assert_double_equal(rp_stat(one, 1, RP_MEDIAN), 7, 0);
}

static pm_metric *tree(double pe, double lb, int lb_na) {
  pm_metric *r = pm_metric_new("scaling", "Scalability", "", "");
  pm_metric *p = pm_metric_add_new(r, "pe", "Parallel efficiency", "", "");
  pm_metric *l = pm_metric_add_new(p, "lb", "Load balance", "", "");
  pm_metric_set_value(p, pe);
  if (lb_na)
    pm_metric_set_na(l, "why");
  else
    pm_metric_set_value(l, lb);
  return r;
}

/* Node by node; a value n/a in one repeat is summarised over the others; n/a everywhere stays
 * n/a with its reason. */
static void test_tree_summary(void **state) {
  pm_metric *t[3] = {tree(0.5, 1, 0), tree(0.9, 0, 1), tree(0.7, 0.6, 0)};
  pm_metric *med = rp_tree_summary(t, 3, RP_MEDIAN), *mx = rp_tree_summary(t, 3, RP_MAX);
  pm_metric *allna[2] = {tree(0.1, 0, 1), tree(0.2, 0, 1)};
  pm_metric *na = rp_tree_summary(allna, 2, RP_MEDIAN);
  double v;
  (void)state;
  assert_true(pm_metric_get_path(med, "pe", &v));
  assert_double_equal(v, 0.7, 0);
  assert_true(pm_metric_get_path(med, "pe/lb", &v));
  assert_double_equal(v, 0.8, 1e-15); /* median of 1 and 0.6 */
  assert_true(pm_metric_get_path(mx, "pe", &v));
  assert_double_equal(v, 0.9, 0);
  assert_true(pm_metric_get_path(na, "pe", &v));
  assert_double_equal(v, 0.15, 1e-15);
  assert_int_equal(pm_metric_find(na, "pe/lb")->state, PM_METRIC_NA);
  assert_string_equal(pm_metric_find(na, "pe/lb")->na_reason, "why");
  for (int i = 0; i < 3; i++) pm_metric_free(t[i]);
  pm_metric_free(allna[0]);
  pm_metric_free(allna[1]);
  pm_metric_free(med);
  pm_metric_free(mx);
  pm_metric_free(na);
}

/* One location, R 10: main (useful 1) > A (useful 2) > B (mpi 3) > A (useful 4, recursion);
 * popmeter's own region (useful... tool 0.5) at the root. Inclusive: main 10 (useful 7),
 * A 9 (useful 6: the recursive A counted once), B 7 (useful 4). */
static pm_profile *recursive_profile(void) {
  pm_profile *p = pm_profile_new();
  int main_r, a, b, tool, c0, c1, c2, c3, c4;
  snprintf(p->app, sizeof p->app, "rec");
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].window = 10;
  p->nlocations = 1;
  p->loc = calloc(1, sizeof *p->loc);
  p->loc[0].role = PM_ROLE_MAIN;
  p->loc[0].time[0][PM_STATE_USEFUL] = 7;
  p->loc[0].time[0][PM_STATE_MPI_P2P] = 3;
  main_r = pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  a = pm_profile_add_region(p, "A", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  b = pm_profile_add_region(p, "B", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  tool = pm_profile_add_region(p, "popmeter_finalize", PM_PARADIGM_MEASUREMENT, PM_ROLE_ARTIFICIAL);
  c0 = pm_profile_add_cnode(p, -1, main_r);
  c1 = pm_profile_add_cnode(p, c0, a);
  c2 = pm_profile_add_cnode(p, c1, b);
  c3 = pm_profile_add_cnode(p, c2, a);
  c4 = pm_profile_add_cnode(p, -1, tool);
  p->val = calloc(5, sizeof *p->val);
  p->val[0] = (pm_prof_value){.cnode = c0};
  p->val[0].time[PM_STATE_USEFUL] = 1;
  p->val[1] = (pm_prof_value){.cnode = c1};
  p->val[1].time[PM_STATE_USEFUL] = 2;
  p->val[2] = (pm_prof_value){.cnode = c2};
  p->val[2].time[PM_STATE_MPI_P2P] = 3;
  p->val[3] = (pm_prof_value){.cnode = c3};
  p->val[3].time[PM_STATE_USEFUL] = 4;
  p->val[4] = (pm_prof_value){.cnode = c4};
  p->val[4].time[PM_STATE_TOOL] = 0.5;
  p->nvalues = 5;
  pm_profile_finish(p);
  return p;
}

static void test_inclusive_regions(void **state) {
  rp_options o = {.mode = PM_SCALING_AUTO};
  rp_study s;
  char err[256], *csv;
  (void)state;
  rp_study_init(&s);
  assert_int_equal(rp_study_add_profile(&s, "rec.json", recursive_profile()), 0);
  assert_int_equal(rp_study_compute(&s, &o, err, sizeof err), 0);
  assert_int_equal(s.nregions, 3);
  assert_int_equal(rp_region_find(&s, "popmeter_finalize"), -1);
  csv = csv_of(&s);
  assert_csv(csv, "region", "main", "1x1", "time", CSV_VALUE, "10.000000");
  assert_csv(csv, "region", "A", "1x1", "time", CSV_VALUE, "9.000000");
  assert_csv(csv, "region", "A", "1x1", "ge/pe", CSV_VALUE, "0.666667");
  assert_csv(csv, "region", "B", "1x1", "time", CSV_VALUE, "7.000000");
  assert_csv(csv, "region", "B", "1x1", "ge/pe", CSV_VALUE, "0.571429");
  free(csv);
  rp_study_free(&s);
}

static char *put(void (*fn)(FILE *, const char *), const char *s) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  fn(f, s);
  fclose(f);
  return buf;
}

static void test_escaping(void **state) {
  char *s;
  (void)state;
  s = put(rp_put_html, "<a href=\"x\">&'\xff\n");
  assert_string_equal(s, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;\xEF\xBF\xBD ");
  free(s);
  s = put(rp_put_csv, "a,b\"c");
  assert_string_equal(s, "\"a,b\"\"c\"");
  free(s);
  s = put(rp_put_csv, "plain");
  assert_string_equal(s, "plain");
  free(s);
  s = put(rp_put_md, "a|b_c*<d>");
  assert_string_equal(s, "a\\|b\\_c\\*\\<d\\>");
  free(s);
  s = put(rp_put_html, "caf\xC3\xA9"); /* valid UTF-8 passes through */
  assert_string_equal(s, "caf\xC3\xA9");
  free(s);
}

/* RFC 4648 test vectors */
static void test_base64(void **state) {
  static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  static const char *const out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  (void)state;
  for (unsigned i = 0; i < sizeof in / sizeof *in; i++) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    rp_put_base64(f, (const unsigned char *)in[i], strlen(in[i]));
    fclose(f);
    assert_string_equal(buf, out[i]);
    free(buf);
  }
}

static const char *const repeat[] = {"repeat/1x1", "repeat/2x2-1", "repeat/2x2-2", "repeat/2x2-3", NULL};
static const char *const strong[] = {"strong/1x1", "strong/2x1", "strong/4x1", NULL};

static void test_markdown(void **state) {
  rp_study s;
  char *md;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, repeat);
  md = capture(rp_write_markdown, &s);
  assert_non_null(strstr(md, "| Metric | 1x1 | 2x2 |\n|:---|---:|---:|\n"));
  /* median with the min-max range of the repeats */
  assert_non_null(strstr(md, "| &nbsp;&nbsp;Parallel efficiency | 1.00 | 0.80 (0.75\xE2\x80\x93"
                             "0.90) |"));
  assert_non_null(strstr(md, "- Serialization efficiency: no critical path measured\n"));
  free(md);
  rp_study_free(&s);
}

/* Traffic lights: red < 0.5 <= amber < 0.8 <= green, on efficiencies only. */
static void test_html(void **state) {
  rp_study s;
  char *h;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, strong);
  h = capture(rp_write_html, &s);
  assert_memory_equal(h, "<!DOCTYPE html>\n<html lang=\"en\">", 31);
  assert_non_null(strstr(h, "<td class=\"v g\">0.80</td><td class=\"v a\">0.67</td>"
                            "<td class=\"v a\">0.50</td>"));                        /* GE */
  assert_non_null(strstr(h, "<td class=\"v\">1.00</td><td class=\"v\">1.67</td>")); /* speedup */
  assert_non_null(strstr(h, "<td class=\"v r\">0.43</td>"));                        /* compute GE */
  assert_non_null(strstr(h, "title=\"no hardware counters in this run or the reference\""));
  assert_null(strstr(h, "http"));
  assert_null(strstr(h, "<script"));
  assert_non_null(strstr(h, "</html>\n"));
  free(h);
  rp_study_free(&s);
}

static void test_json(void **state) {
  rp_study s;
  char *text;
  json_t *j;
  json_error_t e;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, repeat);
  text = capture(rp_write_json, &s);
  j = json_loads(text, 0, &e);
  assert_non_null(j);
  assert_string_equal(json_string_value(json_object_get(j, "schema")), "popmeter-scaling");
  assert_string_equal(json_string_value(json_object_get(j, "mode")), "strong");
  json_t *c = json_array_get(json_object_get(j, "configurations"), 1);
  assert_int_equal(json_integer_value(json_object_get(c, "repeats")), 3);
  assert_int_equal(json_array_size(json_object_get(c, "runs")), 3);
  json_t *ge = json_array_get(json_object_get(json_object_get(json_object_get(c, "scaling"), "min"), "children"), 0);
  assert_string_equal(json_string_value(json_object_get(ge, "id")), "ge");
  assert_double_equal(json_number_value(json_object_get(ge, "value")), 0.625, 1e-12);
  json_decref(j);
  free(text);
  rp_study_free(&s);
}

/* The text report renders with pm_render_text: one column per configuration, headed by label. */
static void test_text(void **state) {
  rp_study s;
  char *t;
  (void)state;
  study_of(&s, PM_SCALING_AUTO, NULL, strong);
  t = capture(rp_write_text, &s);
  assert_non_null(strstr(t, "Scalability (strong)"));
  assert_non_null(strstr(t, "1x1      2x1      4x1\n"));
  assert_non_null(strstr(t, "Global efficiency                0.80*    0.67*    0.50*\n"));
  assert_non_null(strstr(t, "   compute                                  from 1x1\n"));
  for (char *line = t; line && *line;) { /* every line fits the width */
    char *end = strchr(line, '\n');
    assert_true((end ? end - line : (long)strlen(line)) <= 100);
    line = end ? end + 1 : NULL;
  }
  free(t);
  rp_study_free(&s);
}

/* popmeter scale's placeholders: every occurrence, inside a word too; anything else as it was */
static void test_scale_placeholders(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } cases[] = {{"--workers", "--workers"},
               {"{threads}", "12"},
               {"--workers={threads}", "--workers=12"},
               {"{ranks}x{threads}:{ranks}", "3x12:3"},
               {"{rank}{threads", "{rank}{threads"},
               {"{{threads}}", "{12}"},
               {"", ""}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *s = rp_scale_subst(cases[i].in, 3, 12);
    assert_non_null(s);
    assert_string_equal(s, cases[i].out);
    free(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stats),
      cmocka_unit_test(test_tree_summary),
      cmocka_unit_test(test_inclusive_regions),
      cmocka_unit_test(test_escaping),
      cmocka_unit_test(test_base64),
      cmocka_unit_test(test_markdown),
      cmocka_unit_test(test_html),
      cmocka_unit_test(test_scale_placeholders),
      cmocka_unit_test(test_json),
      cmocka_unit_test(test_text),
  };
  return cmocka_run_group_tests_name("reports writers", tests, NULL, NULL);
}
