/* Whether the configurations of a study ran the same tasks.
 *
 * A task-based program may cut its work differently with the number of workers or processes
 * (mfsolve's tile size follows the workers per process): a configuration then executes other
 * tasks than the reference, and its instruction scaling and computation scalability measure that
 * choice as well as the scaling. The profiles count the tasks of every codelet; where a
 * configuration's counts differ from the reference's, the study says so in a note, with the
 * codelets that differ most. Repeats of one configuration are taken to run the same tasks: the
 * first run of each is compared. */
#include "rp_study.h"
#include "pm_profile_tasks.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts that differ by at most this fraction of the larger are the same decomposition (a run
 * that submits a few tasks more, e.g. for a convergence test, is not another one). */
#define SAME_WORK_REL 0.01
/* Codelets named in a note, those whose counts differ most first. */
#define SHOWN 3

/* A run's tasks of one codelet name, over its processes and worker types. */
typedef struct {
  const char *name;
  uint64_t count;
} name_total;

static int by_name(const void *a, const void *b) {
  return strcmp(((const name_total *)a)->name, ((const name_total *)b)->name);
}

/* p's tasks per codelet name, sorted by name (*n of them; *all: their sum); NULL when out of
 * memory. Sorted, so that two runs compare in one pass whatever their numbers of processes. */
static name_total *totals_of(const pm_profile *p, int *n, uint64_t *all) {
  const pm_prof_tasks *t = p->tasks;
  name_total *v = malloc((size_t)(t->ncodelets ? t->ncodelets : 1) * sizeof *v);
  if (!v) return NULL;
  for (int k = 0; k < t->ncodelets; k++) v[k] = (name_total){t->codelet[k].name, t->codelet[k].count};
  qsort(v, (size_t)t->ncodelets, sizeof *v, by_name);
  int w = 0;
  *all = 0;
  for (int k = 0; k < t->ncodelets; k++) {
    *all += v[k].count;
    if (w && !strcmp(v[w - 1].name, v[k].name))
      v[w - 1].count += v[k].count;
    else
      v[w++] = v[k];
  }
  *n = w;
  return v;
}

static int differ(uint64_t a, uint64_t b) {
  double hi = a > b ? (double)a : (double)b;
  return fabs((double)a - (double)b) > SAME_WORK_REL * hi;
}

typedef struct {
  const char *name;
  uint64_t here, ref;
  double gap; /* |log((here + 1) / (ref + 1))|: how much they differ */
} codelet_gap;

/* Keeps the SHOWN largest gaps, largest first. */
static void keep(codelet_gap *top, int *ntop, const char *name, uint64_t here, uint64_t ref) {
  codelet_gap g = {name, here, ref, fabs(log(((double)here + 1) / ((double)ref + 1)))};
  int at = *ntop < SHOWN ? (*ntop)++ : SHOWN;
  while (at > 0 && top[at - 1].gap < g.gap) {
    if (at < SHOWN) top[at] = top[at - 1];
    at--;
  }
  if (at < SHOWN) top[at] = g;
}

/* The codelet names whose counts differ between the two sorted totals, the largest gaps in top. */
static void gaps_of(const name_total *a, int na, const name_total *b, int nb, codelet_gap *top, int *ntop) {
  int i = 0, j = 0;
  while (i < na || j < nb) {
    int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].name, b[j].name);
    const char *name = c <= 0 ? a[i].name : b[j].name;
    uint64_t here = c <= 0 ? a[i++].count : 0, there = c >= 0 ? b[j++].count : 0;
    if (differ(here, there)) keep(top, ntop, name, here, there);
  }
}

void rp_study_compare_work(rp_study *s) {
  const rp_config *R = &s->cfg[s->ref];
  if (R->nruns == 0) return;
  const pm_profile *ref = s->runs[R->runs[0]].prof;
  if (!ref || !ref->tasks) return;
  int nr;
  uint64_t all_ref;
  name_total *tr = totals_of(ref, &nr, &all_ref);
  if (!tr) return; /* out of memory: no note (it only explains the values) */
  for (int c = 0; c < s->ncfg; c++) {
    const rp_config *C = &s->cfg[c];
    if (c == s->ref || C->nruns == 0) continue;
    const pm_profile *p = s->runs[C->runs[0]].prof;
    if (!p || !p->tasks) continue;
    int np;
    uint64_t all;
    name_total *tp = totals_of(p, &np, &all);
    if (!tp) continue;
    codelet_gap top[SHOWN];
    int ntop = 0;
    gaps_of(tp, np, tr, nr, top, &ntop);
    if (ntop > 0) {
      char list[SHOWN * 120] = "";
      size_t len = 0;
      for (int i = 0; i < ntop && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %llu against %llu", i ? ", " : "", top[i].name,
                                (unsigned long long)top[i].here, (unsigned long long)top[i].ref);
      rp_study_note(s,
                    "%s ran other tasks than the reference %s (%s; %llu tasks against %llu in all): the program "
                    "divided its work differently there, and the instruction scaling and computation scalability "
                    "of %s include that choice",
                    C->label, R->label, list, (unsigned long long)all, (unsigned long long)all_ref, C->label);
    }
    free(tp);
  }
  free(tr);
}
