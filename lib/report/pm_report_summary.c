/* The default end-of-run table (pm_report_summary.h). */
#include "pm_report_summary.h"
#include "pm_report_lines.h"
#include "pm_report_format.h"
#include "pm_profile_input.h"
#include "pm_profile_tasks.h"
#include "pm_profile_counters.h"
#include "pm_losses.h"
#include "pm_report_counters.h"
#include "popmetrics.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COL_VALUE 33 /* column of the hierarchy's values */
#define COL_SPLIT 43 /* column of the split by level */

/* What kind of run this is: it chooses the hierarchy's words and the hints. */
typedef struct {
  int mpi;         /* several processes, or MPI calls */
  int threads;     /* more than one compute location in some process */
  int tasks;       /* a task runtime (StarPU) */
  int openmp;      /* OpenMP parallel regions */
  int devices;     /* device streams (CUDA) */
  const char *x;   /* name of the thread level: "StarPU", "OpenMP", "threads" */
  const char *who; /* what waits and computes at that level, in prose */
} run_kind;

static run_kind classify(const pm_profile *p) {
  run_kind k = {0};
  k.mpi = p->nprocesses > 1;
  for (int i = 0; i < p->nlocations; i++) {
    const pm_prof_location *l = &p->loc[i];
    if (l->role == PM_ROLE_DEVICE) k.devices = 1;
    if (l->role == PM_ROLE_WORKER || l->role == PM_ROLE_ACCEL_WORKER) k.tasks = 1;
    if (pm_prof_loc_class(l, PM_CLASS_MPI) > 0 || l->polls) k.mpi = 1;
  }
  k.threads = pm_prof_threads_max(p) > 1;
  k.tasks |= p->tasks != NULL;
  k.openmp = p->nomp_regions > 0;
  k.x = k.tasks ? "StarPU" : k.openmp ? "OpenMP" : "threads";
  /* a task run's thread level holds the tasks and the application threads that submit and wait */
  k.who = k.tasks ? "tasks and threads" : k.openmp ? "OpenMP threads" : "threads";
  return k;
}

/* ------------------------------------------------------------------------------------ header */
static void header(pm_lines *t, const pm_profile *p, const run_kind *k) {
  int threads_max = pm_prof_threads_max(p);
  char rt[32], kind[64] = "";
  snprintf(kind, sizeof kind, "%s%s%s%s", k->mpi ? "MPI" : "", k->mpi && k->threads ? " + " : "",
           k->threads ? k->x : "", k->devices ? " + devices" : "");
  pm_lines_rule(t, '=', "popmeter");
  pm_lines_add(t, " %s: %d process%s x %d thread%s, %d node%s, runtime %s", p->app, p->nprocesses,
               p->nprocesses == 1 ? "" : "es", threads_max, threads_max == 1 ? "" : "s", p->nnodes,
               p->nnodes == 1 ? "" : "s", pm_fmt_time(p->runtime, rt, sizeof rt));
  if (kind[0]) {
    pm_lines_pad(t, t->width - (int)strlen(kind) - 1);
    pm_lines_add(t, " %s", kind);
  }
  pm_lines_end(t);
}

/* --------------------------------------------------------------------------- how efficient */
/* One row of the hierarchy: the name, its value (flagged), then its split by level. */
static void row(pm_lines *t, int indent, const char *name, const pm_metric *tree, const char *path) {
  double v;
  pm_lines_add(t, " %*s%s", 2 + 2 * indent, "", name);
  pm_lines_pad(t, COL_VALUE);
  if (pm_metric_get_path(tree, path, &v))
    pm_lines_value(t, v, PM_SUMMARY_FLAG);
  else
    pm_lines_add(t, " n/a");
}
static void split(pm_lines *t, const char *label, const pm_metric *tree, const char *path, int col) {
  double v;
  if (!pm_metric_get_path(tree, path, &v)) return;
  pm_lines_pad(t, col);
  int sep = t->used > 0 && t->buf[t->used - 1] != ' '; /* a flagged value before may reach col */
  pm_lines_add(t, "%s%s ", sep ? " " : "", label);
  pm_lines_value(t, v, PM_SUMMARY_FLAG);
}

