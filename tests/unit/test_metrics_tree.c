/* Metric tree API (metrics/pm_metric.h): construction, n/a, finiteness, lookup, safe division. */
#include "test_metrics_common.h"
#include "pm_model_util.h" /* internal helpers, tested directly (the library links statically) */
#include "pm_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_safe_div(void **state) {
  double q = -1.0;
  (void)state;
  assert_int_equal(pm_safe_div(1.0, 4.0, &q), 1);
  assert_double_equal(q, 0.25, 0.0);
  assert_int_equal(pm_safe_div(1.0, 0.0, &q), 0);
  assert_double_equal(q, 0.0, 0.0);
  assert_int_equal(pm_safe_div(0.0, 0.0, &q), 0);
  assert_int_equal(pm_safe_div(NAN, 1.0, &q), 0);
  assert_int_equal(pm_safe_div(1.0, INFINITY, &q), 0);
  assert_int_equal(pm_safe_div(1e308, 1e-308, &q), 0); /* overflows to inf */
  assert_double_equal(q, 0.0, 0.0);
  assert_int_equal(pm_safe_div(-3.0, 2.0, &q), 1);
  assert_double_equal(q, -1.5, 0.0);
}

static void test_new_and_ids(void **state) {
  pm_metric *m;
  (void)state;
  assert_true(pm_metric_id_valid("pe"));
  assert_true(pm_metric_id_valid("lb_in_2"));
  assert_false(pm_metric_id_valid("PE"));
  assert_false(pm_metric_id_valid("a-b"));
  assert_false(pm_metric_id_valid("a/b"));
  assert_false(pm_metric_id_valid(""));
  assert_false(pm_metric_id_valid(NULL));
  assert_null(pm_metric_new("Bad", "x", "", ""));
  assert_null(pm_metric_new("ok", "", "", ""));
  assert_null(pm_metric_new("ok", NULL, "", ""));
  m = pm_metric_new("ok", "Okay", NULL, NULL);
  assert_non_null(m);
  assert_string_equal(m->unit, "");
  assert_string_equal(m->description, "");
  assert_int_equal(m->state, PM_METRIC_HEADING);
  assert_int_equal(pm_metric_get(m, NULL), 0);
  assert_int_equal(m->combine, PM_COMBINE_NONE);
  assert_true(pm_metric_ok(m));
  pm_metric_free(m);
  pm_metric_free(NULL);
}

static void test_values_and_na(void **state) {
  pm_metric *m = pm_metric_new("v", "Value", "s", "A value.");
  double v = 0.0;
  (void)state;
  pm_metric_set_value(m, 0.5);
  assert_int_equal(m->state, PM_METRIC_VALUE);
  assert_int_equal(pm_metric_get(m, &v), 1);
  assert_double_equal(v, 0.5, 0.0);
  assert_null(m->na_reason);
  /* NaN and infinities never get stored */
  pm_metric_set_value(m, NAN);
  assert_int_equal(m->state, PM_METRIC_NA);
  assert_string_equal(m->na_reason, "non-finite result (inconsistent input)");
  assert_int_equal(pm_metric_get(m, &v), 0);
  pm_metric_set_value(m, 2.0);
  assert_null(m->na_reason);
  pm_metric_set_value(m, -INFINITY);
  assert_int_equal(m->state, PM_METRIC_NA);
  pm_metric_set_na(m, NULL);
  assert_string_equal(m->na_reason, "not available");
  pm_metric_set_na(m, "");
  assert_string_equal(m->na_reason, "not available");
  pm_metric_set_na_fmt(m, "missing on %d of %d locations", 3, 4);
  assert_string_equal(m->na_reason, "missing on 3 of 4 locations");
  {
    const char *nofmt = NULL; /* through a variable: a literal NULL draws a format warning */
    pm_metric_set_na_fmt(m, nofmt);
    assert_string_equal(m->na_reason, "not available");
  }
  pm_metric_set_warning(m, "look here");
  assert_string_equal(m->warning, "look here");
  pm_metric_set_warning(m, NULL);
  assert_null(m->warning);
  pm_metric_set_may_exceed_one(m, 7);
  assert_int_equal(m->may_exceed_one, 1);
  pm_metric_set_combine(m, PM_COMBINE_ADDITIVE);
  assert_int_equal(m->combine, PM_COMBINE_ADDITIVE);
  /* NULL nodes are ignored */
  pm_metric_set_value(NULL, 1.0);
  pm_metric_set_na(NULL, "x");
  pm_metric_set_na_fmt(NULL, "x");
  pm_metric_set_warning(NULL, "x");
  pm_metric_set_combine(NULL, PM_COMBINE_PRODUCT);
  pm_metric_set_may_exceed_one(NULL, 1);
  pm_metric_free(m);
  assert_string_equal(pm_combine_name(PM_COMBINE_NONE), "none");
  assert_string_equal(pm_combine_name(PM_COMBINE_PRODUCT), "product");
  assert_string_equal(pm_combine_name(PM_COMBINE_ADDITIVE), "additive");
}

