/* popmeter-report: see rp_report_main.c and docs/reports.md. */
#include "pm_reports.h"

int main(int argc, char **argv) { return pm_report_main(argc, argv); }
