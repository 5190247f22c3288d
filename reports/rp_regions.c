/* Per-region scaling input: the profile's values[] give exclusive time per (call path, location);
 * a region's time is aggregated by region name and made inclusive (a value counts for every
 * distinct region name on its call path, once even under recursion), so that a user region
 * carries the MPI calls and waits inside it and its own POP efficiencies mean something. The
 * basic model is then run over the locations that entered the region, with the region's longest
 * inclusive time as its runtime and, when the run measured MPI transfer time, its longest inclusive
 * time without transfer as its runtime on an ideal network (SerE, TE). popmeter's own regions
 * (paradigm "measurement") are left out. */
#include "rp_study.h"
#include "pm_profile_input.h"
#include <stdlib.h>
#include <string.h>

/* A region's inclusive time on one location: per state class, then its MPI transfer time. */
#define RP_TRANSFER PM_CLASS_COUNT
#define RP_NSLOTS (PM_CLASS_COUNT + 1)
typedef struct {
  int loc;
  double t[RP_NSLOTS];
} sample;

typedef struct {
  sample *v;
  int n, cap;
} sample_list;

static int cmp_region(const void *a, const void *b) {
  return strcmp(((const rp_region *)a)->name, ((const rp_region *)b)->name);
}

int rp_region_find(const rp_study *s, const char *name) {
  rp_region key = {.name = (char *)name};
  const rp_region *r = s->nregions ? bsearch(&key, s->regions, (size_t)s->nregions, sizeof key, cmp_region) : NULL;
  return r ? (int)(r - s->regions) : -1;
}

