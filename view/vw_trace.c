/* The OTF2 trace of a run read into what the page draws (vw.h): a lane per location, a task per
 * body of a task region (role TASK; its Leave's attributes give tag, flops, times and critical-path
 * clocks, docs/trace.md), a state per outermost region of another kind (MPI, runtime, waiting, I/O,
 * popmeter's own; user regions when outermost), and the point-to-point messages, matched per
 * (communicator, sender, receiver, tag) in order as MPI does.
 *
 * Read through Debian's libotf2 reader, definitions first, then every location's events merged in
 * time order. A malformed archive gives the reader's error, never a crash: every reference is
 * checked against what the definitions declared. */
#define _GNU_SOURCE
#include "config.h"
#include "vw.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[VW_NKINDS] = {"MPI", "runtime", "waiting", "I/O", "popmeter", "user"};
const char *vw_kind_name(int kind) { return kind >= 0 && kind < VW_NKINDS ? kind_names[kind] : "?"; }

int vw_codelet_index(vw_trace *t, const char *name) {
  for (int i = 0; i < t->ncodelets; i++)
    if (!strcmp(t->codelet[i], name)) return i;
  char **n = realloc(t->codelet, sizeof *n * (size_t)(t->ncodelets + 1));
  if (!n) return -1;
  t->codelet = n;
  if (!(n[t->ncodelets] = strdup(name))) return -1;
  return t->ncodelets++;
}

void vw_trace_free(vw_trace *t) {
  for (int i = 0; i < t->ncodelets; i++) free(t->codelet[i]);
  free(t->codelet);
  free(t->lane);
  free(t->task);
  free(t->state);
  free(t->msg);
  memset(t, 0, sizeof *t);
}

static int by_lane_start_task(const void *a, const void *b) {
  const vw_task *x = a, *y = b;
  if (x->lane != y->lane) return x->lane - y->lane;
  return x->start < y->start ? -1 : x->start > y->start;
}
static int by_lane_start_state(const void *a, const void *b) {
  const vw_state *x = a, *y = b;
  if (x->lane != y->lane) return x->lane - y->lane;
  return x->start < y->start ? -1 : x->start > y->start;
}
void vw_trace_sort(vw_trace *t) {
  if (t->ntasks) qsort(t->task, t->ntasks, sizeof *t->task, by_lane_start_task);
  if (t->nstates) qsort(t->state, t->nstates, sizeof *t->state, by_lane_start_state);
}

#ifndef PM_HAVE_OTF2
int vw_trace_read(const char *path, const pm_profile *p, vw_trace *t, char *err, size_t errlen) {
  (void)p;
  memset(t, 0, sizeof *t);
  snprintf(err, errlen, "%s: this popmeter was built without OTF2 (configure found no otf2-config)", path);
  return -1;
}
#else
#include <otf2/otf2.h>

/* ------------------------------------------------------------------------------ definitions */
/* the task attributes of a body's Leave: PM_TT_* and pm_task_attr_name (pm_vocabulary.h) */

#define MAX_REF (1u << 24) /* definitions beyond are not popmeter's (nor sane): ignored */

typedef struct {
  uint32_t name;
  int kind, task, codelet;
} rregion;
typedef struct {
  uint64_t ref;
  int lane;
  uint32_t group;
  uint32_t depth, cap, classified; /* open frames, of which a task or a region of another kind than user */
  struct frame {
    uint32_t region;
    uint64_t t;
  } * stack;
} rloc;
typedef struct {
  int type, paradigm;
  uint32_t n;
  uint64_t *m;
} rgroup;
typedef struct {
  uint32_t comm, tag;
  int proc, peer; /* the event's process; the peer's rank in comm, resolved to a process later */
  int lane;
  uint64_t t, bytes, seq;
} rmsg;

