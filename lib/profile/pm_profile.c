/* Run-profile containers: allocation, merging of per-process profiles, derived totals. */
#include "pm_profile.h"
#include "pm_profile_tasks.h"
#include "pm_profile_io.h"
#include "pm_profile_counters.h"
#include "pm_text.h"
#include <stdlib.h>
#include <string.h>

pm_profile *pm_profile_new(void) { return calloc(1, sizeof(pm_profile)); }

void pm_profile_free(pm_profile *p) {
  if (!p) return;
  for (int i = 0; i < p->nregions; i++) free(p->reg[i].name);
  free(p->proc);
  free(p->loc);
  free(p->reg);
  free(p->cnode);
  free(p->val);
  for (int i = 0; i < p->nomp_regions; i++) { /* OpenMP regions */
    free(p->omp_region[i].name);
    free(p->omp_region[i].thread_useful);
    free(p->omp_region[i].thread_idle);
  }
  free(p->omp_region);
  pm_prof_tasks_free(p->tasks);
  pm_prof_io_free(p->io);
  pm_prof_counters_free(p->counters);
  free(p);
}

/* Grows *arr (of n elements of size sz) to hold n+k; returns 0 or -1. */
static int grow(void **arr, int n, int k, size_t sz) {
  void *q = realloc(*arr, (size_t)(n + k) * sz + 1);
  if (!q) return -1;
  *arr = q;
  return 0;
}

int pm_profile_add_region(pm_profile *p, const char *name, int paradigm, int role) {
  for (int i = 0; i < p->nregions; i++)
    if (p->reg[i].paradigm == paradigm && strcmp(p->reg[i].name, name) == 0) return i;
  if (grow((void **)&p->reg, p->nregions, 1, sizeof *p->reg)) return -1;
  char *copy = strdup(name);
  if (!copy) return -1;
  p->reg[p->nregions] = (pm_prof_region){copy, paradigm, role};
  return p->nregions++;
}

int pm_profile_add_cnode(pm_profile *p, int parent, int region) {
  for (int i = 0; i < p->ncnodes; i++)
    if (p->cnode[i].parent == parent && p->cnode[i].region == region) return i;
  if (grow((void **)&p->cnode, p->ncnodes, 1, sizeof *p->cnode)) return -1;
  p->cnode[p->ncnodes] = (pm_prof_cnode){parent, region};
  return p->ncnodes++;
}

int pm_profile_add_omp_region(pm_profile *p, const pm_prof_omp_region *r) {
  if (r->nthreads < 0 || grow((void **)&p->omp_region, p->nomp_regions, 1, sizeof *p->omp_region)) return -1;
  size_t n = (size_t)r->nthreads;
  pm_prof_omp_region c = *r;
  c.name = strdup(r->name ? r->name : "");
  c.thread_useful = malloc(sizeof(double) * n + 1);
  c.thread_idle = malloc(sizeof(double) * n + 1);
  if (!c.name || !c.thread_useful || !c.thread_idle) {
    free(c.name);
    free(c.thread_useful);
    free(c.thread_idle);
    return -1;
  }
  if (n) {
    memcpy(c.thread_useful, r->thread_useful, sizeof(double) * n);
    memcpy(c.thread_idle, r->thread_idle, sizeof(double) * n);
  }
  p->omp_region[p->nomp_regions] = c;
  return p->nomp_regions++;
}

