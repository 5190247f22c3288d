/* popmeter scale: runs a scaling study and writes its report.
 *
 * For every processes x threads configuration (and repeat) it runs
 *     MPIRUN -np P  <this popmeter> run --output DIR/runs/PxT[-k] -- APP ARGS
 * with OMP_NUM_THREADS=T and STARPU_NCPU=T, keeps each run's directory (popmeter.json, and the
 * application's stdout.txt / stderr.txt with the end-of-run table), then builds the report of the
 * runs into DIR exactly as popmeter-report would. A failed run is reported and left out: the study
 * reports what it has. The launcher is the user's (--mpirun): popmeter adds nothing to its
 * environment but the thread counts, so site settings (oversubscription, running as root) stay the
 * user's decision. Progress goes to a terminal only.
 *
 * The task model's reference runs (docs/metrics.md, task efficiency) come by themselves: a program
 * declares how it runs its kernels without the runtime by the words given to --sequential (mfsolve:
 * "--executor seq"); the study then runs APP ARGS plus those words once on one process and one
 * thread (runs/sequential), and takes its 1 x 1 configuration as the one-worker run (when the study
 * has none, one more run, runs/one-worker). */
#define _GNU_SOURCE
#include "pm_reports.h"
#include "rp_cli.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LIST 64

typedef struct {
  int ranks[MAX_LIST], nranks;
  int threads[MAX_LIST], nthreads;
  int repeat;
  const char *mpirun;
  const char *sequential; /* words appended to APP ARGS for the sequential-kernels run, or NULL */
  char *const *app;       /* APP ARGS..., NULL-terminated */
  char self[PATH_MAX];    /* this popmeter, for `popmeter run` on every rank */
  char dir[PATH_MAX];     /* absolute study directory */
} scale_plan;

static void usage(FILE *out) {
  fputs("Usage: popmeter scale [options] -- APP [ARGS...]\n"
        "\n"
        "Runs APP under popmeter at every processes x threads configuration and writes the POP\n"
        "scaling report (as popmeter-report does) into the study directory; each run's output is\n"
        "kept in DIR/runs/PxT (popmeter.json, stdout.txt, stderr.txt).\n"
        "\n"
        "  --ranks LIST        process counts, e.g. 1,2,4 (default 1)\n"
        "  --threads LIST      threads per process, e.g. 1,2 (default 1): sets OMP_NUM_THREADS and\n"
        "                      STARPU_NCPU (a launcher that does not forward the environment needs\n"
        "                      e.g. --mpirun \"mpirun -x OMP_NUM_THREADS -x STARPU_NCPU\")\n"
        "  {ranks}, {threads}  in APP ARGS: replaced by the configuration's counts, for programs that\n"
        "                      take them as arguments (-- mfsolve --gen lap3d:30 --workers {threads})\n"
        "  --repeat N          runs per configuration (default 1): the report shows the median\n"
        "  --sequential ARGS   words that make APP run its kernels without the runtime (mfsolve:\n"
        "                      --sequential '--executor seq'): one more run, APP ARGS ARGS on 1\n"
        "                      process x 1 thread, and the study's 1 x 1 run (run if not in the\n"
        "                      study) are the reference runs of the task efficiency decomposition\n"
        "  --out DIR           study directory (default popmeter-scale)\n"
        "  --mpirun CMD        launcher, split on blanks (default mpirun); \"none\" runs APP\n"
        "                      directly (--ranks 1 only). Open MPI as root also needs\n"
        "                      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the\n"
        "                      environment, and more ranks than cores --oversubscribe.\n"
        "  -q, --quiet         do not print the table at the end\n"
        "report options: --reference X, --strong, --weak, --mode M, --regions N, --width N,\n"
        "                --no-plots, --gnuplot PATH, --force (reuse an existing study directory),\n"
        "                --ref-one RUN --ref-seq RUN (reference runs of the task model)\n"
        "\n"
        "Exit status: 0 fine, 1 error, 2 usage, 3 report written but some runs failed.\n",
        out);
}

