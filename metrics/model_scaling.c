/* Scalability across runs (docs/metrics.md §8), used by reports/.
 *
 * For run r against the reference run 0 (or ref), with N = nprocesses * nthreads locations:
 *   CompScal   = sum useful_ref / sum useful            (strong)
 *              = sum useful_ref / sum useful * N/N_ref  (weak: the work per location is constant)
 *   IPC scal   = IPC / IPC_ref,  IPC = sum instructions / sum cycles
 *   Instr scal = sum instr_ref / sum instr  (* N/N_ref when weak)
 *   Freq scal  = f / f_ref,  f = sum cycles / sum useful (cycles per useful second)
 *   CompScal   = IPC scal * Instr scal * Freq scal exactly (both runs need counters)
 *   GE = PE * CompScal,  PE = the run's own parallel efficiency;  Speedup = R_ref / R
 * CompScal, its factors and GE can exceed 1 (super-linear effects): flagged, never clamped.
 * A run's parallel_efficiency <= 0 (or not finite) means "not known": GE is then n/a.
 *
 * Weak or strong: given by the caller, or detected (pm_scaling_detect): the run whose location
 * count differs most from the reference's (largest |log N/N_ref|) is compared with it; when its work
 * per location (instructions, or useful time when either run lacks counters) is >= 0.75 x the
 * reference's, the study is weak scaling, else strong. Runs with the reference's N cannot tell the
 * two apart (the factor N/N_ref is 1 anyway); with no such run the answer is strong. */
#include "popmetrics.h"
#include "pm_model_util.h"
#include <math.h>

static int valid_run(const pm_scaling_run *r) { return r->nprocesses > 0 && r->nthreads > 0; }

static double nloc(const pm_scaling_run *r) { return (double)r->nprocesses * (double)r->nthreads; }

pm_scaling_mode pm_scaling_detect(const pm_scaling_run *runs, int nruns, int ref) {
  const pm_scaling_run *R0, *best = NULL;
  double bestd = 0.0, w, w0, ratio;
  int i;
  if (ref < 0) ref = 0;
  if (!runs || ref >= nruns || !valid_run(&runs[ref])) return PM_SCALING_STRONG;
  R0 = &runs[ref];
  for (i = 0; i < nruns; i++) {
    double d;
    if (i == ref || !valid_run(&runs[i]) || nloc(&runs[i]) == nloc(R0)) continue;
    d = fabs(log(nloc(&runs[i]) / nloc(R0)));
    if (!best || d > bestd) {
      best = &runs[i];
      bestd = d;
    }
  }
  if (!best) return PM_SCALING_STRONG;
  if (best->has_counters && R0->has_counters) {
    w = best->sum_instructions / nloc(best);
    w0 = R0->sum_instructions / nloc(R0);
  } else {
    w = best->sum_useful / nloc(best);
    w0 = R0->sum_useful / nloc(R0);
  }
  if (!pm_safe_div(w, w0, &ratio)) return PM_SCALING_STRONG;
  return ratio >= 0.75 ? PM_SCALING_WEAK : PM_SCALING_STRONG;
}

pm_metric *pm_model_scaling(const pm_scaling_run *runs, int nruns, int run, int ref, pm_scaling_mode mode) {
  pm_metric *root, *n_ge, *n_cs;
  pm_val ge, pe, cs, ipcs, ins, frq, sp;
  const char *why = NULL;
  const pm_scaling_run *r = NULL, *r0 = NULL;

  if (ref < 0) ref = 0;
  if (mode == PM_SCALING_AUTO) mode = pm_scaling_detect(runs, nruns, ref);
  root = pm__root("scaling", mode == PM_SCALING_WEAK ? "Scalability (weak)" : "Scalability (strong)",
                  "Global efficiency of this run relative to the reference run: parallel "
                  "efficiency times computation scalability.");
  if (!root) return NULL;
  if (!runs || nruns <= 0)
    why = "no runs";
  else if (run < 0 || run >= nruns || ref >= nruns)
    why = "run index out of range";
  else {
    r = &runs[run];
    r0 = &runs[ref];
    if (!valid_run(r) || !valid_run(r0)) why = "invalid run: no processes or threads";
  }
  if (why) {
    ge = pe = cs = ipcs = ins = frq = sp = pm_v_na(why);
  } else {
    pm_val n = pm_v(mode == PM_SCALING_WEAK ? nloc(r) / nloc(r0) : 1.0);
    pm_val ipc, ipc0;
    cs = pm_v_mul(pm_v_div(pm_v(r0->sum_useful), pm_v(r->sum_useful), PM_NA_NO_USEFUL), n);
    if (cs.na == NULL && r0->sum_useful == 0.0) cs = pm_v_na("no useful time in the reference run");
    if (r->parallel_efficiency > 0.0 && isfinite(r->parallel_efficiency))
      pe = pm_v(r->parallel_efficiency);
    else
      pe = pm_v_na("parallel efficiency of the run not known");
    ge = pm_v_mul(pe, cs);
    sp = pm_v_div(pm_v(r0->runtime), pm_v(r->runtime), PM_NA_ZERO_RUNTIME);
    if (!r->has_counters || !r0->has_counters) {
      ipcs = ins = frq = pm_v_na("no hardware counters in this run or the reference");
    } else {
      const char *zc = "no cycles counted", *zi = "no instructions counted";
      ipc = pm_v_div(pm_v(r->sum_instructions), pm_v(r->sum_cycles), zc);
      ipc0 = pm_v_div(pm_v(r0->sum_instructions), pm_v(r0->sum_cycles), zc);
      ipcs = pm_v_div(ipc, ipc0, zi);
      ins = pm_v_mul(pm_v_div(pm_v(r0->sum_instructions), pm_v(r->sum_instructions), zi), n);
      frq = pm_v_div(pm_v_div(pm_v(r->sum_cycles), pm_v(r->sum_useful), PM_NA_NO_USEFUL),
                     pm_v_div(pm_v(r0->sum_cycles), pm_v(r0->sum_useful), PM_NA_NO_USEFUL), zc);
    }
  }
  n_ge = pm__leaf(root, "ge", "Global efficiency", "", "Parallel efficiency times computation scalability.", ge);
  pm_metric_set_combine(n_ge, PM_COMBINE_PRODUCT);
  pm_metric_set_may_exceed_one(n_ge, 1);
  pm__leaf(n_ge, "pe", "Parallel efficiency", "", "The run's own parallel efficiency.", pe);
  n_cs = pm__leaf(n_ge, "compscal", "Computation scalability", "",
                  "Useful time of the reference over useful time of this run (per location when "
                  "weak scaling).",
                  cs);
  pm_metric_set_combine(n_cs, PM_COMBINE_PRODUCT);
  pm_metric_set_may_exceed_one(n_cs, 1);
  pm_metric_set_may_exceed_one(pm__leaf(n_cs, "ipc_scal", "IPC scalability", "",
                                        "Instructions per cycle of this run over those of the reference.", ipcs),
                               1);
  pm_metric_set_may_exceed_one(
      pm__leaf(n_cs, "instr_scal", "Instruction scalability", "",
               "Instructions of the reference over instructions of this run (per location when "
               "weak scaling).",
               ins),
      1);
  pm_metric_set_may_exceed_one(pm__leaf(n_cs, "freq_scal", "Frequency scalability", "",
                                        "Cycles per useful second of this run over those of the reference.", frq),
                               1);
  pm__leaf(root, "speedup", "Speedup", "x", "Runtime of the reference over runtime of this run.", sp);
  return pm__finish(root);
}
