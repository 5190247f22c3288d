/* Task-runtime sections of the end-of-run table (see pm_report_tasks.h). */
#include "pm_report_tasks.h"
#include "pm_profile_tasks.h"
#include "pm_report_format.h"
#include <stdlib.h>
#include <string.h>

static void critical_path(FILE *out, const pm_profile *p) {
  pm_prof_task_cp cp;
  if (!pm_prof_tasks_cp(p, &cp)) return;
  char a[32], b[32], c[32], d[32];
  double R = p->runtime > 0 ? p->runtime : 1;
  fprintf(out,
          " Critical path (task DAG, longest dependency chain of useful time): %s = %.1f %% of runtime,"
          " ends on rank %d\n",
          pm_fmt_time(cp.len.cue, a, sizeof a), pm_pct(cp.len.cue, R), p->proc[cp.process].rank);
  fprintf(out, "   with runtime overhead (COM) %s; with MPI transfers (COO) %s, of which MPI %s\n",
          pm_fmt_time(cp.len.com, b, sizeof b), pm_fmt_time(cp.len.coo, c, sizeof c),
          pm_fmt_time(cp.coo_mpi, d, sizeof d));
  for (int i = 0; i < cp.nparts; i++) {
    char rk[24] = "";
    if (cp.part[i].rank >= 0 && p->nprocesses > 1) snprintf(rk, sizeof rk, " (rank %d)", cp.part[i].rank);
    fprintf(out, "   %s %-32.*s%-10s %12s %6.1f %%\n", i ? "          " : "on path:  ", 32, cp.part[i].name, rk,
            pm_fmt_time(cp.part[i].time, a, sizeof a), pm_pct(cp.part[i].time, cp.len.cue));
  }
  if (cp.nranks > 1) {
    fprintf(out, "   per rank:");
    for (int i = 0; i < cp.nranks; i++)
      fprintf(out, "  %d: %s", cp.rank[i].rank, pm_fmt_time(cp.rank[i].time, a, sizeof a));
    fputc('\n', out);
  }
  if (cp.clocks_lost)
    fprintf(out, "   %llu StarPU-MPI transfer clock%s lost: cross-process edges may be missing\n",
            (unsigned long long)cp.clocks_lost, cp.clocks_lost == 1 ? "" : "s");
}

typedef struct {
  const pm_prof_codelet *c;
  double total;
} row;
static int by_total(const void *x, const void *y) {
  double a = ((const row *)x)->total, b = ((const row *)y)->total;
  return (a < b) - (a > b);
}

static void top_codelets(FILE *out, const pm_prof_tasks *t, int nprocs, int width) {
  if (t->ncodelets == 0) return;
  /* one row per (name, worker type), summed over processes */
  row *r = calloc((size_t)t->ncodelets, sizeof *r);
  pm_prof_codelet *sum = calloc((size_t)t->ncodelets, sizeof *sum);
  if (!r || !sum) {
    free(r);
    free(sum);
    return;
  }
  int n = 0;
  uint64_t waits = 0;
  double deps = 0, sched = 0;
  for (int i = 0; i < t->ncodelets; i++) {
    const pm_prof_codelet *c = &t->codelet[i];
    int j;
    for (j = 0; j < n; j++)
      if (sum[j].worker_type == c->worker_type && !strcmp(sum[j].name, c->name)) break;
    if (j == n) {
      sum[n] = *c;
      sum[n].count = 0;
      sum[n].total = sum[n].flops = 0;
      sum[n].outliers_iqr = sum[n].outliers_reg = 0;
      n++;
    }
    pm_prof_codelet *s = &sum[j];
    if (s->count == 0 || c->min < s->min) s->min = c->min;
    if (c->max > s->max) s->max = c->max;
    s->count += c->count;
    s->total += c->total;
    s->flops += c->flops;
    s->outliers_iqr += c->outliers_iqr;
    s->outliers_reg += c->outliers_reg;
    waits += c->with_waits;
    deps += c->wait_deps;
    sched += c->wait_sched;
  }
  for (int i = 0; i < n; i++) r[i] = (row){&sum[i], sum[i].total};
  qsort(r, (size_t)n, sizeof *r, by_total);
  int namew = width - 84 > 16 ? width - 84 : 16;
  fprintf(out, " Top codelets (summed over workers%s):\n", nprocs > 1 ? " and processes" : "");
  fprintf(out, "   %-*s %-5s %8s %11s %11s %11s %11s %8s %8s\n", namew, "codelet", "type", "tasks", "total", "mean",
          "min", "max", "outliers", "GFlop/s");
  for (int i = 0; i < n && i < 10; i++) {
    const pm_prof_codelet *c = r[i].c;
    char a[32], b[32], d[32], e[32], g[16] = "-";
    if (c->flops > 0 && c->total > 0) snprintf(g, sizeof g, "%.2f", c->flops / c->total * 1e-9);
    fprintf(out, "   %-*.*s %-5s %8llu %11s %11s %11s %11s %8llu %8s\n", namew, namew, c->name,
            c->worker_type ? "accel" : "CPU", (unsigned long long)c->count, pm_fmt_time(c->total, a, sizeof a),
            pm_fmt_time(c->count ? c->total / (double)c->count : 0, b, sizeof b), pm_fmt_time(c->min, d, sizeof d),
            pm_fmt_time(c->max, e, sizeof e), (unsigned long long)(c->outliers_iqr + c->outliers_reg), g);
  }
  if (waits) {
    char a[32], b[32];
    fprintf(out,
            "   mean wait per task: for dependencies (submit -> ready) %s, to start (ready -> body) %s;"
            " %llu tasks\n",
            pm_fmt_time(deps / (double)waits, a, sizeof a), pm_fmt_time(sched / (double)waits, b, sizeof b),
            (unsigned long long)waits);
  }
  free(r);
  free(sum);
}

