/* Vectorization and operation rates from hardware counters (D8.2 §2.3; docs/metrics.md §7.2).
 *
 * Locations: threads, task workers and accelerator workers; every one of them must have the
 * counters a metric needs, otherwise the metric is n/a naming what is missing (a partial sum would
 * silently bias the figure). Counters are never invented and missing counters never read as 0.
 *   V = sum_w (w * n_w) / (W_max * sum_w n_w)  over the FP instruction counts n_w of width
 *       w = 32 (single scalar), 64 (double scalar), 128, 256, 512 bits; W_max = vector_width_max
 *   Vectorization ratio (single / double) = packed / (scalar + packed)
 *   Vectorization intensity = vector FP instructions (128 bits and wider) / all instructions
 *   OPC = IPC * OPI,  IPC = sum instructions / sum cycles,  OPI = sum fp_ops / sum instructions */
#include "popmetrics.h"
#include "pm_model_util.h"
#include <stdio.h>

static const double widths[5] = {32.0, 64.0, 128.0, 256.0, 512.0};

typedef struct {
  int n, miss_ins, miss_cyc, miss_fp;
  double ins, cyc, fpops, wsum, nsum, vec, sc[2], pk[2];
  int widest; /* index of the widest width with a non-zero count, -1 if none */
} vec_sums;

static void gather(const pm_run_input *in, vec_sums *s) {
  int i, k;
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    const pm_counters *c = &l->counters;
    if (!pm__is_compute(l)) continue;
    s->n++;
    if (!c->has_instructions) s->miss_ins++;
    if (!c->has_cycles) s->miss_cyc++;
    if (!c->has_fp) s->miss_fp++;
    s->ins += c->instructions;
    s->cyc += c->cycles;
    s->fpops += c->fp_ops;
    for (k = 0; k < 5; k++) {
      s->wsum += widths[k] * c->fp_by_width[k];
      s->nsum += c->fp_by_width[k];
      if (k >= 2) s->vec += c->fp_by_width[k];
      if (c->fp_by_width[k] > 0.0 && k > s->widest) s->widest = k;
    }
    for (k = 0; k < 2; k++) {
      s->sc[k] += c->fp_scalar[k];
      s->pk[k] += c->fp_packed[k];
    }
  }
}

/* Sets m to n/a naming the missing counter when some location lacks it; returns 1 if so. */
static int missing(pm_metric *m, const char *what, int miss, int n) {
  if (!miss) return 0;
  pm_metric_set_na_fmt(m, "no hardware counters: %s unavailable on %d of %d locations", what, miss, n);
  return 1;
}

pm_metric *pm_model_vectorization(const pm_run_input *in) {
  pm_metric *root, *v, *rs, *rd, *vi, *opc, *ipc, *opi;
  const char *why = pm__input_problem(in);
  vec_sums s = {0};
  pm_val vipc, vopi;
  s.widest = -1;

  root = pm__root("vectorization", "Vectorization",
                  "Use of the vector units and operation rates, from hardware counters.");
  if (!root) return NULL;
  v = pm_metric_add_new(root, "vec_eff", "Vectorization efficiency", "",
                        "Average width of the FP instructions relative to the widest vector unit.");
  rs = pm_metric_add_new(root, "vec_ratio_sp", "Vectorization ratio (single precision)", "",
                         "Packed single-precision FP instructions over all single-precision ones.");
  rd = pm_metric_add_new(root, "vec_ratio_dp", "Vectorization ratio (double precision)", "",
                         "Packed double-precision FP instructions over all double-precision ones.");
  vi = pm_metric_add_new(root, "vec_intensity", "Vectorization intensity", "",
                         "Vector FP instructions over all instructions.");
  opc = pm_metric_add_new(root, "opc", "Operations per cycle", "ops/cycle",
                          "Floating-point operations per cycle, IPC times OPI.");
  pm_metric_set_combine(opc, PM_COMBINE_PRODUCT);
  ipc = pm_metric_add_new(opc, "ipc", "Instructions per cycle", "instr/cycle", "Instructions retired per cycle.");
  opi = pm_metric_add_new(opc, "opi", "Operations per instruction", "ops/instr",
                          "Floating-point operations per instruction.");
  if (!why) {
    gather(in, &s);
    if (s.n == 0) why = PM_NA_NO_COMPUTE;
  }
  if (why) {
    pm_metric *all[] = {v, rs, rd, vi, opc, ipc, opi};
    size_t k;
    for (k = 0; k < sizeof all / sizeof all[0]; k++) pm_metric_set_na(all[k], why);
    return pm__finish(root);
  }
  /* vectorization efficiency */
  if (!missing(v, "FP instruction counts", s.miss_fp, s.n)) {
    if (in->vector_width_max <= 0)
      pm_metric_set_na(v, "widest vector unit of the machine unknown");
    else if (s.widest >= 0 && widths[s.widest] > in->vector_width_max)
      pm_metric_set_na_fmt(v, "FP instructions wider than the declared widest vector unit (%d bits)",
                           in->vector_width_max);
    else
      pm__set(v, pm_v_div(pm_v(s.wsum), pm_v(in->vector_width_max * s.nsum), "no FP instructions counted"));
  }
  if (!missing(rs, "FP instruction counts", s.miss_fp, s.n))
    pm__set(rs, pm_v_div(pm_v(s.pk[0]), pm_v(s.sc[0] + s.pk[0]), "no single-precision FP instructions counted"));
  if (!missing(rd, "FP instruction counts", s.miss_fp, s.n))
    pm__set(rd, pm_v_div(pm_v(s.pk[1]), pm_v(s.sc[1] + s.pk[1]), "no double-precision FP instructions counted"));
  if (!missing(vi, "FP instruction counts", s.miss_fp, s.n) && !missing(vi, "instruction counts", s.miss_ins, s.n))
    pm__set(vi, pm_v_div(pm_v(s.vec), pm_v(s.ins), "no instructions counted"));
  /* rates */
  vipc = pm_v_div(pm_v(s.ins), pm_v(s.cyc), "no cycles counted");
  vopi = pm_v_div(pm_v(s.fpops), pm_v(s.ins), "no instructions counted");
  if (!missing(ipc, "instruction counts", s.miss_ins, s.n) && !missing(ipc, "cycle counts", s.miss_cyc, s.n))
    pm__set(ipc, vipc);
  if (!missing(opi, "FP operation counts", s.miss_fp, s.n) && !missing(opi, "instruction counts", s.miss_ins, s.n))
    pm__set(opi, vopi);
  if (ipc && opi && ipc->state == PM_METRIC_VALUE && opi->state == PM_METRIC_VALUE)
    pm__set(opc, pm_v_mul(vipc, vopi));
  else if (ipc && ipc->state == PM_METRIC_NA)
    pm_metric_set_na(opc, ipc->na_reason);
  else if (opi && opi->state == PM_METRIC_NA)
    pm_metric_set_na(opc, opi->na_reason);
  return pm__finish(root);
}
