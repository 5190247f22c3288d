/* Task-based runtime model (StarPU workers; Agullo, Beaumont, Eyraud-Dubois, Kumar 2016;
 * docs/metrics.md §6).
 *
 * Locations: task workers, PM_LOC_WORKER (CPU, type 0) and PM_LOC_ACCEL (accelerator, type 1);
 * W of them. Application threads, progress threads and device streams take no part.
 *   e            = e_granularity * e_locality * e_runtime * e_pipeline
 *   e_runtime    = sum exec / (sum exec + sum runtime)
 *   e_pipeline   = (sum exec + sum runtime) / (W * R)
 *   e_locality   = task_ref_exec_1worker / sum exec when a reference run is given; otherwise the
 *                  online estimate sum predicted / sum observed over the codelets that have a
 *                  duration-model prediction. Both can exceed 1 (flagged, with e).
 *   e_granularity= task_ref_exec_seq / task_ref_exec_1worker (reference runs only; else n/a)
 * Per process (when more than one process has workers): e_runtime * e_pipeline of its workers.
 *
 * Bound efficiency. The spec's "makespan / max(CPB, ABE)" is >= 1; it is reported inverted,
 * max(CPB, ABE) / makespan, so that it is an efficiency in [0, 1]: 1 means the run reached the
 * better of the two lower bounds. Makespan = R. CPB = cp_bound, or G-CUE when cp_bound is unknown
 * and the critical path was measured. ABE = area bound (pm_task_area_bound): sum exec / W for one
 * worker type, the exact two-type LP otherwise (needs codelet totals). When only one bound is
 * known, the efficiency uses it (any lower bound gives a valid, if looser, efficiency). */
#include "popmetrics.h"
#include "pm_model_util.h"
#include "pm_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NA_NO_WORKERS "no task workers"
#define NA_RUNTIME_UNOBSERVED "runtime overhead not observable through StarPU's tool interface (task bodies only)"

/* Per-process children: runtime and pipeline efficiency of each process's workers. */
static void add_per_process(pm_metric *root, const pm_run_input *in) {
  double *ex = pm__calloc((size_t)in->nprocesses, sizeof *ex);
  double *rt = pm__calloc((size_t)in->nprocesses, sizeof *rt);
  int *w = pm__calloc((size_t)in->nprocesses, sizeof *w);
  int i, p, with = 0;
  pm_metric *pp;
  if (!ex || !rt || !w) {
    root->alloc_failed_ = 1;
    goto out;
  }
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    if (!pm__is_worker(l)) continue;
    ex[l->process] += l->exec;
    rt[l->process] += l->runtime;
    if (w[l->process]++ == 0) with++;
  }
  if (with < 2) goto out;
  pp = pm_metric_add_new(root, "per_process", "Per process", "",
                         "Runtime and pipeline efficiency of the workers of each process.");
  for (p = 0; p < in->nprocesses; p++) {
    char id[3][48], name[64];
    pm_metric *n;
    pm_val rte, ppl;
    if (!w[p]) continue;
    snprintf(id[0], sizeof id[0], "p%d", p);
    snprintf(id[1], sizeof id[1], "p%d_runtime", p);
    snprintf(id[2], sizeof id[2], "p%d_pipeline", p);
    snprintf(name, sizeof name, "Process %d", p);
    rte = in->task_runtime_unobserved ? pm_v_na(NA_RUNTIME_UNOBSERVED)
                                      : pm_v_div(pm_v(ex[p]), pm_v(ex[p] + rt[p]), "no task execution or runtime time");
    ppl = pm_v_div(pm_v(ex[p] + rt[p]), pm_v(w[p] * in->runtime), PM_NA_ZERO_RUNTIME);
    n = pm__leaf(pp, id[0], name, "", "Runtime times pipeline efficiency of this process.", pm_v_mul(rte, ppl));
    pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
    pm__leaf(n, id[1], "Runtime efficiency", "",
             "Task execution time over execution plus runtime overhead, this process.", rte);
    pm__leaf(n, id[2], "Pipeline efficiency", "",
             "Busy worker time (execution plus runtime) over available worker time, this process.", ppl);
  }
