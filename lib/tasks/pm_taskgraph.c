/* Online critical path through the task DAG (see pm_taskgraph.h for the model and the reasons). */
#include "pm_taskgraph.h"
#include "pm_ptrmap.h"
#include "pm_location.h"
#include "pm_state_tables.h"
#include "pm_cacheline.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------ clock arithmetic */
static inline int cp_max(pm_cp_clock *d, const pm_cp_clock *s) {
  int cue_won = s->cue > d->cue;
  if (cue_won) d->cue = s->cue;
  if (s->com > d->com) d->com = s->com;
  if (s->coo > d->coo) d->coo = s->coo;
  return cue_won;
}

uint32_t pm_tg_name_hash(const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p; p++) h = (h ^ *p) * 16777619u;
  return h == PM_TG_KEY_APP ? h - 1 : h;
}

void pm_tg_clk_merge_global(pm_tg_clk *d, const pm_tg_clk *s) {
  cp_max(&d->hb_g, &s->hb_g);
  int coo_won = s->dag_g.coo > d->dag_g.coo;
  if (cp_max(&d->dag_g, &s->dag_g)) d->comp = s->comp;
  if (coo_won) d->coo_mpi = s->coo_mpi;
}

void pm_tg_clk_merge(pm_tg_clk *d, const pm_tg_clk *s) {
  cp_max(&d->hb_pl, &s->hb_pl);
  cp_max(&d->dag_pl, &s->dag_pl);
  pm_tg_clk_merge_global(d, s);
}

void pm_tg_comp_add(pm_tg_comp *c, uint64_t key, uint64_t ns) {
  if (!ns) return;
  uint32_t i, imin = 0;
  for (i = 0; i < c->n; i++)
    if (c->e[i].key == key) {
      c->e[i].ns += ns;
      return;
    }
  if (c->n < PM_TG_COMP_N) {
    c->e[c->n++] = (pm_tg_part){key, ns};
    return;
  }
  /* full: the smallest share (the new one included) moves to 'other' */
  for (i = 1; i < c->n; i++)
    if (c->e[i].ns < c->e[imin].ns) imin = i;
  if (ns <= c->e[imin].ns) {
    c->other += ns;
    return;
  }
  c->other += c->e[imin].ns;
  c->e[imin] = (pm_tg_part){key, ns};
}

uint64_t pm_tg_comp_sum(const pm_tg_comp *c) {
  uint64_t s = c->other;
  for (uint32_t i = 0; i < c->n; i++) s += c->e[i].ns;
  return s;
}

void pm_tg_clk_advance(pm_tg_clk *c, uint64_t cue, uint64_t com, uint64_t coo, uint64_t key) {
  c->dag_pl.cue += cue;
  c->dag_pl.com += com;
  c->dag_pl.coo += coo;
  c->dag_g.cue += cue;
  c->dag_g.com += com;
  c->dag_g.coo += coo;
  pm_tg_comp_add(&c->comp, key, cue);
}

void pm_tg_clk_add_mpi(pm_tg_clk *c, uint64_t ns) {
  c->dag_pl.coo += ns;
  c->dag_g.coo += ns;
  c->coo_mpi += ns;
}

void pm_tg_thread_sync(pm_tg_thread *th, const pm_loc *L, int rank) {
  /* the location's own time weighted per variant (no merges), which the core keeps on every charge */
  const uint64_t own[3] = {L->cp_own.cue, L->cp_own.com, L->cp_own.coo};
  if (!th->init) { /* everything the thread did before its first event counts */
    memset(th, 0, sizeof *th);
    th->init = 1;
  }
  uint64_t d[3];
  for (int i = 0; i < 3; i++) d[i] = own[i] > th->mark[i] ? own[i] - th->mark[i] : 0;
  pm_tg_clk_advance(&th->clk, d[0], d[1], d[2], pm_tg_key(rank, PM_TG_KEY_APP));
  memcpy(th->mark, own, sizeof own);
}

void pm_tg_thread_merge(pm_tg_thread *th, const pm_tg_clk *c) {
  th->gen++; /* the clock no longer extends the thread's snapshot */
  cp_max(&th->clk.dag_pl, &c->dag_pl);
  int coo_won = c->dag_g.coo > th->clk.dag_g.coo;
  if (cp_max(&th->clk.dag_g, &c->dag_g)) th->clk.comp = c->comp;
  if (coo_won) th->clk.coo_mpi = c->coo_mpi;
}

/* The thread's clock as it stands (synced by the caller): dag from th, hb the location's. */
static void thread_value(const pm_tg_thread *th, const pm_loc *L, pm_tg_clk *out) {
  *out = th->clk;
  out->hb_pl = pm_cp_process(L);
  out->hb_g = pm_cp_global(L);
}

void pm_tg_thread_clock(pm_tg_thread *th, const pm_loc *L, int rank, pm_tg_clk *out) {
  pm_tg_thread_sync(th, L, rank);
  thread_value(th, L, out);
}

void pm_tg_clk_pack(const pm_tg_clk *c, uint64_t *w) {
  memset(w, 0, PM_TG_WIRE_WORDS * sizeof *w);
  w[0] = c->hb_g.cue;
  w[1] = c->hb_g.com;
  w[2] = c->hb_g.coo;
  w[3] = c->dag_g.cue;
  w[4] = c->dag_g.com;
  w[5] = c->dag_g.coo;
  w[6] = c->coo_mpi;
  w[7] = c->comp.n;
  for (uint32_t i = 0; i < c->comp.n && i < PM_TG_COMP_N; i++) {
    w[8 + 2 * i] = c->comp.e[i].key;
    w[9 + 2 * i] = c->comp.e[i].ns;
  }
  w[8 + 2 * PM_TG_COMP_N] = c->comp.other;
}

