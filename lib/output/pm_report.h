/* End-of-run reporting on rank 0: table on stderr, popmeter.json (and the other outputs). */
#ifndef PM_REPORT_H
#define PM_REPORT_H
#include "pm_profile.h"
#include "pm_module.h"
/* The outputs of one run profile: the files first (so a crash of the table loses nothing), then the
 * table; note (may be NULL) is printed in the table. */
PM_HIDDEN void pm_report_run(pm_profile *run, const char *note, double reduce_seconds);
PM_HIDDEN extern const pm_module pm_output_module; /* report = pm_report_run */
#endif
