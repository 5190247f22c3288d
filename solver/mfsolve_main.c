/*
 * mfsolve_main.c — the mfsolve command: read or generate an SPD matrix, analyse, factor, solve,
 * and report per-phase times, flops, factor size, memory (predicted vs measured), tasks per type and
 * the residual.
 *
 * Executors: the sequential one, or StarPU tasks on --workers CPU workers; started by an MPI
 * launcher (mpirun -np R mfsolve ...), the processes factor and solve together through StarPU-MPI.
 * Every process reads the same input and runs the same (deterministic, checked) analysis; process 0
 * prints. Exit codes: 0 success, 1 the problem failed (unreadable file, not SPD, ...), 2 bad command
 * line.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "mfs.h"
#include "popmeter.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "mfsolve";

/* Large fronts' tiles: this many times nb, unless --nb is given (parse_args says where and why). */
#define LARGE_TILES 2
/* The sequential executor's largest fronts' tiles: this many times nb, in fronts of twice as many
 * rows (parse_args). */
#define HUGE_TILES 4

static void usage(FILE *out) {
  mfs_options d;
  mfs_options_default(&d);
  fprintf(out,
          "Usage: %s (--matrix FILE.mtx | --gen SPEC) [options]\n"
          "       mpirun -np R %s ... (distributed: every process gets the same arguments)\n"
          "Multifrontal sparse Cholesky: analysis, tiled factorization, solve, residual.\n"
          "\n"
          "Input (exactly one):\n"
          "  -m, --matrix FILE     Matrix Market file (coordinate, real/integer, general/symmetric, SPD)\n"
          "  -g, --gen SPEC        generated matrix: lap2d:N | lap3d:N | lap3d27:N\n"
          "                        (N may be NXxNY / NXxNYxNZ for rectangular grids)\n"
          "Options:\n"
          "  -o, --ordering NAME   fill-reducing ordering: metis, amd or natural (default %s)\n"
          "      --nb N            tile size of the fronts (default %d; %d in fronts of >= %d rows and\n"
          "                        %d in fronts of >= %d (sequential executor), %d in fronts of\n"
          "                        >= %d rows (task-based, <= 2 workers per process), unless\n"
          "                        --no-subtrees)\n"
          "      --amalg T         amalgamation: fraction of explicit zeros a merged front may hold\n"
          "                        (default %.2f; fronts of <= 48 columns merge more freely, as in\n"
          "                        CHOLMOD; 0 keeps the fundamental supernodes)\n"
          "      --refine N        at most N steps of iterative refinement (default 0)\n"
          "      --workers W       CPU workers per process for the task-based executor (default:\n"
          "                        STARPU_NCPU when set, else 1)\n"
          "      --executor E      seq or starpu (default: starpu when --workers > 1, --sched is given\n"
          "                        or an MPI launcher started the command, else seq)\n"
          "      --sched NAME      StarPU scheduling policy (default: STARPU_SCHED, else StarPU's)\n"
          "      --mpi-progress M  on several processes, who runs StarPU-MPI's progression: thread (its\n"
          "                        own thread), worker (worker 0, between its tasks) or auto (default:\n"
          "                        worker when the CPUs leave none to spare for a thread per process)\n"
          "      --mem-relax X     the task-based executor's memory window: X times the contribution-block\n"
          "                        footprint of its submission order (default: 1.2 x that footprint\n"
          "                        with every subtree task's scratch given back at once, or with several\n"
          "                        workers the footprint of their subtree tasks side by side if larger)\n"
          "      --no-subtrees     run every front as tile tasks (no sequential subtree tasks); with\n"
          "                        --executor seq, the task-based executor's tiles\n"
          "      --ranks R         without MPI: report the proportional mapping onto R processes\n"
          "      --solution FILE   write the computed solution (Matrix Market array, %%.17g)\n"
          "  -q, --quiet           no progress display (it is shown only on a terminal anyway)\n"
          "  -h, --help            this help\n"
          "\n"
          "Environment:\n"
          "  STARPU_NCPU           CPU workers per process when --workers is not given\n"
          "  MFS_MPI_POLL_SLEEP_US on several processes, the longest sleep (us) of StarPU-MPI's progression\n"
          "                        thread between polls that find nothing (default 200; 0: no sleep)\n"
          "  STARPU_MPI_DRIVER_CALL_FREQUENCY  when set, StarPU-MPI's own: > 0 is the worker mode\n"
          "  MFS_IDLE_NAP_US       how long (us) an idle StarPU worker sleeps at a time instead of polling\n"
          "                        for tasks on its CPU (default 50; 0: poll, as StarPU does)\n"
          "\n"
          "Orderings built in:%s%s natural. Task-based executor: %s.\n",
          prog, prog, mfs_ordering_name(d.ordering), d.nb, LARGE_TILES * d.nb, MFS_BIG_FRONT_TILES * d.nb,
          HUGE_TILES * d.nb, 2 * HUGE_TILES * d.nb, LARGE_TILES * d.nb, MFS_BIG_FRONT_TILES * LARGE_TILES * d.nb,
          d.amalg, mfs_ordering_available(MFS_ORDER_METIS) ? " metis" : "",
          mfs_ordering_available(MFS_ORDER_AMD) ? " amd" : "",
          mfs_starpu_built() ? "StarPU + StarPU-MPI" : "not built (no StarPU)");
}

