/* popmeter: the launcher and offline viewer.
 *   popmeter run [options] -- APP [ARGS]   run APP with libpopmeter preloaded
 *   popmeter show [--full] RUN             recompute the models from a run's JSON and print the table
 *   popmeter scale [options] -- APP [ARGS] run APP at several scales and write the scaling report
 *   popmeter view [-o FILE] RUN           one self-contained HTML page of a run (view/)
 *   popmeter --help-env [--markdown]       list the POPMETER_* environment variables
 * Under MPI: mpirun -np N popmeter run -- APP (each rank's launcher execs the application). */
#define _GNU_SOURCE
#include "config.h"
#include "pm_config.h"
#include "pm_report_models.h"
#include "pm_report_summary.h"
#include <sys/stat.h>
#include "pm_profile.h"
#include "pm_profile_input.h"
#include "../reports/pm_reports.h"
#include "../view/pm_view.h"
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out) {
  fprintf(out, "Usage: popmeter run [--output DIR] [--models LIST] [--trace] [--quiet] -- APP [ARGS...]\n"
               "       popmeter show [--full|--json] [--models LIST] [--ref-one RUN --ref-seq RUN] DIR|FILE.json\n"
               "       popmeter scale --ranks 1,2,4 [--threads 1,2] [--repeat N] [--out DIR] -- APP [ARGS...]\n"
               "       popmeter view [-o FILE] [--force] DIR|FILE.json\n"
               "       popmeter --help-env [--markdown]\n"
               "       popmeter --version\n"
               "\n"
               "run    runs APP with libpopmeter preloaded; at the end of the run the efficiency table is\n"
               "       printed on standard error and popmeter.json written into the output directory.\n"
               "       With MPI: mpirun -np 4 popmeter run -- ./app\n"
               "show   recomputes every model from a run's popmeter.json (or the directory holding it) and\n"
               "       prints the summary table; --full prints every model and section, --json the models as JSON\n"
               "       (popmeter.json's \"models\"). --ref-one and --ref-seq\n"
               "       give the task model its reference runs: the same program on one worker, and its\n"
               "       sequential kernels (docs/metrics.md 6.3).\n"
               "scale  runs APP at every processes x threads configuration and writes the POP scaling\n"
               "       report (popmeter scale --help; popmeter-report builds it from existing runs).\n"
               "view   writes one self-contained HTML page of a run (default DIR/view.html): its POP table,\n"
               "       and with its trace (POPMETER_TRACE=1) the space-time view of its tasks, their\n"
               "       durations against flops, the critical path, the program's tag tree (popmeter view --help).\n");
}

static int file_exists(const char *p) { return access(p, R_OK) == 0; }

/* libpopmeter.so next to this launcher: installed (<prefix>/bin -> <prefix>/lib) or build tree. */
static int find_library(char *out, size_t n) {
  const char *env = getenv("POPMETER_LIB");
  if (env && file_exists(env)) {
    snprintf(out, n, "%s", env);
    return 0;
  }
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = '\0';
    char *dir = dirname(exe);
    const char *cands[] = {"%s/../lib/libpopmeter.so", "%s/../lib/.libs/libpopmeter.so", "%s/../lib64/libpopmeter.so"};
    for (unsigned i = 0; i < sizeof cands / sizeof *cands; i++) {
      snprintf(out, n, cands[i], dir);
      if (file_exists(out)) return 0;
    }
  }
  snprintf(out, n, "%s/libpopmeter.so", PM_LIBDIR);
  return file_exists(out) ? 0 : -1;
}

