/* Hybrid multiplicative model, "MPI + X" (BSC; docs/metrics.md §2).
 *
 * Locations: threads, task workers and accelerator workers (T of them, t_p per process). Progress
 * threads are excluded (reported as "progress_mpi" when present), device streams ignored.
 *
 *   Hybrid PE = avg(useful)/R    Hybrid CommE = max(useful)/R    Hybrid LB = avg/max
 *   MPI PE    = sum_p outsideMPI(p)*t_p / (R*T)     MPI CommE = max_p outsideMPI(p) / R
 *   MPI LB    = MPI PE / MPI CommE                  MPI SerE  = max_p outsideMPI(p) / G-COM
 *   MPI TE    = MPI CommE / MPI SerE  (= G-COM / R)
 *   X PE = Hybrid PE / MPI PE,  X CommE = Hybrid CommE / MPI CommE,  X LB = Hybrid LB / MPI LB
 *
 * outsideMPI(p) = R - mpi time of the compute locations of p that call MPI (calls_mpi); when
 * several threads of p call MPI (MPI_THREAD_MULTIPLE) their average MPI time is used, since the
 * aggregate per-thread times cannot tell how their MPI intervals overlap. A process none of whose
 * application threads calls MPI (no MPI at all, or only a progress thread does) is outside MPI for
 * the whole run: its communication is then visible only in the X part.
 * The ideal-network runtime of the MPI level is G-COM, the critical path with MPI time weighted 0:
 * everything outside MPI on an infinitely fast network.
 * Tree: pe = mpi_pe * x_pe, mpi_pe = mpi_lb * mpi_comme, mpi_comme = mpi_sere * mpi_te,
 * x_pe = x_lb * x_comme (X values may exceed 1: flagged, never clamped); hybrid_lb and hybrid_comme
 * (pe = hybrid_lb * hybrid_comme) are given beside the tree. */
#include "popmetrics.h"
#include "pm_model_util.h"
#include "pm_util.h"
#include <stdlib.h>

/* The compute locations that call MPI. */
static int calls_mpi(const pm_location_input *l) { return pm__is_compute(l) && l->calls_mpi; }