static int bad_arg(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
  return 2;
}

static int parse_long(const char *s, long lo, long hi, long *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno || end == s || *end || x < lo || x > hi) return 0;
  *v = x;
  return 1;
}

/* ---- phases: progress on a terminal (one rewritten line, at most 5 updates a second), and a user
 * region of popmeter when it measures the run (preloaded or linked: the weak references are NULL
 * without it), so that its profile tells the program's own phases apart: mfs_read, mfs_analysis
 * (the ordering, on one thread), mfs_factorization, mfs_solve. */
#pragma weak pm_region_begin
#pragma weak pm_region_end

typedef struct {
  int on;
  double last;
  const char *phase;
  const char *region; /* the phase's open popmeter region, NULL: none */
} progress_state;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void progress_phase(progress_state *p, const char *phase, const char *region) {
  if (pm_region_begin) pm_region_begin(region);
  p->region = region;
  if (!p->on) return;
  fflush(stdout); /* report lines first, then the progress line under them */
  p->phase = phase;
  fprintf(stderr, "\r\033[K%s: %s ...", prog, phase);
  fflush(stderr);
}

static void progress_cb(void *ctx, double done, double total) {
  progress_state *p = ctx;
  double t = now();
  if (!p->on || (t - p->last < 0.2 && done < total)) return;
  p->last = t;
  fprintf(stderr, "\r\033[K%s: %s %5.1f %%", prog, p->phase, total > 0 ? 100.0 * done / total : 100.0);
  fflush(stderr);
}

static void progress_done(progress_state *p) {
  if (p->region && pm_region_end) pm_region_end(p->region);
  p->region = NULL;
  if (!p->on) return;
  fprintf(stderr, "\r\033[K");
  fflush(stderr);
}

static double mb(double bytes) { return bytes / 1e6; }

