/* Basic POP model (docs/metrics.md §1).
 *
 * Locations: every thread, task worker and accelerator worker (pm__is_compute), N of them. Progress
 * threads are excluded from useful/LB (their time is runtime service, not application work) and
 * reported separately as "progress_mpi" when present; device streams only feed device metrics (TALP).
 *
 *   PE = sum(useful) / (N*R) = LB * CommE       LB = avg(useful) / max(useful)
 *   CommE = max(useful) / R = SerE * TE         SerE = max(useful) / R_ideal   TE = R_ideal / R
 *
 * R_ideal is the global critical path of useful execution (G-CUE) when the run measured one;
 * otherwise SerE and TE are n/a ("no critical path measured") while CommE stays defined.
 * With io_as_useful, I/O time counts as useful. */
#include "popmetrics.h"
#include "pm_model_util.h"

pm_metric *pm_model_basic(const pm_run_input *in) {
  pm_metric *root, *pe_n, *comme_n;
  pm_val pe, lb, comme, sere, te;
  const char *why = pm__input_problem(in);
  pm_agg useful = {0, 0.0, 0.0};

  root = pm__root("basic", "Basic POP model",
                  "POP parallel efficiency over all threads and workers, split into load balance, "
                  "serialization and transfer.");
  if (!root) return NULL;
  if (!why) {
    pm__aggregate(in, pm__is_compute, pm__useful, &useful, NULL);
    if (useful.n == 0) why = PM_NA_NO_COMPUTE;
  }
  if (why) {
    pe = lb = comme = sere = te = pm_v_na(why);
  } else {
    pm_val R = pm_v(in->runtime), vmax = pm_v(useful.max);
    pe = pm_v_div(pm_v(useful.sum), pm_v((double)useful.n * in->runtime), PM_NA_ZERO_RUNTIME);
    lb = pm_v_div(pm_v(useful.sum / useful.n), vmax, PM_NA_NO_USEFUL);
    comme = pm_v_div(vmax, R, PM_NA_ZERO_RUNTIME);
    const char *no_path = in->has_critical_path ? pm__cue_mismatch(in) : PM_NA_NO_CP;
    if (no_path) {
      sere = te = pm_v_na(no_path);
    } else {
      pm_val ideal = pm_v(in->g_cue);
      sere = pm_v_div(vmax, ideal, "critical path (G-CUE) is zero");
      te = sere.na ? sere : pm_v_div(ideal, R, PM_NA_ZERO_RUNTIME);
    }
  }

  pe_n = pm__leaf(root, "pe", "Parallel efficiency", "",
                  "Share of the available thread time spent in useful application code.", pe);
  pm_metric_set_combine(pe_n, PM_COMBINE_PRODUCT);
  pm__leaf(pe_n, "lb", "Load balance", "", "Average useful time divided by the largest useful time of any thread.", lb);
  comme_n = pm__leaf(pe_n, "comme", "Communication efficiency", "",
                     "Largest useful time divided by the runtime: loss to communication and waiting.", comme);
  pm_metric_set_combine(comme_n, PM_COMBINE_PRODUCT);
  pm__leaf(comme_n, "sere", "Serialization efficiency", "",
           "Largest useful time divided by the runtime on an ideal network (critical path).", sere);
  pm__leaf(comme_n, "te", "Transfer efficiency", "",
           "Runtime on an ideal network divided by the measured runtime: loss to data transfer.", te);

  if (!why) pm__progress_mpi_leaf(root, in);
  return pm__finish(root);
}