static int parse_list(const char *s, int *v, int *n) {
  char *end;
  *n = 0;
  while (*s) {
    long x = strtol(s, &end, 10);
    if (end == s || x < 1 || x > 1000000 || *n == MAX_LIST || (*end && *end != ',')) return -1;
    v[(*n)++] = (int)x;
    s = *end ? end + 1 : end;
    if (*end && !*s) return -1; /* trailing comma */
  }
  return *n ? 0 : -1;
}

/* arg with every "{ranks}" and "{threads}" replaced by the configuration's counts (malloc'd): a
 * program that takes its counts from its arguments rather than from the environment
 * (mfsolve --workers {threads}). NULL out of memory. */
char *rp_scale_subst(const char *arg, int ranks, int threads) {
  static const char *const keys[2] = {"{ranks}", "{threads}"};
  char num[2][16];
  size_t len = 0;
  snprintf(num[0], sizeof num[0], "%d", ranks);
  snprintf(num[1], sizeof num[1], "%d", threads);
  for (int pass = 0; pass < 2; pass++) { /* measure, then write */
    char *out = pass ? malloc(len + 1) : NULL;
    if (pass && !out) return NULL;
    len = 0;
    for (const char *a = arg; *a;) {
      int k = !strncmp(a, keys[0], strlen(keys[0])) ? 0 : !strncmp(a, keys[1], strlen(keys[1])) ? 1 : -1;
      const char *piece = k >= 0 ? num[k] : a;
      size_t n = k >= 0 ? strlen(num[k]) : 1;
      if (out) memcpy(out + len, piece, n);
      len += n;
      a += k >= 0 ? strlen(keys[k]) : 1;
    }
    if (out) {
      out[len] = '\0';
      return out;
    }
  }
  return NULL;
}

/* argv of one run: the launcher's words, -np P, then popmeter run ... -- APP ARGS and the words of
 * extra (NULL: none) split on blanks (placeholders replaced: the strings after "--" are malloc'd and
 * freed with argv by free_run_argv). */
static char **run_argv(const scale_plan *pl, int ranks, int threads, const char *extra, const char *rundir, char *np,
                       size_t npn, char **words) {
  size_t nw = 0, na = 0, nx = 0, i = 0;
  char **argv, *save = NULL, *w, *xcopy, *xw[256];
  while (pl->app[na]) na++;
  if (strcmp(pl->mpirun, "none") != 0)
    for (w = strtok_r(words[0], " \t", &save); w && nw < 250; w = strtok_r(NULL, " \t", &save)) words[1 + nw++] = w;
  if (!(xcopy = strdup(extra ? extra : ""))) return NULL;
  for (w = strtok_r(xcopy, " \t", &save); w && nx < 256; w = strtok_r(NULL, " \t", &save)) xw[nx++] = w;
  if (!(argv = calloc(nw + na + nx + 10, sizeof *argv))) {
    free(xcopy);
    return NULL;
  }
  for (i = 0; i < nw; i++) argv[i] = words[1 + i];
  if (nw) {
    snprintf(np, npn, "%d", ranks);
    argv[i++] = "-np";
    argv[i++] = np;
  }
  argv[i++] = (char *)pl->self;
  argv[i++] = "run";
  argv[i++] = "--output";
  argv[i++] = (char *)rundir;
  argv[i++] = "--";
  for (size_t a = 0; a < na + nx; a++)
    if (!(argv[i + a] = rp_scale_subst(a < na ? pl->app[a] : xw[a - na], ranks, threads))) {
      while (a-- > 0) free(argv[i + a]);
      free(argv);
      free(xcopy);
      return NULL;
    }
  free(xcopy);
  return argv;
}

