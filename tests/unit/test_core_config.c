/* The POPMETER_* configuration table: defaults are valid, bad values warn once each and keep the
 * default, good values are taken. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_config.h"

static const char *fake_names[8], *fake_values[8];
static int nfake, nwarn;
static char last_warning[512];
static const char *fake_getenv(const char *name) {
  for (int i = 0; i < nfake; i++)
    if (!strcmp(fake_names[i], name)) return fake_values[i];
  return NULL;
}
static void count_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_warning, sizeof last_warning, fmt, ap);
  va_end(ap);
  nwarn++;
}
static void set_env(int n, ...) {
  va_list ap;
  va_start(ap, n);
  nfake = n;
  for (int i = 0; i < n; i++) {
    fake_names[i] = va_arg(ap, const char *);
    fake_values[i] = va_arg(ap, const char *);
  }
  va_end(ap);
  nwarn = 0;
  last_warning[0] = '\0';
}

static void test_defaults(void **state) {
  (void)state;
  pm_config c;
  set_env(0);
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 0);
  assert_int_equal(nwarn, 0);
  assert_int_equal(c.i[PM_CFG_ENABLE], 1);
  assert_int_equal(c.i[PM_CFG_REPORT], 1);
  assert_int_equal(c.i[PM_CFG_VERBOSE], 1);
  assert_int_equal(c.i[PM_CFG_TABLE_WIDTH], 100);
  assert_string_equal(c.s[PM_CFG_MODELS], "auto");
  assert_int_equal(c.is_set[PM_CFG_MODELS], 0);
}

static void test_good_values(void **state) {
  (void)state;
  pm_config c;
  set_env(4, "POPMETER_REPORT", "off", "POPMETER_VERBOSE", "3", "POPMETER_OUTPUT", "out/dir", "POPMETER_TRACE", "yes");
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 0);
  assert_int_equal(c.i[PM_CFG_REPORT], 0);
  assert_int_equal(c.i[PM_CFG_VERBOSE], 3);
  assert_int_equal(c.i[PM_CFG_TRACE], 1);
  assert_string_equal(c.s[PM_CFG_OUTPUT], "out/dir");
  assert_int_equal(c.is_set[PM_CFG_OUTPUT], 1);
}

static void test_bad_values(void **state) {
  (void)state;
  pm_config c;
  set_env(1, "POPMETER_VERBOSE", "7");
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 1);
  assert_int_equal(nwarn, 1);
  assert_int_equal(c.i[PM_CFG_VERBOSE], 1);
  assert_non_null(strstr(last_warning, "POPMETER_VERBOSE"));
  assert_non_null(strstr(last_warning, "default 1"));
  set_env(3, "POPMETER_REPORT", "maybe", "POPMETER_TABLE_WIDTH", "12x", "POPMETER_OUTPUT", "");
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 3);
  assert_int_equal(nwarn, 3);
  assert_int_equal(c.i[PM_CFG_REPORT], 1);
  assert_int_equal(c.i[PM_CFG_TABLE_WIDTH], 100);
  assert_string_equal(c.s[PM_CFG_OUTPUT], "");
  set_env(1, "POPMETER_TABLE_WIDTH", "99999999999999999999999");
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 1);
  assert_int_equal(c.i[PM_CFG_TABLE_WIDTH], 100);
}

/* POPMETER_REPORT takes its words (any case) or a boolean: off/0/no = 0, summary/1/yes = 1, full = 2. */
static void test_report_choices(void **state) {
  (void)state;
  static const struct {
    const char *v;
    long want;
  } cases[] = {{"off", PM_REPORT_OFF},         {"0", PM_REPORT_OFF},     {"no", PM_REPORT_OFF},
               {"summary", PM_REPORT_SUMMARY}, {"1", PM_REPORT_SUMMARY}, {"YES", PM_REPORT_SUMMARY},
               {"full", PM_REPORT_FULL},       {"Full", PM_REPORT_FULL}};
  pm_config c;
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
    set_env(1, "POPMETER_REPORT", cases[i].v);
    assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 0);
    assert_int_equal(c.i[PM_CFG_REPORT], cases[i].want);
  }
  set_env(1, "POPMETER_REPORT", "fullest"); /* a prefix of nothing, an extension of a word */
  assert_int_equal(pm_config_load(&c, fake_getenv, count_warn), 1);
  assert_int_equal(c.i[PM_CFG_REPORT], PM_REPORT_SUMMARY);
  assert_non_null(strstr(last_warning, "off|summary|full"));
}

static void test_help_lists_every_variable(void **state) {
  (void)state;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  pm_config_print_help(f, 0);
  fclose(f);
  for (int k = 0; k < PM_CFG_COUNT; k++) assert_non_null(strstr(buf, pm_cfg_table[k].name));
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_good_values),
      cmocka_unit_test(test_bad_values),
      cmocka_unit_test(test_report_choices),
      cmocka_unit_test(test_help_lists_every_variable),
  };
  return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
