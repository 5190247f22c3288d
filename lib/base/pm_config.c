/* The configuration table and its parser. Values are parsed once, at activation. */
#include "pm_config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const pm_cfg_entry pm_cfg_table[PM_CFG_COUNT] = {
    [PM_CFG_ENABLE] = {"POPMETER_ENABLE", PM_CFG_BOOL, "1", 0, 1,
                       "Set to 0 to load popmeter without measuring anything."},
    [PM_CFG_OUTPUT] =
        {"POPMETER_OUTPUT", PM_CFG_STRING, "", 0, 0,
         "Output directory for popmeter.json and profile.cubex (default: ./popmeter-<app>-<date>-<time>)."},
    [PM_CFG_REPORT] = {"POPMETER_REPORT", PM_CFG_CHOICE, "summary", 0, 0,
                       "The efficiency table on standard error at the end of the run (rank 0): summary (at most 40 "
                       "lines), full (every model and section), or off.",
                       "off|summary|full"},
    [PM_CFG_JSON] = {"POPMETER_JSON", PM_CFG_BOOL, "1", 0, 1,
                     "Write popmeter.json (the run profile and every computed model) into the output directory."},
    [PM_CFG_CUBE] = {"POPMETER_CUBE", PM_CFG_BOOL, "1", 0, 1,
                     "Write profile.cubex (Cube 4 profile) into the output directory."},
    [PM_CFG_MODELS] = {"POPMETER_MODELS", PM_CFG_STRING, "auto", 0, 0,
                       "Models to compute: auto, all, or a list of "
                       "basic,multiplicative,additive,critical-path,talp,task,io,vectorization."},
    [PM_CFG_VERBOSE] = {"POPMETER_VERBOSE", PM_CFG_INT, "1", 0, 3,
                        "0: silent except errors, 1: warnings, 2: progress information, 3: debugging."},
    [PM_CFG_CRITICAL_PATH] = {"POPMETER_CRITICAL_PATH", PM_CFG_BOOL, "1", 0, 1,
                              "Propagate critical-path clocks along MPI messages and task dependencies (needed for "
                              "serialization/transfer)."},
    [PM_CFG_CLOCK] = {"POPMETER_CLOCK", PM_CFG_CHOICE, "auto", 0, 0,
                      "Timestamps: auto (CLOCK_MONOTONIC read through the TSC when the kernel keeps it on an "
                      "invariant TSC, else clock_gettime) or monotonic (always clock_gettime).",
                      "auto|monotonic"},
    [PM_CFG_CP_SHARED_MEMORY] = {"POPMETER_CP_SHARED_MEMORY", PM_CFG_BOOL, "1", 0, 1,
                                 "Collectives on a communicator whose ranks share one node exchange their "
                                 "critical-path clocks through shared memory (0: through messages, as across nodes)."},
    [PM_CFG_IO_AS_USEFUL] = {"POPMETER_IO_AS_USEFUL", PM_CFG_BOOL, "0", 0, 1,
                             "Count file I/O time as useful computation instead of as I/O (at run time also on the "
                             "critical path; popmeter show with another setting gives SerE and TE n/a)."},
    [PM_CFG_TRACE] = {"POPMETER_TRACE", PM_CFG_BOOL, "0", 0, 1, "Write an OTF2 trace into <output>/traces."},
    [PM_CFG_TRACE_FILTER] = {"POPMETER_TRACE_FILTER", PM_CFG_STRING, "", 0, 0,
                             "Trace filter: comma-separated region name patterns to exclude, and min=<microseconds> "
                             "for the shortest region kept."},
    [PM_CFG_TABLE_WIDTH] = {"POPMETER_TABLE_WIDTH", PM_CFG_INT, "100", 60, 400,
                            "Width in columns of the end-of-run table."},
    [PM_CFG_OVERWRITE] =
        {"POPMETER_OVERWRITE", PM_CFG_BOOL, "0", 0, 1,
         "Allow writing into an output directory that already holds a popmeter.json (otherwise a new name is chosen)."},
    [PM_CFG_TRACE_BUFFER] =
        {"POPMETER_TRACE_BUFFER", PM_CFG_INT, "64", 1, 4096,
         "Trace memory per process in MiB; a full buffer is flushed to disk (the flush time is reported)."},
    [PM_CFG_COUNTERS] =
        {"POPMETER_COUNTERS", PM_CFG_STRING, "auto", 0, 0,
         "Hardware counters: auto (PAPI when the CPU exposes counters), papi (warn when unavailable), or off."},
    [PM_CFG_PAPI_EVENTS] = {"POPMETER_PAPI_EVENTS", PM_CFG_STRING, "", 0, 0,
                            "Comma-separated PAPI events to count per thread (default: instructions, cycles and the FP "
                            "classes the CPU has)."},
    [PM_CFG_CUDA] =
        {"POPMETER_CUDA", PM_CFG_BOOL, "1", 0, 1,
         "Record CUDA kernels, copies and host synchronisation through CUPTI in programs that use CUDA, when a driver "
         "and a device are present; set to 1 explicitly to look in every program, 0 never to."},
    [PM_CFG_TRACE_VITE] = {"POPMETER_TRACE_VITE", PM_CFG_BOOL, "0", 0, 1,
                           "Write the trace's communicators as ViTE reads them, so that it draws the messages (not "
                           "standard OTF2: otf2-print warns about the groups; docs/trace.md)."},
};

