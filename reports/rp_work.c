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
#include <string.h>

/* Counts that differ by at most this fraction of the larger are the same decomposition (a run
 * that submits a few tasks more, e.g. for a convergence test, is not another one). */
#define SAME_WORK_REL 0.01
/* Codelets named in a note, those whose counts differ most first. */
#define SHOWN 3

/* Tasks of the codelet called name in p, over its processes and worker types. */
static uint64_t tasks_of(const pm_profile *p, const char *name) {
  uint64_t n = 0;
  for (int k = 0; k < p->tasks->ncodelets; k++)
    if (!strcmp(p->tasks->codelet[k].name, name)) n += p->tasks->codelet[k].count;
  return n;
}

static uint64_t all_tasks(const pm_profile *p) {
  uint64_t n = 0;
  for (int k = 0; k < p->tasks->ncodelets; k++) n += p->tasks->codelet[k].count;
  return n;
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

/* Keeps the SHOWN largest gaps of the codelet name (counts here and in the reference), once per
 * name: a name both runs have is met twice. */
static void keep(codelet_gap *top, int *ntop, const char *name, uint64_t here, uint64_t ref) {
  for (int i = 0; i < *ntop; i++)
    if (!strcmp(top[i].name, name)) return;
  codelet_gap g = {name, here, ref, fabs(log(((double)here + 1) / ((double)ref + 1)))};
  int at = *ntop < SHOWN ? (*ntop)++ : SHOWN;
  while (at > 0 && top[at - 1].gap < g.gap) {
    if (at < SHOWN) top[at] = top[at - 1];
    at--;
  }
  if (at < SHOWN) top[at] = g;
}

/* The codelets of p whose counts differ from those of ref (by name), the largest gaps in top. */
static void gaps_of(const pm_profile *p, const pm_profile *ref, codelet_gap *top, int *ntop) {
  const pm_profile *side[2] = {p, ref};
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < side[s]->tasks->ncodelets; k++) {
      const char *name = side[s]->tasks->codelet[k].name;
      uint64_t here = tasks_of(p, name), there = tasks_of(ref, name);
      if (differ(here, there)) keep(top, ntop, name, here, there);
    }
}

void rp_study_compare_work(rp_study *s) {
  const rp_config *R = &s->cfg[s->ref];
  if (R->nruns == 0) return;
  const pm_profile *ref = s->runs[R->runs[0]].prof;
  if (!ref || !ref->tasks) return;
  for (int c = 0; c < s->ncfg; c++) {
    const rp_config *C = &s->cfg[c];
    if (c == s->ref || C->nruns == 0) continue;
    const pm_profile *p = s->runs[C->runs[0]].prof;
    if (!p || !p->tasks) continue;
    codelet_gap top[SHOWN];
    int ntop = 0;
    gaps_of(p, ref, top, &ntop);
    if (ntop == 0) continue;
    char list[SHOWN * 120] = "";
    size_t len = 0;
    for (int i = 0; i < ntop && len < sizeof list; i++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %llu against %llu", i ? ", " : "", top[i].name,
                              (unsigned long long)top[i].here, (unsigned long long)top[i].ref);
    rp_study_note(s,
                  "%s ran other tasks than the reference %s (%s; %llu tasks against %llu in all): the program "
                  "divided its work differently there, and the instruction scaling and computation scalability "
                  "of %s include that choice",
                  C->label, R->label, list, (unsigned long long)all_tasks(p), (unsigned long long)all_tasks(ref),
                  C->label);
  }
}