static void hierarchy(pm_lines *t, const run_kind *k, const pm_metric *cp, const pm_metric *basic) {
  pm_lines_add(t, " How efficient");
  pm_lines_pad(t, COL_SPLIT);
  pm_lines_add(t, "(! below %.2f)", PM_SUMMARY_FLAG);
  pm_lines_end(t);
  if (!cp) { /* no critical path: the basic model, without the split of communication */
    row(t, 0, "Parallel efficiency", basic, "pe");
    pm_lines_end(t);
    row(t, 1, "Load balance", basic, "pe/lb");
    pm_lines_end(t);
    row(t, 1, "Communication efficiency", basic, "pe/comme");
    pm_lines_pad(t, COL_SPLIT);
    pm_lines_add(t, "serialization / transfer: no critical path (POPMETER_CRITICAL_PATH=0)");
    pm_lines_end(t);
    return;
  }
  int both = k->mpi && k->threads;
  const char *x = k->tasks ? "task runtime" : k->x;
  /* name, path, and the split across processes (MPI) / within them (X) when both levels exist */
  static const struct {
    int indent;
    const char *name, *path, *mpi_label, *mpi_path, *x_label, *x_path; /* x_label NULL: the run's X */
  } rows[] = {{0, "Parallel efficiency", "pe", NULL, NULL, NULL, NULL},
              {1, "Load balance", "pe/lb", "across processes", "pe/lb/lb_mpi", "within", "pe/lb/lb_x"},
              {1, "Communication efficiency", "pe/comme", NULL, NULL, NULL, NULL},
              {2, "Serialization", "pe/comme/sere", "across processes", "pe/comme/sere/sere_mpi", "within",
               "pe/comme/sere/sere_x"},
              {2, "Transfer", "pe/comme/te", "MPI", "pe/comme/te/te_mpi", NULL, "pe/comme/te/te_x"}};
  for (unsigned i = 0; i < sizeof rows / sizeof *rows; i++) {
    row(t, rows[i].indent, rows[i].name, cp, rows[i].path);
    if (both && rows[i].mpi_path) {
      split(t, rows[i].mpi_label, cp, rows[i].mpi_path, COL_SPLIT);
      split(t, rows[i].x_label ? rows[i].x_label : x, cp, rows[i].x_path, COL_SPLIT + 25);
    }
    pm_lines_end(t);
  }
}

/* The thread level's own efficiencies, one line each: the task runtime, the devices. */
static void task_line(pm_lines *t, const pm_metric *task) {
  double v;
  if (!task) return;
  pm_lines_add(t, "   Task runtime (StarPU)");
  int any = 0;
  if (pm_metric_get_path(task, "e/e_runtime", &v)) {
    split(t, "runtime", task, "e/e_runtime", COL_VALUE);
    any = 1;
  }
  split(t, "pipeline", task, "e/e_pipeline", any ? COL_SPLIT + 4 : COL_VALUE);
  split(t, "bounds", task, "bound", COL_SPLIT + 25);
  pm_lines_end(t);
  if (!pm_metric_get_path(task, "e/e_granularity", &v)) return; /* reference runs given: the whole split */
  pm_lines_add(t, "   Task efficiency");
  pm_lines_pad(t, COL_VALUE);
  if (pm_metric_get_path(task, "e", &v))
    pm_lines_value(t, v, PM_SUMMARY_FLAG);
  else
    pm_lines_add(t, "n/a");
  split(t, "granularity", task, "e/e_granularity", COL_SPLIT);
  split(t, "locality", task, "e/e_locality", COL_SPLIT + 25);
  pm_lines_end(t);
}
static void device_line(pm_lines *t, const pm_metric *talp) {
  double v;
  if (!talp || !pm_metric_get_path(talp, "device_pe", &v)) return;
  pm_lines_add(t, "   Devices (CUDA)");
  split(t, "parallel", talp, "device_pe", COL_VALUE - 9);
  split(t, "balance", talp, "device_pe/dev_lb", COL_SPLIT);
  split(t, "orchestration", talp, "device_pe/dev_orch", COL_SPLIT + 16);
  pm_lines_end(t);
}

