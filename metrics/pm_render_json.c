/* JSON of a metric tree (popmeter.json, `popmeter show --json`, reports/).
 *
 * Written by hand rather than with jansson so that libpopmetrics keeps to libc + libm. Numbers are
 * printed with the fewest significant digits (15 to 17) that read back exactly, and '.' whatever
 * the locale; they are finite by construction of the tree. Strings are escaped per RFC 8259; invalid UTF-8 bytes (e.g. from a
 * user's region name) become U+FFFD so that every JSON reader accepts the output. */
#include "popmetrics.h"
#include "pm_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_string(pm_sb *b, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  pm_sb_putc(b, '"');
  while (*p) {
    size_t n = pm_utf8_seq(p);
    if (n == 0) {
      pm_sb_puts(b, "\xEF\xBF\xBD"); /* U+FFFD */
      p++;
      continue;
    }
    if (n > 1) {
      pm_sb_putn(b, (const char *)p, n);
      p += n;
      continue;
    }
    switch (*p) {
    case '"': pm_sb_puts(b, "\\\""); break;
    case '\\': pm_sb_puts(b, "\\\\"); break;
    case '\n': pm_sb_puts(b, "\\n"); break;
    case '\r': pm_sb_puts(b, "\\r"); break;
    case '\t': pm_sb_puts(b, "\\t"); break;
    case '\b': pm_sb_puts(b, "\\b"); break;
    case '\f': pm_sb_puts(b, "\\f"); break;
    default:
      if (*p < 0x20)
        pm_sb_printf(b, "\\u%04x", *p);
      else
        pm_sb_putc(b, (char)*p);
    }
    p++;
  }
  pm_sb_putc(b, '"');
}

/* The shortest of %.15g, %.16g, %.17g that reads back as exactly v (17 digits always do), so that
 * 0.7 prints as 0.7 and not 0.69999999999999996. strtod runs in the same locale as snprintf, so
 * the round-trip test holds before the separator is normalised. */
static void put_number(pm_sb *b, double v) {
  char buf[40], *p;
  int prec;
  for (prec = 15; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  if (prec == 17) snprintf(buf, sizeof buf, "%.17g", v);
  for (p = buf; *p; p++) /* locale-proof decimal separator */
    if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e' || *p == 'E')) *p = '.';
  pm_sb_puts(b, buf);
}

/* Newline and indentation in pretty mode, nothing otherwise. */
static void nl(pm_sb *b, int pretty, int level) {
  if (!pretty) return;
  pm_sb_putc(b, '\n');
  pm_sb_pad(b, ' ', 2 * (size_t)level);
}

static void put_key(pm_sb *b, int pretty, int level, const char *key, int first) {
  if (!first) pm_sb_putc(b, ',');
  nl(b, pretty, level);
  put_string(b, key);
  pm_sb_puts(b, pretty ? ": " : ":");
}

static void put_node(pm_sb *b, const pm_metric *m, int pretty, int level) {
  size_t i;
  pm_sb_putc(b, '{');
  put_key(b, pretty, level + 1, "id", 1);
  put_string(b, m->id);
  put_key(b, pretty, level + 1, "name", 0);
  put_string(b, m->name);
  put_key(b, pretty, level + 1, "value", 0);
  if (m->state == PM_METRIC_VALUE)
    put_number(b, m->value);
  else
    pm_sb_puts(b, "null");
  if (m->state == PM_METRIC_NA) {
    put_key(b, pretty, level + 1, "na_reason", 0);
    put_string(b, m->na_reason ? m->na_reason : "not available");
  }
  if (m->warning) {
    put_key(b, pretty, level + 1, "warning", 0);
    put_string(b, m->warning);
  }
  put_key(b, pretty, level + 1, "unit", 0);
  put_string(b, m->unit);
  put_key(b, pretty, level + 1, "description", 0);
  put_string(b, m->description);
  put_key(b, pretty, level + 1, "combine", 0);
  put_string(b, pm_combine_name(m->combine));
  put_key(b, pretty, level + 1, "may_exceed_one", 0);
  pm_sb_puts(b, m->may_exceed_one ? "true" : "false");
  put_key(b, pretty, level + 1, "children", 0);
  pm_sb_putc(b, '[');
  for (i = 0; i < m->nchildren; i++) {
    if (i) pm_sb_putc(b, ',');
    nl(b, pretty, level + 2);
    put_node(b, m->children[i], pretty, level + 2);
  }
  if (m->nchildren) nl(b, pretty, level + 1);
  pm_sb_putc(b, ']');
  nl(b, pretty, level);
  pm_sb_putc(b, '}');
}

char *pm_render_json_string(const pm_metric *tree, int flags) {
  pm_sb b;
  if (!tree) return NULL;
  pm_sb_init(&b);
  put_node(&b, tree, (flags & PM_JSON_PRETTY) != 0, 0);
  if (flags & PM_JSON_PRETTY) pm_sb_putc(&b, '\n');
  return pm_sb_take(&b);
}

int pm_render_json(FILE *out, const pm_metric *tree, int flags) {
  if (!out) return -1;
  return pm__put_taken(out, pm_render_json_string(tree, flags));
}