static void data_movement(FILE *out, const pm_prof_tasks *t) {
  char a[32], b[32];
  int shown = 0;
  for (int i = 0; i < t->ntransfers; i++) {
    const pm_prof_transfer *x = &t->transfer[i];
    if (!x->count) continue;
    if (!shown++) fprintf(out, " Data transfers into memory nodes (task data fetched by workers):\n");
    fprintf(out, "   %-8s node %-3d %10llu transfers %12s\n", x->kind, x->node, (unsigned long long)x->count,
            pm_fmt_bytes((double)x->bytes, a, sizeof a));
  }
  uint64_t n[2] = {0, 0}, by[2] = {0, 0};
  double tm[2] = {0, 0};
  for (int i = 0; i < t->nmpicomms; i++) {
    const pm_prof_mpicomm *x = &t->mpicomm[i];
    n[x->dir] += x->count;
    by[x->dir] += x->bytes;
    tm[x->dir] += x->time;
  }
  if (n[0] || n[1])
    fprintf(out, " StarPU-MPI: %llu sends (%s), %llu receives (%s); mean receive transfer %s\n",
            (unsigned long long)n[0], pm_fmt_bytes((double)by[0], a, sizeof a), (unsigned long long)n[1],
            pm_fmt_bytes((double)by[1], b, sizeof b), pm_fmt_time(n[1] ? tm[1] / (double)n[1] : 0, (char[32]){0}, 32));
}

/* Per worker type: how busy the workers were (for accelerators: the device efficiency). */
static void worker_types(FILE *out, const pm_profile *p) {
  static const struct {
    int role;
    const char *name;
  } types[] = {{PM_ROLE_WORKER, "CPU workers"}, {PM_ROLE_ACCEL_WORKER, "accelerator workers"}};
  double R = p->runtime > 0 ? p->runtime : 1;
  int unobserved = pm_prof_tasks_runtime_unobserved(p->tasks);
  for (unsigned k = 0; k < sizeof types / sizeof *types; k++) {
    int n = 0;
    double use = 0, rt = 0, idle = 0;
    for (int i = 0; i < p->nlocations; i++) {
      const pm_prof_location *l = &p->loc[i];
      if (l->role != types[k].role) continue;
      n++;
      use += pm_prof_loc_class(l, PM_CLASS_USEFUL);
      rt += pm_prof_loc_class(l, PM_CLASS_RUNTIME);
      idle += pm_prof_loc_class(l, PM_CLASS_IDLE);
    }
    if (!n) continue;
    if (unobserved) /* the workers' runtime overhead is inside their idle time */
      fprintf(out, " %-20s %3d: executing %5.1f %%, runtime and idle %5.1f %% of their time (average)\n", types[k].name,
              n, pm_pct(use, n * R), pm_pct(rt + idle, n * R));
    else
      fprintf(out, " %-20s %3d: executing %5.1f %%, runtime %5.1f %%, idle %5.1f %% of their time (average)\n",
              types[k].name, n, pm_pct(use, n * R), pm_pct(rt, n * R), pm_pct(idle, n * R));
  }
  if (unobserved)
    fprintf(out, " (StarPU's tool interface reports task bodies only: runtime overhead, submission and waits are "
                 "not observable)\n");
}

/* Which codelets the online locality estimate could use: those whose every task had a prediction
 * from StarPU's calibrated duration models (docs/metrics.md §6). */
static void duration_models(FILE *out, const pm_prof_tasks *t) {
  char with[256] = "", without[256] = "";
  for (int i = 0; i < t->ncodelets; i++) {
    const pm_prof_codelet *c = &t->codelet[i];
    char *list = c->count && c->with_prediction == c->count ? with : without;
    if (strstr(list, c->name)) continue; /* a name per worker type and process: once */
    size_t n = strlen(list);
    if (n + strlen(c->name) + 3 < sizeof with) snprintf(list + n, sizeof with - n, "%s%s", n ? ", " : "", c->name);
  }
  if (!with[0]) {
    fprintf(out, " Locality estimate: no codelet had a calibrated duration model (run once with STARPU_CALIBRATE=1, "
                 "or give reference runs: popmeter show --ref-one DIR --ref-seq DIR)\n");
    return;
  }
  fprintf(out, " Locality estimate from StarPU's duration models of: %s\n", with);
  if (without[0]) fprintf(out, "   no model for: %s (calibrate with STARPU_CALIBRATE=1)\n", without);
}

void pm_report_tasks(FILE *out, const pm_profile *p, int width) {
  if (!p->tasks) return;
  worker_types(out, p);
  critical_path(out, p);
  top_codelets(out, p->tasks, p->nprocesses, width);
  duration_models(out, p->tasks);
  data_movement(out, p->tasks);
}
