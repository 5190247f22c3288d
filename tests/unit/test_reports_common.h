/* Shared helpers of the reports/ unit tests: building a study from the JSON fixtures of
 * tests/golden/reports/ and reading single fields back from the CSV the report writes. */
#ifndef TEST_REPORTS_COMMON_H
#define TEST_REPORTS_COMMON_H
#include "rp_output.h"

/* "$top_srcdir/tests/golden/reports/<rel>" (top_srcdir from the test environment, else "..") */
const char *fixture(const char *rel);
/* Loads the runs (relative fixture paths, NULL-terminated) and computes the study with mode and
 * reference; fails the test when that does not work. */
void study_of(rp_study *s, pm_scaling_mode mode, const char *reference, const char *const *runs);
/* The CSV of the study, malloc'd. */
char *csv_of(const rp_study *s);
/* One field (column index, see rp_csv.c) of the CSV row with that section, region, config and
 * metric; NULL when there is no such row. Static buffer. */
const char *csv_field(const char *csv, const char *section, const char *region, const char *config, const char *metric,
                      int column);
enum { CSV_VALUE = 8, CSV_MIN = 9, CSV_MAX = 10, CSV_NOTE = 11 };
/* Asserts a field equals expected ("" for empty), printing the row key when not. */
#define assert_csv(csv, sec, reg, cfg, met, col, expected)                                                           \
  do {                                                                                                               \
    const char *f_ = csv_field(csv, sec, reg, cfg, met, col);                                                        \
    if (!f_ || strcmp(f_, expected) != 0) {                                                                          \
      print_error("%s/%s/%s/%s column %d: got '%s', expected '%s'\n", sec, reg, cfg, met, col, f_ ? f_ : "(no row)", \
                  expected);                                                                                         \
      _fail(__FILE__, __LINE__);                                                                                     \
    }                                                                                                                \
  } while (0)
/* A writer's output as a string (malloc'd). */
char *capture(int (*write)(FILE *, const rp_study *, const rp_plots *, const rp_write_options *), const rp_study *s);
#endif