int pm_profile_merge(pm_profile *dst, const pm_profile *src) {
  int rc = -1;
  int *regmap = malloc(sizeof(int) * (size_t)(src->nregions + 1));
  int *cmap = malloc(sizeof(int) * (size_t)(src->ncnodes + 1));
  if (!regmap || !cmap) goto out;
  if (dst->app[0] == '\0') {
    memcpy(dst->app, src->app, sizeof dst->app);
    memcpy(dst->command, src->command, sizeof dst->command);
    memcpy(dst->start_time, src->start_time, sizeof dst->start_time);
  }
  dst->has_critical_path |= src->has_critical_path;
  dst->regions_folded += src->regions_folded;
  for (int i = 0; i < src->nregions; i++)
    if ((regmap[i] = pm_profile_add_region(dst, src->reg[i].name, src->reg[i].paradigm, src->reg[i].role)) < 0)
      goto out;
  /* call paths are stored parents-first, so a parent is always mapped before its children */
  for (int i = 0; i < src->ncnodes; i++) {
    int par = src->cnode[i].parent;
    if (par >= i || src->cnode[i].region < 0 || src->cnode[i].region >= src->nregions) goto out;
    if ((cmap[i] = pm_profile_add_cnode(dst, par < 0 ? -1 : cmap[par], regmap[src->cnode[i].region])) < 0) goto out;
  }
  int p0 = dst->nprocesses, l0 = dst->nlocations, v0 = dst->nvalues;
  if (grow((void **)&dst->proc, dst->nprocesses, src->nprocesses, sizeof *dst->proc) ||
      grow((void **)&dst->loc, dst->nlocations, src->nlocations, sizeof *dst->loc) ||
      grow((void **)&dst->val, dst->nvalues, src->nvalues, sizeof *dst->val))
    goto out;
  memcpy(dst->proc + p0, src->proc, sizeof *src->proc * (size_t)src->nprocesses);
  dst->nprocesses += src->nprocesses;
  for (int i = 0; i < src->nlocations; i++) {
    pm_prof_location l = src->loc[i];
    l.process += p0;
    dst->loc[dst->nlocations++] = l;
  }
  for (int i = 0; i < src->nvalues; i++) {
    pm_prof_value v = src->val[i];
    v.cnode = cmap[v.cnode];
    v.location += l0;
    dst->val[dst->nvalues++] = v;
  }
  for (int i = 0; i < src->nomp_regions; i++) { /* OpenMP regions, renumbering the process */
    pm_prof_omp_region r = src->omp_region[i];
    r.process += p0;
    if (pm_profile_add_omp_region(dst, &r) < 0) goto out;
  }
  if (src->tasks && pm_prof_tasks_merge(&dst->tasks, src->tasks, p0, l0) != 0) goto out;             /* task runtime */
  if (src->io && pm_prof_io_merge(&dst->io, src->io, l0) != 0) goto out;                             /* file classes */
  if (src->counters && pm_prof_counters_merge(&dst->counters, src->counters, l0, v0) != 0) goto out; /* counters */
  rc = 0;
out:
  free(regmap);
  free(cmap);
  return rc;
}

void pm_profile_finish(pm_profile *p) {
  p->runtime = 0;
  p->nnodes = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    if (p->proc[i].window > p->runtime) p->runtime = p->proc[i].window;
    int node = -1;
    for (int j = 0; j < i && node < 0; j++)
      if (strcmp(p->proc[j].host, p->proc[i].host) == 0) node = p->proc[j].node;
    p->proc[i].node = node >= 0 ? node : p->nnodes++;
  }
}

double pm_prof_loc_class(const pm_prof_location *l, pm_state_class c) {
  double t = 0;
  for (int s = 0; s < PM_STATE_COUNT; s++)
    if (pm_state_class_of((pm_state)s) == c) t += l->time[0][s] + l->time[1][s];
  return t;
}

int pm_prof_threads_max(const pm_profile *p) {
  int max = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    int n = 0;
    for (int j = 0; j < p->nlocations; j++)
      n += p->loc[j].process == i && p->loc[j].role != PM_ROLE_PROGRESS && p->loc[j].role != PM_ROLE_DEVICE;
    if (n > max) max = n;
  }
  return max;
}

/* Every name in the profile as clean text (pm_text.h): fixed fields are cleaned in place, heap
 * strings replaced. The hashes stored beside codelet names stay those of the original bytes:
 * they only key the composition to a codelet of the same profile. */
#define CLEAN_FIELD(f) pm_text_clean_field((f), sizeof(f))
int pm_profile_clean_text(pm_profile *p) {
  int rc = 0;
  CLEAN_FIELD(p->app);
  CLEAN_FIELD(p->command);
  CLEAN_FIELD(p->start_time);
  for (int i = 0; i < p->nprocesses; i++) {
    CLEAN_FIELD(p->proc[i].host);
    CLEAN_FIELD(p->proc[i].cuda);
  }
  for (int i = 0; i < p->nlocations; i++) CLEAN_FIELD(p->loc[i].name);
  for (int i = 0; i < p->nregions; i++) rc |= pm_text_clean_heap(&p->reg[i].name);
  for (int i = 0; i < p->nomp_regions; i++) rc |= pm_text_clean_heap(&p->omp_region[i].name);
  if (p->tasks) {
    for (int i = 0; i < p->tasks->ncodelets; i++) CLEAN_FIELD(p->tasks->codelet[i].name);
    for (int i = 0; i < p->tasks->ntransfers; i++) CLEAN_FIELD(p->tasks->transfer[i].kind);
  }
  if (p->io)
    for (int i = 0; i < p->io->nclasses; i++) {
      CLEAN_FIELD(p->io->cls[i].mount);
      CLEAN_FIELD(p->io->cls[i].fstype);
    }
  if (p->counters) {
    pm_prof_counters *c = p->counters;
    CLEAN_FIELD(c->status);
    CLEAN_FIELD(c->source);
    for (int k = 0; k < PM_CTR_CAT_COUNT; k++) rc |= pm_text_clean_heap(&c->reason[k]);
    for (int e = 0; e < c->nevents; e++) {
      CLEAN_FIELD(c->event[e].name);
      rc |= pm_text_clean_heap(&c->event[e].why);
    }
  }
  return rc ? -1 : 0;
}
