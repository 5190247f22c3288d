/* The trace writer's location observer: one OTF2 event writer per location, fed by the core's
 * enter/leave notifications on the owning thread (no lock: the writer is the location's own).
 *
 * Every location keeps a shadow of its region stack (frames). A frame's Enter is written when the
 * region is entered, except with a minimum duration (POPMETER_TRACE_FILTER min=<us>), where the
 * Enter stays pending in its frame (one slot per depth, so the memory is bounded) until either
 *  - an event that is kept happens inside it (a child region that is kept, an MPI event, a thread
 *    fork or team event, a buffer flush): the pending Enters below it are written first, with
 *    their own timestamps, or
 *  - the region is left: written (Enter + Leave) when it lasted at least the minimum, dropped
 *    (neither) otherwise.
 * So a region is dropped only when it is shorter than the minimum AND contains nothing kept; a
 * kept region's enclosing regions are always kept, and nesting stays correct. Regions matching an
 * exclusion pattern are never written (their children appear directly under their parent), but
 * MPI events inside them are, so that messages and collectives still match across processes.
 *
 * Before the archive is open (an MPI program before MPI_Init) frames are recorded, not written;
 * the first event after the open writes the Enters of the regions still open, at the open time. */
#define _GNU_SOURCE
#include "pm_trace.h"
#include "pm_lifecycle.h"
#include <stdlib.h>
#include <string.h>

static pm_tloc *tlocs[PM_MAX_LOCATIONS];

/* Per region: filter decision and MPI collective operation, computed at its first enter.
 * bits 0-3: RC_* flags; bits 8-15: collective operation + 1. Races write the same value. */
enum { RC_KNOWN = 1, RC_EXCLUDED = 2, RC_MPI_COLL = 4, RC_FORCE = 8 };
#define PM_TR_MAX_REGIONS 65536
static uint16_t region_class[PM_TR_MAX_REGIONS];

static unsigned rclass(pm_region_id r) {
  if (PM_UNLIKELY(r >= PM_TR_MAX_REGIONS)) return RC_KNOWN;
  unsigned c = __atomic_load_n(&region_class[r], __ATOMIC_RELAXED);
  if (PM_LIKELY(c)) return c;
  c = RC_KNOWN;
  const char *name = pm_region_name(r);
  if (r == pm_tr.flush_region) {
    c |= RC_FORCE;
  } else {
    if (pm_tfilter_excludes(&pm_tr.filter, name)) c |= RC_EXCLUDED;
    int op = pm_region_paradigm(r) == PM_PARADIGM_MPI ? pm_tdefs_collective_op(name) : -1;
    if (op >= 0) c |= RC_MPI_COLL | (unsigned)(op + 1) << 8;
  }
  __atomic_store_n(&region_class[r], (uint16_t)c, __ATOMIC_RELAXED);
  return c;
}

pm_tloc *pm_tloc_of(pm_loc *L) {
  return L && pm_tr.slot >= 0 && (uint32_t)pm_tr.slot < L->nobs ? L->obs_data[pm_tr.slot] : NULL;
}
uint32_t pm_tloc_count_all(void) { return pm_loc_count(); }
pm_tloc *pm_tloc_at(uint32_t i) { return i < PM_MAX_LOCATIONS ? __atomic_load_n(&tlocs[i], __ATOMIC_ACQUIRE) : NULL; }

/* ---------------------------------------------------------------------------------- writing */
static inline uint64_t clamp(pm_tloc *T, uint64_t t) {
  if (t < T->t_last) t = T->t_last;
  T->t_last = t;
  return t;
}

void pm_tloc_count(pm_tloc *T, OTF2_ErrorCode rc) {
  if (PM_LIKELY(rc == OTF2_SUCCESS)) T->nevents++;
}