out:
  free(ex);
  free(rt);
  free(w);
}

/* Online locality estimate from duration models, or the reference-run value. */
static pm_val locality(const pm_run_input *in, double sumexec, const pm_task_ref *ref) {
  double pred = 0.0, obs = 0.0;
  int i;
  if (ref->valid) return pm_v_div(pm_v(ref->one), pm_v(ref->w_matched), "no task execution time");
  if (in->task_ref_exec_1worker > 0.0)
    return pm_v_div(pm_v(in->task_ref_exec_1worker), pm_v(sumexec), "no task execution time");
  for (i = 0; in->codelets && i < in->ncodelets; i++)
    if (in->codelets[i].predicted > 0.0) {
      pred += in->codelets[i].predicted;
      obs += in->codelets[i].exec;
    }
  if (pred == 0.0) return pm_v_na("no reference run and no duration-model predictions");
  return pm_v_div(pm_v(pred), pm_v(obs), "no observed time for the predicted codelets");
}

/* With reference runs: the share of the task time they cover, granularity and locality per worker
 * type (two types: each codelet's reference times split in proportion to its time on each type)
 * and per matched codelet (in the order of the run's codelets). */
static void add_references(pm_metric *root, const pm_run_input *in, const pm_task_ref *ref,
                           const pm__task_ref_names *names) {
  pm_metric *r = pm_metric_add_new(root, "reference", "Reference runs", "",
                                   "Granularity and locality from the one-worker and sequential reference runs.");
  pm__leaf(r, "coverage", "Task time matched by the reference runs", "%",
           "Share of the task time whose codelets the reference runs have, with the same task counts.",
           pm_v(100.0 * (ref->w_matched / ref->w_total))); /* exactly 100 when all matched */
  char id[32], name[160];
  for (int type = 0; in->nworker_types > 1 && type < 2; type++) {
    double w = 0, one = 0, seq = 0;
    for (int i = 0; i < in->ncodelets; i++) {
      const pm_codelet_input *c = &in->codelets[i];
      const int g = names->name_of[i];
      if (c->worker_type != type || g < 0 || !names->ok[g] || names->w[g] <= 0) continue;
      const double cw = names->w[g], c1 = names->one[g], cs = names->seq[g];
      w += c->exec;
      one += c1 * c->exec / cw;
      seq += cs * c->exec / cw;
    }
    if (w <= 0) continue;
    const char *t = type ? "Accelerator" : "CPU";
    snprintf(id, sizeof id, "type%d_granularity", type);
    snprintf(name, sizeof name, "%s workers: granularity", t);
    pm__leaf(r, id, name, "", "Sequential kernel time over one-worker task time (matched codelets).", pm_v(seq / one));
    snprintf(id, sizeof id, "type%d_locality", type);
    snprintf(name, sizeof name, "%s workers: locality", t);
    pm__leaf(r, id, name, "", "One-worker task time over this worker type's task time (matched codelets).",
             pm_v(one / w));
  }
  for (int i = 0, k = 0; i < in->ncodelets; i++) {
    const int g = names->name_of[i];
    if (!names->first[i] || !names->ok[g]) continue;
    const double cw = names->w[g], c1 = names->one[g], cs = names->seq[g];
    snprintf(id, sizeof id, "c%d_granularity", k);
    snprintf(name, sizeof name, "%.100s: granularity", in->codelets[i].name);
    pm__leaf(r, id, name, "", "Sequential kernel time over one-worker task time, this codelet.",
             pm_v_div(pm_v(cs), pm_v(c1), "no one-worker time"));
    snprintf(id, sizeof id, "c%d_locality", k);
    snprintf(name, sizeof name, "%.100s: locality", in->codelets[i].name);
    pm__leaf(r, id, name, "", "One-worker task time over the task time of this run, this codelet.",
             pm_v_div(pm_v(c1), pm_v(cw), "no task time"));
    k++;
  }
}