typedef struct {
  vw_trace *t;
  const pm_profile *p;
  uint64_t offset, resolution, length;
  char **str;
  uint32_t nstr;
  rregion *reg;
  uint32_t nreg;
  rloc *loc;
  uint32_t nloc, caploc;
  rgroup *grp;
  uint32_t ngrp;
  uint32_t *comm_group; /* per communicator, UINT32_MAX undefined */
  uint32_t ncomm;
  uint32_t attr[PM_TT_NATTR];
  rmsg *send, *recv;
  size_t nsend, nrecv, capsend, caprecv;
  size_t captask, capstate;
  int oom;
} rd;

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return -1;
  *p = q;
  *cap = n;
  return 0;
}
/* Slot ref of a dense table of 32-bit-indexed entries, grown on demand. NULL beyond MAX_REF. */
static void *slot(void **arr, uint32_t *n, uint32_t ref, size_t size, rd *r) {
  if (ref >= MAX_REF) return NULL;
  if (ref >= *n) {
    void *q = realloc(*arr, (size_t)(ref + 1) * size);
    if (!q) {
      r->oom = 1;
      return NULL;
    }
    memset((char *)q + (size_t)*n * size, 0, (size_t)(ref + 1 - *n) * size);
    *arr = q;
    *n = ref + 1;
  }
  return (char *)*arr + (size_t)ref * size;
}
static const char *str(const rd *r, uint32_t ref) { return ref < r->nstr && r->str[ref] ? r->str[ref] : ""; }

/* What a region is on a lane (vw.h): a task body, or the kind of state it stands for. */
static int region_kind(const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm, int *task) {
  *task = role == OTF2_REGION_ROLE_TASK;
  if (paradigm == OTF2_PARADIGM_MPI) return VW_K_MPI;
  if (paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM) return VW_K_TOOL;
  if (role == OTF2_REGION_ROLE_FILE_IO) return VW_K_IO;
  if (role == OTF2_REGION_ROLE_BARRIER || role == OTF2_REGION_ROLE_IMPLICIT_BARRIER || !strcmp(name, "starpu_wait") ||
      !strcmp(name, "starpu_data_acquire"))
    return VW_K_WAIT;
  if (!strncmp(name, "starpu", 6) || (paradigm == OTF2_PARADIGM_OPENMP && role != OTF2_REGION_ROLE_PARALLEL))
    return VW_K_RUNTIME;
  return VW_K_USER;
}

static OTF2_CallbackCode d_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t real) {
  rd *r = ud;
  (void)real;
  r->resolution = res ? res : 1000000000ull;
  r->offset = off;
  r->length = len;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *s) {
  rd *r = ud;
  char **p = slot((void **)&r->str, &r->nstr, self, sizeof *r->str, r);
  if (p && !*p && !(*p = strdup(s ? s : ""))) r->oom = 1;
  return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                     OTF2_Type type) {
  rd *r = ud;
  (void)desc;
  (void)type;
  for (int i = 0; i < PM_TT_NATTR; i++)
    if (!strcmp(str(r, name), pm_task_attr_name(i))) r->attr[i] = self;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                  OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t l0, uint32_t l1) {
  rd *r = ud;
  (void)canon, (void)desc, (void)flags, (void)file, (void)l0, (void)l1;
  rregion *g = slot((void **)&r->reg, &r->nreg, self, sizeof *r->reg, r);
  if (!g) return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
  g->name = name;
  g->kind = region_kind(str(r, name), role, paradigm, &g->task);
  g->codelet = -1;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t nevents, OTF2_LocationGroupRef group) {
  rd *r = ud;
  vw_trace *t = r->t;
  (void)type;
  if (nevents == 0) return OTF2_CALLBACK_SUCCESS; /* nothing to draw */
  size_t cap = r->caploc, capl = (size_t)t->nlanes;
  if (grow((void **)&r->loc, &cap, (size_t)r->nloc + 1, sizeof *r->loc) ||
      grow((void **)&t->lane, &capl, (size_t)t->nlanes + 1, sizeof *t->lane)) {
    r->oom = 1;
    return OTF2_CALLBACK_INTERRUPT;
  }
  r->caploc = (uint32_t)cap;
  vw_lane *l = &t->lane[t->nlanes];
  memset(l, 0, sizeof *l);
  snprintf(l->name, sizeof l->name, "%s", str(r, name));
  l->process = (int)group;
  l->thread = (int)(self >> 32); /* popmeter's location ids: (k << 32) | rank (docs/trace.md) */
  l->loc = -1;
  r->loc[r->nloc++] = (rloc){self, t->nlanes++, group, 0, 0, 0, NULL};
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                 OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *m) {
  rd *r = ud;
  (void)name;
  (void)flags;
  rgroup *g = slot((void **)&r->grp, &r->ngrp, self, sizeof *r->grp, r);
  if (!g) return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
  free(g->m);
  *g = (rgroup){type, paradigm, n, n ? malloc(n * sizeof *m) : NULL};
  if (n && !g->m) {
    r->oom = 1;
    return OTF2_CALLBACK_INTERRUPT;
  }
  if (n) memcpy(g->m, m, n * sizeof *m);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                OTF2_CommRef parent, OTF2_CommFlag flags) {
  rd *r = ud;
  (void)name, (void)parent, (void)flags;
  uint32_t old = r->ncomm;
  uint32_t *g = slot((void **)&r->comm_group, &r->ncomm, self, sizeof *r->comm_group, r);
  if (!g) return r->oom ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
  for (uint32_t i = old; i < r->ncomm; i++) r->comm_group[i] = UINT32_MAX;
  *g = group;
  return OTF2_CALLBACK_SUCCESS;
}

