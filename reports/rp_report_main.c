/* popmeter-report: the POP scaling report of existing runs, from their popmeter.json only (so it
 * works wherever the files are copied). See docs/reports.md. */
#include "pm_reports.h"
#include "rp_cli.h"
#include "pm_profile_input.h"
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out) {
  fputs("Usage: popmeter-report [options] RUN...        (RUN: a run directory or its popmeter.json)\n"
        "       popmeter-report --diff [options] A B     (compare two runs: regions slowed down / sped up)\n"
        "\n"
        "Builds the POP scaling report of the runs: one column per configuration (processes x\n"
        "threads), sorted by size; repeated configurations summarised by the median (min-max).\n"
        "Prints the table and writes report.txt, scaling.csv, scaling.md, scaling.json, plots/\n"
        "(gnuplot: SVG and PNG) and a self-contained report.html into the output directory.\n"
        "\n"
        "  -o, --output DIR      output directory (default: popmeter-report)\n"
        "      --reference X     reference configuration (\"4x1\"; diff: A or B) or one of the runs\n"
        "                        (default: the smallest configuration; diff: A)\n"
        "      --strong, --weak  declare the scaling mode (default: detected, --mode auto)\n"
        "      --mode M          strong, weak or auto\n"
        "      --diff            compare exactly two runs, A the reference\n"
        "      --threshold T     diff: speedups within 1 +- T count as unchanged (default 0.05)\n"
        "      --regions N       regions in the tables (default 12; 0: all; CSV/JSON: all)\n"
        "      --width N         text table width (default 100)\n"
        "      --no-plots        do not run gnuplot\n"
        "      --gnuplot PATH    the gnuplot to run (default: gnuplot from PATH)\n"
        "      --force           replace existing report files\n"
        "      --ref-one RUN     task-based runs: the program on one worker, and\n"
        "      --ref-seq RUN     its sequential kernels: adds the task efficiency and its\n"
        "                        granularity, locality, runtime and pipeline factors to every run\n"
        "  -q, --quiet           do not print the table\n"
        "\n"
        "Exit status: 0 fine, 1 error, 2 usage, 3 report written but some runs were left out.\n",
        out);
}

