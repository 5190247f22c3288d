/* End-of-run table: file I/O per file system (pm_profile_io.h). */
#ifndef PM_REPORT_IO_H
#define PM_REPORT_IO_H
#include <stdio.h>
#include "pm_profile.h"
/* Prints nothing for a run without file I/O on files. */
void pm_report_io(FILE *out, const pm_profile *p, int width);
#endif
