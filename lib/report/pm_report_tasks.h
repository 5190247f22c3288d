/* End-of-run table: the task-runtime sections ("Critical path", "Top codelets", data movement). */
#ifndef PM_REPORT_TASKS_H
#define PM_REPORT_TASKS_H
#include <stdio.h>
#include "pm_profile.h"
/* Prints nothing for a run without tasks. */
void pm_report_tasks(FILE *out, const pm_profile *p, int width);
#endif
