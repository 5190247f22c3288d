/* End-of-run reporting on rank 0: table on stderr, popmeter.json (and the other outputs). */
#ifndef PM_REPORT_H
#define PM_REPORT_H
#include "pm_profile.h"
void pm_report_run(pm_profile *run, const char *note, double reduce_seconds) __attribute__((visibility("hidden")));
#endif