static int parse_bool(const char *v, long *out) {
  static const char *const yes[] = {"1", "yes", "on", "true"}, *const no[] = {"0", "no", "off", "false"};
  for (unsigned k = 0; k < 4; k++) {
    if (!strcasecmp(v, yes[k])) {
      *out = 1;
      return 0;
    }
    if (!strcasecmp(v, no[k])) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

/* The index of v among the '|'-separated words, or a boolean as the first two; -1 otherwise. */
static int parse_choice(const char *v, const char *choices, long *out) {
  if (parse_bool(v, out) == 0) return 0;
  long i = 0;
  for (const char *w = choices; w && *w; i++) {
    size_t n = strcspn(w, "|");
    if (n == strlen(v) && !strncasecmp(w, v, n)) {
      *out = i;
      return 0;
    }
    w += n + (w[n] == '|');
  }
  return -1;
}

static int parse_int(const char *v, long min, long max, long *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || end == v || *end != '\0' || x < min || x > max) return -1;
  *out = x;
  return 0;
}

int pm_config_load(pm_config *cfg, const char *(*getenv_fn)(const char *), void (*warn)(const char *fmt, ...)) {
  int bad = 0;
  memset(cfg, 0, sizeof *cfg);
  for (int k = 0; k < PM_CFG_COUNT; k++) {
    const pm_cfg_entry *e = &pm_cfg_table[k];
    cfg->s[k] = e->def;
    if (e->type != PM_CFG_STRING) {
      /* defaults are valid by construction (checked by a unit test) */
      if (e->type == PM_CFG_BOOL)
        parse_bool(e->def, &cfg->i[k]);
      else if (e->type == PM_CFG_CHOICE)
        parse_choice(e->def, e->choices, &cfg->i[k]);
      else
        parse_int(e->def, e->min, e->max, &cfg->i[k]);
    }
    const char *v = getenv_fn(e->name);
    if (!v) continue;
    int rc = 0;
    if (e->type == PM_CFG_BOOL) {
      long x;
      rc = parse_bool(v, &x);
      if (!rc) cfg->i[k] = x;
    } else if (e->type == PM_CFG_INT) {
      long x;
      rc = parse_int(v, e->min, e->max, &x);
      if (!rc) cfg->i[k] = x;
    } else if (e->type == PM_CFG_CHOICE) {
      long x;
      rc = parse_choice(v, e->choices, &x);
      if (!rc) cfg->i[k] = x;
    } else if (k == PM_CFG_OUTPUT && v[0] == '\0') {
      rc = -1;
    } else {
      cfg->s[k] = v;
    }
    if (rc) {
      bad++;
      if (e->type == PM_CFG_INT)
        warn("%s='%s' is not an integer in [%ld, %ld]; using the default %s", e->name, v, e->min, e->max, e->def);
      else if (e->type == PM_CFG_BOOL)
        warn("%s='%s' is not a boolean (0/1, yes/no, on/off, true/false); using the default %s", e->name, v, e->def);
      else if (e->type == PM_CFG_CHOICE)
        warn("%s='%s' is not one of %s (or 0/1); using the default %s", e->name, v, e->choices, e->def);
      else
        warn("%s is empty; using the default", e->name);
    } else {
      cfg->is_set[k] = 1;
    }
  }
  return bad;
}

void pm_config_print_help(FILE *out, int markdown) {
  static const char *const tname[] = {"boolean", "integer", "string", "choice"};
  if (markdown) fprintf(out, "| variable | type | default | meaning |\n|---|---|---|---|\n");
  for (int k = 0; k < PM_CFG_COUNT; k++) {
    const pm_cfg_entry *e = &pm_cfg_table[k];
    char type[64];
    if (e->type == PM_CFG_INT)
      snprintf(type, sizeof type, "integer %ld..%ld", e->min, e->max);
    else if (e->type == PM_CFG_CHOICE)
      snprintf(type, sizeof type, "%s", e->choices);
    else
      snprintf(type, sizeof type, "%s", tname[e->type]);
    if (markdown)
      fprintf(out, "| `%s` | %s | `%s` | %s |\n", e->name, type, e->def[0] ? e->def : "(see text)", e->help);
    else
      fprintf(out, "  %-24s %-16s default %-6s\n      %s\n", e->name, type, e->def[0] ? e->def : "-", e->help);
  }
}