void rp_cli_defaults(rp_cli *c) {
  memset(c, 0, sizeof *c);
  c->study.mode = PM_SCALING_AUTO;
  c->write.width = PM_TEXT_WIDTH;
  c->write.max_regions = 12;
  c->write.diff_threshold = RP_DIFF_THRESHOLD;
  c->outdir = "popmeter-report";
  c->plots = 1;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

int rp_cli_common(rp_cli *c, int opt, const char *arg, const char *prog) {
  char *end;
  switch (opt) {
  case RP_OPT_REFERENCE: c->study.reference = arg; return 1;
  case RP_OPT_REF_ONE: c->study.ref_one_arg = arg; return 1;
  case RP_OPT_REF_SEQ: c->study.ref_seq_arg = arg; return 1;
  case RP_OPT_STRONG: c->study.mode = PM_SCALING_STRONG; return 1;
  case RP_OPT_WEAK: c->study.mode = PM_SCALING_WEAK; return 1;
  case RP_OPT_MODE:
    if (!strcmp(arg, "strong"))
      c->study.mode = PM_SCALING_STRONG;
    else if (!strcmp(arg, "weak"))
      c->study.mode = PM_SCALING_WEAK;
    else if (!strcmp(arg, "auto"))
      c->study.mode = PM_SCALING_AUTO;
    else
      break;
    return 1;
  case RP_OPT_NO_PLOTS: c->plots = 0; return 1;
  case RP_OPT_GNUPLOT: c->gnuplot = arg; return 1;
  case RP_OPT_FORCE: c->force = 1; return 1;
  case RP_OPT_WIDTH:
    if (parse_int(arg, 60, 1000, &c->write.width) != 0) break;
    return 1;
  case RP_OPT_REGIONS:
    if (parse_int(arg, 0, 1000000, &c->write.max_regions) != 0) break;
    return 1;
  case RP_OPT_THRESHOLD:
    c->write.diff_threshold = strtod(arg, &end);
    if (end == arg || *end || !(c->write.diff_threshold >= 0 && c->write.diff_threshold < 1)) break;
    return 1;
  default: return 0;
  }
  fprintf(stderr, "%s: invalid value '%s' for an option\n", prog, arg);
  return -1;
}

/* A reference run of the task model (--ref-one, --ref-seq): NULL with a message when unreadable. */
static pm_profile *read_reference(const char *prog, const char *option, const char *arg) {
  char path[PATH_MAX], err[1024];
  pm_profile *p = NULL;
  if (rp_resolve_run(arg, path, sizeof path, err, sizeof err) == 0) p = pm_profile_read_file(path, err, sizeof err);
  if (!p) fprintf(stderr, "%s: %s: %s\n", prog, option, err);
  return p;
}

static int report_build(const char *prog, char *const *runs, int nruns, const rp_cli *c, const rp_options *o,
                        char *const *extra_problems, int nextra) {
  rp_study s;
  char err[1024];
  int i, rc = RP_EXIT_OK;
  rp_study_set_prog(prog);
  rp_study_init(&s);
  for (i = 0; i < nextra; i++) rp_study_problem(&s, "%s", extra_problems[i]);
  for (i = 0; i < nruns; i++) rp_study_load(&s, runs[i]); /* a bad run is recorded and left out: report what there is */
  if (c->study.diff && s.nruns != 2) {
    fprintf(stderr, "%s: --diff needs two readable runs, %d read\n", prog, s.nruns);
    rp_study_free(&s);
    return RP_EXIT_ERROR;
  }
  if (rp_study_compute(&s, o, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", prog, err);
    rp_study_free(&s);
    return RP_EXIT_ERROR;
  }
  if (c->study.diff && s.ncfg != 2) {
    fprintf(stderr, "%s: --diff needs two runs of the same application\n", prog);
    rp_study_free(&s);
    return RP_EXIT_ERROR;
  }
  if (rp_write_all(&s, c->outdir, c->force, c->plots, c->gnuplot, &c->write, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", prog, err);
    rc = RP_EXIT_ERROR;
  } else if (!c->quiet) {
    /* the same text as report.txt, plots' note included */
    char path[PATH_MAX];
    size_t len;
    char *text;
    if (rp_path(path, sizeof path, "%s/report.txt", c->outdir) == 0 && (text = rp_read_all(path, &len)) != NULL) {
      fwrite(text, 1, len, stdout);
      free(text);
    }
  }
  if (rc == RP_EXIT_OK && s.nproblems > 0) rc = RP_EXIT_PARTIAL;
  /* a study of one run is a table of one column: say what shows one run */
  if (rc != RP_EXIT_ERROR && s.nruns == 1 && !c->quiet)
    fprintf(stderr, "%s: one run: a scaling study compares several; 'popmeter view %s' draws this one\n", prog,
            runs[0]);
  rp_study_free(&s);
  return rc;
}

int rp_report_build(const char *prog, char *const *runs, int nruns, const rp_cli *c, char *const *extra_problems,
                    int nextra) {
  if (!c->study.ref_one_arg != !c->study.ref_seq_arg) {
    fprintf(stderr, "%s: the task decomposition needs both --ref-one and --ref-seq\n", prog);
    return RP_EXIT_USAGE;
  }
  rp_options o = c->study;
  pm_profile *one = NULL, *seq = NULL;
  if (o.ref_one_arg && (!(one = read_reference(prog, "--ref-one", o.ref_one_arg)) ||
                        !(seq = read_reference(prog, "--ref-seq", o.ref_seq_arg)))) {
    pm_profile_free(one);
    return RP_EXIT_ERROR;
  }
  char err[1024];
  if (one && pm_profile_references_check(one, seq, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s%s\n", prog, err, o.refs_found ? ": no task efficiency decomposition" : "");
    pm_profile_free(one);
    pm_profile_free(seq);
    if (!o.refs_found) return RP_EXIT_ERROR;
    one = seq = NULL;
  }
  o.ref_one = one;
  o.ref_seq = seq;
  int rc = report_build(prog, runs, nruns, c, &o, extra_problems, nextra);
  pm_profile_free(one);
  pm_profile_free(seq);
  return rc;
}

int pm_report_main(int argc, char **argv) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"diff", no_argument, 0, 'd'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},
                                       {"version", no_argument, 0, 'V'},
                                       RP_COMMON_OPTIONS,
                                       {0, 0, 0, 0}};
  const char *prog = "popmeter-report";
  rp_cli c;
  int opt, r;
  rp_cli_defaults(&c);
  optind = 1;
  while ((opt = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
    switch (opt) {
    case 'o': c.outdir = optarg; break;
    case 'd': c.study.diff = 1; break;
    case 'q': c.quiet = 1; break;
    case 'h': usage(stdout); return RP_EXIT_OK;
    case 'V': printf("popmeter-report %s\n", PACKAGE_VERSION); return RP_EXIT_OK;
    default:
      r = rp_cli_common(&c, opt, optarg, prog);
      if (r == 1) break;
      if (r == 0) usage(stderr);
      return RP_EXIT_USAGE;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "%s: no run given\n", prog);
    usage(stderr);
    return RP_EXIT_USAGE;
  }
  if (c.study.diff && argc - optind != 2) {
    fprintf(stderr, "%s: --diff compares exactly two runs (A B)\n", prog);
    return RP_EXIT_USAGE;
  }
  return rp_report_build(prog, argv + optind, argc - optind, &c, NULL, 0);
}