/* ----------------------------------------------------------------------------------- events */
static int by_ref(const void *a, const void *b) {
  const rloc *x = a, *y = b;
  return x->ref < y->ref ? -1 : x->ref > y->ref;
}
static rloc *find_loc(rd *r, uint64_t ref) {
  rloc key = {.ref = ref};
  return bsearch(&key, r->loc, r->nloc, sizeof *r->loc, by_ref);
}
static uint64_t ns(const rd *r, uint64_t t) {
  if (t <= r->offset) return 0;
  uint64_t d = t - r->offset;
  return r->resolution == 1000000000ull ? d : (uint64_t)((double)d * 1e9 / (double)r->resolution);
}

static int push_state(rd *r, int lane, int kind, uint64_t t0, uint64_t t1) {
  vw_trace *t = r->t;
  if (grow((void **)&t->state, &r->capstate, t->nstates + 1, sizeof *t->state)) return -1;
  t->state[t->nstates++] = (vw_state){t0, t1, lane, kind};
  return 0;
}

static void task_attributes(rd *r, OTF2_AttributeList *a, vw_task *k) {
  uint32_t n = a ? OTF2_AttributeList_GetNumberOfElements(a) : 0;
  for (uint32_t i = 0; i < n; i++) {
    OTF2_AttributeRef id;
    OTF2_Type type;
    OTF2_AttributeValue v;
    if (OTF2_AttributeList_GetAttributeByIndex(a, i, &id, &type, &v) != OTF2_SUCCESS) continue;
    int which = -1;
    for (int j = 0; j < PM_TT_NATTR && which < 0; j++)
      if (r->attr[j] == id) which = j;
    if (which == PM_TT_FLOPS) {
      if (type == OTF2_TYPE_DOUBLE && v.float64 > 0 && v.float64 < 1e30) k->flops = v.float64;
      continue;
    }
    if (which < 0 || type != OTF2_TYPE_UINT64) continue;
    switch (which) {
    case PM_TT_TAG: k->tag = v.uint64; break;
    case PM_TT_SUBMIT: k->submit = ns(r, v.uint64); break;
    case PM_TT_READY: k->ready = ns(r, v.uint64); break;
    case PM_TT_POP: k->pop = ns(r, v.uint64); break;
    case PM_TT_CP_IN: k->cp_in = v.uint64; break;
    case PM_TT_CP_OUT: k->cp_out = v.uint64; break;
    }
  }
  if (k->cp_in == VW_NONE || k->cp_out == VW_NONE || k->cp_out < k->cp_in) k->cp_in = k->cp_out = VW_NONE;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef where, OTF2_TimeStamp time, void *ud, OTF2_AttributeList *a,
                                 OTF2_RegionRef region) {
  rd *r = ud;
  (void)a;
  rloc *l = find_loc(r, where);
  if (!l || region >= r->nreg) return OTF2_CALLBACK_SUCCESS;
  size_t cap = l->cap;
  if (grow((void **)&l->stack, &cap, (size_t)l->depth + 1, sizeof *l->stack)) {
    r->oom = 1;
    return OTF2_CALLBACK_INTERRUPT;
  }
  l->cap = (uint32_t)cap;
  l->stack[l->depth++] = (struct frame){region, ns(r, time)};
  if (r->reg[region].task || r->reg[region].kind != VW_K_USER) l->classified++;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef where, OTF2_TimeStamp time, void *ud, OTF2_AttributeList *a,
                                 OTF2_RegionRef region) {
  rd *r = ud;
  rloc *l = find_loc(r, where);
  if (!l || l->depth == 0 || l->stack[l->depth - 1].region != region) return OTF2_CALLBACK_SUCCESS;
  struct frame f = l->stack[--l->depth];
  rregion *g = &r->reg[region];
  uint64_t t1 = ns(r, time);
  if (t1 < f.t) t1 = f.t;
  int classified = g->task || g->kind != VW_K_USER;
  if (classified) l->classified--;
  int rc = 0;
  if (g->task) {
    vw_trace *t = r->t;
    if (g->codelet < 0) g->codelet = vw_codelet_index(t, str(r, g->name));
    if (g->codelet < 0 || grow((void **)&t->task, &r->captask, t->ntasks + 1, sizeof *t->task)) {
      r->oom = 1;
      return OTF2_CALLBACK_INTERRUPT;
    }
    vw_task *k = &t->task[t->ntasks++];
    *k = (vw_task){f.t, t1, VW_NONE, VW_NONE, VW_NONE, VW_NONE, VW_NONE, VW_NONE, 0, l->lane, g->codelet, 0};
    task_attributes(r, a, k);
  } else if (classified ? l->classified == 0 : l->depth == 0 && l->classified == 0) {
    rc = push_state(r, l->lane, g->kind, f.t, t1);
  }
  if (rc) r->oom = 1;
  return rc ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode add_msg(rd *r, int send, OTF2_LocationRef where, OTF2_TimeStamp time, uint32_t peer,
                                 OTF2_CommRef comm, uint32_t tag, uint64_t len) {
  rloc *l = find_loc(r, where);
  if (!l) return OTF2_CALLBACK_SUCCESS;
  rmsg **v = send ? &r->send : &r->recv;
  size_t *n = send ? &r->nsend : &r->nrecv, *cap = send ? &r->capsend : &r->caprecv;
  if (grow((void **)v, cap, *n + 1, sizeof **v)) {
    r->oom = 1;
    return OTF2_CALLBACK_INTERRUPT;
  }
  (*v)[*n] = (rmsg){comm, tag, (int)l->group, (int)peer, l->lane, ns(r, time), len, *n};
  (*n)++;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_send(OTF2_LocationRef w, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a, uint32_t to,
                                OTF2_CommRef c, uint32_t tag, uint64_t len) {
  (void)a;
  return add_msg(ud, 1, w, t, to, c, tag, len);
}
static OTF2_CallbackCode e_isend(OTF2_LocationRef w, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a, uint32_t to,
                                 OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
  (void)a;
  (void)req;
  return add_msg(ud, 1, w, t, to, c, tag, len);
}
static OTF2_CallbackCode e_recv(OTF2_LocationRef w, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a, uint32_t from,
                                OTF2_CommRef c, uint32_t tag, uint64_t len) {
  (void)a;
  return add_msg(ud, 0, w, t, from, c, tag, len);
}
static OTF2_CallbackCode e_irecv(OTF2_LocationRef w, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a, uint32_t from,
                                 OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req) {
  (void)a;
  (void)req;
  return add_msg(ud, 0, w, t, from, c, tag, len);
}

/* ----------------------------------------------------------------------------------- messages */
/* The process of rank 'rank' of communicator comm (OTF2: a COMM_GROUP's members index its
 * paradigm's COMM_LOCATIONS group, whose members are locations); -1 when not resolvable. */
static int peer_process(const rd *r, uint32_t comm, int rank, int self) {
  if (comm >= r->ncomm || r->comm_group[comm] >= r->ngrp || rank < 0) return -1;
  const rgroup *g = &r->grp[r->comm_group[comm]];
  if (g->type == OTF2_GROUP_TYPE_COMM_SELF) return self;
  if ((uint32_t)rank >= g->n) return -1;
  uint64_t m = g->m[rank];
  if (g->type == OTF2_GROUP_TYPE_COMM_GROUP) {
    const rgroup *all = NULL;
    for (uint32_t i = 0; i < r->ngrp && !all; i++)
      if (r->grp[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && r->grp[i].paradigm == g->paradigm) all = &r->grp[i];
    if (!all || m >= all->n) return -1;
    m = all->m[m];
  } else if (g->type != OTF2_GROUP_TYPE_COMM_LOCATIONS) {
    return -1;
  }
  const rloc *l = NULL;
  for (uint32_t i = 0; i < r->nloc && !l; i++)
    if (r->loc[i].ref == m) l = &r->loc[i];
  return l ? (int)l->group : (int)(m & 0xffffffffu); /* the rank: the low half of popmeter's ids */
}

/* key order: comm, sender, receiver, tag; then arrival */
static int key_cmp(const rmsg *x, const rmsg *y) {
  int64_t k[4] = {(int64_t)x->comm - y->comm, (int64_t)x->proc - y->proc, (int64_t)x->peer - y->peer,
                  (int64_t)x->tag - y->tag};
  for (int i = 0; i < 4; i++)
    if (k[i]) return k[i] < 0 ? -1 : 1;
  return 0;
}
static int by_key(const void *a, const void *b) {
  const rmsg *x = a, *y = b;
  int c = key_cmp(x, y);
  return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int match_messages(rd *r) {
  vw_trace *t = r->t;
  /* both in (comm, sender process, receiver process, tag) terms */
  for (size_t i = 0; i < r->nsend; i++)
    r->send[i].peer = peer_process(r, r->send[i].comm, r->send[i].peer, r->send[i].proc);
  for (size_t i = 0; i < r->nrecv; i++) {
    rmsg *v = &r->recv[i];
    int from = peer_process(r, v->comm, v->peer, v->proc);
    v->peer = v->proc;
    v->proc = from;
  }
  if (r->nsend) qsort(r->send, r->nsend, sizeof *r->send, by_key);
  if (r->nrecv) qsort(r->recv, r->nrecv, sizeof *r->recv, by_key);
  size_t cap = 0, i = 0, j = 0;
  while (i < r->nsend && j < r->nrecv) {
    int c = key_cmp(&r->send[i], &r->recv[j]);
    if (c == 0 && r->send[i].peer >= 0 && r->send[i].proc >= 0) {
      if (grow((void **)&t->msg, &cap, t->nmsgs + 1, sizeof *t->msg)) return -1;
      t->msg[t->nmsgs++] = (vw_msg){r->send[i].t, r->recv[j].t, r->send[i].bytes, r->send[i].lane, r->recv[j].lane};
      i++;
      j++;
    } else if (c < 0) {
      t->msgs_unmatched++;
      i++;
    } else {
      t->msgs_unmatched++;
      j++;
    }
  }
  t->msgs_unmatched += (r->nsend - i) + (r->nrecv - j);
  return 0;
}

/* ------------------------------------------------------------------------------------ driver */
/* Roles from popmeter.json: the location of the same rank and name. Threads of one process that
 * share a name are taken in order on both sides: the lanes by their id's thread order, the
 * locations by their index in the process. */
static int same_thread(const vw_lane *a, const vw_lane *b) {
  return a->process == b->process && !strcmp(a->name, b->name);
}
static int is_lane_of(const pm_profile *p, int k, const vw_lane *l) {
  const pm_prof_location *x = &p->loc[k];
  return x->process < p->nprocesses && p->proc[x->process].rank == l->process && !strcmp(x->name, l->name);
}
/* The location of popmeter.json that is the nth (0-based) with the lane's rank and name, or -1. */
static int nth_location(const pm_profile *p, const vw_lane *l, int nth) {
  for (int k = 0; k < p->nlocations; k++) {
    if (!is_lane_of(p, k, l)) continue;
    int before = 0;
    for (int j = 0; j < p->nlocations; j++)
      before += j != k && is_lane_of(p, j, l) && p->loc[j].thread < p->loc[k].thread;
    if (before == nth) return k;
  }
  return -1;
}
static void lane_roles(vw_trace *t, const pm_profile *p) {
  for (int i = 0; i < t->nlanes; i++) {
    vw_lane *l = &t->lane[i];
    int nth = 0; /* lanes of the same rank and name before this one */
    for (int j = 0; j < t->nlanes; j++)
      nth += j != i && same_thread(&t->lane[j], l) &&
             (t->lane[j].thread < l->thread || (t->lane[j].thread == l->thread && j < i));
    l->loc = p ? nth_location(p, l, nth) : -1;
    l->role = l->loc >= 0 ? p->loc[l->loc].role : PM_ROLE_OTHER;
    l->wtype = l->role == PM_ROLE_ACCEL_WORKER;
  }
}

static void rd_free(rd *r) {
  for (uint32_t i = 0; i < r->nstr; i++) free(r->str[i]);
  free(r->str);
  free(r->reg);
  for (uint32_t i = 0; i < r->nloc; i++) free(r->loc[i].stack);
  free(r->loc);
  for (uint32_t i = 0; i < r->ngrp; i++) free(r->grp[i].m);
  free(r->grp);
  free(r->comm_group);
  free(r->send);
  free(r->recv);
}

static int read_definitions(OTF2_Reader *rdr, rd *r) {
  OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rdr);
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
  if (!gr || !cb) {
    if (cb) OTF2_GlobalDefReaderCallbacks_Delete(cb);
    return -1;
  }
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, d_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, d_attribute);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, d_comm);
  OTF2_Reader_RegisterGlobalDefCallbacks(rdr, gr, cb, r);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(rdr, gr, &n);
  OTF2_Reader_CloseGlobalDefReader(rdr, gr);
  return rc == OTF2_SUCCESS && !r->oom ? 0 : -1;
}

static int read_events(OTF2_Reader *rdr, rd *r) {
  qsort(r->loc, r->nloc, sizeof *r->loc, by_ref);
  for (uint32_t i = 0; i < r->nloc; i++) OTF2_Reader_SelectLocation(rdr, r->loc[i].ref);
  int defs = OTF2_Reader_OpenDefFiles(rdr) == OTF2_SUCCESS;
  if (OTF2_Reader_OpenEvtFiles(rdr) != OTF2_SUCCESS) return -1;
  for (uint32_t i = 0; i < r->nloc; i++) {
    if (defs) { /* the mapping tables of the location's local ids */
      OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rdr, r->loc[i].ref);
      if (dr) {
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalDefinitions(rdr, dr, &n);
        OTF2_Reader_CloseDefReader(rdr, dr);
      }
    }
    OTF2_Reader_GetEvtReader(rdr, r->loc[i].ref);
  }
  if (defs) OTF2_Reader_CloseDefFiles(rdr);
  OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(rdr);
  OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
  if (!ge || !cb) {
    if (cb) OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    return -1;
  }
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, e_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, e_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, e_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, e_irecv);
  OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ge, cb, r);
  OTF2_GlobalEvtReaderCallbacks_Delete(cb);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(rdr, ge, &n);
  OTF2_Reader_CloseGlobalEvtReader(rdr, ge);
  OTF2_Reader_CloseEvtFiles(rdr);
  return rc == OTF2_SUCCESS && !r->oom ? 0 : -1;
}