static void test_children_and_find(void **state) {
  pm_metric *root = pm_metric_new("basic", "Basic", "", "");
  pm_metric *pe, *lb, *found;
  double v = 0.0;
  int i;
  (void)state;
  pe = pm_metric_add_new(root, "pe", "Parallel efficiency", "", "");
  lb = pm_metric_add_new(pe, "lb", "Load balance", "", "");
  pm_metric_set_value(lb, 0.75);
  for (i = 0; i < 9; i++) { /* grows the children array past its first capacity */
    char id[8];
    snprintf(id, sizeof id, "c%d", i);
    assert_non_null(pm_metric_add_new(pe, id, "child", "", ""));
  }
  assert_int_equal(pe->nchildren, 10);
  assert_ptr_equal(lb->parent, pe);
  assert_ptr_equal(pm_metric_find(root, "pe/lb"), lb);
  assert_ptr_equal(pm_metric_find(root, "basic/pe/lb"), lb);
  assert_ptr_equal(pm_metric_find(root, "pe/c8"), pe->children[9]);
  assert_ptr_equal(pm_metric_find(root, ""), root);
  assert_ptr_equal(pm_metric_find(root, "basic"), root);
  assert_ptr_equal(pm_metric_find(root, "pe/"), pe);
  assert_null(pm_metric_find(root, "lb"));
  assert_null(pm_metric_find(root, "pe/lbx"));
  assert_null(pm_metric_find(root, "pe//lb"));
  assert_null(pm_metric_find(root, "pe/lb/deeper"));
  assert_null(pm_metric_find(root, NULL));
  assert_null(pm_metric_find(NULL, "pe"));
  found = pm_metric_find(pe, "lb");
  assert_ptr_equal(found, lb);
  assert_int_equal(pm_metric_get_path(root, "pe/lb", &v), 1);
  assert_double_equal(v, 0.75, 0.0);
  assert_int_equal(pm_metric_get_path(root, "pe", &v), 0);
  assert_int_equal(pm_metric_get_path(root, "nope", &v), 0);
  assert_true(pm_metric_ok(root));
  /* a failed child creation marks the parent; the tree is then not ok */
  assert_null(pm_metric_add_new(pe, "Bad-Id", "x", "", ""));
  assert_false(pm_metric_ok(root));
  assert_false(pm_metric_ok(NULL));
  /* NULL parent: the child is freed (no leak under valgrind/ASan) */
  assert_null(pm_metric_add(NULL, pm_metric_new("x", "X", "", "")));
  assert_null(pm_metric_add_new(NULL, "x", "X", "", ""));
  pm_metric_free(root);
}

/* Internal helpers: n/a propagation of pm_val arithmetic, the string buffer, UTF-8 widths and
 * the two-decimal format. */
static void test_internal_helpers(void **state) {
  pm_val a = pm_v(6.0), b = pm_v(3.0), na1 = pm_v_na("first"), na2 = pm_v_na("second");
  pm_sb sb;
  char buf[64], *s;
  int i;
  (void)state;
  assert_double_equal(pm_v_div(a, b, "z").v, 2.0, 0.0);
  assert_string_equal(pm_v_div(a, pm_v(0.0), "z").na, "z");
  assert_string_equal(pm_v_div(na1, na2, "z").na, "first");
  assert_string_equal(pm_v_div(a, na2, "z").na, "second");
  assert_string_equal(pm_v_div(pm_v(NAN), b, "z").na, "invalid input: a time or count is not a finite number");
  assert_double_equal(pm_v_mul(a, b).v, 18.0, 0.0);
  assert_string_equal(pm_v_mul(na1, b).na, "first");
  assert_string_equal(pm_v_mul(a, na2).na, "second");
  assert_double_equal(pm_v_sub(a, b).v, 3.0, 0.0);
  assert_string_equal(pm_v_sub(na1, na2).na, "first");
  assert_string_equal(pm_v_sub(a, na2).na, "second");
  assert_string_equal(pm_v_na(NULL).na, "not available");
  /* string buffer: empty take, long printf, padding */
  pm_sb_init(&sb);
  s = pm_sb_take(&sb);
  assert_string_equal(s, "");
  free(s);
  pm_sb_init(&sb);
  for (i = 0; i < 3; i++) pm_sb_printf(&sb, "%0300d|", i); /* longer than the 256-byte fast path */
  pm_sb_pad(&sb, '-', 3);
  pm_sb_putc(&sb, '!');
  assert_int_equal(sb.len, 3 * 301 + 4);
  assert_int_equal(sb.s[299], '0');
  assert_int_equal(sb.s[300], '|');
  assert_int_equal(sb.s[600], '1');
  s = pm_sb_take(&sb);
  assert_string_equal(s + 903, "---!");
  free(s);
  pm_sb_free(&sb);
  /* UTF-8: "é" is 2 bytes, 1 column */
  assert_int_equal(pm_utf8_width("\xc3\xa9t\xc3\xa9"), 3);
  assert_int_equal(pm_utf8_prefix("\xc3\xa9t\xc3\xa9", 2), 3);
  assert_int_equal(pm_utf8_prefix("ab", 5), 2);
  /* two decimals */
  pm_format_2f(0.125, buf, sizeof buf);
  assert_string_equal(buf, "0.12");
  pm_format_2f(-0.001, buf, sizeof buf);
  assert_string_equal(buf, "0.00");
  pm_format_2f(-1.5, buf, sizeof buf);
  assert_string_equal(buf, "-1.50");
  pm_format_2f(-3e16, buf, sizeof buf);
  assert_string_equal(buf, "-3.00e+16");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_safe_div),         cmocka_unit_test(test_new_and_ids),
      cmocka_unit_test(test_values_and_na),    cmocka_unit_test(test_children_and_find),
      cmocka_unit_test(test_internal_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