int rp_study_collect_regions(rp_study *s) {
  int i, j, n = 0, cap = 0, out = 0;
  rp_region *v = NULL;
  for (i = 0; i < s->nruns; i++) {
    const pm_profile *p = s->runs[i].prof;
    if (s->runs[i].dropped) continue;
    for (j = 0; j < p->nregions; j++) {
      if (p->reg[j].paradigm == PM_PARADIGM_MEASUREMENT) continue;
      if (n == cap) {
        rp_region *w = realloc(v, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
        if (!w) goto oom;
        v = w;
      }
      v[n++] = (rp_region){.name = p->reg[j].name};
    }
  }
  if (n) qsort(v, (size_t)n, sizeof *v, cmp_region);
  for (i = 0; i < n; i++) { /* unique names, owned copies */
    if (out && strcmp(v[out - 1].name, v[i].name) == 0) continue;
    v[out] = (rp_region){.name = strdup(v[i].name)};
    if (!v[out].name) goto oom_owned;
    out++;
  }
  s->regions = v;
  s->nregions = out;
  return 0;
oom_owned:
  while (out > 0) free(v[--out].name);
oom:
  free(v);
  return -1;
}

static int push(sample_list *l, int loc, const double *t) {
  if (l->n == l->cap) {
    sample *w = realloc(l->v, (size_t)(l->cap = l->cap ? 2 * l->cap : 4) * sizeof *w);
    if (!w) return -1;
    l->v = w;
  }
  l->v[l->n].loc = loc;
  memcpy(l->v[l->n].t, t, sizeof l->v[l->n].t);
  l->n++;
  return 0;
}

/* Values bucketed by location (counting sort), so each location's regions are summed in one go. */
static int *values_by_location(const pm_profile *p, int **start_out) {
  int *start = calloc((size_t)p->nlocations + 2, sizeof *start);
  int *idx = malloc(((size_t)p->nvalues + 1) * sizeof *idx);
  int i;
  if (!start || !idx) {
    free(start);
    free(idx);
    return NULL;
  }
  for (i = 0; i < p->nvalues; i++) start[p->val[i].location + 1]++;
  for (i = 0; i < p->nlocations; i++) start[i + 1] += start[i];
  for (i = 0; i < p->nvalues; i++) idx[start[p->val[i].location]++] = i;
  for (i = p->nlocations; i > 0; i--) /* the fill moved each start to the next bucket's */
    start[i] = start[i - 1];
  start[0] = 0;
  *start_out = start;
  return idx;
}

/* The region's own model input: its locations with their inclusive time per class. */
static int region_sample(rp_run *r, rp_region_run *rr, const sample_list *l, const pm_run_input *whole) {
  pm_location_input *loc = calloc((size_t)l->n, sizeof *loc);
  double R = 0.0, sum = 0.0, R_ideal = 0.0;
  int i, k;
  if (!loc) return -1;
  for (i = 0; i < l->n; i++) {
    const sample *x = &l->v[i];
    const pm_location_input *w = &whole->loc[x->loc];
    double total = 0.0;
    loc[i] = (pm_location_input){.process = w->process,
                                 .node = w->node,
                                 .kind = w->kind,
                                 .useful = x->t[PM_CLASS_USEFUL],
                                 .mpi = x->t[PM_CLASS_MPI],
                                 .io = x->t[PM_CLASS_IO],
                                 .runtime = x->t[PM_CLASS_RUNTIME],
                                 .idle = x->t[PM_CLASS_IDLE],
                                 .gpu_runtime = x->t[PM_CLASS_DEVICE]};
    loc[i].calls_mpi = loc[i].mpi > 0;
    for (k = 0; k < PM_CLASS_COUNT; k++) total += x->t[k];
    if (total > R) R = total;
    if (w->kind != PM_LOC_PROGRESS && w->kind != PM_LOC_DEVICE) {
      sum += loc[i].useful;
      if (total - x->t[RP_TRANSFER] > R_ideal) R_ideal = total - x->t[RP_TRANSFER];
    }
  }
  if (R > 0.0) {
    /* the region's runtime on an ideal network stands for the critical path of the basic model's
     * SerE and TE (docs/metrics.md §1.4) */
    pm_run_input in = {.runtime = R,
                       .nprocesses = whole->nprocesses,
                       .nnodes = whole->nnodes,
                       .nlocations = l->n,
                       .loc = loc,
                       .has_critical_path = r->prof->has_mpi_transfer,
                       .g_cue = R_ideal};
    rr->basic = pm_model_basic(&in);
    if (!rr->basic) {
      free(loc);
      return -1;
    }
    rr->present = 1;
    rr->sr =
        (pm_scaling_run){.nprocesses = r->sr.nprocesses, .nthreads = r->sr.nthreads, .runtime = R, .sum_useful = sum};
    if (!pm_metric_get_path(rr->basic, "pe", &rr->sr.parallel_efficiency)) rr->sr.parallel_efficiency = 0.0;
  }
  free(loc);
  return 0;
}

int rp_run_regions(rp_run *r, const rp_region *regions, int nregions) {
  const pm_profile *p = r->prof;
  rp_study lookup = {.regions = (rp_region *)regions, .nregions = nregions};
  int *map = malloc(((size_t)p->nregions + 1) * sizeof *map);
  int *stamp = calloc((size_t)nregions + 1, sizeof *stamp);
  int *touched = malloc(((size_t)nregions + 1) * sizeof *touched);
  double *acc = calloc((size_t)nregions * RP_NSLOTS + 1, sizeof *acc);
  sample_list *lists = calloc((size_t)nregions + 1, sizeof *lists);
  int *start = NULL, *idx = NULL, walk = 0, rc = -1, i, g, L;
  pm_run_input_buf buf = {0};
  r->reg = calloc((size_t)nregions + 1, sizeof *r->reg);
  if (!map || !stamp || !touched || !acc || !lists || !r->reg || !(idx = values_by_location(p, &start))) goto out;
  for (i = 0; i < p->nregions; i++)
    map[i] = p->reg[i].paradigm == PM_PARADIGM_MEASUREMENT ? -1 : rp_region_find(&lookup, p->reg[i].name);
  for (L = 0; L < p->nlocations; L++) {
    int nt = 0, walk0 = walk; /* stamps <= walk0 belong to earlier locations */
    for (i = start[L]; i < start[L + 1]; i++) {
      const pm_prof_value *v = &p->val[idx[i]];
      double cls[RP_NSLOTS] = {0};
      int c, s, k;
      for (s = 0; s < PM_STATE_COUNT; s++)
        if (s != PM_STATE_OFF) cls[pm_state_class_of((pm_state)s)] += v->time[s];
      cls[RP_TRANSFER] = v->mpi_transfer;
      walk++;
      for (c = v->cnode; c >= 0; c = p->cnode[c].parent) { /* parents precede children */
        g = map[p->cnode[c].region];
        if (g < 0 || stamp[g] == walk) continue;
        if (stamp[g] <= walk0) touched[nt++] = g;
        stamp[g] = walk;
        for (k = 0; k < RP_NSLOTS; k++) acc[g * RP_NSLOTS + k] += cls[k];
      }
    }
    for (i = 0; i < nt; i++) {
      g = touched[i];
      if (push(&lists[g], L, &acc[g * RP_NSLOTS]) != 0) goto out;
      memset(&acc[g * RP_NSLOTS], 0, RP_NSLOTS * sizeof *acc);
    }
  }
  if (pm_profile_to_input(p, 0, &buf) != 0) goto out;
  for (g = 0; g < nregions; g++)
    if (lists[g].n && region_sample(r, &r->reg[g], &lists[g], &buf.in) != 0) goto out;
  rc = 0;
out:
  pm_run_input_buf_free(&buf);
  for (g = 0; lists && g < nregions; g++) free(lists[g].v);
  free(lists);
  free(map);
  free(stamp);
  free(touched);
  free(acc);
  free(start);
  free(idx);
  return rc;
}