void pm_tg_clk_unpack(pm_tg_clk *c, const uint64_t *w) {
  memset(c, 0, sizeof *c);
  c->hb_g = (pm_cp_clock){w[0], w[1], w[2]};
  c->dag_g = (pm_cp_clock){w[3], w[4], w[5]};
  c->coo_mpi = w[6];
  c->comp.n = w[7] <= PM_TG_COMP_N ? (uint32_t)w[7] : PM_TG_COMP_N;
  for (uint32_t i = 0; i < c->comp.n; i++) c->comp.e[i] = (pm_tg_part){w[8 + 2 * i], w[9 + 2 * i]};
  c->comp.other = w[8 + 2 * PM_TG_COMP_N];
}

/* ------------------------------------------------------------------------------ global tables */
static pm_ptrmap task_map, handle_map, tag_map;
static pm_slab task_slab = {.size = (sizeof(pm_tg_task) + 15) & ~(size_t)15, .per_chunk = 512};
static pm_slab clk_slab = {.size = (sizeof(pm_tg_clk) + 15) & ~(size_t)15, .per_chunk = 256};
/* A task's first PREDS_SMALL explicit predecessors: the array is made by the submitting thread and
 * dropped by the worker that starts the task, which with malloc sends every block of a chain of
 * tasks from one thread's heap to another's (a third of the allocator's work per task in a chain
 * of declared dependencies went to that); larger arrays are malloc'd (rare). */
#define PREDS_SMALL 4
static pm_slab preds_slab = {.size = PREDS_SMALL * sizeof(pm_tg_task *), .per_chunk = 1024};
static pm_tg_clk oom_clk;  /* stands in for a task clock that could not be allocated */
static pm_spin preds_lock; /* explicit dependency arrays, and clocks a successor may read */

/* --------------------------------------------------------------------------- submitter snapshots */
/* A submitting thread's clock at one submission. Until the thread's clock changes other than by
 * its own time (a merge: a wait, an acquisition), the clock at each later submission is this one
 * advanced by the location's own time since, as pm_tg_thread_sync would advance it: the tasks
 * keep that difference and share the snapshot. */
#define PM_TG_SNAP_BIAS (1u << 30)
struct pm_tg_snap {
  uint32_t refs;
  int has_app;     /* key is in clk.comp: advancing adds to its entry, whatever the steps */
  uint64_t key;    /* the thread's composition key, pm_tg_key(rank, APP) */
  uint64_t own[3]; /* the location's own cue/com/coo time when it was taken */
  pm_tg_clk clk;   /* the thread's clock then; hb_* the location's */
};
static pm_slab snap_slab = {.size = (sizeof(pm_tg_snap) + 15) & ~(size_t)15, .per_chunk = 64};

static void snap_put(pm_tg_snap *s, uint32_t n) {
  if (__atomic_sub_fetch(&s->refs, n, __ATOMIC_ACQ_REL) == 0) pm_slab_free(&snap_slab, s);
}

/* The clock of a task submitted d (own time) after the snapshot. */
static void snap_value(const pm_tg_snap *s, const uint64_t d[3], pm_tg_clk *c) {
  *c = s->clk;
  c->hb_pl.cue += d[0];
  c->hb_pl.com += d[1];
  c->hb_pl.coo += d[2];
  c->hb_g.cue += d[0];
  c->hb_g.com += d[1];
  c->hb_g.coo += d[2];
  pm_tg_clk_advance(c, d[0], d[1], d[2], s->key);
}

static int cp_is(pm_cp_clock a, const pm_cp_clock *b, const uint64_t d[3]) {
  return a.cue == b->cue + d[0] && a.com == b->com + d[1] && a.coo == b->coo + d[2];
}

/* Whether the thread's current clock is s advanced by the own time since (then in d): no merge
 * into the thread's clock (gen), none into the location's (its clocks moved by exactly d), and
 * the composition grows by adding to the thread's own entry only. */
static int snap_extends(const pm_tg_thread *th, const pm_tg_snap *s, const pm_loc *L, const uint64_t own[3],
                        uint64_t key, uint64_t d[3]) {
  if (th->snap_gen != th->gen || s->key != key || th->snap_uses >= PM_TG_SNAP_BIAS - 1) return 0;
  for (int i = 0; i < 3; i++) {
    if (own[i] < s->own[i]) return 0; /* the location restarted its accounting */
    d[i] = own[i] - s->own[i];
  }
  if (d[0] && !s->has_app) return 0;
  return cp_is(pm_cp_process(L), &s->clk.hb_pl, d) && cp_is(pm_cp_global(L), &s->clk.hb_g, d) &&
         cp_is(th->clk.dag_pl, &s->clk.dag_pl, d) && cp_is(th->clk.dag_g, &s->clk.dag_g, d);
}

/* The thread's snapshot for a submission now (synced first), with one reference for the task and
 * the own time since it in d; NULL when memory runs out. */