/* What lies on the critical path: children of the critical-path bound, in seconds. Parts by
 * codelet (and rank) add up to the bound when the composition is complete; per rank; and, with
 * several processes, the MPI transfers on the path counted with transfers (COO). */
static void add_cp_composition(pm_metric *cpb, const pm_run_input *in) {
  int i;
  for (i = 0; in->cp_parts && i < in->ncp_parts; i++) {
    const pm_cp_part_input *c = &in->cp_parts[i];
    char id[32], name[160];
    snprintf(id, sizeof id, "cp_part%d", i);
    if (!c->name)
      snprintf(name, sizeof name, "on the path: everything else");
    else if (c->rank >= 0 && in->nprocesses > 1)
      snprintf(name, sizeof name, "on the path: %.100s (rank %d)", c->name, c->rank);
    else
      snprintf(name, sizeof name, "on the path: %.100s", c->name);
    pm__leaf(cpb, id, name, "s", "Useful time of this codelet along the critical path.", pm_v(c->time));
  }
  for (i = 0; in->cp_ranks && in->ncp_ranks > 1 && i < in->ncp_ranks; i++) {
    char id[32], name[64];
    snprintf(id, sizeof id, "cp_rank%d", in->cp_ranks[i].rank);
    snprintf(name, sizeof name, "on the path: rank %d", in->cp_ranks[i].rank);
    pm__leaf(cpb, id, name, "s", "Useful time along the critical path spent on this rank.", pm_v(in->cp_ranks[i].time));
  }
  if (in->cp_coo > 0.0 && in->nprocesses > 1)
    pm__leaf(cpb, "cp_mpi", "MPI transfers on the path (with transfers)", "s",
             "MPI transfer time along the longest path when transfers count (COO variant).", pm_v(in->cp_coo_mpi));
}

