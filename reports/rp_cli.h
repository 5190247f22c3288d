/* What popmeter-report and popmeter scale share: the report options and building the report of a
 * list of runs (rp_report_build, in rp_report_main.c). */
#ifndef RP_CLI_H
#define RP_CLI_H
#include "rp_output.h"

enum { RP_EXIT_OK = 0, RP_EXIT_ERROR = 1, RP_EXIT_USAGE = 2, RP_EXIT_PARTIAL = 3 };

typedef struct {
  rp_options study;
  rp_write_options write;
  const char *outdir;
  const char *gnuplot; /* NULL: gnuplot from PATH */
  int plots, force, quiet;
} rp_cli;

void rp_cli_defaults(rp_cli *c);
/* Long options common to both commands: returns 1 when opt (a getopt_long value from
 * RP_COMMON_OPTIONS) was one of them and was applied, 0 when not one of them, -1 on a bad value
 * (message printed). */
int rp_cli_common(rp_cli *c, int opt, const char *arg, const char *prog);
/* Loads the runs, computes the study, prints the text report on stdout (unless quiet) and writes
 * the files. extra_problems: problems met before (failed runs of popmeter scale), reported too. */
int rp_report_build(const char *prog, char *const *runs, int nruns, const rp_cli *c, char *const *extra_problems,
                    int nextra);
/* popmeter scale: arg with "{ranks}" and "{threads}" replaced by the counts (malloc'd; NULL out of
 * memory). Other text, braces included, is kept as it is. */
char *rp_scale_subst(const char *arg, int ranks, int threads);

/* getopt_long values of the common options (beyond any single character) */
enum {
  RP_OPT_REFERENCE = 256,
  RP_OPT_STRONG,
  RP_OPT_WEAK,
  RP_OPT_MODE,
  RP_OPT_NO_PLOTS,
  RP_OPT_GNUPLOT,
  RP_OPT_FORCE,
  RP_OPT_WIDTH,
  RP_OPT_REGIONS,
  RP_OPT_THRESHOLD,
  RP_OPT_REF_ONE,
  RP_OPT_REF_SEQ
};
#define RP_COMMON_OPTIONS                                                                                       \
  {"reference", required_argument, 0, RP_OPT_REFERENCE}, {"strong", no_argument, 0, RP_OPT_STRONG},             \
      {"weak", no_argument, 0, RP_OPT_WEAK}, {"mode", required_argument, 0, RP_OPT_MODE},                       \
      {"no-plots", no_argument, 0, RP_OPT_NO_PLOTS}, {"gnuplot", required_argument, 0, RP_OPT_GNUPLOT},         \
      {"force", no_argument, 0, RP_OPT_FORCE}, {"width", required_argument, 0, RP_OPT_WIDTH},                   \
      {"regions", required_argument, 0, RP_OPT_REGIONS}, {"threshold", required_argument, 0, RP_OPT_THRESHOLD}, \
      {"ref-one", required_argument, 0, RP_OPT_REF_ONE}, {                                                      \
    "ref-seq", required_argument, 0, RP_OPT_REF_SEQ                                                             \
  }
#endif
