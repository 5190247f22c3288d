/* Hybrid additive model (NAG; docs/metrics.md §3): inefficiencies (1 - efficiency) add up.
 *
 * Locations: application threads (PM_LOC_THREAD) only, t_p of them in process p, T in all: the
 * model describes MPI + OpenMP, and task workers have no serial / parallel-region structure (the
 * task model covers them); progress threads and devices take no part either.
 * The master of p is its first thread in array order (pm_procs): inOmp(p) is the master's
 * in_parallel (sum of the spans of p's parallel regions) and suc(p) its serial_useful.
 *
 *   avg(useful) = sum useful / T,  avg(su) = sum_p t_p*suc(p) / T,  avg(omp) = sum_p t_p*inOmp(p) / T
 *   PE          = avg(useful)/R                         = Process eff + Thread eff - 1
 *   Process eff = (avg(omp) + avg(su))/R                = MPI CommE_add + Process LB - 1
 *   MPI CommE   = max_p(inOmp(p) + suc(p)) / R
 *   Process LB  = 1 - (max_p(inOmp + suc) - avg(omp) - avg(su)) / R
 *   Thread eff  = 1 - (avg(omp) + avg(su) - avg(useful)) / R = Amdahl + OpenMP region eff - 1
 *   Amdahl eff  = 1 - (sum_p suc(p)*(t_p - 1) / T) / R
 *   OpenMP eff  = 1 - avg_t(inOmp(p_t) - omp_useful_t) / R
 * The Thread split is exact when each location's useful = serial_useful + omp_useful (only the
 * master has serial useful time), which is how the measurement side fills them.
 *
 * Per-region children of the OpenMP node (one per entry of omp_regions): the region's share of the
 * OpenMP inefficiency, 1 - [sum_j (span - useful_j) + (t_p - n)*span] / (T*R) for a team of n
 * threads in process p (threads of p outside the team lose the whole span). They add up to the
 * OpenMP node when the regions cover all parallel time. Regions of an unknown process are skipped.
 * With io_as_useful, I/O time counts as useful in PE (the serial/parallel split is unchanged). */
#include "popmetrics.h"
#include "pm_model_util.h"
#include <stdio.h>

#define NA_SPLIT "no serial / parallel-region split measured (serial_useful, in_parallel)"

static double omp_useful(const pm_run_input *in, const pm_location_input *l) {
  (void)in;
  return l->omp_useful;
}

/* Adds one child per OpenMP region under the OpenMP node. */
static void add_regions(pm_metric *omp, const pm_run_input *in, const pm_procs *pp, int T) {
  int r, j;
  for (r = 0; r < in->nomp_regions; r++) {
    const pm_omp_region_input *g = &in->omp_regions[r];
    char id[32], name[160];
    pm_val v;
    int tp, n;
    double lost = 0.0;
    if (g->process < 0 || g->process >= in->nprocesses || pp->nloc[g->process] == 0) continue;
    tp = pp->nloc[g->process];
    n = g->nthreads > 0 ? g->nthreads : 0;
    snprintf(id, sizeof id, "region_%d", r);
    snprintf(name, sizeof name, "Region %s (process %d)", g->name ? g->name : id, g->process);
    if (n > 0 && !g->thread_useful) {
      v = pm_v_na("no per-thread useful time for this region");
    } else {
      for (j = 0; j < n; j++) lost += g->span - g->thread_useful[j];
      if (tp > n) lost += (double)(tp - n) * g->span;
      v = pm_v_sub(pm_v(1.0), pm_v_div(pm_v(lost), pm_v((double)T * in->runtime), PM_NA_ZERO_RUNTIME));
    }
    pm__leaf(omp, id, name, "",
             "This parallel region's share of the OpenMP inefficiency "
             "(1 minus its lost thread time over all thread time).",
             v);
  }
  if (omp && omp->nchildren > 0) pm_metric_set_combine(omp, PM_COMBINE_ADDITIVE);
}

