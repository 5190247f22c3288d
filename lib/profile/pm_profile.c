/* Run-profile containers: allocation, merging of per-process profiles, derived totals. */
#include "pm_profile.h"
#include "pm_profile_tasks.h"
#include "pm_profile_io.h"
#include "pm_profile_published.h"
#include "pm_profile_counters.h"
#include "pm_text.h"
#include <stdlib.h>
#include <string.h>

/* Capacities and hash indices of the tables that grow by pm_profile_add_* and merges: building a
 * process profile with 10^5 call paths, or merging thousands of processes, stays linear. Created
 * on first need; tables filled otherwise (the JSON reader) are indexed when first searched. */
typedef struct pm_prof_index {
  int cap_reg, cap_cnode, cap_proc, cap_loc, cap_val, cap_omp;
  uint32_t *reg_slot, reg_mask; /* region index + 1, by (paradigm, name) */
  int reg_n;                    /* regions indexed so far */
  uint32_t *cn_slot, cn_mask;   /* call-path index + 1, by (parent, region) */
  int cn_n;
} pm_prof_index;

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
  pm_prof_published_free(p->published);
  if (p->index) {
    free(p->index->reg_slot);
    free(p->index->cn_slot);
    free(p->index);
  }
  free(p);
}

static pm_prof_index *index_of(pm_profile *p) {
  if (!p->index && (p->index = calloc(1, sizeof *p->index)) != NULL) {
    pm_prof_index *x = p->index;
    x->cap_reg = p->nregions;
    x->cap_cnode = p->ncnodes;
    x->cap_proc = p->nprocesses;
    x->cap_loc = p->nlocations;
    x->cap_val = p->nvalues;
    x->cap_omp = p->nomp_regions;
  }
  return p->index;
}

/* Makes room for n + k elements of size sz in *arr, doubling: 0 or -1. */
static int reserve(void **arr, int n, int k, size_t sz, int *cap) {
  if (n + k <= *cap) return 0;
  long want = (long)*cap * 2;
  if (want < n + k) want = n + k;
  if (want < 16) want = 16;
  void *q = realloc(*arr, (size_t)want * sz);
  if (!q) return -1;
  *arr = q;
  *cap = (int)want;
  return 0;
}

static uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}
static uint64_t region_key(const char *name, int paradigm) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)paradigm; /* FNV-1a */
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 1099511628211ull;
  return mix(h);
}
static uint64_t cnode_key(int parent, int region) { return mix(((uint64_t)(uint32_t)parent << 32) ^ (uint32_t)region); }

/* Open addressing with linear probing, kept at most half full; slot values are index + 1. */
static int table_grow(uint32_t **slot, uint32_t *mask, int n) {
  if (*slot && (uint64_t)(n + 1) * 2 <= (uint64_t)*mask + 1) return 0;
  uint32_t size = 64;
  while ((uint64_t)size < (uint64_t)(n + 1) * 4) size *= 2;
  uint32_t *t = calloc(size, sizeof *t);
  if (!t) return -1;
  free(*slot);
  *slot = t;
  *mask = size - 1;
  return 1; /* rebuilt empty: the caller re-inserts */
}

static void reg_insert(pm_prof_index *x, const pm_profile *p, int i) {
  uint32_t j = (uint32_t)region_key(p->reg[i].name, p->reg[i].paradigm) & x->reg_mask;
  while (x->reg_slot[j]) j = (j + 1) & x->reg_mask;
  x->reg_slot[j] = (uint32_t)i + 1;
}
static void cn_insert(pm_prof_index *x, const pm_profile *p, int i) {
  uint32_t j = (uint32_t)cnode_key(p->cnode[i].parent, p->cnode[i].region) & x->cn_mask;
  while (x->cn_slot[j]) j = (j + 1) & x->cn_mask;
  x->cn_slot[j] = (uint32_t)i + 1;
}

/* The index of the regions, brought up to date with p's table (room for one more). 0 or -1. */
static int reg_index(pm_profile *p, pm_prof_index *x) {
  int r = table_grow(&x->reg_slot, &x->reg_mask, p->nregions);
  if (r < 0) return -1;
  if (r > 0) x->reg_n = 0;
  for (; x->reg_n < p->nregions; x->reg_n++) reg_insert(x, p, x->reg_n);
  return 0;
}
static int cn_index(pm_profile *p, pm_prof_index *x) {
  int r = table_grow(&x->cn_slot, &x->cn_mask, p->ncnodes);
  if (r < 0) return -1;
  if (r > 0) x->cn_n = 0;
  for (; x->cn_n < p->ncnodes; x->cn_n++) cn_insert(x, p, x->cn_n);
  return 0;
}

