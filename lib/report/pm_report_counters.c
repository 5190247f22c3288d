/* Hardware counters in the report: the summary tree and the exact n/a reasons (pm_report_counters.h).
 *
 * Summary over the compute locations (threads, workers, accelerator workers; not progress threads
 * or device streams), counts over useful time:
 *   Instructions = sum instructions / 1e9            Cycles = sum cycles / 1e9
 *   IPC = sum instructions / sum cycles              Frequency = sum cycles / sum useful seconds / 1e9
 * A value needs every compute location to have the counter (a partial sum would bias it); otherwise
 * it is n/a with the run's reason. */
#include "pm_report_counters.h"
#include "pm_profile_counters.h"
#include <string.h>

/* the prefix of metrics/model_vectorization.c's reasons for missing counters */
#define GENERIC_PREFIX "no hardware counters"

unsigned pm_report_counters_models(const pm_profile *p) { return p->counters ? PM_MODEL_VECTORIZATION : 0u; }

/* The run's reason for category cat, or a count of the locations that lack it. */
static void set_missing(pm_metric *m, const pm_prof_counters *c, pm_ctr_category cat, int miss, int n) {
  if (c->reason[cat])
    pm_metric_set_na(m, c->reason[cat]);
  else
    pm_metric_set_na_fmt(m, "%s counts missing on %d of %d locations", pm_ctr_category_name(cat), miss, n);
}

pm_metric *pm_report_counters_tree(const pm_profile *p) {
  const pm_prof_counters *c = p->counters;
  if (!c) return NULL;
  pm_metric *root = pm_metric_new("counters", "Hardware counters (useful time)", "",
                                  "Instruction and cycle counts over useful time, from PAPI (docs/counters.md).");
  pm_metric *ins =
      pm_metric_add_new(root, "instructions", "Instructions", "G",
                        "Instructions retired in useful time, summed over the compute locations, in billions.");
  pm_metric *cyc = pm_metric_add_new(root, "cycles", "Cycles", "G",
                                     "Core cycles in useful time, summed over the compute locations, in billions.");
  pm_metric *ipc = pm_metric_add_new(root, "ipc", "IPC", "instr/cycle", "Instructions per cycle in useful time.");
  pm_metric *frq = pm_metric_add_new(root, "frequency", "Frequency", "GHz",
                                     "Cycles per second of useful time: the average clock rate while computing.");
  if (!pm_metric_ok(root)) {
    pm_metric_free(root);
    return NULL;
  }
  double si = 0, sc = 0, su = 0;
  int n = 0, miss_i = 0, miss_c = 0;
  for (int i = 0; i < p->nlocations; i++) {
    if (!pm_prof_loc_computes(&p->loc[i])) continue;
    pm_counters k;
    pm_prof_counters_input(c, i, &k);
    n++;
    miss_i += !k.has_instructions;
    miss_c += !k.has_cycles;
    si += k.instructions;
    sc += k.cycles;
    su += pm_prof_loc_class(&p->loc[i], PM_CLASS_USEFUL);
  }
  if (n == 0) {
    pm_metric *all[] = {ins, cyc, ipc, frq};
    for (int j = 0; j < 4; j++) pm_metric_set_na(all[j], "no thread, worker or accelerator locations");
    return root;
  }
  double v;
  if (miss_i)
    set_missing(ins, c, PM_CTR_CAT_INSTRUCTIONS, miss_i, n);
  else
    pm_metric_set_value(ins, si / 1e9);
  if (miss_c)
    set_missing(cyc, c, PM_CTR_CAT_CYCLES, miss_c, n);
  else
    pm_metric_set_value(cyc, sc / 1e9);
  if (miss_i)
    set_missing(ipc, c, PM_CTR_CAT_INSTRUCTIONS, miss_i, n);
  else if (miss_c)
    set_missing(ipc, c, PM_CTR_CAT_CYCLES, miss_c, n);
  else if (pm_safe_div(si, sc, &v))
    pm_metric_set_value(ipc, v);
  else
    pm_metric_set_na(ipc, "no cycles counted");
  if (miss_c)
    set_missing(frq, c, PM_CTR_CAT_CYCLES, miss_c, n);
  else if (pm_safe_div(sc, su * 1e9, &v))
    pm_metric_set_value(frq, v);
  else
    pm_metric_set_na(frq, "no useful time");
  return root;
}

/* Which counter a generic reason is about, by the words the model uses ("FP instruction counts",
 * "FP operation counts", "cycle counts", "instruction counts"). */
static pm_ctr_category category_of_reason(const char *r) {
  if (strstr(r, "FP ")) return PM_CTR_CAT_FP;
  if (strstr(r, "cycle")) return PM_CTR_CAT_CYCLES;
  return PM_CTR_CAT_INSTRUCTIONS;
}

static void explain(const pm_prof_counters *c, pm_metric *m) {
  if (m->state == PM_METRIC_NA && m->na_reason && !strncmp(m->na_reason, GENERIC_PREFIX, strlen(GENERIC_PREFIX))) {
    const char *why = c->reason[category_of_reason(m->na_reason)];
    if (why) pm_metric_set_na(m, why);
  }
  for (size_t i = 0; i < m->nchildren; i++) explain(c, m->children[i]);
}

void pm_report_counters_explain(const pm_profile *p, pm_metric *tree) {
  if (p->counters && tree) explain(p->counters, tree);
}