/* ---------------------------------------------------------------------- where the time went */
typedef struct {
  pm_loss_kind kind;
  double seconds;
} loss;
static int by_seconds(const void *a, const void *b) {
  double x = ((const loss *)a)->seconds, y = ((const loss *)b)->seconds;
  return (x < y) - (x > y);
}

/* Pipeline efficiency from which a task run's workers count as busy: the thread-level idle time
 * is then the application threads'. */
#define PIPELINE_BUSY 0.95

/* What a loss is, in this run's terms, and the POP methodology's hint for it. */
static void explain(pm_lines *t, const pm_profile *p, const run_kind *k, const pm_time_losses *x, const pm_metric *task,
                    pm_loss_kind kind) {
  const char *hint = "";
  double v;
  switch (kind) {
  case PM_LOSS_LB_THREADS:
    if (k->tasks) {
      pm_lines_add(t, "workers and threads idle while others compute");
      int pipe = task && pm_metric_get_path(task, "e/e_pipeline", &v);
      if (pipe) pm_lines_add(t, " (pipeline %.2f)", v);
      /* workers busy (pipeline near 1): what idles is the application threads, which submit and
       * wait for the tasks; more parallelism would not feed them */
      hint = pipe && v >= PIPELINE_BUSY
                 ? "workers busy, application threads wait: give them work or their cores to workers"
                 : "starvation: expose more parallelism (finer tasks, priorities, submitting ahead)";
    } else {
      pm_lines_add(t, "load imbalance among the %s of a process (serial code included)", k->who);
      hint = k->openmp ? "balance the threads: dynamic scheduling, finer work, fewer serial sections"
                       : "balance the threads of each process";
    }
    break;
  case PM_LOSS_LB_PROCESSES:
    pm_lines_add(t, "load imbalance across processes");
    if (x->busiest >= 0 && x->least_busy >= 0 && x->least_busy_useful > 0 && x->busiest != x->least_busy)
      pm_lines_add(t, ": rank %d does %.1fx the useful work of rank %d", p->proc[x->busiest].rank,
                   x->busiest_useful / x->least_busy_useful, p->proc[x->least_busy].rank);
    hint = "distribute the work more evenly across processes (decomposition, mapping)";
    break;
  case PM_LOSS_SER_THREADS:
    pm_lines_add(t, "serialization within processes: %s wait on each other's results", k->who);
    /* in a task run this is also an application thread waiting for the tasks (a wait for all,
     * a submission window), and the tasks waiting for what that thread computes before */
    hint = k->tasks ? "shorten task dependency chains; overlap application threads' work with tasks"
                    : "shorten critical sections, barriers and dependencies between threads";
    break;
  case PM_LOSS_SER_PROCESSES:
    pm_lines_add(t, "serialization across processes: ranks wait on each other even on an ideal network");
    hint = "reorder or pipeline the dependencies between processes; overlap them with computation";
    break;
  case PM_LOSS_TRANSFER_MPI:
    if (k->mpi) {
      pm_lines_add(t, "waiting for MPI transfers (on the critical path)");
      hint = "fewer, larger messages; overlap transfers with computation";
    } else { /* no MPI: what the critical path counts besides useful and runtime time */
      pm_lines_add(t, "file I/O and device waits on the critical path");
      hint = "overlap I/O and device transfers with computation";
    }
    break;
  case PM_LOSS_TRANSFER_RUNTIME:
    pm_lines_add(t, "%s runtime on the critical path (%s)", k->tasks ? "task" : k->x,
                 k->tasks ? "scheduling, data management" : "fork/join, barriers, waits");
    hint = k->tasks ? "coarser tasks, a cheaper scheduler" : "fewer, larger parallel regions";
    break;
  default:
    pm_lines_add(t, "communication and waits (serialization and transfer together)");
    hint = "set POPMETER_CRITICAL_PATH=1 (the default) to tell serialization from transfer";
    break;
  }
  pm_lines_end(t);
  pm_lines_add(t, "                 -> %s", hint);
  pm_lines_end(t);
}

