/* reports/: the commands built on libpmreports.
 *   popmeter-report RUN... [options]     the scaling report of existing runs (pm_report_main)
 *   popmeter scale [options] -- APP ...  runs the study, then writes its report (pm_scale_main)
 * Both take argv as a command's main does (argv[0] = the command's name) and return its exit
 * status: 0 fine, 1 error, 2 usage error, 3 report written but some runs left out. */
#ifndef PM_REPORTS_H
#define PM_REPORTS_H
int pm_report_main(int argc, char **argv);
int pm_scale_main(int argc, char **argv);
#endif
