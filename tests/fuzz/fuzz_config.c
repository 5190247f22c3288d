/* Fuzz target: the POPMETER_* parser (lib/base/pm_config.c) and the parsers of the string values
 * the library reads at activation (POPMETER_MODELS, POPMETER_TRACE_FILTER). The input is an
 * environment: NAME=VALUE lines; the getenv double answers from it. Every bad value must give one
 * warning and the default; nothing may crash. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_config.h"
#ifdef PM_FUZZ_TRACE_FILTER /* with the trace module (OTF2) only */
#include "pm_trace.h"
#endif
#include "popmetrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_VARS 64
static char *names[MAX_VARS], *values[MAX_VARS];
static int nvars;

static const char *fake_getenv(const char *name) {
  const char *v = NULL;
  for (int i = 0; i < nvars; i++) /* the last definition wins, as in an environment built by putenv */
    if (!strcmp(names[i], name)) v = values[i];
  return v;
}

static int warnings;
static void count_warn(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  warnings++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *env = malloc(size + 1);
  if (!env) return 0;
  memcpy(env, data, size);
  env[size] = '\0';
  nvars = 0;
  for (char *line = env; line && nvars < MAX_VARS;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *eq = strchr(line, '=');
    if (eq) {
      *eq = '\0';
      names[nvars] = line;
      values[nvars++] = eq + 1;
    }
    line = next;
  }
  pm_config cfg;
  warnings = 0;
  int bad = pm_config_load(&cfg, fake_getenv, count_warn);
  if (bad != warnings) {
    fprintf(stderr, "pm_config_load: %d bad values but %d warnings\n", bad, warnings);
    abort();
  }
  for (int k = 0; k < PM_CFG_COUNT; k++) {
    const pm_cfg_entry *e = &pm_cfg_table[k];
    if (e->type == PM_CFG_INT && (cfg.i[k] < e->min || cfg.i[k] > e->max)) {
      fprintf(stderr, "%s = %ld outside [%ld, %ld]\n", e->name, cfg.i[k], e->min, e->max);
      abort();
    }
    if (!cfg.s[k]) abort();
  }
  unsigned mask = 0;
  char badname[64];
  (void)pm_models_parse(cfg.s[PM_CFG_MODELS], &mask, badname, sizeof badname);
#ifdef PM_FUZZ_TRACE_FILTER
  pm_tfilter tf;
  (void)pm_tfilter_parse(cfg.s[PM_CFG_TRACE_FILTER], &tf, count_warn);
  (void)pm_tfilter_excludes(&tf, "MPI_Allreduce");
  pm_tfilter_free(&tf);
#endif
  free(env);
  return 0;
}