static void losses(pm_lines *t, const pm_profile *p, const run_kind *k, const pm_time_losses *x,
                   const pm_metric *task) {
  char rt[32], s[32];
  pm_lines_add(t, " Where the time went (seconds of the %s runtime, average over threads)",
               pm_fmt_time(p->runtime, rt, sizeof rt));
  pm_lines_end(t);
  if (!x->valid) {
    pm_lines_add(t, "   nothing to split: no thread, worker or accelerator measured");
    pm_lines_end(t);
    return;
  }
  loss l[PM_LOSS_COUNT];
  for (int i = 0; i < PM_LOSS_COUNT; i++) l[i] = (loss){(pm_loss_kind)i, x->seconds[i]};
  qsort(l, PM_LOSS_COUNT, sizeof *l, by_seconds);
  int shown = 0;
  for (int i = 0; i < 3; i++) {
    if (l[i].seconds < 0.01 * x->runtime) break; /* under 1 % of the runtime: not a loss to chase */
    pm_lines_add(t, "   %d. %9s  ", i + 1, pm_fmt_time(l[i].seconds, s, sizeof s));
    explain(t, p, k, x, task, l[i].kind);
    shown++;
  }
  if (!shown) {
    pm_lines_add(t, "   no loss above 1 %% of the runtime");
    pm_lines_end(t);
  }
}

/* ------------------------------------------------------------------------------- what next */
/* Where a "What next" item goes on when it does not fit on one line: under its text. */
#define WHAT_NEXT_INDENT 5

/* A "What next" item in prose: "   label: text", wrapped under its text instead of cut. */
static void prose_item(pm_lines *t, const char *label, const char *text) {
  pm_lines_add(t, "   %s: ", label);
  pm_lines_words(t, WHAT_NEXT_INDENT, text);
  pm_lines_end(t);
}

static void critical_path_line(pm_lines *t, const pm_profile *p, const pm_run_input *in) {
  char a[32];
  double R = p->runtime > 0 ? p->runtime : 1;
  pm_prof_task_cp cp;
  if (p->tasks && pm_prof_tasks_cp(p, &cp)) {
    pm_lines_add(t, "   Critical path (task DAG): %s, %.0f %% of the runtime", pm_fmt_time(cp.len.cue, a, sizeof a),
                 pm_pct(cp.len.cue, R));
    if (cp.nparts > 0 && cp.len.cue > 0) {
      char rank[32] = "";
      if (cp.part[0].rank >= 0 && p->nprocesses > 1) snprintf(rank, sizeof rank, " on rank %d", cp.part[0].rank);
      pm_lines_phrase(t, WHAT_NEXT_INDENT, "; ", "%.0f %% in %s%s", pm_pct(cp.part[0].time, cp.len.cue),
                      cp.part[0].name, rank);
    }
    pm_lines_end(t);
  } else if (in->has_critical_path) {
    pm_lines_add(t, "   Critical path: %s of useful work (%.0f %% of the runtime): the runtime on an ideal network",
                 pm_fmt_time(in->g_cue, a, sizeof a), pm_pct(in->g_cue, R));
    pm_lines_end(t);
  }
}