static void free_run_argv(char **argv) {
  size_t i = 0;
  while (argv[i] && strcmp(argv[i], "--") != 0) i++;
  if (argv[i])
    for (i++; argv[i]; i++) free(argv[i]);
  free(argv);
}

static int open_out(const char *dir, const char *name) {
  char p[PATH_MAX];
  if (rp_path(p, sizeof p, "%s/%s", dir, name) != 0) return -1;
  unlink(p); /* only reached for a run directory being redone (--force) or new */
  return open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs one configuration; returns the exit status (-1: could not start). */
static int run_one(const scale_plan *pl, int ranks, int threads, const char *extra, const char *rundir) {
  char np[16], tn[16], **argv, *words[256];
  int out, err, st;
  pid_t pid;
  words[0] = strdup(pl->mpirun);
  if (!words[0] || strlen(pl->mpirun) > 2000 ||
      !(argv = run_argv(pl, ranks, threads, extra, rundir, np, sizeof np, words))) {
    free(words[0]);
    return -1;
  }
  out = open_out(rundir, "stdout.txt");
  err = open_out(rundir, "stderr.txt");
  snprintf(tn, sizeof tn, "%d", threads);
  fflush(NULL);
  pid = (out < 0 || err < 0) ? -1 : fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    setenv("OMP_NUM_THREADS", tn, 1);
    setenv("STARPU_NCPU", tn, 1);
    execvp(argv[0], argv);
    fprintf(stderr, "popmeter scale: cannot execute '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  st = -1;
  if (pid > 0)
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
  if (out >= 0) close(out);
  if (err >= 0) close(err);
  free_run_argv(argv);
  free(words[0]);
  if (pid < 0 || st == -1) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int has_profile(const char *dir) {
  char p[PATH_MAX];
  return rp_path(p, sizeof p, "%s/popmeter.json", dir) == 0 && access(p, R_OK) == 0;
}

static int is_empty_dir(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int empty = 1;
  if (!d) return 0;
  while (empty && (e = readdir(d)) != NULL) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
  closedir(d);
  return empty;
}

/* The study directory must be new or empty (an earlier study, or another report, would otherwise
 * be found only after all the runs): --force redoes the runs in place and replaces the report. */
static int prepare_dir(scale_plan *pl, const char *dir, int force) {
  char runs[PATH_MAX], err[512];
  if (rp_make_dirs(dir, err, sizeof err) != 0) {
    fprintf(stderr, "popmeter scale: %s\n", err);
    return -1;
  }
  if (!realpath(dir, pl->dir)) {
    fprintf(stderr, "popmeter scale: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  if (rp_path(runs, sizeof runs, "%s/runs", pl->dir) != 0) {
    fprintf(stderr, "popmeter scale: %s: path too long\n", dir);
    return -1;
  }
  if (!force && !is_empty_dir(pl->dir)) {
    fprintf(stderr,
            "popmeter scale: %s is not empty: it may hold a study (use --force to redo "
            "it)\n",
            dir);
    return -1;
  }
  if (rp_make_dirs(runs, err, sizeof err) != 0) {
    fprintf(stderr, "popmeter scale: %s\n", err);
    return -1;
  }
  return 0;
}

/* The runs' outcome: directories with a profile (ok) and messages for the others (bad). */
typedef struct {
  char **ok, **bad;
  int nok, nbad, done, total, tty;
} run_log;

/* One run into DIR/runs/NAME (P processes x T threads, APP ARGS + extra), shown on a terminal as
 * "[k/total] LABEL ... time"; returns its directory (in log->ok) or NULL (a message in log->bad). */
static const char *study_run(const scale_plan *pl, run_log *log, int ranks, int threads, const char *extra,
                             const char *name, const char *label) {
  char rundir[PATH_MAX], err[512], old[PATH_MAX];
  double t0 = now();
  int st = -1, good;
  log->done++;
  if (log->tty) fprintf(stderr, "popmeter scale: [%d/%d] %s ...", log->done, log->total, label);
  if (rp_path(rundir, sizeof rundir, "%s/runs/%s", pl->dir, name) == 0 && rp_make_dirs(rundir, err, sizeof err) == 0) {
    if (rp_path(old, sizeof old, "%s/popmeter.json", rundir) == 0)
      unlink(old); /* --force: a stale profile would send the new one elsewhere */
    st = run_one(pl, ranks, threads, extra, rundir);
  }
  good = st == 0 && has_profile(rundir);
  if (log->tty) fprintf(stderr, " %.1f s%s\n", now() - t0, good ? "" : ", failed");
  if (good) {
    if ((log->ok[log->nok] = strdup(rundir)) != NULL) return log->ok[log->nok++];
  } else if (asprintf(&log->bad[log->nbad],
                      st < 0    ? "%s: the run could not be started"
                      : st == 0 ? "%s: the run wrote no popmeter.json (see stderr.txt there)"
                                : "%s: the run failed with exit status %d (see stderr.txt there)",
                      rundir, st) >= 0) {
    log->nbad++;
  }
  return NULL;
}

static int has_config(const scale_plan *pl, int ranks, int threads) {
  int i, j, r = 0, t = 0;
  for (i = 0; i < pl->nranks; i++) r |= pl->ranks[i] == ranks;
  for (j = 0; j < pl->nthreads; j++) t |= pl->threads[j] == threads;
  return r && t;
}

static int execute(scale_plan *pl, rp_cli *c) {
  int study_one = has_config(pl, 1, 1), i, j, k, rc;
  int refs = pl->sequential && !c->study.ref_one_arg && !c->study.ref_seq_arg;
  run_log log = {.total = pl->nranks * pl->nthreads * pl->repeat, .tty = isatty(STDERR_FILENO)};
  const char *one = NULL, *seq = NULL;
  if (refs) log.total += study_one ? 1 : 2;
  log.ok = calloc((size_t)log.total + 1, sizeof *log.ok);
  log.bad = calloc((size_t)log.total + 1, sizeof *log.bad);
  if (!log.ok || !log.bad) {
    free(log.ok);
    free(log.bad);
    return RP_EXIT_ERROR;
  }
  for (i = 0; i < pl->nranks; i++)
    for (j = 0; j < pl->nthreads; j++)
      for (k = 1; k <= pl->repeat; k++) {
        char name[64], label[128];
        int p = pl->ranks[i], t = pl->threads[j], n;
        if (pl->repeat > 1)
          snprintf(name, sizeof name, "%dx%d-%d", p, t, k);
        else
          snprintf(name, sizeof name, "%dx%d", p, t);
        n = snprintf(label, sizeof label, "%d process%s x %d thread%s", p, p == 1 ? "" : "es", t, t == 1 ? "" : "s");
        if (pl->repeat > 1) snprintf(label + n, sizeof label - (size_t)n, ", repeat %d/%d", k, pl->repeat);
        const char *dir = study_run(pl, &log, p, t, NULL, name, label);
        if (p == 1 && t == 1 && !one) one = dir; /* the first 1 x 1 run that succeeded */
      }
  int nstudy = log.nok; /* the reference runs below are not columns of the study */
  if (refs) {
    if (!study_one) one = study_run(pl, &log, 1, 1, NULL, "one-worker", "reference: 1 process x 1 thread");
    seq = study_run(pl, &log, 1, 1, pl->sequential, "sequential", "reference: sequential kernels");
    if (one && seq) {
      c->study.ref_one_arg = one;
      c->study.ref_seq_arg = seq;
      c->study.refs_found = 1;
    } else {
      fprintf(stderr, "popmeter scale: a reference run failed: no task efficiency decomposition\n");
    }
  }
  c->outdir = pl->dir;
  rc = nstudy ? rp_report_build("popmeter scale", log.ok, nstudy, c, log.bad, log.nbad) : RP_EXIT_ERROR;
  if (!nstudy) {
    for (i = 0; i < log.nbad; i++) fprintf(stderr, "popmeter scale: %s\n", log.bad[i]);
    fprintf(stderr, "popmeter scale: no run succeeded: no report\n");
  }
  for (i = 0; i < log.nok; i++) free(log.ok[i]);
  for (i = 0; i < log.nbad; i++) free(log.bad[i]);
  free(log.ok);
  free(log.bad);
  return rc;
}

int pm_scale_main(int argc, char **argv) {
  static const struct option opts[] = {{"ranks", required_argument, 0, 'r'},
                                       {"threads", required_argument, 0, 't'},
                                       {"repeat", required_argument, 0, 'n'},
                                       {"sequential", required_argument, 0, 's'},
                                       {"out", required_argument, 0, 'o'},
                                       {"mpirun", required_argument, 0, 'm'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},
                                       RP_COMMON_OPTIONS,
                                       {0, 0, 0, 0}};
  scale_plan pl = {.ranks = {1}, .nranks = 1, .threads = {1}, .nthreads = 1, .repeat = 1, .mpirun = "mpirun"};
  const char *dir = "popmeter-scale";
  rp_cli c;
  ssize_t len;
  int opt, r, i;
  char *end;
  rp_cli_defaults(&c);
  optind = 1;
  while ((opt = getopt_long(argc, argv, "+o:qh", opts, NULL)) != -1) {
    switch (opt) {
    case 'r':
      if (parse_list(optarg, pl.ranks, &pl.nranks) != 0) goto bad_value;
      break;
    case 't':
      if (parse_list(optarg, pl.threads, &pl.nthreads) != 0) goto bad_value;
      break;
    case 'n':
      pl.repeat = (int)strtol(optarg, &end, 10);
      if (end == optarg || *end || pl.repeat < 1 || pl.repeat > 1000) goto bad_value;
      break;
    case 'o': dir = optarg; break;
    case 'm': pl.mpirun = optarg; break;
    case 's':
      if (strspn(optarg, " \t") == strlen(optarg) || strlen(optarg) > 2000) goto bad_value;
      pl.sequential = optarg;
      break;
    case 'q': c.quiet = 1; break;
    case 'h': usage(stdout); return RP_EXIT_OK;
    default:
      r = rp_cli_common(&c, opt, optarg, "popmeter scale");
      if (r == 1) break;
      if (r == 0) usage(stderr);
      return RP_EXIT_USAGE;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "popmeter scale: no application given (popmeter scale [options] -- APP ARGS)\n");
    return RP_EXIT_USAGE;
  }
  if (!pl.mpirun[0] || strspn(pl.mpirun, " \t") == strlen(pl.mpirun)) {
    fprintf(stderr, "popmeter scale: --mpirun is empty (use \"none\" to run without a launcher)\n");
    return RP_EXIT_USAGE;
  }
  if (!strcmp(pl.mpirun, "none"))
    for (i = 0; i < pl.nranks; i++)
      if (pl.ranks[i] != 1) {
        fprintf(stderr, "popmeter scale: --mpirun none runs one process: use --ranks 1\n");
        return RP_EXIT_USAGE;
      }
  pl.app = argv + optind;
  len = readlink("/proc/self/exe", pl.self, sizeof pl.self - 1);
  if (len <= 0) {
    fprintf(stderr, "popmeter scale: cannot find the popmeter program itself: %s\n", strerror(errno));
    return RP_EXIT_ERROR;
  }
  pl.self[len] = '\0';
  if (prepare_dir(&pl, dir, c.force) != 0) return RP_EXIT_ERROR;
  return execute(&pl, &c);
bad_value:
  fprintf(stderr, "popmeter scale: invalid value '%s' for an option\n", optarg);
  return RP_EXIT_USAGE;
}
