/* Builds this process's run profile from the live locations (at finalize). */
#include "pm_location.h"
#include "pm_module.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS 1e-9

/* Maps every location's call-path nodes to profile cnodes. A node whose parent belongs to another
 * location (a team member's parallel region under its master's fork point, PM_NODE_REMOTE) needs
 * that location's node first: resolution is recursive over locations, memoised in nmap. */
typedef struct {
  pm_profile *p;
  int *regmap;      /* region id -> profile region, -1 until used */
  int **nmap;       /* [location id][node] -> cnode; -1 not yet, -2 being resolved */
  uint32_t *nnodes; /* nodes per location, read once (threads may still add nodes) */
  uint32_t nloc;
} cnode_map;

static int cnode_of(cnode_map *m, uint32_t loc, uint32_t i, int depth) {
  int *map = m->nmap[loc];
  if (map[i] >= 0) return map[i];
  const pm_cpnode *c = pm_loc_node(pm_loc_at(loc), i);
  int parent = -1;
  /* a reference cycle or an absurd chain (never built by the core) falls back to the root */
  if (map[i] == -2 || depth > 4 * PM_MAX_DEPTH) {
    parent = i == 0 ? -1 : cnode_of(m, loc, 0, depth + 1);
  } else if (pm_node_is_remote(c->parent)) {
    uint32_t rl = pm_node_remote_loc(c->parent), rn = pm_node_remote_node(c->parent);
    map[i] = -2;
    parent = rl < m->nloc && rn < m->nnodes[rl] ? cnode_of(m, rl, rn, depth + 1) : cnode_of(m, loc, 0, depth + 1);
  } else if (c->parent != UINT32_MAX) {
    map[i] = -2;
    parent = cnode_of(m, loc, c->parent, depth + 1);
  }
  if (parent < 0 && c->parent != UINT32_MAX) return -1;
  pm_region_id r = c->region;
  if (m->regmap[r] < 0)
    m->regmap[r] = pm_profile_add_region(m->p, pm_region_name(r), pm_region_paradigm(r), pm_region_role_of(r));
  if (m->regmap[r] < 0) return -1;
  map[i] = pm_profile_add_cnode(m->p, parent, m->regmap[r]);
  return map[i];
}

/* Appends the values of location L (id) at its call paths, as profile location loc_index. */
static int add_values(pm_profile *p, cnode_map *m, uint32_t id, int loc_index) {
  const pm_loc *L = pm_loc_at(id);
  uint32_t n = m->nnodes[id];
  pm_prof_value *v = realloc(p->val, sizeof *p->val * (size_t)(p->nvalues + (int)n + 1));
  if (!v) return -1;
  p->val = v;
  for (uint32_t i = 0; i < n; i++) {
    const pm_cpnode *c = pm_loc_node(L, i);
    int cnode = cnode_of(m, id, i, 0);
    if (cnode < 0) return -1;
    pm_prof_value *pv = &p->val[p->nvalues++];
    memset(pv, 0, sizeof *pv);
    pv->cnode = cnode;
    pv->location = loc_index;
    pv->visits = c->visits;
    pv->polls = c->polls;
    pv->bytes_sent = c->bytes_sent;
    pv->bytes_received = c->bytes_received;
    pv->msgs_sent = c->msgs_sent;
    pv->msgs_received = c->msgs_received;
    pv->io_bytes_read = c->io_bytes_read;
    pv->io_bytes_written = c->io_bytes_written;
    pv->coll_bytes_out = c->coll_bytes_out;
    pv->coll_bytes_in = c->coll_bytes_in;
    uint64_t mpi = 0;
    for (int s = 0; s < PM_STATE_COUNT; s++) {
      pv->time[s] = (double)c->time[s] * NS;
      if (pm_state_class_of((pm_state)s) == PM_CLASS_MPI) mpi += c->time[s];
    }
    /* a credit can exceed its node's MPI time only where a run of polls spanned several call paths */
    pv->mpi_transfer = mpi > c->mpi_wait ? (double)(mpi - c->mpi_wait) * NS : 0.0;
  }
  return 0;
}

static void cnode_map_free(cnode_map *m) {
  for (uint32_t i = 0; m->nmap && i < m->nloc; i++) free(m->nmap[i]);
  free(m->nmap);
  free(m->nnodes);
}

static int cnode_map_init(cnode_map *m, pm_profile *p, int *regmap, uint32_t nloc) {
  memset(m, 0, sizeof *m);
  m->p = p;
  m->regmap = regmap;
  m->nloc = nloc;
  m->nmap = calloc(nloc + 1, sizeof *m->nmap);
  m->nnodes = calloc(nloc + 1, sizeof *m->nnodes);
  if (!m->nmap || !m->nnodes) return -1;
  for (uint32_t i = 0; i < nloc; i++) {
    m->nnodes[i] = pm_loc_node_count(pm_loc_at(i));
    m->nmap[i] = malloc(sizeof(int) * (m->nnodes[i] + 1));
    if (!m->nmap[i]) return -1;
    for (uint32_t k = 0; k < m->nnodes[i]; k++) m->nmap[i][k] = -1;
  }
  return 0;
}