static void outliers_line(pm_lines *t, const pm_profile *p) {
  if (!p->tasks) return;
  uint64_t n = 0;
  const pm_prof_codelet *worst = NULL;
  double ratio = 0;
  for (int i = 0; i < p->tasks->ncodelets; i++) {
    const pm_prof_codelet *c = &p->tasks->codelet[i];
    n += c->outliers_iqr + c->outliers_reg;
    double mean = c->count ? c->total / (double)c->count : 0;
    if (c->outliers_iqr + c->outliers_reg && mean > 0 && c->max / mean > ratio) {
      ratio = c->max / mean;
      worst = c;
    }
  }
  char a[32];
  if (!n)
    pm_lines_add(t, "   Outliers: none (no task much slower than the others of its codelet)");
  else {
    pm_lines_add(t, "   Outliers: %llu task%s", (unsigned long long)n, n == 1 ? "" : "s");
    pm_lines_phrase(t, WHAT_NEXT_INDENT, "; ", "worst %s: %s, %.1fx its mean", worst ? worst->name : "?",
                    pm_fmt_time(worst ? worst->max : 0, a, sizeof a), ratio);
  }
  pm_lines_end(t);
}

static void counters_line(pm_lines *t, const pm_profile *p, const pm_metric *ctr) {
  const pm_prof_counters *c = p->counters;
  if (!c) return;
  double ipc, ghz;
  if (ctr && pm_metric_get_path(ctr, "ipc", &ipc)) {
    pm_lines_add(t, "   Hardware counters: IPC %.2f", ipc);
    if (pm_metric_get_path(ctr, "frequency", &ghz)) pm_lines_add(t, ", %.2f GHz", ghz);
    pm_lines_add(t, " over useful time");
  } else {
    const char *why = NULL;
    for (int k = 0; k < PM_CTR_CAT_COUNT && !why; k++) why = c->reason[k];
    pm_lines_add(t, "   Hardware counters: %s", !strcmp(c->status, "disabled") ? "off (POPMETER_COUNTERS)" : "none");
    if (why) { /* the library's reason without the event's name: "PAPI: <reason>" */
      const char *r = strstr(why, "not available: ");
      int lib = (int)strcspn(why, ":");
      r = r ? r + strlen("not available: ") : why;
      int n = (int)strcspn(r, "(");
      while (n > 0 && r[n - 1] == ' ') n--;
      pm_lines_phrase(t, WHAT_NEXT_INDENT, " ", "(%.*s%s%.*s)", r != why ? lib : 0, why, r != why ? ": " : "", n, r);
    }
  }
  pm_lines_end(t);
}

static void io_line(pm_lines *t, const pm_metric *io) {
  double share, eff;
  if (!io || !pm_metric_get_path(io, "io_share", &share) || share < 1) return;
  pm_lines_add(t, "   File I/O: %.1f %% of the time", share);
  if (pm_metric_get_path(io, "io_eff", &eff)) {
    pm_lines_add(t, ", efficiency ");
    pm_lines_value(t, eff, PM_SUMMARY_FLAG);
  }
  pm_lines_end(t);
}

/* The OTF2 trace, when the run wrote one. */
static void trace_line(pm_lines *t, const pm_profile *p) {
  uint64_t ev = 0, bytes = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    ev += p->proc[i].trace_events;
    bytes += p->proc[i].trace_bytes;
  }
  if (!ev) return;
  char b[32];
  pm_lines_add(t, "   Trace: traces.otf2, %llu events, %s (Vampir, ViTE, otf2-print)", (unsigned long long)ev,
               pm_fmt_bytes((double)bytes, b, sizeof b));
  pm_lines_end(t);
}

/* CUDA looked for but not measured: why, once (the first process's reason). */
static void cuda_line(pm_lines *t, const pm_profile *p) {
  for (int i = 0; i < p->nprocesses; i++) {
    const char *c = p->proc[i].cuda;
    if (!c[0] || !strcmp(c, "measured")) continue;
    prose_item(t, "CUDA", c);
    return;
  }
}

/* Share of the compute threads' time spent ready to run while other threads had the CPUs; < 0
 * when no thread's wait is known. */
static double cpu_wait_share(const pm_profile *p) {
  double wait, max, lived;
  if (!pm_prof_cpu_wait(p, &wait, &max, &lived)) return -1;
  return lived > 0 ? wait / lived : 0;
}