static int cmd_run(int argc, char **argv) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"models", required_argument, 0, 'm'},
                                       {"trace", no_argument, 0, 't'},        {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+o:m:tqh", opts, NULL)) != -1) {
    switch (c) {
    case 'o': setenv("POPMETER_OUTPUT", optarg, 1); break;
    case 'm': setenv("POPMETER_MODELS", optarg, 1); break;
    case 't': setenv("POPMETER_TRACE", "1", 1); break;
    case 'q': setenv("POPMETER_REPORT", "0", 1); break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "popmeter run: no application given (popmeter run -- APP ARGS)\n");
    return 2;
  }
  char lib[PATH_MAX];
  if (find_library(lib, sizeof lib) != 0) {
    fprintf(stderr, "popmeter: libpopmeter.so not found (looked next to this program and in %s; set POPMETER_LIB)\n",
            PM_LIBDIR);
    return 1;
  }
  const char *old = getenv("LD_PRELOAD");
  char *preload;
  if (old && old[0]) {
    if (asprintf(&preload, "%s:%s", lib, old) < 0) return 1;
  } else
    preload = strdup(lib);
  setenv("LD_PRELOAD", preload, 1);
  /* StarPU 1.4 loads its tool from STARPU_PROF_TOOL (the only way into a static StarPU); a tool the
   * user named stays (StarPU takes one) */
  if (!getenv("STARPU_PROF_TOOL")) setenv("STARPU_PROF_TOOL", lib, 1);
  setenv("POPMETER_TARGET", argv[optind], 1);
  execvp(argv[optind], argv + optind);
  fprintf(stderr, "popmeter run: cannot execute '%s': %m\n", argv[optind]);
  return 127;
}

static void show_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "popmeter show: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* The popmeter.json of a run given as the file or its directory. */
static void json_path(const char *arg, char *path, size_t n, char *dir, size_t dn) {
  struct stat st;
  if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(path, n, "%s/popmeter.json", arg);
    snprintf(dir, dn, "%s", arg);
  } else {
    snprintf(path, n, "%s", arg);
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", arg);
    snprintf(dir, dn, "%s", dirname(copy));
  }
}

