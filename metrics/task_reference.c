/* Reference runs of the task model (docs/metrics.md §6.3): the W-worker run's codelets matched by
 * name with the same work on one worker and with its sequential kernels. A codelet is matched when
 * all three runs have it with the same number of tasks (kernel calls, for the sequential run);
 * granularity and locality are computed on the matched codelets only, and the share of the W-worker
 * run's task time they cover is reported with the names of the others. */
#include "popmetrics.h"
#include "pm_model_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Totals of one codelet name over processes and worker types. */
static void totals(const pm_codelet_input *c, int n, const char *name, double *exec, int64_t *count) {
  *exec = 0;
  *count = 0;
  for (int i = 0; c && i < n; i++)
    if (c[i].name && !strcmp(c[i].name, name)) {
      *exec += c[i].exec;
      *count += c[i].count;
    }
}
/* 1 when name appears before index i in c (a name is counted once). */
static int seen(const pm_codelet_input *c, int i) {
  for (int k = 0; k < i; k++)
    if (c[k].name && !strcmp(c[k].name, c[i].name)) return 1;
  return 0;
}

static void note(pm_task_ref *r, const char *name, const char *why) {
  size_t len = strlen(r->unmatched);
  if (len + 2 >= sizeof r->unmatched) return;
  snprintf(r->unmatched + len, sizeof r->unmatched - len, "%s%s (%s)", len ? ", " : "", name, why);
}

int pm_task_reference_codelet(const pm_run_input *in, const char *name, double *w, double *one, double *seq, char *why,
                              size_t whylen) {
  int64_t nw, n1, ns;
  totals(in->codelets, in->ncodelets, name, w, &nw);
  totals(in->ref_one, in->nref_one, name, one, &n1);
  totals(in->ref_seq, in->nref_seq, name, seq, &ns);
  if (!n1 || !ns) {
    snprintf(why, whylen, "%s", !n1 ? "not in the one-worker run" : "not among the sequential kernels");
    return 0;
  }
  if (n1 != nw || ns != nw) {
    snprintf(why, whylen, "%lld tasks, %lld on one worker, %lld sequential", (long long)nw, (long long)n1,
             (long long)ns);
    return 0;
  }
  return 1;
}

int pm_task_reference(const pm_run_input *in, pm_task_ref *r) {
  memset(r, 0, sizeof *r);
  if (!in || !in->ref_one || !in->ref_seq || !in->codelets) return 0;
  for (int i = 0; i < in->ncodelets; i++) {
    const pm_codelet_input *c = &in->codelets[i];
    if (!c->name || seen(in->codelets, i)) continue;
    double w, one, seq;
    char why[96];
    int ok = pm_task_reference_codelet(in, c->name, &w, &one, &seq, why, sizeof why);
    r->w_total += w;
    if (!ok) {
      note(r, c->name, why);
      r->nunmatched++;
      continue;
    }
    r->w_matched += w;
    r->one += one;
    r->seq += seq;
    r->nmatched++;
  }
  r->valid = r->nmatched > 0 && r->w_matched > 0 && r->one > 0 && r->seq > 0;
  return r->valid;
}