static void notes(pm_lines *t, const pm_profile *p, const pm_summary_options *o) {
  char rt[32];
  double cpu_wait = cpu_wait_share(p);
  if (cpu_wait >= PM_SUMMARY_CPU_WAIT) { /* the time counts as useful: say why it may be slow */
    char text[200];
    snprintf(text, sizeof text,
             "threads waited for a CPU %.0f %% of their time, ready to run while other threads had the CPUs "
             "(more threads than CPUs, or other jobs): that time counts as useful above",
             100 * cpu_wait);
    prose_item(t, "Note", text);
  }
  if (o->note) prose_item(t, "Note", o->note);
  if (o->bad_model && o->bad_model[0]) {
    pm_lines_add(t, "   Note: unknown model '%s' in POPMETER_MODELS: showing the default models", o->bad_model);
    pm_lines_end(t);
  }
  if (p->regions_folded) {
    pm_lines_add(t, "   Note: more than 65,529 region names: %llu later ones merged into \"(more regions)\"",
                 (unsigned long long)p->regions_folded);
    pm_lines_end(t);
  }
  if (p->runtime < 0.1) {
    pm_lines_add(t, "   Note: a short run (%s): fixed start-up costs weigh on the efficiencies",
                 pm_fmt_time(p->runtime, rt, sizeof rt));
    pm_lines_end(t);
  }
}

static void files_line(pm_lines *t, const pm_summary_options *o) {
  if (o->where) {
    pm_lines_add(t, "   Everything: popmeter show --full");
    pm_lines_phrase(t, WHAT_NEXT_INDENT, " ", "%s", o->where);
  } else {
    pm_lines_add(t, "   Everything: POPMETER_REPORT=full (no popmeter.json was written)");
  }
  pm_lines_end(t);
}

/* ------------------------------------------------------------------------------------ table */
int pm_report_write_summary(FILE *out, const pm_profile *p, const pm_summary_options *o) {
  pm_run_input_buf buf;
  if (pm_profile_to_input(p, o->io_as_useful, &buf) != 0) return -1;
  if (pm_profile_input_references(&buf, o->ref_one, o->ref_seq) != 0) {
    pm_run_input_buf_free(&buf);
    return -1;
  }
  const pm_run_input *in = &buf.in;
  run_kind k = classify(p);
  pm_metric *cp = in->has_critical_path ? pm_model_critical_path(in) : NULL;
  pm_metric *basic = pm_model_basic(in), *io = pm_model_io(in);
  pm_metric *task = k.tasks ? pm_model_task(in) : NULL, *talp = k.devices ? pm_model_talp(in) : NULL;
  pm_metric *ctr = p->counters ? pm_report_counters_tree(p) : NULL;
  pm_time_losses x;
  pm_losses_compute(in, &x);
  pm_lines t;
  pm_lines_init(&t, out, o->width < 60 ? 60 : o->width, o->color, PM_SUMMARY_MAX_LINES);
  header(&t, p, &k);
  pm_lines_rule(&t, '-', NULL);
  hierarchy(&t, &k, cp, basic);
  task_line(&t, task);
  device_line(&t, talp);
  pm_lines_rule(&t, '-', NULL);
  losses(&t, p, &k, &x, task);
  pm_lines_rule(&t, '-', NULL);
  pm_lines_add(&t, " What next");
  pm_lines_end(&t);
  critical_path_line(&t, p, in);
  outliers_line(&t, p);
  io_line(&t, io);
  counters_line(&t, p, ctr);
  cuda_line(&t, p);
  trace_line(&t, p);
  notes(&t, p, o);
  files_line(&t, o);
  pm_lines_rule(&t, '=', NULL);
  pm_metric_free(cp);
  pm_metric_free(basic);
  pm_metric_free(io);
  pm_metric_free(task);
  pm_metric_free(talp);
  pm_metric_free(ctr);
  pm_run_input_buf_free(&buf);
  return ferror(out) ? -1 : 0;
}

int pm_report_color_wanted(FILE *out) {
  const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
  if (nc && nc[0]) return 0;
  if (term && !strcmp(term, "dumb")) return 0;
  return isatty(fileno(out));
}