pm_metric *pm_model_additive(const pm_run_input *in) {
  pm_metric *root, *n_pe, *n_proc, *n_thr, *n_omp;
  pm_val pe, proc, comme, plb, thr, amd, omp;
  const char *why = pm__input_problem(in);
  pm_procs pp = {0, NULL, NULL};
  int p, T = 0;
  double su = 0.0, ou = 0.0, ompu = 0.0, amdl = 0.0, maxps = 0.0, split = 0.0;
  pm_agg useful, in_regions; /* over the threads: useful time, useful time in parallel regions */

  root = pm__root("additive", "Hybrid additive model (NAG)",
                  "Parallel efficiency whose inefficiencies add up: processes, threads, Amdahl, "
                  "OpenMP regions.");
  if (!root) return NULL;
  if (!why) {
    if (!pm__procs_init(&pp, in, pm__is_thread)) {
      pm_metric_free(root);
      return NULL;
    }
    pm__aggregate(in, pm__is_thread, pm__useful, &useful, NULL);
    pm__aggregate(in, pm__is_thread, omp_useful, &in_regions, NULL);
    T = useful.n;
    ou = useful.sum;
    ompu = in_regions.sum;
    if (T == 0) why = "no application threads";
  }
  if (why) {
    pe = proc = comme = plb = thr = amd = omp = pm_v_na(why);
  } else {
    double R = in->runtime, avgs, avgo, avgu, so = 0.0;
    int first = 1;
    for (p = 0; p < in->nprocesses; p++) {
      const pm_location_input *m;
      int tp = pp.nloc[p];
      if (tp == 0) continue;
      m = &in->loc[pp.master[p]];
      su += tp * m->serial_useful;
      so += tp * m->in_parallel;
      amdl += m->serial_useful * (tp - 1);
      split += m->serial_useful + m->in_parallel;
      if (first || m->in_parallel + m->serial_useful > maxps) maxps = m->in_parallel + m->serial_useful;
      first = 0;
    }
    avgs = su / T;
    avgo = so / T;
    avgu = ou / T;
    pe = pm_v_div(pm_v(avgu), pm_v(R), PM_NA_ZERO_RUNTIME);
    if (split == 0.0 && ou > 0.0) {
      proc = comme = plb = thr = amd = omp = pm_v_na(NA_SPLIT);
    } else {
      pm_val one = pm_v(1.0), vR = pm_v(R);
      proc = pm_v_div(pm_v(avgo + avgs), vR, PM_NA_ZERO_RUNTIME);
      comme = pm_v_div(pm_v(maxps), vR, PM_NA_ZERO_RUNTIME);
      plb = pm_v_sub(one, pm_v_div(pm_v(maxps - avgo - avgs), vR, PM_NA_ZERO_RUNTIME));
      thr = pm_v_sub(one, pm_v_div(pm_v(avgo + avgs - avgu), vR, PM_NA_ZERO_RUNTIME));
      amd = pm_v_sub(one, pm_v_div(pm_v(amdl / T), vR, PM_NA_ZERO_RUNTIME));
      omp = pm_v_sub(one, pm_v_div(pm_v(avgo - ompu / T), vR, PM_NA_ZERO_RUNTIME));
    }
  }

  n_pe =
      pm__leaf(root, "pe", "Parallel efficiency", "", "Average useful time of all threads divided by the runtime.", pe);
  pm_metric_set_combine(n_pe, PM_COMBINE_ADDITIVE);
  n_proc = pm__leaf(n_pe, "process", "Process efficiency", "",
                    "Time the processes spend in serial code or parallel regions, over the runtime.", proc);
  pm_metric_set_combine(n_proc, PM_COMBINE_ADDITIVE);
  pm__leaf(n_proc, "mpi_comme", "MPI communication efficiency", "",
           "Largest serial-plus-parallel-region time of any process divided by the runtime.", comme);
  pm__leaf(n_proc, "process_lb", "Process load balance", "",
           "One minus the gap between the busiest and the average process, over the runtime.", plb);
  n_thr = pm__leaf(n_pe, "thread", "Thread efficiency", "",
                   "One minus the thread time lost to serial code and inside parallel regions.", thr);
  pm_metric_set_combine(n_thr, PM_COMBINE_ADDITIVE);
  pm__leaf(n_thr, "amdahl", "Amdahl efficiency", "",
           "One minus the time the other threads wait while the master runs serial code.", amd);
  n_omp = pm__leaf(n_thr, "omp", "OpenMP region efficiency", "",
                   "One minus the thread time inside parallel regions that is not useful work.", omp);
  if (!why && in->nomp_regions > 0 && in->omp_regions) add_regions(n_omp, in, &pp, T);
  pm__procs_free(&pp);
  return pm__finish(root);
}
