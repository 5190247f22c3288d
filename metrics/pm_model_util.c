/* Internal helpers shared by the models (see pm_model_util.h). */
#include "pm_model_util.h"
#include "pm_util.h"
#include <math.h>
#include <stdlib.h>

pm_val pm_v(double v) {
  pm_val r;
  r.v = v;
  r.na = NULL;
  return r;
}

pm_val pm_v_na(const char *why) {
  pm_val r;
  r.v = 0.0;
  r.na = why ? why : "not available";
  return r;
}

pm_val pm_v_div(pm_val a, pm_val b, const char *why_zero) {
  double q;
  if (a.na) return a;
  if (b.na) return b;
  if (!isfinite(a.v) || !isfinite(b.v)) return pm_v_na(PM_NA_NONFINITE);
  if (!pm_safe_div(a.v, b.v, &q)) return pm_v_na(why_zero);
  return pm_v(q);
}

pm_val pm_v_mul(pm_val a, pm_val b) {
  if (a.na) return a;
  if (b.na) return b;
  return pm_v(a.v * b.v);
}

pm_val pm_v_sub(pm_val a, pm_val b) {
  if (a.na) return a;
  if (b.na) return b;
  return pm_v(a.v - b.v);
}

int pm__is_compute(const pm_location_input *l) {
  return l->kind == PM_LOC_THREAD || l->kind == PM_LOC_WORKER || l->kind == PM_LOC_ACCEL;
}

int pm__is_worker(const pm_location_input *l) { return l->kind == PM_LOC_WORKER || l->kind == PM_LOC_ACCEL; }

const char *pm__cue_mismatch(const pm_run_input *in) {
  if (!in->io_as_useful == !in->cue_io_useful) return NULL;
  return in->io_as_useful
             ? "the critical path counted I/O as not useful (POPMETER_IO_AS_USEFUL=1 at run time counts it)"
             : "the critical path counted I/O as useful (the run had POPMETER_IO_AS_USEFUL=1)";
}

double pm__useful(const pm_run_input *in, const pm_location_input *l) {
  return l->useful + (in->io_as_useful ? l->io : 0.0);
}

double pm__mpi(const pm_run_input *in, const pm_location_input *l) {
  (void)in;
  return l->mpi;
}

int pm__is_progress(const pm_location_input *l) { return l->kind == PM_LOC_PROGRESS; }

static void agg_add(pm_agg *a, double v) {
  a->sum += v;
  if (a->n == 0 || v > a->max) a->max = v;
  a->n++;
}

void pm__aggregate(const pm_run_input *in, int (*select)(const pm_location_input *), pm_loc_value value, pm_agg *all,
                   pm_agg *per_process) {
  const pm_agg zero = {0, 0.0, 0.0};
  int i;
  if (all) *all = zero;
  for (i = 0; per_process && i < in->nprocesses; i++) per_process[i] = zero;
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    double v;
    if (!select(l)) continue;
    v = value(in, l);
    if (all) agg_add(all, v);
    if (per_process) agg_add(&per_process[l->process], v);
  }
}

void pm__progress_mpi_leaf(pm_metric *root, const pm_run_input *in) {
  pm_agg prog;
  pm__aggregate(in, pm__is_progress, pm__mpi, &prog, NULL);
  if (prog.n == 0) return; /* reported separately, only when such threads exist */
  pm__leaf(root, "progress_mpi", "Progress-thread time in MPI", "%",
           "Share of the runtime that communication progress threads spent inside MPI.",
           pm_v_div(pm_v(100.0 * prog.sum), pm_v((double)prog.n * in->runtime), PM_NA_ZERO_RUNTIME));
}

const char *pm__input_problem(const pm_run_input *in) {
  int i;
  if (!in) return PM_NA_NO_INPUT;
  if (in->nlocations <= 0) return PM_NA_NO_LOCATIONS;
  if (!in->loc) return "invalid input: location array missing";
  for (i = 0; i < in->nlocations; i++)
    if (in->loc[i].process < 0 || in->loc[i].process >= in->nprocesses)
      return "invalid input: location process index out of range";
  if (!(in->runtime > 0.0)) /* also catches NaN */
    return PM_NA_ZERO_RUNTIME;
  return NULL;
}

int pm__is_thread(const pm_location_input *l) { return l->kind == PM_LOC_THREAD; }

int pm__procs_init(pm_procs *pp, const pm_run_input *in, int (*select)(const pm_location_input *)) {
  int i;
  pp->nproc = in->nprocesses;
  pp->nloc = pm__calloc((size_t)in->nprocesses, sizeof *pp->nloc);
  pp->master = pm__malloc((size_t)in->nprocesses * sizeof *pp->master);
  if (!pp->nloc || !pp->master) {
    pm__procs_free(pp);
    return 0;
  }
  for (i = 0; i < in->nprocesses; i++) pp->master[i] = -1;
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    if (!select(l)) continue;
    if (pp->master[l->process] < 0) pp->master[l->process] = i;
    pp->nloc[l->process]++;
  }
  return 1;
}

void pm__procs_free(pm_procs *pp) {
  free(pp->nloc);
  free(pp->master);
  pp->nloc = pp->master = NULL;
}

pm_metric *pm__root(const char *id, const char *name, const char *description) {
  return pm_metric_new(id, name, "", description);
}

void pm__set(pm_metric *m, pm_val v) {
  if (v.na)
    pm_metric_set_na(m, v.na);
  else
    pm_metric_set_value(m, v.v);
}

pm_metric *pm__leaf(pm_metric *parent, const char *id, const char *name, const char *unit, const char *description,
                    pm_val v) {
  pm_metric *m = pm_metric_add_new(parent, id, name, unit, description);
  pm__set(m, v);
  return m;
}

pm_metric *pm__finish(pm_metric *root) {
  if (!pm_metric_ok(root)) {
    pm_metric_free(root);
    return NULL;
  }
  return root;
}