/* Writes the pending Enters of frames [T->pending, upto). */
static void write_pending(pm_tloc *T, uint32_t upto) {
  if (upto > T->depth) upto = T->depth;
  for (uint32_t i = T->pending; i < upto; i++) {
    pm_tframe *f = &T->frame[i];
    if (f->flags & (TF_EXCLUDED | TF_WRITTEN | TF_LEFT)) continue;
    pm_tloc_count(T, OTF2_EvtWriter_Enter(T->w, NULL, clamp(T, f->t), f->region));
    f->flags |= TF_WRITTEN;
  }
  if (T->pending < upto) T->pending = upto;
}

static OTF2_EvtWriter *open_writer(pm_tloc *T) {
  if (!(T->w = pm_tarchive_writer(T))) {
    T->failed = 1;
    return NULL;
  }
  /* frames entered before the archive opened start at the open time */
  T->t_last = pm_tr.t_open;
  T->t_metric = pm_tr.t_open;
  for (uint32_t i = 0; i < T->depth; i++)
    if ((T->frame[i].flags & TF_EARLY) || T->frame[i].t < pm_tr.t_open) T->frame[i].t = pm_tr.t_open;
  T->pending = 0;
  return T->w;
}

/* The common start of every write on T (observer callbacks and the MPI / OpenMP hooks). The
 * thread holds popmeter's reentrancy guard while it writes: a buffer flush writes files, and the
 * I/O adapter must not measure popmeter's own I/O (nor re-enter this location). */
static OTF2_EvtWriter *begin(pm_tloc *T) {
  if (pm_tr_state() != PM_TR_OPEN || T->closed || T->failed) return NULL;
  if (T->vlock) pthread_mutex_lock(T->vlock);
  __atomic_store_n(&T->busy, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  T->guard_saved = pm_in_tool();
  pm_set_in_tool(1);
  /* finalize sets the state before it waits for busy writers: re-check after announcing */
  if (pm_tr_state() != PM_TR_OPEN || (!T->w && !open_writer(T))) {
    pm_set_in_tool(T->guard_saved);
    __atomic_store_n(&T->busy, 0, __ATOMIC_RELEASE);
    if (T->vlock) pthread_mutex_unlock(T->vlock);
    return NULL;
  }
  return T->w;
}

/* A flush happened while this location wrote: its time becomes a "popmeter:flush" region on the
 * location, accounted by the core as popmeter's own time (state tool), so that the distortion is
 * visible in the trace and in the profile. Only on the owning thread, outside finalize. */
static void account_flush(pm_tloc *T) {
  T->flush_pending = 0;
  pm_loc *L = T->L;
  if (L->is_virtual || pm_tr_state() != PM_TR_OPEN || pm_loc_self() != L) return;
  uint32_t depth = T->depth;
  T->in_acct = 1;
  pm_call_enter(L, pm_tr.flush_region, PM_STATE_TOOL, T->flush_t0);
  pm_call_exit(L, T->flush_t1);
  T->in_acct = 0;
  T->depth = depth;
  if (T->pending > depth) T->pending = depth;
}

static void end(pm_tloc *T) {
  pm_set_in_tool(T->guard_saved);
  __atomic_store_n(&T->busy, 0, __ATOMIC_RELEASE);
  if (T->vlock) pthread_mutex_unlock(T->vlock);
  if (PM_UNLIKELY(T->flush_pending) && !T->in_acct) account_flush(T);
}

OTF2_EvtWriter *pm_tloc_begin(pm_tloc *T, uint64_t now, int at_call_start, uint64_t *t) {
  OTF2_EvtWriter *w = begin(T);
  if (!w) return NULL;
  write_pending(T, T->depth);
  *t = clamp(T, at_call_start && T->depth ? T->frame[T->depth - 1].t : pm_tr_time(now ? now : pm_clock_now()));
  return w;
}
void pm_tloc_end(pm_tloc *T) { end(T); }

void pm_tloc_flush_started(pm_tloc *T, uint64_t now) { T->flush_t0 = now; }
void pm_tloc_flush_done(pm_tloc *T, uint64_t now) {
  T->flush_t1 = now;
  T->flush_pending = 1;
}

/* ----------------------------------------------------------------------------- metric */
static uint64_t useful_ns(const pm_loc *L) {
  return L->time[PM_CTX_SERIAL][PM_STATE_USEFUL] + L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL];
}
static void metric_sample(pm_tloc *T, uint64_t t) {
  OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue v;
  v.unsigned_int = useful_ns(T->L);
  pm_tloc_count(T, OTF2_EvtWriter_Metric(T->w, NULL, clamp(T, t), PM_TR_METRIC, 1, &type, &v));
  T->t_metric = t;
}