pm_metric *pm_model_multiplicative(const pm_run_input *in) {
  pm_metric *root, *n_pe, *n_mpi, *n_mc, *n_x;
  pm_val hpe, hce, hlb, mpe, mce, mlb, mse, mte, xpe, xce, xlb;
  const char *why = pm__input_problem(in);
  int p;
  pm_agg useful = {0, 0.0, 0.0}, *mpi = NULL; /* per process: mpi over its MPI-calling compute locations */
  pm_procs pp = {0, NULL, NULL};

  root = pm__root("multiplicative", "Hybrid multiplicative model (BSC)",
                  "Hybrid parallel efficiency as the product of an MPI level and a thread level (X).");
  if (!root) return NULL;
  if (!why) {
    mpi = pm__calloc((size_t)in->nprocesses, sizeof *mpi);
    if (!mpi || !pm__procs_init(&pp, in, pm__is_compute)) {
      free(mpi);
      pm__procs_free(&pp);
      pm_metric_free(root);
      return NULL;
    }
    pm__aggregate(in, pm__is_compute, pm__useful, &useful, NULL);
    pm__aggregate(in, calls_mpi, pm__mpi, NULL, mpi);
    if (useful.n == 0) why = PM_NA_NO_COMPUTE;
  }
  if (why) {
    hpe = hce = hlb = mpe = mce = mlb = mse = mte = xpe = xce = xlb = pm_v_na(why);
  } else {
    double R = in->runtime, wsum = 0.0, omax = 0.0;
    int first = 1, T = useful.n;
    for (p = 0; p < in->nprocesses; p++) {
      double outside;
      if (pp.nloc[p] == 0) continue; /* a process without application threads has no say in the MPI level */
      outside = R - (mpi[p].n ? mpi[p].sum / mpi[p].n : 0.0);
      wsum += outside * pp.nloc[p];
      if (first || outside > omax) omax = outside;
      first = 0;
    }
    hpe = pm_v_div(pm_v(useful.sum / T), pm_v(R), PM_NA_ZERO_RUNTIME);
    hce = pm_v_div(pm_v(useful.max), pm_v(R), PM_NA_ZERO_RUNTIME);
    hlb = pm_v_div(pm_v(useful.sum / T), pm_v(useful.max), PM_NA_NO_USEFUL);
    mpe = pm_v_div(pm_v(wsum), pm_v(R * T), PM_NA_ZERO_RUNTIME);
    mce = pm_v_div(pm_v(omax), pm_v(R), PM_NA_ZERO_RUNTIME);
    mlb = pm_v_div(mpe, mce, "no time outside MPI");
    if (!in->has_critical_path)
      mse = mte = pm_v_na(PM_NA_NO_CP);
    else {
      mse = pm_v_div(pm_v(omax), pm_v(in->g_com), "critical path without MPI (G-COM) is zero");
      mte = pm_v_div(mce, mse, "no time outside MPI");
    }
    xpe = pm_v_div(hpe, mpe, "no time outside MPI");
    xce = pm_v_div(hce, mce, "no time outside MPI");
    xlb = pm_v_div(hlb, mlb, "no time outside MPI");
  }

  n_pe = pm__leaf(root, "pe", "Hybrid parallel efficiency", "",
                  "Average useful time of all threads divided by the runtime.", hpe);
  pm_metric_set_combine(n_pe, PM_COMBINE_PRODUCT);
  n_mpi = pm__leaf(n_pe, "mpi_pe", "MPI parallel efficiency", "",
                   "Time the MPI-calling threads spend outside MPI, weighted by threads per process.", mpe);
  pm_metric_set_combine(n_mpi, PM_COMBINE_PRODUCT);
  pm__leaf(n_mpi, "mpi_lb", "MPI load balance", "",
           "Average time outside MPI divided by the largest time outside MPI of any process.", mlb);
  n_mc = pm__leaf(n_mpi, "mpi_comme", "MPI communication efficiency", "",
                  "Largest time outside MPI of any process divided by the runtime.", mce);
  pm_metric_set_combine(n_mc, PM_COMBINE_PRODUCT);
  pm__leaf(n_mc, "mpi_sere", "MPI serialization efficiency", "",
           "Largest time outside MPI divided by the runtime on an ideal network (G-COM).", mse);
  pm__leaf(n_mc, "mpi_te", "MPI transfer efficiency", "",
           "Runtime on an ideal network (G-COM) divided by the measured runtime.", mte);
  n_x = pm__leaf(n_pe, "x_pe", "Thread-level (X) parallel efficiency", "",
                 "Hybrid parallel efficiency divided by the MPI parallel efficiency.", xpe);
  pm_metric_set_combine(n_x, PM_COMBINE_PRODUCT);
  pm_metric_set_may_exceed_one(n_x, 1);
  pm_metric_set_may_exceed_one(pm__leaf(n_x, "x_lb", "Thread-level (X) load balance", "",
                                        "Hybrid load balance divided by the MPI load balance.", xlb),
                               1);
  pm_metric_set_may_exceed_one(pm__leaf(n_x, "x_comme", "Thread-level (X) communication efficiency", "",
                                        "Hybrid communication efficiency divided by the MPI communication efficiency.",
                                        xce),
                               1);
  pm__leaf(root, "hybrid_lb", "Hybrid load balance", "",
           "Average useful time divided by the largest useful time of any thread.", hlb);
  pm__leaf(root, "hybrid_comme", "Hybrid communication efficiency", "",
           "Largest useful time of any thread divided by the runtime.", hce);
  if (!why) pm__progress_mpi_leaf(root, in);
  free(mpi);
  pm__procs_free(&pp);
  return pm__finish(root);
}