typedef struct {
  const char *matrix, *gen, *sched, *solution;
  mfs_options opt;
  long refine, workers, ranks;
  int executor;      /* -1 default, 0 seq, 1 starpu */
  int workers_given; /* --workers was on the command line */
  int nb_given;      /* --nb was on the command line */
  double mem_relax;
  int prune, quiet;
  mfs_mpi_progress mpi_progress;
} cli;

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, cli *c) {
  memset(c, 0, sizeof *c);
  mfs_options_default(&c->opt);
  c->workers = 1;
  c->ranks = 0;
  c->executor = -1;
  mfs_starpu_options so_default;
  mfs_starpu_options_default(&so_default);
  c->mem_relax = so_default.mem_relax;
  c->prune = 1;
  long v;
  enum {
    OPT_NB = 256,
    OPT_AMALG,
    OPT_REFINE,
    OPT_WORKERS,
    OPT_RANKS,
    OPT_EXECUTOR,
    OPT_SCHED,
    OPT_PROGRESS,
    OPT_RELAX,
    OPT_NOSUB,
    OPT_SOLUTION
  };
  static const struct option longopts[] = {{"matrix", required_argument, NULL, 'm'},
                                           {"gen", required_argument, NULL, 'g'},
                                           {"ordering", required_argument, NULL, 'o'},
                                           {"nb", required_argument, NULL, OPT_NB},
                                           {"amalg", required_argument, NULL, OPT_AMALG},
                                           {"refine", required_argument, NULL, OPT_REFINE},
                                           {"workers", required_argument, NULL, OPT_WORKERS},
                                           {"ranks", required_argument, NULL, OPT_RANKS},
                                           {"executor", required_argument, NULL, OPT_EXECUTOR},
                                           {"sched", required_argument, NULL, OPT_SCHED},
                                           {"mpi-progress", required_argument, NULL, OPT_PROGRESS},
                                           {"mem-relax", required_argument, NULL, OPT_RELAX},
                                           {"no-subtrees", no_argument, NULL, OPT_NOSUB},
                                           {"solution", required_argument, NULL, OPT_SOLUTION},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"help", no_argument, NULL, 'h'},
                                           {NULL, 0, NULL, 0}};
  opterr = 0; /* our own messages, with the exit code 2 */
  int ch;
  while ((ch = getopt_long(argc, argv, ":m:g:o:qh", longopts, NULL)) != -1) {
    switch (ch) {
    case 'm':
      if (c->matrix || c->gen) return bad_arg("give exactly one of --matrix and --gen%s%s", "", "");
      c->matrix = optarg;
      break;
    case 'g':
      if (c->matrix || c->gen) return bad_arg("give exactly one of --matrix and --gen%s%s", "", "");
      c->gen = optarg;
      break;
    case 'o':
      if (strcmp(optarg, "metis") == 0)
        c->opt.ordering = MFS_ORDER_METIS;
      else if (strcmp(optarg, "amd") == 0)
        c->opt.ordering = MFS_ORDER_AMD;
      else if (strcmp(optarg, "natural") == 0)
        c->opt.ordering = MFS_ORDER_NATURAL;
      else
        return bad_arg("invalid ordering '%s'%s (expected metis, amd or natural)", optarg, "");
      if (!mfs_ordering_available(c->opt.ordering))
        return bad_arg("ordering '%s' is not built into this mfsolve%s", optarg, "");
      break;
    case OPT_NB:
      if (!parse_long(optarg, 1, 65536, &v))
        return bad_arg("invalid --nb '%s'%s (expected an integer in 1..65536)", optarg, "");
      c->opt.nb = (int)v;
      c->nb_given = 1;
      break;
    case OPT_AMALG:
    case OPT_RELAX: {
      char *end;
      errno = 0;
      double t = strtod(optarg, &end);
      if (ch == OPT_AMALG) {
        if (errno || end == optarg || *end || !(t >= 0 && t <= 1))
          return bad_arg("invalid --amalg '%s'%s (expected a fraction in [0, 1])", optarg, "");
        c->opt.amalg = t;
      } else {
        if (errno || end == optarg || *end || !(t >= 1 && t <= 1000))
          return bad_arg("invalid --mem-relax '%s'%s (expected a number in [1, 1000])", optarg, "");
        c->mem_relax = t;
      }
      break;
    }
    case OPT_REFINE:
      if (!parse_long(optarg, 0, 100, &c->refine))
        return bad_arg("invalid --refine '%s'%s (expected an integer in 0..100)", optarg, "");
      break;
    case OPT_WORKERS:
      if (!parse_long(optarg, 1, 4096, &c->workers))
        return bad_arg("invalid --workers '%s'%s (expected an integer in 1..4096)", optarg, "");
      c->workers_given = 1;
      break;
    case OPT_RANKS:
      if (!parse_long(optarg, 1, 1 << 20, &c->ranks))
        return bad_arg("invalid --ranks '%s'%s (expected an integer in 1..1048576)", optarg, "");
      break;
    case OPT_EXECUTOR:
      if (strcmp(optarg, "seq") == 0)
        c->executor = 0;
      else if (strcmp(optarg, "starpu") == 0)
        c->executor = 1;
      else
        return bad_arg("invalid --executor '%s'%s (expected seq or starpu)", optarg, "");
      break;
    case OPT_SCHED:
      if (!*optarg) return bad_arg("invalid --sched '%s'%s (expected a StarPU policy name)", optarg, "");
      c->sched = optarg;
      break;
    case OPT_PROGRESS:
      if (strcmp(optarg, "auto") == 0)
        c->mpi_progress = MFS_MPI_PROGRESS_AUTO;
      else if (strcmp(optarg, "thread") == 0)
        c->mpi_progress = MFS_MPI_PROGRESS_THREAD;
      else if (strcmp(optarg, "worker") == 0)
        c->mpi_progress = MFS_MPI_PROGRESS_WORKER;
      else
        return bad_arg("invalid --mpi-progress '%s'%s (expected auto, thread or worker)", optarg, "");
      break;
    case OPT_NOSUB: c->prune = 0; break;
    case OPT_SOLUTION: c->solution = optarg; break;
    case 'q': c->quiet = 1; break;
    case 'h': usage(stdout); return 0;
    case ':': return bad_arg("option '%s' needs an argument%s", argv[optind - 1], "");
    default: return bad_arg("unknown option '%s'%s", argv[optind - 1], "");
    }
  }
  if (optind < argc) return bad_arg("unexpected argument '%s'%s", argv[optind], "");
  if (!c->matrix && !c->gen) return bad_arg("no matrix: give --matrix FILE or --gen SPEC%s%s", "", "");
  /* StarPU's own variable, as a StarPU program would honour it: the runtime is started with the
   * configuration taking precedence over the environment, so the count must come from here, and
   * scaling tools (popmeter scale --threads) set STARPU_NCPU for every configuration */
  const char *ncpu = getenv("STARPU_NCPU");
  if (!c->workers_given && c->executor != 0 && ncpu && *ncpu && !parse_long(ncpu, 1, 4096, &c->workers))
    return bad_arg("invalid STARPU_NCPU '%s'%s (expected an integer in 1..4096, or --workers W)", ncpu, "");
  int mpi = mfs_mpi_launched();
  if (c->executor < 0) c->executor = mfs_starpu_built() && (c->workers > 1 || c->sched || mpi);
  if (c->executor == 1 && !mfs_starpu_built())
    return bad_arg("the task-based executor is not built into this mfsolve (no StarPU)%s%s", "", "");
  if (c->executor == 0 && c->workers > 1)
    return bad_arg("--workers %s needs the task-based executor (--executor starpu)%s", "> 1", "");
  /* The sequential executor runs each front's operations one after the other: a large front gains
   * from larger tiles (fewer, larger BLAS calls, less packing of operands per flop: OpenBLAS's
   * DGEMM on one core 50.8 GFlop/s at 1024 against 48.5 at 512, DSYRK 48.9 against 42.4), the
   * task-based executor needs its tiles for the workers to share. Small fronts keep 512: their
   * diagonal tiles are stored whole, and larger ones only add memory (lap3d27:40, every front at
   * 1024: +14 MB and 2.6 % slower). One core, interleaved pairs against --nb 512: lap3d:60 faster
   * in 16 of 18 (-0.20 s of 5.6 over 12, +0.02 over another 6), lap3d:50 9 of 10 (-0.08 s of 2.1),
   * lap3d27:40 5 of 10 (+0.002 s of 0.84); predicted peaks +4.6 %, +4.7 %, +2.4 %.
   * The task-based executor on at most 2 workers per process takes them in fronts of at least 4 of
   * them (4096 rows: lap3d:60's top fronts; lap3d:50's and lap3d27:40's are smaller): their tiles
   * still keep 2 workers busy. lap3d:60, interleaved pairs: 1 process x 2 workers faster in 18 of
   * 24 over three series (-0.10 to -0.24 s of 3.1-3.5), 2 processes x 1 worker 11 of 16 over two
   * (-0.12 s of 3.5-3.6); predicted peak per process +3 % and +11 %. 1024 from 2048 rows instead
   * lost 5 % on lap3d27:40 (its top fronts, 2400 rows, left the workers too few tiles). More
   * workers per process keep 512 (not measured: a machine of 2 CPUs).
   * --no-subtrees keeps 512 everywhere: the task model's reference runs (popmeter scale --sequential)
   * must run the very operations the task-based runs do.
   * The sequential executor takes tiles of 2048 in fronts of at least twice that many rows
   * (lap3d:60's top fronts; none on lap3d:50 or lap3d27:40): one core, per-operation timers in the
   * fronts of >= 4096 rows, interleaved pairs against 1024 there: 5 of 6, 7 of 10 faster (medians
   * -0.12 and -0.22 s of 2.3-3.2 s), the whole factorization 4 of 6 and 7 of 10 (-0.14, -0.26 s of
   * ~5-6); predicted peak +4.9 % (1089 MB against CHOLMOD's 1048). Tiles of 2048 from 2048 rows
   * instead lost on lap3d:50 (+0.30 s, 5 of 6 slower). */
  if (!c->nb_given && c->prune && (c->executor == 0 || c->workers <= 2)) {
    c->opt.nb_big = LARGE_TILES * c->opt.nb;
    if (c->executor)
      c->opt.nb_big_from = MFS_BIG_FRONT_TILES * c->opt.nb_big;
    else
      c->opt.nb_huge = HUGE_TILES * c->opt.nb;
  }
  return -1;
}