/* ------------------------------------------------------------------------------- leave */
/* Frame i is left at trace time t (T->w usable). */
static void leave_frame(pm_tloc *T, uint32_t i, uint64_t t) {
  pm_tframe *f = &T->frame[i];
  if (f->flags & TF_LEFT) return;
  int coll = (f->flags & TF_MPI_COLL) && T->coll_depth == i + 1;
  if (!(f->flags & (TF_EXCLUDED | TF_WRITTEN))) {
    /* pending: kept when long enough or when it holds a collective */
    if (coll || (t >= f->t && t - f->t >= pm_tr.filter.min_ns)) {
      write_pending(T, i + 1);
    } else {
      pm_tr.stats.dropped_short++; /* a race between threads only blurs this counter */
      f->flags |= TF_LEFT;
      return;
    }
  }
  if (coll) {
    pm_loc *L = T->L;
    unsigned op = (rclass(f->region) >> 8) - 1;
    pm_tloc_count(T, OTF2_EvtWriter_MpiCollectiveBegin(T->w, NULL, clamp(T, f->t)));
    pm_tloc_count(T, OTF2_EvtWriter_MpiCollectiveEnd(T->w, NULL, clamp(T, t), (OTF2_CollectiveOp)op, T->coll_comm,
                                                     T->coll_root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)T->coll_root,
                                                     L->coll_bytes_out - f->out0, L->coll_bytes_in - f->in0));
    T->nmpi++;
    T->coll_depth = 0;
  }
  if (f->flags & TF_WRITTEN)
    pm_tloc_count(T, OTF2_EvtWriter_Leave(T->w, pm_ttask_attributes(T, i + 1), clamp(T, t), f->region));
  f->flags |= TF_LEFT;
}

/* ---------------------------------------------------------------------------- callbacks */
static void on_attach(pm_loc *L, unsigned slot) {
  pm_tloc *T = calloc(1, sizeof *T);
  if (!T) {
    pm_warn("out of memory: thread %u is not traced", pm_loc_id(L));
    return;
  }
  T->L = L;
  if (L->is_virtual) {
    T->vlock = malloc(sizeof *T->vlock);
    if (!T->vlock) {
      free(T);
      return;
    }
    pthread_mutex_init(T->vlock, NULL);
  }
  L->obs_data[slot] = T;
  if (L->id < PM_MAX_LOCATIONS) __atomic_store_n(&tlocs[L->id], T, __ATOMIC_RELEASE);
}

static void on_enter(pm_loc *L, unsigned slot, pm_region_id r, pm_state s, uint32_t depth, uint64_t now) {
  (void)s;
  pm_tloc *T = L->obs_data[slot];
  if (PM_UNLIKELY(!T || depth == 0 || depth > PM_MAX_DEPTH)) return;
  unsigned c = rclass(r);
  pm_tframe *f = &T->frame[depth - 1];
  f->region = r;
  f->flags = ((c & RC_EXCLUDED) ? TF_EXCLUDED : 0) | ((c & RC_FORCE) ? TF_FORCE : 0);
  f->t = pm_tr_time(now);
  if (PM_UNLIKELY(pm_tr_state() != PM_TR_OPEN)) f->flags |= TF_EARLY; /* (the clock offset may change) */
  if (c & RC_MPI_COLL) {
    f->flags |= TF_MPI_COLL;
    f->out0 = L->coll_bytes_out;
    f->in0 = L->coll_bytes_in;
  }
  T->depth = depth;
  if (T->pending > depth - 1) T->pending = depth - 1;
  if ((f->flags & TF_EXCLUDED) || (pm_tr.filter.min_ns && !(f->flags & TF_FORCE))) return; /* not now */
  if (!begin(T)) return;
  write_pending(T, depth);
  end(T);
}