static int cmd_show(int argc, char **argv) {
  static const struct option opts[] = {{"models", required_argument, 0, 'm'},
                                       {"full", no_argument, 0, 'f'},
                                       {"json", no_argument, 0, 'j'},
                                       {"ref-one", required_argument, 0, '1'},
                                       {"ref-seq", required_argument, 0, 's'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  /* the table follows the same POPMETER_* settings as at the end of a run (width, models, I/O) */
  pm_config cfg;
  pm_config_load(&cfg, (const char *(*)(const char *))getenv, show_warn);
  const char *models = cfg.s[PM_CFG_MODELS];
  int c, full = cfg.i[PM_CFG_REPORT] == PM_REPORT_FULL, as_json = 0;
  const char *ref_arg[2] = {NULL, NULL}; /* one worker, sequential kernels */
  optind = 1;
  while ((c = getopt_long(argc, argv, "m:fjh1:s:", opts, NULL)) != -1) {
    if (c == 'm')
      models = optarg;
    else if (c == 'f')
      full = 1;
    else if (c == 'j')
      as_json = 1;
    else if (c == '1' || c == 's')
      ref_arg[c == 's'] = optarg;
    else if (c == 'h') {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "popmeter show: expected one run directory or popmeter.json\n");
    return 2;
  }
  unsigned mask;
  char bad[64] = "";
  if (models && strcmp(models, "auto") != 0 && pm_models_parse(models, &mask, bad, sizeof bad) != 0)
    fprintf(stderr, "popmeter show: unknown model '%s' in '%s'; using the default models\n", bad, models);
  char path[PATH_MAX + 16], dir[PATH_MAX], err[PATH_MAX + 512];
  json_path(argv[optind], path, sizeof path, dir, sizeof dir);
  pm_profile *p = pm_profile_read_file(path, err, sizeof err);
  if (!p) {
    fprintf(stderr, "popmeter show: %s\n", err);
    return 1;
  }
  pm_profile *ref[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    if (!ref_arg[k]) continue;
    char rpath[PATH_MAX + 16], rdir[PATH_MAX];
    json_path(ref_arg[k], rpath, sizeof rpath, rdir, sizeof rdir);
    if (!(ref[k] = pm_profile_read_file(rpath, err, sizeof err))) {
      fprintf(stderr, "popmeter show: reference run: %s\n", err);
      pm_profile_free(ref[0]);
      pm_profile_free(p);
      return 1;
    }
  }
  if (!ref[0] != !ref[1]) fprintf(stderr, "popmeter show: the task decomposition needs both --ref-one and --ref-seq\n");
  if (ref[0] && ref[1] && pm_profile_references_check(ref[0], ref[1], err, sizeof err) != 0) {
    fprintf(stderr, "popmeter show: %s\n", err);
    pm_profile_free(ref[0]);
    pm_profile_free(ref[1]);
    pm_profile_free(p);
    return 1;
  }
  pm_report_options o = {.models = models,
                         .width = (int)cfg.i[PM_CFG_TABLE_WIDTH],
                         .io_as_useful = (int)cfg.i[PM_CFG_IO_AS_USEFUL],
                         .ref_one = ref[0],
                         .ref_seq = ref[1]};
  int rc;
  if (as_json) { /* the models as popmeter.json's "models" holds them, recomputed (with any references) */
    pm_model_set set;
    rc = pm_report_compute(p, &o, &set);
    json_t *j = rc == 0 ? pm_report_models_json(&set) : NULL;
    rc = j && json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) == 0 ? 0 : -1;
    putchar('\n');
    json_decref(j);
    pm_model_set_free(&set);
  } else if (full) {
    rc = pm_report_print_table(stdout, p, &o, NULL, 0);
  } else {
    pm_summary_options so = {.width = o.width,
                             .color = pm_report_color_wanted(stdout),
                             .where = dir,
                             .io_as_useful = o.io_as_useful,
                             .ref_one = ref[0],
                             .ref_seq = ref[1]};
    rc = pm_report_write_summary(stdout, p, &so);
  }
  pm_profile_free(ref[0]);
  pm_profile_free(ref[1]);
  pm_profile_free(p);
  return rc == 0 ? 0 : 1;
}

static int cmd_view(int argc, char **argv) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"force", no_argument, 0, 'f'},
                                       {"budget", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  static const char help[] =
      "Usage: popmeter view [-o FILE] [--force] [--budget N] DIR|FILE.json\n"
      "\n"
      "Writes one self-contained HTML page of the run: its POP table and losses, the critical path;\n"
      "with the run's trace (POPMETER_TRACE=1): a space-time view of every worker and thread (tasks\n"
      "by codelet, MPI, runtime, messages, the critical path), tasks submitted / ready / running over\n"
      "time, duration against flops per codelet with outliers; the program's tag tree (mfsolve: its\n"
      "assembly tree).\n"
      "\n"
      "  -o, --output FILE   the page (default: DIR/view.html)\n"
      "      --force         replace FILE when it exists\n"
      "      --budget N      tasks and states drawn one by one, at most (default 250000): shorter\n"
      "                      ones are drawn as density bins, every number still counts them\n"
      "\n"
      "Exit status: 0 written, 1 error, 2 usage.\n";
  const char *out = NULL;
  int force = 0, c;
  long budget = PM_VIEW_BUDGET;
  char *end;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'f': force = 1; break;
    case 'b':
      budget = strtol(optarg, &end, 10);
      if (end != optarg && !*end && budget >= 1000 && budget <= 100000000) break;
      fprintf(stderr, "popmeter view: --budget '%s': expected an integer in 1000..100000000\n", optarg);
      return 2;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "popmeter view: expected one run directory or popmeter.json\n");
    return 2;
  }
  char path[PATH_MAX + 16], dir[PATH_MAX];
  json_path(argv[optind], path, sizeof path, dir, sizeof dir);
  return pm_view_write(path, dir, out, force, (size_t)budget);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(argv[1], "show")) return cmd_show(argc - 1, argv + 1);
  if (!strcmp(argv[1], "scale")) return pm_scale_main(argc - 1, argv + 1);
  if (!strcmp(argv[1], "view")) return cmd_view(argc - 1, argv + 1);
  if (!strcmp(argv[1], "--help-env")) {
    pm_config_print_help(stdout, argc > 2 && !strcmp(argv[2], "--markdown"));
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("popmeter %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "popmeter: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
