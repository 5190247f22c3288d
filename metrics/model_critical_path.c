/* Critical-path model (RWTH, D8.2 §2.1.4, OTF-CPT; docs/metrics.md §4).
 *
 * Locations: threads, task workers and accelerator workers (the set T); t_i is the thread-local
 * critical path of useful execution (tl_cue) and PT_j the compute locations of process j.
 *
 *   LB_X   = sum_i t_i / sum_j |PT_j| max_{k in PT_j} t_k      (= |T| avg t / ...)
 *   LB_mpi = sum_j |PT_j| max_{k in PT_j} t_k / (|T| max_i t_i)
 *   SerE_X = max_i t_i / max_j PL-CUE_j       SerE_mpi = max_j PL-CUE_j / G-CUE
 *   TE_X   = G-COO / R                        TE_mpi   = G-CUE / G-COO
 * The products telescope: LB = avg t / max t, SerE = max t / G-CUE, TE = G-CUE / R,
 * CommE = SerE * TE = max t / R and PE = LB * CommE = avg t / R; with a consistent critical path
 * (t_i <= PL-CUE <= G-CUE <= G-COO <= R) every value lies in [0, 1].
 * Everything needs the critical path (has_critical_path); without pl_cue only the SerE split is n/a.
 * Processes without compute locations take no part. */
#include "popmetrics.h"
#include "pm_model_util.h"
#include "pm_util.h"
#include <stdlib.h>

static double tl_cue(const pm_run_input *in, const pm_location_input *l) {
  (void)in;
  return l->tl_cue;
}

pm_metric *pm_model_critical_path(const pm_run_input *in) {
  pm_metric *root, *n_pe, *n_lb, *n_ce, *n_se, *n_te;
  pm_val pe, lb, lbx, lbm, ce, se, sex, sem, te, tex, tem;
  const char *why = pm__input_problem(in);
  pm_agg t = {0, 0.0, 0.0}, *pt = NULL; /* t_i over T, and per process (max: max_{k in PT_j} t_k) */
  int p;

  root = pm__root("critical_path", "Critical-path model (RWTH)",
                  "Efficiencies from the online critical path, each split into a thread level (X) "
                  "and an MPI level.");
  if (!root) return NULL;
  if (!why && !in->has_critical_path) why = PM_NA_NO_CP;
  if (!why) {
    pt = pm__calloc((size_t)in->nprocesses, sizeof *pt);
    if (!pt) {
      pm_metric_free(root);
      return NULL;
    }
    pm__aggregate(in, pm__is_compute, tl_cue, &t, pt);
    if (t.n == 0) why = PM_NA_NO_COMPUTE;
  }
  if (why) {
    pe = lb = lbx = lbm = ce = se = sex = sem = te = tex = tem = pm_v_na(why);
  } else {
    double wmax = 0.0, plmax = 0.0;
    int first = 1;
    pm_val R = pm_v(in->runtime), gcue = pm_v(in->g_cue), gcoo = pm_v(in->g_coo);
    for (p = 0; p < in->nprocesses; p++) {
      if (pt[p].n == 0) continue;
      wmax += pt[p].n * pt[p].max;
      if (in->pl_cue && (first || in->pl_cue[p] > plmax)) plmax = in->pl_cue[p];
      first = 0;
    }
    lbx = pm_v_div(pm_v(t.sum), pm_v(wmax), PM_NA_NO_USEFUL);
    lbm = pm_v_div(pm_v(wmax), pm_v(t.n * t.max), PM_NA_NO_USEFUL);
    lb = pm_v_div(pm_v(t.sum), pm_v(t.n * t.max), PM_NA_NO_USEFUL);
    se = pm_v_div(pm_v(t.max), gcue, "critical path (G-CUE) is zero");
    if (!in->pl_cue) {
      sex = sem = pm_v_na("no process-local critical paths (PL-CUE) measured");
    } else {
      sex = pm_v_div(pm_v(t.max), pm_v(plmax), "process-local critical paths (PL-CUE) are zero");
      sem = pm_v_div(pm_v(plmax), gcue, "critical path (G-CUE) is zero");
    }
    te = pm_v_div(gcue, R, PM_NA_ZERO_RUNTIME);
    tex = pm_v_div(gcoo, R, PM_NA_ZERO_RUNTIME);
    tem = pm_v_div(gcue, gcoo, "critical path without OpenMP/runtime time (G-COO) is zero");
    ce = pm_v_div(pm_v(t.max), R, PM_NA_ZERO_RUNTIME);
    pe = pm_v_div(pm_v(t.sum / t.n), R, PM_NA_ZERO_RUNTIME);
  }

  n_pe = pm__leaf(root, "pe", "Parallel efficiency", "",
                  "Average thread-local critical path of useful work divided by the runtime.", pe);
  pm_metric_set_combine(n_pe, PM_COMBINE_PRODUCT);
  n_lb = pm__leaf(n_pe, "lb", "Load balance", "",
                  "Average useful critical path of a thread divided by the largest one.", lb);
  pm_metric_set_combine(n_lb, PM_COMBINE_PRODUCT);
  pm__leaf(n_lb, "lb_x", "Load balance within processes (X)", "",
           "Useful time of the threads relative to the busiest thread of their own process.", lbx);
  pm__leaf(n_lb, "lb_mpi", "Load balance across processes (MPI)", "",
           "Busiest thread of each process relative to the busiest thread overall.", lbm);
  n_ce = pm__leaf(n_pe, "comme", "Communication efficiency", "",
                  "Largest useful critical path of a thread divided by the runtime.", ce);
  pm_metric_set_combine(n_ce, PM_COMBINE_PRODUCT);
  n_se = pm__leaf(n_ce, "sere", "Serialization efficiency", "",
                  "Largest useful time of a thread divided by the global critical path (G-CUE).", se);
  pm_metric_set_combine(n_se, PM_COMBINE_PRODUCT);
  pm__leaf(n_se, "sere_x", "Serialization within processes (X)", "",
           "Largest useful time of a thread divided by the longest process-local critical path.", sex);
  pm__leaf(n_se, "sere_mpi", "Serialization across processes (MPI)", "",
           "Longest process-local critical path divided by the global critical path.", sem);
  n_te = pm__leaf(n_ce, "te", "Transfer efficiency", "",
                  "Global critical path of useful work (G-CUE) divided by the runtime.", te);
  pm_metric_set_combine(n_te, PM_COMBINE_PRODUCT);
  pm__leaf(n_te, "te_x", "Transfer efficiency (X: OpenMP/runtime)", "",
           "Critical path with OpenMP/runtime time weighted zero (G-COO) divided by the runtime.", tex);
  /* not "(MPI)" alone: a CUDA program without MPI loses here what its host waits for the device */
  pm__leaf(n_te, "te_mpi", "Transfer efficiency (MPI, I/O, devices)", "",
           "Critical path of useful work (G-CUE) divided by the critical path without "
           "OpenMP/runtime time (G-COO): the loss to MPI transfers, file I/O and device waits on the path.",
           tem);
  free(pt);
  return pm__finish(root);
}