static pm_tg_snap *thread_snap(pm_tg_thread *th, const pm_loc *L, int rank, uint64_t d[3]) {
  const uint64_t own[3] = {L->cp_own.cue, L->cp_own.com, L->cp_own.coo};
  const uint64_t key = pm_tg_key(rank, PM_TG_KEY_APP);
  pm_tg_snap *s = th->snap;
  if (s && th->snap_epoch != __atomic_load_n(&snap_slab.epoch, __ATOMIC_RELAXED)) s = th->snap = NULL; /* pool reset */
  if (s && snap_extends(th, s, L, own, key, d)) {
    th->snap_uses++;
    return s;
  }
  pm_tg_snap *n = pm_slab_alloc(&snap_slab);
  if (!n) return NULL;
  if (s) snap_put(s, PM_TG_SNAP_BIAS - th->snap_uses);
  n->refs = PM_TG_SNAP_BIAS;
  n->key = key;
  memcpy(n->own, own, sizeof own);
  thread_value(th, L, &n->clk);
  for (uint32_t i = 0; i < n->clk.comp.n; i++)
    if (n->clk.comp.e[i].key == key) n->has_app = 1;
  th->snap = n;
  th->snap_gen = th->gen;
  th->snap_uses = 1;
  th->snap_epoch = __atomic_load_n(&snap_slab.epoch, __ATOMIC_RELAXED);
  d[0] = d[1] = d[2] = 0;
  return n;
}

uint64_t pm_tg_snapshots_live(void) { return pm_slab_live(&snap_slab); }

static void materialize(pm_tg_task *t) {
  pm_tg_clk *c = pm_slab_alloc_uninit(&clk_slab);
  if (PM_UNLIKELY(!c)) c = &oom_clk;
  if (t->snap)
    snap_value(t->snap, t->snap_d, c);
  else
    memset(c, 0, sizeof *c);
  pm_tg_snap *s = t->snap;
  __atomic_store_n(&t->clk, c, __ATOMIC_RELEASE);
  t->snap = NULL;
  if (s) snap_put(s, 1);
}

pm_tg_clk *pm_tg_task_clk(pm_tg_task *t) {
  pm_tg_clk *c = __atomic_load_n(&t->clk, __ATOMIC_ACQUIRE);
  if (PM_LIKELY(c != NULL)) return c;
  /* a successor (which holds a reference) may read the snapshot meanwhile (value_rec) */
  if (__atomic_load_n(&t->refs, __ATOMIC_ACQUIRE) > 1) {
    pm_spin_lock(&preds_lock);
    if (!t->clk) materialize(t);
    pm_spin_unlock(&preds_lock);
  } else {
    materialize(t);
  }
  return t->clk;
}

/* ------------------------------------------------------------------------------------ handles */
struct pm_tg_handle {
  const void *key;
  uint32_t refs;
  pm_spin lock;
  pm_tg_clk w;    /* last exclusive writer */
  pm_tg_clk r;    /* readers since that writer */
  pm_tg_clk *c;   /* commuting / reduction writers since that writer (allocated on first use) */
  uint64_t valid; /* memory nodes with a valid copy */
  int placed;     /* valid is known (home seen, or first access) */
  uint32_t nfrom; /* handles whose whole state the next access inherits (pm_tg_handle_link) */
  struct pm_tg_handle **from;
};
static pm_slab handle_slab = {.size = (sizeof(struct pm_tg_handle) + 15) & ~(size_t)15, .per_chunk = 128};

static void *handle_make(void *key) {
  pm_tg_handle *h = pm_slab_alloc(&handle_slab);
  if (h) {
    h->key = key;
    h->refs = 1;
  } /* the table's reference */
  return h;
}
static void handle_hold(void *v) { __atomic_add_fetch(&((pm_tg_handle *)v)->refs, 1, __ATOMIC_RELAXED); }

