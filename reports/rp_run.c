/* What the study needs from one run, read off its profile: the inputs of pm_model_scaling (pop-
 * metrics.md §8: processes, threads, runtime, sum of useful time, parallel efficiency), the basic
 * model, the critical path, and the parallel efficiency of each process (the load heatmap). The
 * model input comes from pm_profile_to_input, so the numbers are the ones `popmeter show` uses. */
#include "rp_study.h"
#include "pm_profile_input.h"
#include "pm_profile_counters.h"
#include <stdlib.h>
#include <string.h>

/* Locations that do application work: threads, workers, accelerator workers (not progress threads
 * or device streams; the same split as the models'). */
static int is_compute(const pm_location_input *l) { return l->kind != PM_LOC_PROGRESS && l->kind != PM_LOC_DEVICE; }

static double model_pe(const pm_run_input *in) {
  pm_metric *t = pm_model_basic(in);
  double v = 0.0;
  if (!t || !pm_metric_get_path(t, "pe", &v)) v = 0.0; /* pm_scaling_run: <= 0 means "not known" */
  pm_metric_free(t);
  return v;
}

/* Each process's locations alone, over the run's runtime: how busy that rank was. */
static int rank_efficiencies(rp_run *r, const pm_run_input *in) {
  int np = r->prof->nprocesses, p, i;
  pm_location_input *sub = calloc((size_t)in->nlocations + 1, sizeof *sub);
  r->rank_pe = calloc((size_t)np + 1, sizeof *r->rank_pe);
  if (!sub || !r->rank_pe) {
    free(sub);
    return -1;
  }
  for (p = 0; p < np; p++) {
    pm_run_input one = {.runtime = in->runtime, .nprocesses = 1, .nnodes = 1, .loc = sub};
    for (i = 0; i < in->nlocations; i++) {
      if (in->loc[i].process != p || !is_compute(&in->loc[i])) continue;
      sub[one.nlocations] = in->loc[i];
      sub[one.nlocations].process = 0;
      sub[one.nlocations].node = 0;
      one.nlocations++;
    }
    r->rank_pe[p] = one.nlocations ? model_pe(&one) : 0.0;
  }
  free(sub);
  return 0;
}

int rp_run_prepare(rp_run *r) {
  pm_run_input_buf buf;
  int *per_proc, i, threads = 0, rc = -1;
  double sum = 0.0, max = 0.0;
  if (pm_profile_to_input(r->prof, 0, &buf) != 0) return -1;
  per_proc = calloc((size_t)r->prof->nprocesses + 1, sizeof *per_proc);
  r->basic = pm_model_basic(&buf.in);
  if (!per_proc || !r->basic) goto out;
  for (i = 0; i < buf.in.nlocations; i++) {
    const pm_location_input *l = &buf.in.loc[i];
    if (!is_compute(l)) continue;
    if (++per_proc[l->process] > threads) threads = per_proc[l->process];
    sum += l->useful;
    if (l->useful > max) max = l->useful;
  }
  r->sr = (pm_scaling_run){
      .nprocesses = r->prof->nprocesses, .nthreads = threads, .runtime = r->prof->runtime, .sum_useful = sum};
  if (!pm_metric_get_path(r->basic, "pe", &r->sr.parallel_efficiency)) r->sr.parallel_efficiency = 0.0;
  /* hardware counters over useful time (popmeter.json "counters"); without them on every compute
   * location pm_model_scaling says why IPC etc. are n/a */
  r->sr.has_counters = pm_prof_counters_sums(r->prof, &r->sr.sum_instructions, &r->sr.sum_cycles);
  r->has_cp = r->prof->has_critical_path;
  r->g_cue = buf.in.g_cue;
  r->max_useful = max;
  rc = rank_efficiencies(r, &buf.in);
out:
  free(per_proc);
  pm_run_input_buf_free(&buf);
  return rc;
}

void rp_run_free_derived(rp_run *r, int nregions) {
  int g;
  pm_metric_free(r->basic);
  pm_metric_free(r->tree);
  free(r->rank_pe);
  for (g = 0; r->reg && g < nregions; g++) {
    pm_metric_free(r->reg[g].basic);
    pm_metric_free(r->reg[g].tree);
  }
  free(r->reg);
  r->basic = r->tree = NULL;
  r->rank_pe = NULL;
  r->reg = NULL;
}