static void print_tasks(const char *label, const int64_t *t, double flops) {
  int64_t total = 0;
  for (int k = 0; k < MFS_NTASKTYPES; k++) total += t[k];
  printf("%-16s%lld:", label, (long long)total);
  for (int k = 0; k < MFS_NTASKTYPES; k++) printf("%s %s %lld", k ? "," : "", mfs_task_name(k), (long long)t[k]);
  printf("; task flops %.10e\n", flops);
}

static void report_analysis(const cli *c, const mfs_symbolic *S, int nranks) {
  double t_an = S->time_order + S->time_symbolic;
  printf("analysis        %.3f s (ordering %s %.3f s, symbolic %.3f s)\n", t_an, mfs_ordering_name(c->opt.ordering),
         S->time_order, S->time_symbolic);
  int32_t big = 0;
  for (int32_t f = 1; f < S->nfronts; f++)
    if (S->fronts[f].nrow > S->fronts[big].nrow) big = f;
  char nb_big[96] = "", nb_huge[48] = "";
  if (c->opt.nb_huge > 0)
    snprintf(nb_huge, sizeof nb_huge, ", %d in fronts of >= %lld", c->opt.nb_huge,
             (long long)mfs_huge_front_rows(&c->opt));
  if (c->opt.nb_big > 0)
    snprintf(nb_big, sizeof nb_big, " (%d in fronts of >= %lld%s rows)", c->opt.nb_big,
             (long long)mfs_big_front_rows(&c->opt), nb_huge);
  printf("fronts          %d (%d fundamental supernodes, amalgamation %.3g), largest %d x %d with %d own columns, "
         "nb = %d%s, tiles %lld\n",
         S->nfronts, S->nsupernodes, c->opt.amalg, S->fronts[big].nrow, S->fronts[big].nrow, S->fronts[big].ncol,
         c->opt.nb, nb_big, (long long)S->ntiles);
  printf("nnz(L)          %lld (stored %lld: %.1f %% explicit zeros from amalgamation), factor size %.1f MB\n",
         (long long)S->nnz_l, (long long)S->nnz_l_stored,
         100.0 * (double)(S->nnz_l_stored - S->nnz_l) / (double)S->nnz_l_stored, mb(S->mem_factor));
  printf("flops           %.4g (exact factor %.4g; potrf %.3g, trsm %.3g, syrk %.3g, gemm %.3g), assembly %.3g adds\n",
         S->flops, S->flops_exact, S->flops_type[MFS_OP_POTRF], S->flops_type[MFS_OP_TRSM], S->flops_type[MFS_OP_SYRK],
         S->flops_type[MFS_OP_GEMM], S->flops_type[MFS_OP_ASSEMBLE]);
  printf("operations      %lld:", (long long)S->nops);
  for (int t = 0; t < MFS_NOPTYPES; t++)
    printf("%s %s %lld", t ? "," : "", mfs_op_name((mfs_optype)t), (long long)S->nops_type[t]);
  printf("\n");
  mfs_pruning P;
  mfs_error err;
  long workers = c->executor ? c->workers * nranks : 1;
  if (c->prune && mfs_prune(S, (int)workers, &P, &err) == MFS_OK) {
    printf("subtrees        %ld worker(s): layer of %d fronts, %d sequential subtrees holding %.1f %% of the "
           "flops, layer balance %.2f, threshold %.2g\n",
           workers, P.nlayer, P.nsubtrees, 100.0 * P.subtree_flops / S->flops, P.balance, P.threshold);
    mfs_pruning_free(&P);
  }
  long ranks = nranks > 1 || c->ranks == 0 ? nranks : c->ranks;
  int32_t *owner = malloc(((size_t)S->nfronts + 1) * sizeof *owner);
  double *load = malloc((size_t)ranks * sizeof *load);
  if (owner && load && mfs_map_proportional(S, (int)ranks, owner, NULL, NULL, load, &err) == MFS_OK) {
    double mx = 0, sum = 0;
    for (long r = 0; r < ranks; r++) {
      sum += load[r];
      if (load[r] > mx) mx = load[r];
    }
    printf("mapping         %ld rank(s), proportional, one-rank subtrees rebalanced: max/mean flops per rank %.2f "
           "(shared fronts cut by rows)\n",
           ranks, sum > 0 ? mx / (sum / ranks) : 1.0);
  }
  free(owner);
  free(load);
}

