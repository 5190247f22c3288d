#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_reports_common.h"

const char *fixture(const char *rel) {
  static char buf[8][4096];
  static int next;
  const char *top = getenv("top_srcdir");
  char *b = buf[next++ % 8];
  snprintf(b, sizeof buf[0], "%s/tests/golden/reports/%s", top && top[0] ? top : "..", rel);
  return b;
}

void study_of(rp_study *s, pm_scaling_mode mode, const char *reference, const char *const *runs) {
  rp_options o = {.mode = mode, .reference = reference};
  char err[512];
  int i;
  rp_study_set_prog("test");
  rp_study_init(s);
  for (i = 0; runs[i]; i++) assert_int_equal(rp_study_load(s, fixture(runs[i])), 0);
  if (rp_study_compute(s, &o, err, sizeof err) != 0) fail_msg("study: %s", err);
}

char *csv_of(const rp_study *s) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  assert_int_equal(rp_write_csv(f, s), 0);
  fclose(f);
  return buf;
}

/* Splits one CSV line (RFC 4180 quoting) into at most nf fields of the static storage. */
static int split(const char *line, size_t len, char fields[][256], int nf) {
  int k = 0;
  size_t i = 0, o = 0;
  int quoted = 0;
  fields[0][0] = '\0';
  for (i = 0; i < len; i++) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < len && line[i + 1] == '"')
        fields[k][o++] = '"', i++;
      else if (c == '"')
        quoted = 0;
      else
        fields[k][o++] = c;
    } else if (c == '"') {
      quoted = 1;
    } else if (c == ',') {
      fields[k][o] = '\0';
      if (++k == nf) return k;
      o = 0;
    } else {
      fields[k][o++] = c;
    }
    if (o >= 255) o = 254;
  }
  fields[k][o] = '\0';
  return k + 1;
}

const char *csv_field(const char *csv, const char *section, const char *region, const char *config, const char *metric,
                      int column) {
  static char f[12][256];
  const char *line = csv;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    if (split(line, len, f, 12) == 12 && !strcmp(f[0], section) && !strcmp(f[1], region) && !strcmp(f[2], config) &&
        !strcmp(f[6], metric))
      return f[column];
    line = end ? end + 1 : NULL;
  }
  return NULL;
}

char *capture(int (*write)(FILE *, const rp_study *, const rp_plots *, const rp_write_options *), const rp_study *s) {
  rp_write_options o = {.width = 100, .max_regions = 0, .diff_threshold = RP_DIFF_THRESHOLD};
  rp_plots none;
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  memset(&none, 0, sizeof none);
  assert_non_null(f);
  assert_int_equal(write(f, s, &none, &o), 0);
  fclose(f);
  return buf;
}
