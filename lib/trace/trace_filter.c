/* POPMETER_TRACE_FILTER: comma-separated items, each either a region-name pattern to exclude
 * (fnmatch(3): '*', '?', '[...]'; surrounding blanks ignored) or "min=<microseconds>", the shortest
 * region kept. A bad item is reported once and ignored, so a typo never costs the trace. */
#define _GNU_SOURCE
#include "pm_trace.h"
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
  return s;
}

int pm_tfilter_parse(const char *spec, pm_tfilter *f, void (*warn)(const char *fmt, ...)) {
  memset(f, 0, sizeof *f);
  if (!spec || !spec[0]) return 0;
  char *copy = strdup(spec);
  if (!copy) {
    warn("POPMETER_TRACE_FILTER: out of memory; the trace is not filtered");
    return 1;
  }
  int bad = 0;
  size_t cap = 1;
  for (const char *c = spec; *c; c++) cap += *c == ',';
  f->pat = calloc(cap, sizeof *f->pat);
  if (!f->pat) {
    free(copy);
    warn("POPMETER_TRACE_FILTER: out of memory; the trace is not filtered");
    return 1;
  }
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *item = trim(tok);
    if (!item[0]) continue;
    if (!strncmp(item, "min=", 4)) {
      char *end;
      errno = 0;
      double us = strtod(item + 4, &end);
      if (errno || end == item + 4 || *trim(end) || !(us >= 0) || us > 3.6e9) {
        warn("POPMETER_TRACE_FILTER: '%s' is not a duration in microseconds (min=<us>); ignored", item);
        bad++;
        continue;
      }
      f->min_ns = (uint64_t)(us * 1000.0 + 0.5);
      continue;
    }
    /* a pattern fnmatch cannot match anything against is still a pattern; check it is usable */
    if (fnmatch(item, "", 0) != 0 && fnmatch(item, "", 0) != FNM_NOMATCH) {
      warn("POPMETER_TRACE_FILTER: bad pattern '%s'; ignored", item);
      bad++;
      continue;
    }
    if (!(f->pat[f->npat] = strdup(item))) {
      bad++;
      continue;
    }
    f->npat++;
  }
  free(copy);
  return bad;
}

int pm_tfilter_excludes(const pm_tfilter *f, const char *name) {
  for (int i = 0; i < f->npat; i++)
    if (fnmatch(f->pat[i], name, 0) == 0) return 1;
  return 0;
}

void pm_tfilter_free(pm_tfilter *f) {
  for (int i = 0; i < f->npat; i++) free(f->pat[i]);
  free(f->pat);
  memset(f, 0, sizeof *f);
}