static void report_factorization(const cli *c, const mfs_symbolic *S, const mfs_factor *F) {
  const mfs_exec_stats *X = &F->exec;
  printf("blas            %s\n", mfs_blas_core_note());
  if (c->executor) {
    printf("executor        starpu: %d process(es) x %d worker(s), scheduler %s; %d tiled fronts (%d shared by "
           "several processes), %d sequential subtree tasks\n",
           X->nranks, X->workers, X->sched, X->tiled_fronts, X->shared_fronts, X->subtrees);
    if (X->nranks > 1) {
      if (X->mpi_progress_worker)
        printf("mpi progress    worker 0 of each process runs StarPU-MPI's progression between its tasks (%s)\n",
               X->mpi_progress_why);
      else if (X->mpi_poll_sleep_us > 0)
        printf("mpi progress    StarPU-MPI's progression thread sleeps up to %d us between fruitless polls\n",
               X->mpi_poll_sleep_us);
      else
        printf("mpi progress    StarPU-MPI's progression thread polls without sleeping\n");
      if (X->unpinned_why)
        printf("placement       workers not pinned (%s); %d of %d processes pinned theirs\n", X->unpinned_why,
               X->pinned_procs, X->nranks);
      else
        printf("placement       workers pinned one per CPU on each machine (%d of %d processes)\n", X->pinned_procs,
               X->nranks);
    }
    print_tasks("tasks", X->tasks, X->flops_tasks);
  } else {
    printf("executor        sequential\n");
  }
  double t = X->time_max;
  printf("factorization   %.3f s, %.2f GFlop/s (memory set-up %.3f s, then operations %.3f s)\n", t,
         t > 0 ? S->flops / t * 1e-9 : 0.0, X->time_setup, t - X->time_setup);
  if (!c->executor) {
    printf("memory          numeric phase: predicted peak %.1f MB (factor %.1f MB + CB region %.1f MB + tables "
           "%.1f MB; live data at most %.1f MB), measured peak %.1f MB (measured/predicted %.3f)\n",
           mb(S->mem_peak), mb(S->mem_factor), mb(S->mem_cb_region), mb(S->mem_fixed), mb(S->mem_peak_live),
           mb(F->mem_peak), (double)F->mem_peak / (double)S->mem_peak);
    return;
  }
  const char *per = X->nranks > 1 ? " (max over processes)" : "";
  char worst[64] = ""; /* the maxima can come from different processes: the budget holds per process */
  if (X->nranks > 1) snprintf(worst, sizeof worst, ", of one process at most %.3f", X->mem_ratio_max);
  printf("memory          numeric phase%s: predicted peak %.1f MB, measured peak %.1f MB (measured/predicted %.3f%s); "
         "the sequential executor's peak with these tiles %.1f MB\n",
         per, mb(X->mem_predicted_max), mb(X->mem_peak_max), (double)X->mem_peak_max / (double)X->mem_predicted_max,
         worst, mb(S->mem_peak));
  printf("memory window   process %d: factor %.1f MB + tables %.1f MB + CB window %.1f MB (%.2f x %.1f MB, the "
         "CB footprint of the submission order); %lld wait(s), %lld overflow(s); received tiles peak %.1f MB (%.1f MB "
         "outside the window)\n",
         X->rank, mb(X->mem_factor), mb(X->mem_tables), mb(X->mem_window), X->mem_relax, mb(X->mem_cb_min),
         (long long)X->window_waits, (long long)X->window_overflows, mb(X->mem_recv_peak), mb(X->mem_recv_heap_peak));
}