pm_tg_handle *pm_tg_handle_get(const void *key) {
  return pm_ptrmap_get_or_make(&handle_map, key, handle_make, (void *)key, handle_hold);
}
void pm_tg_handle_ref(pm_tg_handle *h) { handle_hold(h); }
void pm_tg_handle_put(pm_tg_handle *h) {
  if (!h || __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  for (uint32_t i = 0; i < h->nfrom; i++) pm_tg_handle_put(h->from[i]);
  free(h->from);
  free(h->c);
  pm_slab_free(&handle_slab, h);
}
void pm_tg_handle_forget(const void *key) { pm_tg_handle_put(pm_ptrmap_take(&handle_map, key)); }
const void *pm_tg_handle_key(const pm_tg_handle *h) { return h->key; }

void pm_tg_handle_home(pm_tg_handle *h, int node) {
  pm_spin_lock(&h->lock);
  h->valid = node >= 0 && node < 64 ? 1ull << node : 0;
  h->placed = 1;
  pm_spin_unlock(&h->lock);
}

int pm_tg_handle_unplaced(const pm_tg_handle *h) { return !__atomic_load_n(&h->placed, __ATOMIC_RELAXED); }

int pm_tg_handle_place(pm_tg_handle *h, int node, int reads, int writes) {
  if (node < 0 || node >= 64 || (!reads && !writes)) return 0;
  uint64_t bit = 1ull << node;
  int moved = 0;
  pm_spin_lock(&h->lock);
  if (!h->placed) {
    h->placed = 1;
    h->valid = bit;
  }
  if (reads && !(h->valid & bit) && h->valid) moved = 1; /* nothing valid anywhere: nothing to move */
  h->valid = writes ? bit : h->valid | bit;
  pm_spin_unlock(&h->lock);
  return moved;
}

void pm_tg_handle_link(pm_tg_handle *to, pm_tg_handle *from) {
  if (!to || !from || to == from) return;
  pm_spin_lock(&to->lock);
  pm_tg_handle **n = realloc(to->from, (to->nfrom + 1) * sizeof *n);
  if (n) {
    handle_hold(from);
    n[to->nfrom] = from;
    to->from = n;
    __atomic_store_n(&to->nfrom, to->nfrom + 1, __ATOMIC_RELEASE);
  }
  pm_spin_unlock(&to->lock);
}

/* A task accessing a linked handle inherits the link (see pm_tg_handle_link); an exclusive write
 * ends it: later accesses depend on that writer through the handle itself. */
static void take_links(pm_tg_task *t, pm_tg_handle *h, int acc) {
  pm_spin_lock(&h->lock);
  uint32_t n = h->nfrom;
  pm_tg_handle **from = h->from;
  pm_tg_handle **inh = n ? realloc(t->inh, (t->ninh + n) * sizeof *inh) : NULL;
  if (inh) {
    for (uint32_t i = 0; i < n; i++) {
      handle_hold(from[i]);
      inh[t->ninh + i] = from[i];
    }
    t->inh = inh;
    t->ninh += n;
  }
  if (acc == PM_TG_ACC_WRITE) {
    h->from = NULL;
    __atomic_store_n(&h->nfrom, 0, __ATOMIC_RELEASE);
  } else
    from = NULL;
  pm_spin_unlock(&h->lock);
  for (uint32_t i = 0; from && i < n; i++) pm_tg_handle_put(from[i]);
  free(from);
}

static void drop_links(pm_tg_task *t) {
  for (uint32_t i = 0; i < t->ninh; i++) pm_tg_handle_put(t->inh[i]);
  free(t->inh);
  t->inh = NULL;
  t->ninh = 0;
}

void pm_tg_handle_pre(pm_tg_handle *h, int acc, pm_tg_clk *in) {
  if (acc == PM_TG_ACC_NONE) return;
  pm_spin_lock(&h->lock);
  pm_tg_clk_merge(in, &h->w);
  if (acc != PM_TG_ACC_READ) pm_tg_clk_merge(in, &h->r);           /* write after read */
  if (acc != PM_TG_ACC_COMMUTE && h->c) pm_tg_clk_merge(in, h->c); /* after the commuting group */
  pm_spin_unlock(&h->lock);
}

void pm_tg_handle_post(pm_tg_handle *h, int acc, const pm_tg_clk *out) {
  if (acc == PM_TG_ACC_NONE) return;
  pm_tg_clk *c = NULL;
  if (acc == PM_TG_ACC_COMMUTE && !h->c && !(c = calloc(1, sizeof *c))) acc = PM_TG_ACC_WRITE; /* OOM: serialise */
  pm_spin_lock(&h->lock);
  if (acc == PM_TG_ACC_READ) {
    pm_tg_clk_merge(&h->r, out);
  } else if (acc == PM_TG_ACC_COMMUTE) {
    if (!h->c) {
      h->c = c;
      c = NULL;
    }
    pm_tg_clk_merge(h->c, out);
  } else {
    h->w = *out;
    memset(&h->r, 0, sizeof h->r);
    if (h->c) memset(h->c, 0, sizeof *h->c);
  }
  pm_spin_unlock(&h->lock);
  free(c);
}

/* -------------------------------------------------------------------------------------- tasks */
/* preds_lock (above) guards every preds array: explicit dependencies are far rarer than tasks,
 * one lock is enough; the start of a task whose predecessors have all ended, their common case,
 * takes none (preds_ended). */

/* A fresh record for key, not yet reachable from it; refs = 1. */
static pm_tg_task *record_alloc(const void *key) {
  pm_tg_task *t = pm_slab_alloc(&task_slab);
  if (!t) return NULL;
  t->key = key;
  t->refs = 1;
  return t;
}

pm_tg_task *pm_tg_task_new(const void *key) {
  pm_tg_task *t = record_alloc(key);
  if (!t) return NULL;
  if (key) {
    if (pm_ptrmap_put(&task_map, key, t) != 0) {
      pm_slab_free(&task_slab, t);
      return NULL;
    }
    t->flags = PM_TG_MAPPED;
  }
  return t;
}

pm_tg_task *pm_tg_task_new_unmapped(const void *key) { return record_alloc(key); }

int pm_tg_task_map(pm_tg_task *t) {
  if (t->flags & PM_TG_MAPPED) return 0;
  if (!t->key || pm_ptrmap_put(&task_map, t->key, t) != 0) return -1;
  __atomic_or_fetch(&t->flags, PM_TG_MAPPED, __ATOMIC_RELEASE);
  return 0;
}

pm_tg_task *pm_tg_task_find(const void *key) { return pm_ptrmap_get(&task_map, key); }

/* get_or_make callback, under the map's stripe lock: a mapped record for key */
typedef struct {
  const void *key;
  pm_tg_task *made;
} task_make_arg;

static void *task_make(void *arg) {
  task_make_arg *a = arg;
  pm_tg_task *t = record_alloc(a->key);
  /* FRESH: a record made at a dependency declaration is submitted with its submitter's snapshot,
   * like one made at its submission; merging the submitter's clock into a clock of its own took a
   * clock from the slab (lines another worker freed) per task: +300 ns per submission of chained
   * StarPU tasks. Anything merged into it before its submission materializes that clock first. */
  if (t) t->flags = PM_TG_MAPPED | PM_TG_FRESH;
  return a->made = t;
}

pm_tg_task *pm_tg_task_find_or_new(const void *key, int *made) {
  task_make_arg arg = {key, NULL};
  pm_tg_task *t = pm_ptrmap_get_or_make(&task_map, key, task_make, &arg, NULL);
  if (!t && arg.made) { /* made, but the map had no room for it */
    pm_slab_free(&task_slab, arg.made);
    arg.made = NULL;
  }
  if (made) *made = arg.made != NULL;
  return t;
}

void pm_tg_task_unmap(pm_tg_task *t) {
  if (!(t->flags & PM_TG_MAPPED)) return;
  pm_ptrmap_take_if(&task_map, t->key, t);
  __atomic_and_fetch(&t->flags, ~(uint32_t)PM_TG_MAPPED, __ATOMIC_RELEASE);
}

pm_tg_buf *pm_tg_task_buf(pm_tg_task *t, uint32_t i) {
  return i < PM_TG_INLINE_BUFS ? &t->buf[i] : &t->more_buf[i - PM_TG_INLINE_BUFS];
}

int pm_tg_task_add_buf(pm_tg_task *t, pm_tg_handle *h, int acc, uint64_t bytes) {
  uint32_t i = t->nbufs;
  if (i >= PM_TG_INLINE_BUFS && ((i - PM_TG_INLINE_BUFS) & (i - PM_TG_INLINE_BUFS - 1)) == 0) {
    /* the overflow array doubles at sizes 0, 1, 2, 4, ... */
    uint32_t cap = i == PM_TG_INLINE_BUFS ? 1 : 2 * (i - PM_TG_INLINE_BUFS);
    pm_tg_buf *n = realloc(t->more_buf, cap * sizeof *n);
    if (!n) {
      pm_tg_handle_put(h);
      return -1;
    }
    t->more_buf = n;
  }
  *pm_tg_task_buf(t, i) = (pm_tg_buf){h, (uint16_t)acc, 0, bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes};
  t->nbufs = i + 1;
  t->bytes += bytes;
  if (PM_UNLIKELY(__atomic_load_n(&h->nfrom, __ATOMIC_ACQUIRE))) take_links(t, h, acc);
  return 0;
}

/* A task's predecessors once taken out of it: p designates n of them (one: a single one that was
 * held in the record), in storage of capacity cap. */
typedef struct {
  pm_tg_task **p, *one;
  uint32_t n, cap;
} detached_preds;

/* Takes t's predecessors out of t into *d (preds_lock held, unless no other thread can read them:
 * preds_ended); the caller drops them with unref_preds. */
static void detach_preds(pm_tg_task *t, detached_preds *d) {
  d->p = t->preds;
  if (t->cap_preds == 1) {
    d->one = t->pred_one;
    d->p = &d->one;
  }
  d->n = t->npreds;
  d->cap = t->cap_preds;
  t->preds = NULL;
  t->npreds = t->cap_preds = 0;
}

static void preds_free(pm_tg_task **p, uint32_t cap) {
  if (cap == 1) return; /* held in the record */
  if (cap <= PREDS_SMALL)
    pm_slab_free(&preds_slab, p);
  else
    free(p);
}

static void unref_preds(const detached_preds *d) {
  for (uint32_t i = 0; i < d->n; i++) pm_tg_task_unref(d->p[i]);
  if (d->p) preds_free(d->p, d->cap);
}

static void release_preds(pm_tg_task *t) {
  if (!__atomic_load_n(&t->preds, __ATOMIC_ACQUIRE)) return; /* the common case: no lock */
  detached_preds d;
  pm_spin_lock(&preds_lock);
  detach_preds(t, &d);
  pm_spin_unlock(&preds_lock);
  unref_preds(&d);
}

void pm_tg_task_unref(pm_tg_task *t) {
  if (!t || __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  if (t->flags & PM_TG_MAPPED) pm_tg_task_unmap(t);
  release_preds(t);
  drop_links(t);
  free(t->ends);
  for (uint32_t i = 0; i < t->nbufs; i++) pm_tg_handle_put(pm_tg_task_buf(t, i)->h);
  free(t->more_buf);
  if (t->snap) snap_put(t->snap, 1);
  if (t->clk && t->clk != &oom_clk) pm_slab_free(&clk_slab, t->clk);
  pm_slab_free(&task_slab, t);
}

int pm_tg_task_add_pred(pm_tg_task *succ, pm_tg_task *pred) {
  int rc = 0;
  pm_spin_lock(&preds_lock);
  if (succ->cap_preds == 0) { /* the first: held in the record */
    succ->pred_one = pred;
    succ->cap_preds = succ->npreds = 1;
  } else {
    if (succ->npreds == succ->cap_preds) {
      uint32_t cap = succ->cap_preds > 1 ? 2 * succ->cap_preds : PREDS_SMALL;
      pm_tg_task **n = cap <= PREDS_SMALL ? pm_slab_alloc_uninit(&preds_slab) : malloc(cap * sizeof *n);
      if (!n)
        rc = -1;
      else {
        memcpy(n, pm_tg_task_preds(succ), succ->npreds * sizeof *n);
        preds_free(succ->preds, succ->cap_preds);
        succ->preds = n;
        succ->cap_preds = cap;
      }
    }
    if (rc == 0) succ->preds[succ->npreds++] = pred;
  }
  if (rc == 0) __atomic_add_fetch(&pred->refs, 1, __ATOMIC_RELAXED);
  pm_spin_unlock(&preds_lock);
  return rc;
}

/* value() of a pending body-less task walks its predecessors; the lock keeps their arrays alive. */
static void value_rec(pm_tg_task *t, pm_tg_clk *v, int depth) {
  uint32_t f = __atomic_load_n(&t->flags, __ATOMIC_ACQUIRE);
  const pm_tg_clk *c = __atomic_load_n(&t->clk, __ATOMIC_ACQUIRE);
  if (c) {
    pm_tg_clk_merge(v, c);
  } else if (t->snap) { /* pending: its submitter's clock (kept alive by preds_lock) */
    pm_tg_clk sub;
    snap_value(t->snap, t->snap_d, &sub);
    pm_tg_clk_merge(v, &sub);
  }
  if (f & PM_TG_ENDED) return;
  if ((f & PM_TG_HAS_BODY) || depth >= PM_TG_MAX_PRED_DEPTH) return;
  pm_tg_task *const *preds = pm_tg_task_preds(t);
  for (uint32_t i = 0; i < t->npreds; i++) value_rec(preds[i], v, depth + 1);
}

void pm_tg_task_value(pm_tg_task *t, pm_tg_clk *v) {
  memset(v, 0, sizeof *v);
  pm_spin_lock(&preds_lock);
  value_rec(t, v, 0);
  pm_spin_unlock(&preds_lock);
}

void pm_tg_task_submit(pm_tg_task *t, const pm_tg_clk *submitter, uint64_t now) {
  if (submitter) pm_tg_clk_merge(pm_tg_task_clk(t), submitter);
  t->t_submit = now;
  t->flags |= PM_TG_SUBMITTED;
}

void pm_tg_task_submit_by(pm_tg_task *t, pm_tg_thread *th, const pm_loc *L, int rank, uint64_t now) {
  pm_tg_thread_sync(th, L, rank);
  /* nothing merged yet: the submitter's clock is the task's, kept as a shared snapshot */
  if (!(t->flags & PM_TG_FRESH) || t->clk || !(t->snap = thread_snap(th, L, rank, t->snap_d))) {
    pm_tg_clk c;
    thread_value(th, L, &c);
    pm_tg_clk_merge(pm_tg_task_clk(t), &c);
  }
  t->t_submit = now;
  t->flags = (t->flags & ~(uint32_t)PM_TG_FRESH) | PM_TG_SUBMITTED;
}

/* 1 when t has a body and every explicit predecessor of t has ended: their outputs are final and
 * none of them walks its own predecessors, and no other thread reads t's array (value_rec stops at
 * bodies; only a declaration, before the submission, changes it), so t's start needs no preds_lock.
 * t's references keep the predecessors alive. */
static int preds_ended(const pm_tg_task *t) {
  if (!(t->flags & PM_TG_HAS_BODY)) return 0;
  pm_tg_task *const *preds = pm_tg_task_preds(t);
  for (uint32_t i = 0; i < t->npreds; i++)
    if (!(__atomic_load_n(&preds[i]->flags, __ATOMIC_ACQUIRE) & PM_TG_ENDED)) return 0;
  return 1;
}

void pm_tg_task_start(pm_tg_task *t, pm_loc *W, uint64_t now) {
  pm_tg_task_inputs(t);
  pm_tg_task_started(t, W, now);
}

void pm_tg_task_prefetch(const pm_tg_task *t) {
  for (size_t off = 0; off < sizeof *t; off += 64) pm_line_prefetch_write((const char *)t + off);
}

void pm_tg_task_inputs(pm_tg_task *t) {
  pm_tg_task *const *preds = pm_tg_task_preds(t);
  /* the predecessors' records are lines other workers wrote: ask for them before the own clock */
  for (uint32_t i = 0; i < t->npreds; i++) {
    __builtin_prefetch(preds[i]);
    __builtin_prefetch((const char *)preds[i] + 64);
  }
  pm_tg_clk *clk = pm_tg_task_clk(t);
  if (t->npreds) {
    detached_preds d;
    if (preds_ended(t)) { /* the common case: an ended task's clock is its output (never NULL) */
      for (uint32_t i = 0; i < t->npreds; i++) pm_tg_clk_merge(clk, preds[i]->clk);
      detach_preds(t, &d);
    } else { /* one hold of the lock (shared by every thread) for the values and the release */
      pm_tg_clk v;
      pm_spin_lock(&preds_lock);
      for (uint32_t i = 0; i < t->npreds; i++) {
        memset(&v, 0, sizeof v);
        value_rec(preds[i], &v, 1);
        pm_tg_clk_merge(clk, &v);
      }
      detach_preds(t, &d);
      pm_spin_unlock(&preds_lock);
    }
    unref_preds(&d);
  }
  if (t->flags & PM_TG_USE_TAG) pm_tg_tag_merge_deps(t->tag, clk);
  if (PM_UNLIKELY(t->ninh)) {
    /* everything the source holds: what an exclusive write of it would wait for */
    for (uint32_t i = 0; i < t->ninh; i++) pm_tg_handle_pre(t->inh[i], PM_TG_ACC_WRITE, clk);
    drop_links(t);
  }
  for (uint32_t i = 0; i < t->nbufs; i++) {
    pm_tg_buf *b = pm_tg_task_buf(t, i);
    pm_tg_handle_pre(b->h, (int)b->acc, clk);
  }
}

void pm_tg_task_started(pm_tg_task *t, pm_loc *W, uint64_t now) {
  if (W) {
    const pm_tg_clk *clk = pm_tg_task_clk(t);
    pm_cp_merge_process(W, clk->hb_pl);
    pm_cp_merge_global(W, clk->hb_g);
  }
  t->t_start = now;
  t->flags |= PM_TG_STARTED;
}

/* ------------------------------------------------------------------------------ end dependencies */
struct pm_tg_ends {
  pm_spin lock;
  int ended;    /* the task's own end has been published */
  int any;      /* a release came before the end: in is valid */
  pm_tg_clk in; /* releases before the task's end, merged */
};

/* Publishes the task's output: its data, its tag, the running maximum. */
static void publish(pm_tg_task *t, const pm_tg_clk *clk) {
  for (uint32_t i = 0; i < t->nbufs; i++) {
    pm_tg_buf *b = pm_tg_task_buf(t, i);
    pm_tg_handle_post(b->h, (int)b->acc, clk);
  }
  if (t->flags & PM_TG_USE_TAG) pm_tg_tag_done(t->tag, clk);
}

int pm_tg_task_end_deps_add(pm_tg_task *t, int n) {
  if (n <= 0) return 0;
  pm_spin_lock(&preds_lock); /* rare: the dependency lock also guards the allocation */
  if (!t->ends) t->ends = calloc(1, sizeof *t->ends);
  pm_spin_unlock(&preds_lock);
  return t->ends ? 0 : -1;
}

void pm_tg_task_end_dep_release(pm_tg_task *t, const pm_tg_clk *c) {
  struct pm_tg_ends *e = t->ends;
  if (!e) return;
  pm_spin_lock(&e->lock);
  if (e->ended) {
    pm_tg_clk *clk = pm_tg_task_clk(t);
    pm_tg_clk_merge(clk, c);
    publish(t, clk);
    pm_tg_note_end(clk, 0);
  } else {
    if (e->any)
      pm_tg_clk_merge(&e->in, c);
    else
      e->in = *c;
    e->any = 1;
  }
  pm_spin_unlock(&e->lock);
}

void pm_tg_task_end(pm_tg_task *t, pm_loc *W, uint64_t now, uint64_t key) {
  pm_tg_clk *clk = pm_tg_task_clk(t);
  if (W) {
    pm_cp_clock pl = pm_cp_process(W), g = pm_cp_global(W);
    cp_max(&clk->hb_pl, &pl);
    cp_max(&clk->hb_g, &g);
  }
  uint64_t body = now > t->t_start ? now - t->t_start : 0;
  uint64_t fetch = t->t_pop && t->t_pop <= t->t_start ? t->t_start - t->t_pop : 0;
  pm_tg_clk_advance(clk, body, body + fetch, body, key);
  struct pm_tg_ends *e = t->ends;
  if (e) { /* releases so far count, later ones publish again */
    pm_spin_lock(&e->lock);
    if (e->any) pm_tg_clk_merge(clk, &e->in);
    e->ended = 1;
  }
  publish(t, clk);
  __atomic_or_fetch(&t->flags, PM_TG_ENDED, __ATOMIC_RELEASE);
  if (e) pm_spin_unlock(&e->lock);
  pm_tg_note_end(clk, 0);
}

void pm_tg_task_end_bodyless(pm_tg_task *t) {
  pm_tg_clk v;
  pm_tg_task_value(t, &v);
  if (t->flags & PM_TG_USE_TAG) pm_tg_tag_done(t->tag, &v);
  pm_tg_clk *clk = pm_tg_task_clk(t);
  pm_spin_lock(&preds_lock); /* readers in value_rec see ENDED and stop walking preds */
  *clk = v;
  __atomic_or_fetch(&t->flags, PM_TG_ENDED, __ATOMIC_RELEASE);
  pm_spin_unlock(&preds_lock);
  release_preds(t);
  pm_tg_note_end(&v, 1);
}

/* ---------------------------------------------------------------------------------------- tags */
typedef struct {
  pm_spin lock;
  int done;
  int ndeps;
  uint64_t *deps;
  pm_tg_clk clk;
} tag_entry;

static inline const void *tag_key(uint64_t tag) { return (const void *)(uintptr_t)(tag + 1); }
static void *tag_make(void *arg) {
  (void)arg;
  return calloc(1, sizeof(tag_entry));
}

void pm_tg_tag_declare(uint64_t tag, int ndeps, const uint64_t *deps) {
  if (tag == UINT64_MAX || ndeps <= 0) return;
  for (int i = 0; i < ndeps; i++)
    if (deps[i] != UINT64_MAX) pm_ptrmap_get_or_make(&tag_map, tag_key(deps[i]), tag_make, NULL, NULL);
  tag_entry *e = pm_ptrmap_get_or_make(&tag_map, tag_key(tag), tag_make, NULL, NULL);
  if (!e) return;
  pm_spin_lock(&e->lock);
  uint64_t *n = realloc(e->deps, (size_t)(e->ndeps + ndeps) * sizeof *n);
  if (n) {
    memcpy(n + e->ndeps, deps, (size_t)ndeps * sizeof *n);
    e->deps = n;
    e->ndeps += ndeps;
  }
  pm_spin_unlock(&e->lock);
}

void pm_tg_tag_merge_deps(uint64_t tag, pm_tg_clk *in) {
  if (tag == UINT64_MAX) return;
  tag_entry *e = pm_ptrmap_get(&tag_map, tag_key(tag));
  if (!e) return;
  pm_spin_lock(&e->lock);
  int n = e->ndeps;
  uint64_t small[16], *deps = n <= 16 ? small : malloc((size_t)n * sizeof *deps);
  if (deps && n > 0) memcpy(deps, e->deps, (size_t)n * sizeof *deps); /* e->deps is NULL while n is 0 */
  pm_spin_unlock(&e->lock);
  for (int i = 0; deps && i < n; i++) {
    tag_entry *d = deps[i] == UINT64_MAX ? NULL : pm_ptrmap_get(&tag_map, tag_key(deps[i]));
    if (!d) continue;
    pm_spin_lock(&d->lock);
    if (d->done) pm_tg_clk_merge(in, &d->clk);
    pm_spin_unlock(&d->lock);
  }
  if (deps != small) free(deps);
}

void pm_tg_tag_done(uint64_t tag, const pm_tg_clk *out) {
  if (tag == UINT64_MAX) return;
  tag_entry *e = pm_ptrmap_get(&tag_map, tag_key(tag));
  if (!e) return;
  pm_spin_lock(&e->lock);
  e->clk = *out;
  e->done = 1;
  pm_spin_unlock(&e->lock);
}

/* Entries are not freed while threads may hold them: a forgotten tag is reset in place. */
void pm_tg_tag_forget(uint64_t tag) {
  if (tag == UINT64_MAX) return;
  tag_entry *e = pm_ptrmap_get(&tag_map, tag_key(tag));
  if (!e) return;
  pm_spin_lock(&e->lock);
  e->done = 0;
  e->ndeps = 0;
  memset(&e->clk, 0, sizeof e->clk);
  pm_spin_unlock(&e->lock);
}

/* ------------------------------------------------------------------------------------- summary */
typedef struct sink {
  struct sink *next;
  uint64_t tasks, bodyless;
  pm_tg_clk max;
} sink;
static __thread sink *tls_sink __attribute__((tls_model("initial-exec")));
static sink *sinks;
static pthread_mutex_t sinks_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t sinks_epoch;
static __thread uint64_t tls_sink_epoch __attribute__((tls_model("initial-exec")));

static sink *sink_self(void) {
  /* pm_tg_reset (tests) starts a new epoch: a thread's cached sink from before is gone */
  if (PM_LIKELY(tls_sink != NULL && tls_sink_epoch == __atomic_load_n(&sinks_epoch, __ATOMIC_RELAXED))) return tls_sink;
  sink *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  pthread_mutex_lock(&sinks_lock);
  s->next = sinks;
  __atomic_store_n(&sinks, s, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&sinks_lock);
  tls_sink = s;
  tls_sink_epoch = __atomic_load_n(&sinks_epoch, __ATOMIC_RELAXED);
  return s;
}

void pm_tg_note_end(const pm_tg_clk *out, int bodyless) {
  sink *s = sink_self();
  if (!s) return;
  if (bodyless)
    s->bodyless++;
  else
    s->tasks++;
  pm_tg_clk_merge(&s->max, out);
}

void pm_tg_max_so_far(pm_tg_clk *out) {
  memset(out, 0, sizeof *out);
  for (sink *s = __atomic_load_n(&sinks, __ATOMIC_ACQUIRE); s; s = s->next) pm_tg_clk_merge(out, &s->max);
}

void pm_tg_get_summary(pm_tg_summary *sum) {
  memset(sum, 0, sizeof *sum);
  for (sink *s = __atomic_load_n(&sinks, __ATOMIC_ACQUIRE); s; s = s->next) {
    sum->tasks += s->tasks;
    sum->bodyless += s->bodyless;
    pm_tg_clk_merge(&sum->max, &s->max);
  }
  sum->live_tasks = pm_slab_live(&task_slab);
  sum->peak_tasks = task_slab.high_water;
  sum->live_handles = pm_slab_live(&handle_slab);
}

static void free_tag(const void *key, void *val, void *arg) {
  (void)key;
  (void)arg;
  tag_entry *e = val;
  free(e->deps);
  free(e);
}
/* A mapped handle's own allocations (the handles themselves go with their pool): its commuting
 * group's clock and its links' array. */
static void free_handle_parts(const void *key, void *val, void *arg) {
  (void)key;
  (void)arg;
  free(((pm_tg_handle *)val)->c);
  free(((pm_tg_handle *)val)->from);
}

static int runtime_unobserved;
void pm_tg_mark_runtime_unobserved(void) { __atomic_store_n(&runtime_unobserved, 1, __ATOMIC_RELAXED); }
int pm_tg_runtime_observed(void) { return !__atomic_load_n(&runtime_unobserved, __ATOMIC_RELAXED); }

void pm_tg_reset(void) {
  runtime_unobserved = 0;
  pm_ptrmap_foreach(&tag_map, free_tag, NULL);
  pm_ptrmap_foreach(&handle_map, free_handle_parts, NULL);
  pm_ptrmap_destroy(&tag_map);
  pm_ptrmap_destroy(&handle_map);
  pm_ptrmap_destroy(&task_map);
  pm_slab_destroy(&task_slab); /* records' overflow arrays are leaked if any were live */
  pm_slab_destroy(&preds_slab);
  pm_slab_destroy(&clk_slab);
  pm_slab_destroy(&snap_slab); /* threads drop their snapshot pointer when they see the epoch */
  memset(&oom_clk, 0, sizeof oom_clk);
  pm_slab_destroy(&handle_slab);
  pthread_mutex_lock(&sinks_lock);
  while (sinks) {
    sink *n = sinks->next;
    free(sinks);
    sinks = n;
  }
  __atomic_add_fetch(&sinks_epoch, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&sinks_lock);
}