int pm_profile_add_region(pm_profile *p, const char *name, int paradigm, int role) {
  pm_prof_index *x = index_of(p);
  if (!x || reg_index(p, x) != 0) return -1;
  for (uint32_t j = (uint32_t)region_key(name, paradigm) & x->reg_mask; x->reg_slot[j]; j = (j + 1) & x->reg_mask) {
    const pm_prof_region *r = &p->reg[x->reg_slot[j] - 1];
    if (r->paradigm == paradigm && strcmp(r->name, name) == 0) return (int)x->reg_slot[j] - 1;
  }
  if (reserve((void **)&p->reg, p->nregions, 1, sizeof *p->reg, &x->cap_reg)) return -1;
  char *copy = strdup(name);
  if (!copy) return -1;
  p->reg[p->nregions] = (pm_prof_region){copy, paradigm, role};
  reg_insert(x, p, p->nregions);
  x->reg_n = p->nregions + 1;
  return p->nregions++;
}

int pm_profile_add_cnode(pm_profile *p, int parent, int region) {
  pm_prof_index *x = index_of(p);
  if (!x || cn_index(p, x) != 0) return -1;
  for (uint32_t j = (uint32_t)cnode_key(parent, region) & x->cn_mask; x->cn_slot[j]; j = (j + 1) & x->cn_mask) {
    const pm_prof_cnode *c = &p->cnode[x->cn_slot[j] - 1];
    if (c->parent == parent && c->region == region) return (int)x->cn_slot[j] - 1;
  }
  if (reserve((void **)&p->cnode, p->ncnodes, 1, sizeof *p->cnode, &x->cap_cnode)) return -1;
  p->cnode[p->ncnodes] = (pm_prof_cnode){parent, region};
  cn_insert(x, p, p->ncnodes);
  x->cn_n = p->ncnodes + 1;
  return p->ncnodes++;
}

int pm_profile_add_omp_region(pm_profile *p, const pm_prof_omp_region *r) {
  pm_prof_index *x = index_of(p);
  if (!x || r->nthreads < 0 || reserve((void **)&p->omp_region, p->nomp_regions, 1, sizeof *p->omp_region, &x->cap_omp))
    return -1;
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
  dst->has_mpi_transfer |= src->has_mpi_transfer;
  dst->cp_io_useful |= src->cp_io_useful; /* one setting for the whole run */
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
  pm_prof_index *x = index_of(dst);
  if (!x || reserve((void **)&dst->proc, dst->nprocesses, src->nprocesses, sizeof *dst->proc, &x->cap_proc) ||
      reserve((void **)&dst->loc, dst->nlocations, src->nlocations, sizeof *dst->loc, &x->cap_loc) ||
      reserve((void **)&dst->val, dst->nvalues, src->nvalues, sizeof *dst->val, &x->cap_val))
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
  if (src->published && pm_prof_published_merge(&dst->published, src->published, p0) != 0) goto out; /* published */
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

int pm_prof_cpu_wait(const pm_profile *p, double *sum, double *max, double *lived) {
  int known = 0;
  *sum = *max = *lived = 0;
  for (int i = 0; i < p->nlocations; i++) {
    const pm_prof_location *l = &p->loc[i];
    if (!pm_prof_loc_computes(l) || l->cpu_wait < 0) continue;
    known++;
    *sum += l->cpu_wait;
    if (l->cpu_wait > *max) *max = l->cpu_wait;
    for (int c = 0; c < PM_CTX_COUNT; c++)
      for (int s = 0; s < PM_STATE_COUNT; s++)
        if (s != PM_STATE_OFF) *lived += l->time[c][s];
  }
  return known;
}

int pm_prof_threads_max(const pm_profile *p) {
  int max = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    int n = 0;
    for (int j = 0; j < p->nlocations; j++) n += p->loc[j].process == i && pm_prof_loc_computes(&p->loc[j]);
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
  if (p->published)
    for (int i = 0; i < p->published->nseries; i++) CLEAN_FIELD(p->published->series[i].name);
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
