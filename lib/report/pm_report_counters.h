/* Hardware counters in the report (table, popmeter.json "models", CUBE attributes): a summary tree
 * "counters" (instructions, cycles, IPC and frequency over useful time) and the exact reasons of
 * the vectorization model's n/a values. Offline too: popmeter show prints the same. */
#ifndef PM_REPORT_COUNTERS_H
#define PM_REPORT_COUNTERS_H
#include "pm_profile.h"
#include "popmetrics.h"

/* Models the default ("auto") set adds for this profile: the vectorization model whenever the run
 * tried to count (its metrics then show the reason when they cannot be computed). */
unsigned pm_report_counters_models(const pm_profile *p);
/* The summary tree, or NULL when the profile says nothing about counters (or out of memory). */
pm_metric *pm_report_counters_tree(const pm_profile *p);
/* Replaces the models' generic "no hardware counters: ..." reasons in tree by the run's own
 * reason for the missing category (instructions, cycles, FP classes) when the profile has one. */
void pm_report_counters_explain(const pm_profile *p, pm_metric *tree);
#endif
