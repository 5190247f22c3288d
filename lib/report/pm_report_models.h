/* From a run profile to the computed models and the end-of-run table. Shared by the live library
 * (end of run) and the offline tools (popmeter show, reports), so both print the same thing. */
#ifndef PM_REPORT_MODELS_H
#define PM_REPORT_MODELS_H
#include <stdio.h>
#include <jansson.h>
#include "pm_profile.h"
#include "popmetrics.h"

typedef struct {
  const char *models; /* POPMETER_MODELS syntax: "auto", "all" or a list */
  int width;          /* table width in columns */
  int io_as_useful;
  /* task-model reference runs (pm_profile_input_references), or NULL */
  const pm_profile *ref_one, *ref_seq;
} pm_report_options;

typedef struct {
  unsigned mask; /* models computed */
  int n;
  pm_metric *tree[PM_MODEL_COUNT + 1]; /* in model-bit order, then the counter summary (pm_report_counters.h) */
  char bad_model[64];                  /* an unknown name in the list, if any ("" otherwise) */
} pm_model_set;

/* Computes the selected models; an unknown model name falls back to "auto" and is reported in
 * set->bad_model. Returns 0, or -1 out of memory. */
int pm_report_compute(const pm_profile *p, const pm_report_options *o, pm_model_set *set);
void pm_model_set_free(pm_model_set *set);
/* {"basic": {tree}, ...} */
json_t *pm_report_models_json(const pm_model_set *set);
/* The whole end-of-run table: header, model tables, time breakdown, top regions, notes. */
int pm_report_print_table(FILE *out, const pm_profile *p, const pm_report_options *o, const char *note,
                          double finalize_seconds);
int pm_report_write_table(FILE *out, const pm_profile *p, const pm_model_set *set, int width, const char *note,
                          double finalize_seconds);
#endif
