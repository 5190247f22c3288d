/* CUDA in the end-of-run table (lib/adapters/cuda): the device streams' activity, and the note that
 * says why nothing was measured ("no CUDA device (...)"). */
#ifndef PM_REPORT_CUDA_H
#define PM_REPORT_CUDA_H
#include <stdio.h>
#include "pm_profile.h"
/* Kernel and copy totals over the device streams; prints nothing when there are none. */
void pm_report_cuda(FILE *out, const pm_profile *p, int width);
/* The CUDA notes (one per distinct status other than "measured"), as "   - ..." lines; with out NULL
 * only counts them. Returns the number of notes. */
int pm_report_cuda_notes(FILE *out, const pm_profile *p);
#endif
