/* The POPMETER_* configuration table: one const table (name, type, default, help) from which the
 * values, `popmeter --help-env` and docs/environment.md are all derived. */
#ifndef PM_CONFIG_H
#define PM_CONFIG_H
#include <stdio.h>

/* PM_CFG_CHOICE: one of the words of `choices` ("off|summary|full"), stored as its index; 0/1 and
 * the other boolean words are accepted as the first two. */
typedef enum { PM_CFG_BOOL, PM_CFG_INT, PM_CFG_STRING, PM_CFG_CHOICE } pm_cfg_type;

typedef enum {
  PM_CFG_ENABLE = 0,
  PM_CFG_OUTPUT,
  PM_CFG_REPORT,
  PM_CFG_JSON,
  PM_CFG_CUBE,
  PM_CFG_MODELS,
  PM_CFG_VERBOSE,
  PM_CFG_CRITICAL_PATH,
  PM_CFG_IO_AS_USEFUL,
  PM_CFG_TRACE,
  PM_CFG_TRACE_FILTER,
  PM_CFG_TABLE_WIDTH,
  PM_CFG_OVERWRITE,
  PM_CFG_TRACE_BUFFER,
  PM_CFG_COUNTERS,
  PM_CFG_PAPI_EVENTS,
  PM_CFG_CUDA,
  PM_CFG_TRACE_VITE,
  PM_CFG_CP_SHARED_MEMORY,
  PM_CFG_CLOCK,
  PM_CFG_COUNT
} pm_cfg_key;

typedef struct {
  const char *name; /* environment variable */
  pm_cfg_type type;
  const char *def;     /* default, as text */
  long min, max;       /* accepted range for PM_CFG_INT */
  const char *help;    /* one sentence */
  const char *choices; /* PM_CFG_CHOICE: the words, '|'-separated */
} pm_cfg_entry;

/* POPMETER_CLOCK */
enum { PM_CLOCK_AUTO = 0, PM_CLOCK_MONOTONIC = 1 };
/* POPMETER_REPORT */
enum { PM_REPORT_OFF = 0, PM_REPORT_SUMMARY = 1, PM_REPORT_FULL = 2 };

extern const pm_cfg_entry pm_cfg_table[PM_CFG_COUNT];

/* Parsed values; filled by pm_config_load(). Strings point into the environment or the table. */
typedef struct {
  long i[PM_CFG_COUNT];
  const char *s[PM_CFG_COUNT];
  int is_set[PM_CFG_COUNT]; /* 1 when the user set a valid value */
} pm_config;

/* Parses the environment through 'getenv_fn' (getenv, or a test double). Each bad value yields
 * exactly one warning through 'warn' naming the variable and the default used. Returns the number
 * of bad values. */
int pm_config_load(pm_config *cfg, const char *(*getenv_fn)(const char *), void (*warn)(const char *fmt, ...));
/* Prints the table as `popmeter --help-env` shows it (markdown=1: as docs/environment.md). */
void pm_config_print_help(FILE *out, int markdown);
#endif