/* OTF2's own messages: the first one of a read is kept for ours, none is printed. */
static char otf2_msg[256];
static OTF2_ErrorCode quiet(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                            const char *fmt, va_list va) {
  (void)ud, (void)file, (void)line, (void)fn;
  if (!otf2_msg[0]) {
    char m[200] = "";
    if (fmt) vsnprintf(m, sizeof m, fmt, va);
    snprintf(otf2_msg, sizeof otf2_msg, "%s%s%s", OTF2_Error_GetDescription(code), m[0] ? ": " : "", m);
  }
  return code;
}

int vw_trace_read(const char *path, const pm_profile *p, vw_trace *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  otf2_msg[0] = '\0';
  OTF2_ErrorCallback before = OTF2_Error_RegisterCallback(quiet, NULL);
  rd r;
  memset(&r, 0, sizeof r);
  r.t = t;
  r.p = p;
  r.resolution = 1000000000ull;
  for (int i = 0; i < PM_TT_NATTR; i++) r.attr[i] = UINT32_MAX;
  /* OTF2 opens only an anchor file named *.otf2, and leaks what it began to build for another
   * path: such a path, or one that cannot be read, is refused here */
  size_t n = strlen(path);
  int anchor = n > 5 && !strcmp(path + n - 5, ".otf2");
  if (!anchor || access(path, R_OK) != 0) {
    snprintf(err, errlen, "%s cannot be opened (%s)", path,
             anchor ? strerror(errno) : "not an OTF2 anchor file: its name ends in .otf2");
    OTF2_Error_RegisterCallback(before, NULL);
    return -1;
  }
  OTF2_Reader *rdr = OTF2_Reader_Open(path);
  int rc = -1;
  const char *what = "cannot be opened";
  if (rdr && OTF2_Reader_SetSerialCollectiveCallbacks(rdr) == OTF2_SUCCESS) {
    what = "has unreadable definitions";
    if (read_definitions(rdr, &r) == 0) {
      what = "has unreadable events";
      if (read_events(rdr, &r) == 0) {
        what = "out of memory";
        rc = match_messages(&r);
      }
    }
  }
  if (rdr) OTF2_Reader_Close(rdr);
  OTF2_Error_RegisterCallback(before, NULL);
  if (rc == 0 && r.oom) rc = -1;
  if (rc != 0) {
    snprintf(err, errlen, "%s %s%s%s%s", path, r.oom ? "" : what, r.oom ? "out of memory" : "",
             otf2_msg[0] ? " (OTF2: " : "", otf2_msg[0] ? otf2_msg : "");
    if (otf2_msg[0]) strncat(err, ")", errlen - strlen(err) - 1);
    rd_free(&r);
    vw_trace_free(t);
    return -1;
  }
  uint64_t end = ns(&r, r.offset + r.length);
  for (size_t i = 0; i < t->ntasks; i++)
    if (t->task[i].end > end) end = t->task[i].end;
  for (size_t i = 0; i < t->nstates; i++)
    if (t->state[i].end > end) end = t->state[i].end;
  for (size_t i = 0; i < t->nmsgs; i++)
    if (t->msg[i].t_recv > end) end = t->msg[i].t_recv;
  t->span = end;
  t->clock0 = r.offset;
  lane_roles(t, p);
  rd_free(&r);
  vw_trace_sort(t);
  return 0;
}
#endif