pm_metric *pm_model_task(const pm_run_input *in) {
  pm_metric *root, *n;
  pm_val e, gran, loc, rte, ppl, bound, cpb, abe;
  pm_task_ref ref = {0};
  pm__task_ref_names names = {0}; /* the reference runs' match per codelet name, built once */
  const char *why = pm__input_problem(in);
  int i, W = 0, w0 = 0, w1 = 0;
  double sexec = 0.0, sruntime = 0.0;

  root = pm__root("task", "Task-based model (StarPU)",
                  "Efficiency of the task runtime: granularity, locality, runtime overhead, "
                  "pipeline, and distance to the schedule bounds.");
  if (!root) return NULL;
  if (!why) {
    for (i = 0; i < in->nlocations; i++) {
      const pm_location_input *l = &in->loc[i];
      if (!pm__is_worker(l)) continue;
      W++;
      if (l->kind == PM_LOC_WORKER)
        w0++;
      else
        w1++;
      sexec += l->exec;
      sruntime += l->runtime;
    }
    if (W == 0) why = NA_NO_WORKERS;
  }
  if (why) {
    e = gran = loc = rte = ppl = bound = cpb = abe = pm_v_na(why);
  } else {
    double T;
    const char *abwhy = NULL;
    rte = in->task_runtime_unobserved
              ? pm_v_na(NA_RUNTIME_UNOBSERVED)
              : pm_v_div(pm_v(sexec), pm_v(sexec + sruntime), "no task execution or runtime time");
    ppl = pm_v_div(pm_v(sexec + sruntime), pm_v(W * in->runtime), PM_NA_ZERO_RUNTIME);
    pm__task_reference_names(in, &names, &ref);
    loc = locality(in, sexec, &ref);
    if (ref.valid)
      gran = pm_v(ref.seq / ref.one);
    else if (in->ref_one && in->ref_seq)
      gran = pm_v_na("no codelet matched the reference runs by name and task count");
    else if (in->task_ref_exec_seq > 0.0 && in->task_ref_exec_1worker > 0.0)
      gran = pm_v(in->task_ref_exec_seq / in->task_ref_exec_1worker);
    else
      gran = pm_v_na("needs a reference run (sequential kernels and one worker)");
    e = pm_v_mul(pm_v_mul(gran, loc), pm_v_mul(rte, ppl));
    if (in->cp_bound > 0.0)
      cpb = pm_v(in->cp_bound);
    else if (in->has_critical_path && in->g_cue > 0.0)
      cpb = pm_v(in->g_cue);
    else
      cpb = pm_v_na("no critical path through the task graph measured");
    if (in->nworker_types > 2)
      abe = pm_v_na("more than two worker types");
    else if (w0 == 0 || w1 == 0)
      abe = pm_v(sexec / W);
    else if (pm_task_area_bound(in->codelets, in->ncodelets, w0, w1, &T, &abwhy))
      abe = pm_v(T);
    else
      abe = pm_v_na(abwhy);
    if (cpb.na && abe.na)
      bound = pm_v_na("neither the critical-path nor the area bound is known");
    else {
      double b = cpb.na ? abe.v : abe.na ? cpb.v : (cpb.v > abe.v ? cpb.v : abe.v);
      bound = pm_v_div(pm_v(b), pm_v(in->runtime), PM_NA_ZERO_RUNTIME);
    }
  }

  n = pm__leaf(root, "e", "Task efficiency", "", "Product of granularity, locality, runtime and pipeline efficiency.",
               e);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm_metric_set_may_exceed_one(n, 1);
  pm_metric *g = pm__leaf(n, "e_granularity", "Granularity efficiency", "",
                          "Sequential kernel time over task time on one worker (from reference runs).", gran);
  if (g && !ref.valid && ref.nunmatched) /* nothing matched: the reason says what differed */
    pm_metric_set_na_fmt(g, "no codelet matched the reference runs by name and task count: %s", ref.unmatched);
  else if (g && ref.nunmatched) {
    char w[700];
    snprintf(w, sizeof w, "on %.1f %% of the task time; not matched: %s", 100.0 * ref.w_matched / ref.w_total,
             ref.unmatched);
    pm_metric_set_warning(g, w);
  }
  pm_metric_set_may_exceed_one(pm__leaf(n, "e_locality", "Locality efficiency", "",
                                        "Expected task time (reference run or duration model) over observed task time.",
                                        loc),
                               1);
  pm__leaf(n, "e_runtime", "Runtime efficiency", "", "Task execution time over execution plus runtime overhead.", rte);
  n = pm__leaf(n, "e_pipeline", "Pipeline efficiency", "",
               "Busy worker time (execution plus runtime) over available worker time.", ppl);
  if (n && !why && in->task_runtime_unobserved)
    pm_metric_set_warning(n, "runtime overhead not observable: counted as idle here (execution over available time)");
  n = pm__leaf(root, "bound", "Bound efficiency", "",
               "Best lower bound on the makespan (critical path or area) over the makespan.", bound);
  {
    pm_metric *c =
        pm__leaf(n, "cpb", "Critical-path bound", "s", "Length of the critical path through the task graph.", cpb);
    if (!why && c && in->cp_bound > 0.0) add_cp_composition(c, in);
  }
  pm__leaf(n, "abe", "Area bound", "s", "Least makespan if the task work were spread perfectly over the workers.", abe);
  if (!why) add_per_process(root, in);
  /* w_total > 0: the table was built */
  if (!why && in->ref_one && in->ref_seq && ref.w_total > 0) add_references(root, in, &ref, &names);
  pm__task_ref_names_free(&names);
  return pm__finish(root);
}
