/* The default end-of-run table (POPMETER_REPORT=summary, `popmeter show`): what a person reads in
 * ten seconds, in at most PM_SUMMARY_MAX_LINES lines of at most `width` columns:
 *   how efficient        one hierarchy, the one that fits the run (MPI; MPI + OpenMP / threads;
 *                        a task runtime; with devices): parallel efficiency, load balance,
 *                        serialization and transfer, each split by level on its own line
 *   where the time went  the three largest losses in seconds (metrics/pm_losses.h), what each is
 *                        and a one-line hint in the POP methodology's words
 *   what next            the critical path, the outliers, what was not measured and why, the files
 * Values below PM_SUMMARY_FLAG are flagged "!" (and red on a colour terminal). Everything else stays
 * in the full table (pm_report_models.h: POPMETER_REPORT=full, `popmeter show --full`) and in the
 * JSON. */
#ifndef PM_REPORT_SUMMARY_H
#define PM_REPORT_SUMMARY_H
#include <stdio.h>
#include "pm_profile.h"

#define PM_SUMMARY_MAX_LINES 40
/* A note when the compute threads waited at least this share of their time for a CPU. */
#define PM_SUMMARY_CPU_WAIT 0.05
#define PM_SUMMARY_FLAG 0.8

typedef struct {
  int width;                           /* columns (at least 60) */
  int color;                           /* 1: ANSI colour on flagged values (pm_report_color_wanted) */
  const char *where;                   /* the output directory, or the profile's path offline; NULL: none written */
  const char *note;                    /* a note of the run (may be NULL), e.g. "MPI_Finalize was not called" */
  int io_as_useful;                    /* POPMETER_IO_AS_USEFUL */
  const char *bad_model;               /* an unknown POPMETER_MODELS name to mention, or NULL */
  const pm_profile *ref_one, *ref_seq; /* task-model reference runs, or NULL */
} pm_summary_options;

/* Writes the summary; 0, or -1 out of memory or on a write error. */
int pm_report_write_summary(FILE *out, const pm_profile *p, const pm_summary_options *o);
/* 1 when out is a terminal, NO_COLOR is not set (https://no-color.org) and TERM is not "dumb". */
int pm_report_color_wanted(FILE *out);
#endif