/* The profile puts the main thread first, then the other locations in registration order. */
static int loc_comes_before(const pm_loc *a, const pm_loc *b) {
  int am = a->role == PM_ROLE_MAIN, bm = b->role == PM_ROLE_MAIN;
  return am != bm ? am : a->id < b->id;
}
int pm_profile_loc_index(uint32_t loc_id) {
  const pm_loc *L = pm_loc_at(loc_id);
  if (!L) return -1;
  int k = 0;
  for (uint32_t i = 0, n = pm_loc_count(); i < n; i++) k += loc_comes_before(pm_loc_at(i), L);
  return k;
}

pm_profile *pm_profile_build_process(uint64_t t_start, uint64_t t_end) {
  pm_profile *p = pm_profile_new();
  int *regmap = NULL;
  uint32_t *order = NULL;
  cnode_map cm = {0};
  if (!p) return NULL;
  uint32_t nreg = pm_region_count(), nloc = pm_loc_count();
  regmap = malloc(sizeof(int) * (nreg + 1));
  p->proc = calloc(1, sizeof *p->proc);
  p->loc = calloc(nloc + 1, sizeof *p->loc);
  if (!regmap || !p->proc || !p->loc) goto fail;
  for (uint32_t r = 0; r < nreg; r++) regmap[r] = -1;
  pm_process_identity(p);
  p->nprocesses = 1;
  pm_prof_process *q = &p->proc[0];
  q->rank = pm_core_rank();
  q->pid = (long)getpid();
  if (gethostname(q->host, sizeof q->host - 1) != 0) strcpy(q->host, "localhost");
  q->window = (double)(t_end - t_start) * NS;
  p->has_critical_path = pm_config_get()->i[PM_CFG_CRITICAL_PATH] ? 1 : 0;
  p->has_mpi_transfer = p->has_critical_path;
  p->cp_io_useful = pm_config_get()->i[PM_CFG_IO_AS_USEFUL] ? 1 : 0;
  p->regions_folded = pm_region_folded();
  /* The main thread first (the models take the first thread of a process as its master), then
   * the others in registration order. MPI may be initialised on another thread, which would
   * otherwise come first. */
  order = malloc(sizeof *order * (nloc + 1));
  if (!order || cnode_map_init(&cm, p, regmap, nloc) != 0) goto fail;
  for (uint32_t i = 0; i < nloc; i++) order[pm_profile_loc_index(i)] = i;
  for (uint32_t j = 0; j < nloc; j++) {
    uint32_t i = order[j];
    pm_loc *L = pm_loc_at(i);
    pm_prof_location *l = &p->loc[p->nlocations];
    snprintf(l->name, sizeof l->name, "%s", L->name);
    l->role = L->role;
    l->process = 0;
    l->thread = (int)j;
    l->registered = L->t_registered > t_start ? (double)(L->t_registered - t_start) * NS : 0;
    uint64_t cpu_wait = pm_loc_cpu_wait(L);
    l->cpu_wait = cpu_wait == UINT64_MAX ? -1 : (double)cpu_wait * NS;
    for (int c = 0; c < PM_CTX_COUNT; c++)
      for (int s = 0; s < PM_STATE_COUNT; s++) l->time[c][s] = (double)L->time[c][s] * NS;
    l->msgs_sent = L->msgs_sent;
    l->msgs_received = L->msgs_received;
    l->bytes_sent = L->bytes_sent;
    l->bytes_received = L->bytes_received;
    l->coll_calls = L->coll_calls;
    l->coll_bytes_out = L->coll_bytes_out;
    l->coll_bytes_in = L->coll_bytes_in;
    l->polls = L->polls;
    l->io_bytes_read = L->io_bytes_read;
    l->io_bytes_written = L->io_bytes_written;
    pm_cp_clock pc, gc;
    pm_loc_cp_peek(L, &pc, &gc); /* L may be another thread's: read, never written */
    l->cp_process = (pm_prof_cp){pc.cue * NS, pc.com * NS, pc.coo * NS};
    l->cp_global = (pm_prof_cp){gc.cue * NS, gc.com * NS, gc.coo * NS};
    l->callpaths_truncated = L->nodes_exhausted;
    if (add_values(p, &cm, i, p->nlocations) != 0) goto fail;
    p->nlocations++;
  }
  if (pm_modules_to_profile(p, t_start) != 0) goto fail; /* models and substrates (pm_module.h) */
  cnode_map_free(&cm);
  free(regmap);
  free(order);
  if (pm_profile_clean_text(p) != 0) goto fail; /* names are byte strings; outputs need UTF-8 */
  pm_profile_finish(p);
  return p;
fail:
  cnode_map_free(&cm);
  free(regmap);
  free(order);
  pm_profile_free(p);
  return NULL;
}
