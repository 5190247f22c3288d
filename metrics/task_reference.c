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

/* Whether a codelet with nw tasks here, n1 on one worker and ns sequential kernel calls is matched;
 * why not in why. */
static int verdict(int64_t nw, int64_t n1, int64_t ns, char *why, size_t whylen) {
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

/* A run's entries sorted by name, then by their place in the run: each name's entries in a row,
 * in the order of the run (the sums in the order a scan of the run adds them). */
typedef struct {
  const char *name;
  int at;
} entry;
static int by_name_then_place(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}
static entry *sorted_entries(const pm_codelet_input *c, int n, int *m) {
  entry *e = malloc((size_t)(n > 0 ? n : 1) * sizeof *e);
  if (!e) return NULL;
  *m = 0;
  for (int i = 0; c && i < n; i++)
    if (c[i].name) e[(*m)++] = (entry){c[i].name, i};
  qsort(e, (size_t)*m, sizeof *e, by_name_then_place);
  return e;
}

/* The sum of c's exec and count over the sorted entries from e[k] on that have e[k]'s name;
 * returns the index after them. */
static int sum_name(const pm_codelet_input *c, const entry *e, int m, int k, double *exec, int64_t *count) {
  const char *name = e[k].name;
  *exec = 0;
  *count = 0;
  for (; k < m && !strcmp(e[k].name, name); k++) {
    *exec += c[e[k].at].exec;
    *count += c[e[k].at].count;
  }
  return k;
}

/* The totals of one name in a reference run, from its sorted entries (binary search). */
static void sorted_totals(const pm_codelet_input *c, const entry *e, int m, const char *name, double *exec,
                          int64_t *count) {
  int lo = 0, hi = m;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(e[mid].name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *exec = 0;
  *count = 0;
  if (lo < m && !strcmp(e[lo].name, name)) sum_name(c, e, m, lo, exec, count);
}

void pm__task_ref_names_free(pm__task_ref_names *t) {
  free(t->name_of);
  free(t->first);
  free(t->w);
  free(t->one);
  free(t->seq);
  free(t->ok);
  free(t->why);
  memset(t, 0, sizeof *t);
}

/* 0, or -1 when out of memory (t is then empty). */
static int build_names(const pm_run_input *in, pm__task_ref_names *t) {
  memset(t, 0, sizeof *t);
  const int n = in->codelets && in->ncodelets > 0 ? in->ncodelets : 0;
  int m = 0, m1 = 0, ms = 0;
  entry *e = sorted_entries(in->codelets, n, &m);
  entry *e1 = sorted_entries(in->ref_one, in->nref_one, &m1);
  entry *es = sorted_entries(in->ref_seq, in->nref_seq, &ms);
  size_t cells = (size_t)(m > 0 ? m : 1);
  t->n = n;
  t->name_of = malloc((size_t)(n > 0 ? n : 1) * sizeof *t->name_of);
  t->first = calloc((size_t)(n > 0 ? n : 1), 1);
  t->w = malloc(cells * sizeof *t->w);
  t->one = malloc(cells * sizeof *t->one);
  t->seq = malloc(cells * sizeof *t->seq);
  t->ok = malloc(cells);
  t->why = malloc(cells * sizeof *t->why);
  int fail = !e || !e1 || !es || !t->name_of || !t->first || !t->w || !t->one || !t->seq || !t->ok || !t->why;
  if (!fail) {
    for (int i = 0; i < n; i++) t->name_of[i] = -1;
    for (int k = 0, next; k < m; k = next) {
      int g = t->nnames++, k0 = k;
      int64_t nw, n1, ns;
      next = sum_name(in->codelets, e, m, k, &t->w[g], &nw);
      t->first[e[k].at] = 1;
      for (; k < next; k++) t->name_of[e[k].at] = g;
      sorted_totals(in->ref_one, e1, m1, e[k0].name, &t->one[g], &n1);
      sorted_totals(in->ref_seq, es, ms, e[k0].name, &t->seq[g], &ns);
      t->ok[g] = (unsigned char)verdict(nw, n1, ns, t->why[g], sizeof t->why[g]);
    }
  }
  free(e);
  free(e1);
  free(es);
  if (fail) {
    pm__task_ref_names_free(t);
    return -1;
  }
  return 0;
}

static void note(pm_task_ref *r, const char *name, const char *why) {
  size_t len = strlen(r->unmatched);
  if (len + 2 >= sizeof r->unmatched) return;
  snprintf(r->unmatched + len, sizeof r->unmatched - len, "%s%s (%s)", len ? ", " : "", name, why);
}

int pm__task_reference_names(const pm_run_input *in, pm__task_ref_names *t, pm_task_ref *r) {
  memset(r, 0, sizeof *r);
  memset(t, 0, sizeof *t);
  if (!in || !in->ref_one || !in->ref_seq || !in->codelets) return 0;
  if (build_names(in, t) != 0) {
    snprintf(r->unmatched, sizeof r->unmatched, "out of memory");
    return 0;
  }
  for (int i = 0; i < in->ncodelets; i++) { /* names in the order they first appear */
    if (!t->first[i]) continue;
    const int g = t->name_of[i];
    r->w_total += t->w[g];
    if (!t->ok[g]) {
      note(r, in->codelets[i].name, t->why[g]);
      r->nunmatched++;
      continue;
    }
    r->w_matched += t->w[g];
    r->one += t->one[g];
    r->seq += t->seq[g];
    r->nmatched++;
  }
  r->valid = r->nmatched > 0 && r->w_matched > 0 && r->one > 0 && r->seq > 0;
  return r->valid;
}

int pm_task_reference(const pm_run_input *in, pm_task_ref *r) {
  pm__task_ref_names t;
  int valid = pm__task_reference_names(in, &t, r);
  pm__task_ref_names_free(&t);
  return valid;
}