static void on_leave(pm_loc *L, unsigned slot, uint32_t depth, uint64_t now) {
  pm_tloc *T = L->obs_data[slot];
  if (PM_UNLIKELY(!T || depth == 0 || depth > PM_MAX_DEPTH)) return;
  uint32_t i = depth - 1;
  uint64_t t = pm_tr_time(now);
  if (!(T->frame[i].flags & TF_EXCLUDED) || T->coll_depth == depth) {
    if (begin(T)) {
      leave_frame(T, i, t);
      T->depth = i;
      if (T->pending > i) T->pending = i;
      /* a sample of the cumulative useful time, when nothing is pending below */
      if (t - T->t_metric >= pm_tr.metric_period_ns && T->pending == T->depth) metric_sample(T, t);
      end(T);
    }
  }
  T->frame[i].flags |= TF_LEFT;
  T->depth = i;
  if (T->pending > i) T->pending = i;
  if (T->coll_depth == depth) T->coll_depth = 0;
  if (T->task_depth >= depth) T->task_depth = 0; /* a task body not written (filtered): its values go too */
}

/* The thread exits: its regions end now (on the thread itself). One that ends before the archive
 * opened leaves nothing open (its location gets an empty event file at finalize). */
static void on_detach(pm_loc *L, unsigned slot, uint64_t now) {
  pm_tloc *T = L->obs_data[slot];
  if (!T) return;
  if (pm_tr_state() == PM_TR_OPEN)
    pm_tloc_close(T, now);
  else
    T->depth = T->pending = 0;
}

static const pm_loc_observer observer = {on_attach, NULL, on_enter, on_leave, NULL, NULL, on_detach};

int pm_tloc_observer_add(void) { return pm_loc_observer_add(&observer); }

void pm_tloc_open_self(void) {
  pm_loc *L = pm_loc_self();
  pm_tloc *T = L ? pm_tloc_at(pm_loc_id(L)) : NULL;
  if (T && begin(T)) end(T);
}

/* ------------------------------------------------------------------------------ finalize */
void pm_tloc_close(pm_tloc *T, uint64_t t_end) {
  if (T->closed) return;
  uint64_t t = pm_tr_time(t_end);
  if (T->vlock) pthread_mutex_lock(T->vlock);
  int guard = pm_in_tool();
  pm_set_in_tool(1); /* popmeter's own file I/O (see begin) */
  if (!T->failed && (T->w || open_writer(T))) {
    for (uint32_t i = T->depth; i-- > 0;) leave_frame(T, i, t);
    T->depth = T->pending = 0;
    metric_sample(T, t);
    pthread_mutex_lock(&pm_tr.lock);
    uint64_t n = 0;
    if (OTF2_EvtWriter_GetNumberOfEvents(T->w, &n) == OTF2_SUCCESS) T->nevents = n;
    OTF2_Archive_CloseEvtWriter(pm_tr.archive, T->w);
    pthread_mutex_unlock(&pm_tr.lock);
    T->w = NULL;
  }
  T->closed = 1;
  pm_set_in_tool(guard);
  if (T->vlock) pthread_mutex_unlock(T->vlock);
}

void pm_tloc_reset(void) {
  for (uint32_t i = 0; i < PM_MAX_LOCATIONS; i++) {
    pm_tloc *T = tlocs[i];
    if (!T) continue;
    if (T->vlock) {
      pthread_mutex_destroy(T->vlock);
      free(T->vlock);
    }
    if (T->attrs) OTF2_AttributeList_Delete(T->attrs);
    free(T);
    tlocs[i] = NULL;
  }
  memset(region_class, 0, sizeof region_class);
}