static int write_solution(const char *path, const double *x, int32_t n) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot write the solution to %s: %s\n", prog, path, strerror(errno));
    return 0;
  }
  fprintf(f, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
  for (int32_t i = 0; i < n; i++) fprintf(f, "%.17g\n", x[i]);
  if (fclose(f) != 0) {
    fprintf(stderr, "%s: cannot write the solution to %s: %s\n", prog, path, strerror(errno));
    return 0;
  }
  return 1;
}

/* Solve with b = A x* for a known x*, print times and residuals; returns the exit code. */
static int solve_and_check(const cli *c, const mfs_matrix *A, const mfs_factor *F, int root, progress_state *ps) {
  progress_phase(ps, "solve", "mfs_solve");
  double *xs = malloc((size_t)A->n * sizeof *xs), *b = malloc((size_t)A->n * sizeof *b);
  double *x = malloc((size_t)A->n * sizeof *x), *res = malloc(((size_t)c->refine + 1) * sizeof *res);
  if (!xs || !b || !x || !res) {
    progress_done(ps);
    fprintf(stderr, "%s: out of memory\n", prog);
    return 1;
  }
  uint64_t seed = 88172645463325252ull;
  for (int32_t i = 0; i < A->n; i++) { /* xorshift: reproducible, not special like all ones */
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    xs[i] = (double)(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
  mfs_matrix_symv(A, xs, b);
  double t0 = now();
  int iters = 0;
  mfs_error err;
  mfs_status st = mfs_solve_refine(F, A, b, x, (int)c->refine, res, &iters, &err);
  double t_solve = now() - t0;
  mfs_runtime_allreduce(&t_solve, 1, 1);
  progress_done(ps);
  int code = 0;
  if (st != MFS_OK) {
    if (root) fprintf(stderr, "%s: solve failed: %s\n", prog, err.msg);
    code = 1;
  } else if (root) {
    double ferr = 0, xn = 0;
    for (int32_t i = 0; i < A->n; i++) {
      ferr = fmax(ferr, fabs(x[i] - xs[i]));
      xn = fmax(xn, fabs(xs[i]));
    }
    printf("solve           %.3f s (%d refinement step%s)%s\n", t_solve, iters, iters == 1 ? "" : "s",
           F->dist ? ", distributed" : "");
    printf("residual        %.3e scaled ||Ax-b||inf/(||A||inf ||x||inf + ||b||inf)", res[iters]);
    if (iters > 0) printf(" (before refinement %.3e)", res[0]);
    printf("; forward error %.3e\n", xn > 0 ? ferr / xn : ferr);
    if (c->solution && !write_solution(c->solution, x, A->n)) code = 1;
  }
  free(xs);
  free(b);
  free(x);
  free(res);
  return code;
}

/* Entries of the full symmetric matrix: every stored off-diagonal entry stands for two. Rows
 * ascend from the column, so a column's diagonal entry, when stored, is its first. */
static int64_t full_nnz(const mfs_matrix *A) {
  int64_t diag = 0;
  for (int32_t j = 0; j < A->n; j++) diag += A->colptr[j] < A->colptr[j + 1] && A->rowind[A->colptr[j]] == j;
  return 2 * A->nnz - diag;
}

static int run(const cli *c, int root, int nranks) {
  progress_state ps = {.on = root && !c->quiet && isatty(STDERR_FILENO), .phase = ""};
  mfs_error err;
  mfs_matrix A;
  mfs_status st;
  progress_phase(&ps, "reading the matrix", "mfs_read");
  if (c->gen) {
    st = mfs_matrix_generate(c->gen, &A, &err);
    if (st == MFS_ERR_ARG) {
      progress_done(&ps);
      if (!root) return 2;
      return bad_arg("invalid --gen: %s%s", err.msg, "");
    }
  } else {
    st = mfs_matrix_read_mm(c->matrix, &A, &err);
  }
  progress_done(&ps);
  if (st != MFS_OK) {
    if (root) fprintf(stderr, "%s: %s\n", prog, err.msg);
    return 1;
  }
  if (root)
    printf("matrix          %s: n = %d, nnz = %lld (lower triangle), %lld (full)\n", c->gen ? c->gen : c->matrix, A.n,
           (long long)A.nnz, (long long)full_nnz(&A));

  progress_phase(&ps, "analysis", "mfs_analysis");
  mfs_symbolic *S;
  st = mfs_analyze(&A, &c->opt, &S, &err);
  progress_done(&ps);
  if (st != MFS_OK) {
    if (root) fprintf(stderr, "%s: analysis failed: %s\n", prog, err.msg);
    mfs_matrix_free(&A);
    return 1;
  }
  if (root) report_analysis(c, S, nranks);
  int64_t peak_before = mfs_mem_peak(); /* the factorization restarts the high-water mark */

  progress_phase(&ps, "factorization", "mfs_factorization");
  mfs_factor *F;
  if (c->executor) {
    mfs_starpu_options so;
    mfs_starpu_options_default(&so);
    so.mem_relax = c->mem_relax;
    so.prune = c->prune;
    st = mfs_factorize_starpu(S, &A, &so, &F, ps.on ? progress_cb : NULL, &ps, &err);
    mfs_runtime_pause(); /* no more tasks: the solve runs on this thread, the workers sleep meanwhile */
  } else {
    st = mfs_factorize_seq(S, &A, &F, ps.on ? progress_cb : NULL, &ps, &err);
  }
  progress_done(&ps);
  if (st != MFS_OK) {
    if (root) fprintf(stderr, "%s: factorization failed: %s\n", prog, err.msg);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
    return 1;
  }
  if (root) report_factorization(c, S, F);

  int code = solve_and_check(c, &A, F, root, &ps);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double m[2] = {(double)(mfs_mem_peak() > peak_before ? mfs_mem_peak() : peak_before), ru.ru_maxrss / 1e3};
  mfs_runtime_allreduce(m, 2, 1);
  if (root && code == 0)
    printf("process         tracked allocation peak %.1f MB over the run, max RSS %.1f MB%s\n", mb(m[0]), m[1],
           nranks > 1 ? " (max over processes)" : "");
  mfs_factor_free(F);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
  return code;
}

int main(int argc, char **argv) {
  mfs_blas_core_restart(argv); /* before anything: may start the program again with better kernels */
  cli c;
  int code = parse_args(argc, argv, &c);
  if (code >= 0) return code;
  int nranks = 1, root = 1;
  if (c.executor) {
    mfs_runtime_options ro = {(int)c.workers, c.sched, mfs_mpi_launched(), c.mpi_progress};
    mfs_error err;
    if (mfs_runtime_start(&ro, &argc, &argv, &err) != MFS_OK) {
      fprintf(stderr, "%s: %s\n", prog, err.msg);
      return 1;
    }
    nranks = mfs_runtime_nranks();
    root = mfs_runtime_rank() == 0;
    mfs_runtime_pause(); /* the workers wait while the analysis runs (the factorization resumes them) */
    cpu_set_t cs;
    /* only when something (an MPI launcher, taskset) restricted this process to fewer CPUs */
    if (root && sched_getaffinity(0, sizeof cs, &cs) == 0 && CPU_COUNT(&cs) < c.workers &&
        CPU_COUNT(&cs) < sysconf(_SC_NPROCESSORS_ONLN))
      fprintf(stderr,
              "%s: warning: %ld workers share %d CPU(s) this process may run on (an MPI launcher binds each "
              "process to cores: use e.g. mpirun --bind-to none)\n",
              prog, c.workers, CPU_COUNT(&cs));
  } else if (mfs_mpi_launched() && !mfs_starpu_built()) {
    fprintf(stderr, "%s: started by an MPI launcher, but built without StarPU-MPI: every process runs alone\n", prog);
  }
  code = run(&c, root, nranks);
  fflush(stdout);
  mfs_runtime_stop();
  return code;
}
