/* OpenMP teams: fork, implicit tasks, barriers and join (see pm_omp.h for the model).
 *
 * States of a member's frame: RUNNING (in its implicit task) -> IN_BARRIER (between barrier enter
 * and exit) -> RUNNING ... -> ENDED (implicit task finished, waiting for the join) -> CLOSED. The
 * master closes its own frame at the join; a worker closes its frame when it learns the join time
 * (pm_omp_join_time: the master records it in the team), at its next OpenMP event or at finalize.
 *
 * Clocks (Lamport, pm_core.h): fork: every member merges the master's clocks at the fork.
 * Barrier number e: each member publishes its clocks into slot.cp[e & 1] on arrival and, after the
 * runtime's barrier returns, owes its clocks the max over the team (see pm_omp_slot for why two
 * halves are enough) and the end clocks of the tasks completed in that phase, merged at the point
 * where it left the barrier. It reads them when its clocks are next read (pm_loc.cp_pending), at
 * the latest at its arrival at barrier e+1: the others' lines, prefetched when it left barrier e,
 * have arrived by then, where reading them at the exit waited for them (~30 ns of a barrier's
 * ~100 here). Join: the master merges every member's last published clocks and all task end
 * clocks. No lock: the runtime's own barrier orders the writes before the reads. */
#define _GNU_SOURCE
#include "pm_omp_internal.h"
#include "pm_lifecycle.h"
#include "pm_events.h"
#include "pm_cacheline.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_omp_ompt_active;

static pm_omp_thread *threads[PM_MAX_LOCATIONS];
static pm_omp_team *retired_teams;
static pthread_mutex_t retired_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------------------------- construct names */
static const char *const rnames[PM_OMP_R_COUNT] = {[PM_OMP_R_BARRIER] = "omp barrier",
                                                   [PM_OMP_R_IMPLICIT_BARRIER] = "omp implicit barrier",
                                                   [PM_OMP_R_TASKWAIT] = "omp taskwait",
                                                   [PM_OMP_R_TASKGROUP] = "omp taskgroup",
                                                   [PM_OMP_R_CRITICAL] = "omp critical",
                                                   [PM_OMP_R_LOCK] = "omp lock",
                                                   [PM_OMP_R_ORDERED] = "omp ordered",
                                                   [PM_OMP_R_SINGLE] = "omp single",
                                                   [PM_OMP_R_LOOP] = "omp loop",
                                                   [PM_OMP_R_SECTIONS] = "omp sections",
                                                   [PM_OMP_R_WORKSHARE] = "omp workshare",
                                                   [PM_OMP_R_SCHEDULE] = "omp schedule",
                                                   [PM_OMP_R_TASK_CREATE] = "omp task create"};
static pm_region_id rids[PM_OMP_R_COUNT];
static int rids_ready;

pm_region_id pm_omp_region(pm_omp_rkind k) {
  if (PM_UNLIKELY(!__atomic_load_n(&rids_ready, __ATOMIC_ACQUIRE))) {
    /* concurrent first calls register the same names: the registry returns the same ids */
    for (int i = 0; i < PM_OMP_R_COUNT; i++) {
      pm_region_role role = i <= PM_OMP_R_TASKGROUP ? PM_ROLE_BARRIER : PM_ROLE_FUNCTION;
      rids[i] = pm_region_register(rnames[i], PM_PARADIGM_OPENMP, role);
    }
    __atomic_store_n(&rids_ready, 1, __ATOMIC_RELEASE);
  }
  return rids[k];
}

/* ------------------------------------------------------------------------------------- helpers */
pm_omp_thread *pm_omp_thread_at(uint32_t id) {
  return id < PM_MAX_LOCATIONS ? __atomic_load_n(&threads[id], __ATOMIC_ACQUIRE) : NULL;
}

pm_omp_thread *pm_omp_thread_new(pm_loc *L) {
  uint32_t id = pm_loc_id(L);
  if (PM_UNLIKELY(id >= PM_MAX_LOCATIONS)) return NULL;
  pm_omp_thread *th = __atomic_load_n(&threads[id], __ATOMIC_ACQUIRE);
  if (!th) {
    th = calloc(1, sizeof *th); /* once per thread that takes part in OpenMP */
    if (!th) return NULL;
    th->L = L;
    th->impl_state = PM_STATE_USEFUL;
    __atomic_store_n(&threads[id], th, __ATOMIC_RELEASE);
  }
  L->omp = th;
  return th;
}

pm_omp_cp2 pm_omp_clocks(const pm_loc *L) { return (pm_omp_cp2){pm_loc_cp_process(L), pm_loc_cp_global(L)}; }
/* Merges c into L's clocks at the point where L's own clock was own (its current one, or an earlier
 * one: a merge that belongs there, pm_omp_join). */
static void merge_at(pm_loc *L, const pm_cp_clock *own, const pm_omp_cp2 *c) {
  pm_loc_cp_merge(own, &L->cp_poff, &c->p);
  pm_loc_cp_merge(own, &L->cp_goff, &c->g);
}
void pm_omp_merge(pm_loc *L, const pm_omp_cp2 *c) { merge_at(L, &L->cp_own, c); }

static void u64_atomic_max(uint64_t *a, uint64_t v) {
  uint64_t cur = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange_n(a, &cur, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}
/* fn(&a->x, b->x) for each of the six clock values of a pair */
#define CP2_EACH(fn, a, b)                                                                                             \
  (fn(&(a)->p.cue, (b)->p.cue), fn(&(a)->p.com, (b)->p.com), fn(&(a)->p.coo, (b)->p.coo), fn(&(a)->g.cue, (b)->g.cue), \
   fn(&(a)->g.com, (b)->g.com), fn(&(a)->g.coo, (b)->g.coo))
void pm_omp_cp2_atomic_max(pm_omp_cp2 *a, const pm_omp_cp2 *b) { CP2_EACH(u64_atomic_max, a, b); }
/* Reads a clock pair that other threads update with pm_omp_cp2_atomic_max (no torn values). */
static inline pm_omp_cp2 cp2_load(const pm_omp_cp2 *a) {
  pm_omp_cp2 c;
  c.p.cue = __atomic_load_n(&a->p.cue, __ATOMIC_RELAXED);
  c.p.com = __atomic_load_n(&a->p.com, __ATOMIC_RELAXED);
  c.p.coo = __atomic_load_n(&a->p.coo, __ATOMIC_RELAXED);
  c.g.cue = __atomic_load_n(&a->g.cue, __ATOMIC_RELAXED);
  c.g.com = __atomic_load_n(&a->g.com, __ATOMIC_RELAXED);
  c.g.coo = __atomic_load_n(&a->g.coo, __ATOMIC_RELAXED);
  return c;
}

/* a = max(a, b) where only the calling thread writes a (others may read it meanwhile) */
static void u64_own_max(uint64_t *a, uint64_t v) {
  if (v > __atomic_load_n(a, __ATOMIC_RELAXED)) __atomic_store_n(a, v, __ATOMIC_RELAXED);
}
void pm_omp_task_end_clocks(pm_omp_frame *f, const pm_omp_cp2 *c) {
  /* read once into locals: after each atomic store the compiler would read the frame, the team and
   * c again to find the next destination (an empty task: 101 instructions here, 64 this way) */
  pm_omp_team *const t = f->team;
  const uint32_t tid = f->tid, e = f->epoch & 1;
  const pm_omp_cp2 v = *c;
  if (!__atomic_load_n(&t->tasks, __ATOMIC_RELAXED)) __atomic_store_n(&t->tasks, 1, __ATOMIC_RELAXED);
  if (PM_UNLIKELY(tid >= t->cap)) {
    pm_omp_cp2_atomic_max(&t->task_cp[e], &v);
    return;
  }
  pm_omp_cp2 *const d = &t->slot[tid].task_cp[e];
  CP2_EACH(u64_own_max, d, &v);
}
/* m = max(m, the end clocks of the tasks the team's n first members completed in phase half e) */
static void tasks_max(pm_omp_cp2 *m, pm_omp_team *t, uint32_t n, unsigned e) {
  /* none in this instance: what slots hold from earlier ones is older than the fork clock that
   * every member merged, it cannot win */
  if (!__atomic_load_n(&t->tasks, __ATOMIC_RELAXED)) return;
  if (n > t->cap) n = t->cap;
  pm_omp_cp2 c = cp2_load(&t->task_cp[e]);
  pm_omp_cp2_max(m, &c);
  for (uint32_t j = 0; j < n; j++) {
    c = cp2_load(&t->slot[j].task_cp[e]);
    pm_omp_cp2_max(m, &c);
  }
}

/* ------------------------------------------------------------------------------------ join times */
/* The master records each join in its own lines (joins[], t_joined) and copies it into the fork
 * line at the next fork, where gen is BUSY while it is written (a seqlock). */
#define BUSY UINT64_MAX

static void record_join(pm_omp_team *t, uint32_t n, uint64_t now) {
  if (n > t->cap) n = t->cap;
  for (uint32_t j = 1; j < n; j++) {
    __atomic_store_n(&t->joins[j].t_join, now, __ATOMIC_RELAXED);
    __atomic_store_n(&t->joins[j].gen, t->gen, __ATOMIC_RELEASE);
  }
  t->joined = t->gen;
  t->t_joined = now;
}

static void next_instance(pm_omp_team *t) {
  uint64_t gen = t->gen + 1;
  __atomic_store_n(&t->gen, BUSY, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&t->t_join_prev, t->joined == gen - 1 ? t->t_joined : 0, __ATOMIC_RELAXED);
  __atomic_store_n(&t->gen, gen, __ATOMIC_RELEASE);
}

/* The join time of frame f's instance, 0 while the master has not joined it. Usually a worker
 * asks at its next fork, and finds it in the fork line it reads anyway (a member of that instance
 * never sees the line busy: the runtime starts the members after the fork). Otherwise (it is not
 * in the next instance, or asks before the next fork) in joins[]: the master rewrites a member's
 * entry only at the join of an instance the member is in, which it cannot enter before it has
 * learnt this join. */
uint64_t pm_omp_join_time(const pm_omp_frame *f) {
  const pm_omp_team *t = f->team;
  uint64_t g1 = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);
  if (g1 == f->gen + 1) {
    uint64_t tj = __atomic_load_n(&t->t_join_prev, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (tj && __atomic_load_n(&t->gen, __ATOMIC_RELAXED) == g1) return tj;
  }
  if (f->tid >= t->cap || __atomic_load_n(&t->joins[f->tid].gen, __ATOMIC_ACQUIRE) != f->gen) return 0;
  return __atomic_load_n(&t->joins[f->tid].t_join, __ATOMIC_RELAXED);
}

/* Brings L's times and clocks up to now without changing its state. */
static void charge(pm_loc *L, uint64_t now) { pm_state_set(L, pm_state_get(L), now); }

/* Pushes region r; a region the registry could not take (PM_REGION_NONE: it is full) is accounted
 * to a child of the current node's region, so pushes and pops stay balanced. */
static void push(pm_loc *L, pm_region_id r, pm_state s, uint64_t now) {
  pm_call_enter(L, r != PM_REGION_NONE ? r : L->cur_node->region, s, now);
}

/* ---------------------------------------------------------------------------------------- teams */
static void retire_team(pm_omp_team *t) {
  pthread_mutex_lock(&retired_lock);
  t->retired_next = retired_teams;
  retired_teams = t;
  pthread_mutex_unlock(&retired_lock);
}

/* The master's team for its current fork depth, with room for cap members. A team replaced by a
 * larger one is retired, not freed: a late reader must never touch freed memory. */
static pm_omp_team *team_get(pm_omp_thread *th, uint32_t cap) {
  pm_omp_team *t = th->team_cache[th->forks];
  if (cap == 0) cap = 1;
  if (PM_LIKELY(t && t->cap >= cap)) return t;
  uint32_t ncap = cap < 4 ? 4 : cap;
  if (t && ncap < 2 * t->cap) ncap = 2 * t->cap;
  size_t joins_at = sizeof(pm_omp_team) + (size_t)ncap * sizeof(pm_omp_slot); /* a multiple of 64 */
  size_t sz = joins_at + (size_t)ncap * sizeof(pm_omp_joined);
  sz = (sz + 63) & ~(size_t)63;
  pm_omp_team *n = aligned_alloc(64, sz);
  if (!n) return NULL;
  memset(n, 0, sz);
  n->cap = ncap;
  n->joins = (pm_omp_joined *)((char *)n + joins_at);
  if (t) retire_team(t);
  th->team_cache[th->forks] = n;
  return n;
}

pm_omp_team *pm_omp_fork(pm_loc *L, const void *code, uint32_t cap, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (!th || th->overflow || th->forks >= PM_OMP_MAX_NEST) return NULL;
  /* a loop of one region (the common case) forks the same code again: its statistics are those of
   * the team's last fork, without the registry's lookup (the registry outlives the teams) */
  const pm_omp_team *last = th->team_cache[th->forks];
  pm_omp_rstat *r = last && last->code == code && last->region ? last->region : pm_omp_region_get(code);
  pm_omp_team *t = r ? team_get(th, cap) : NULL;
  if (!t) return NULL;
  th->forks++;
  next_instance(t);
  t->region = r;
  t->code = code;
  /* the team line is written only when a value changes (nthreads: by the members that see a
   * change; the master is the first). Until a member gives the team's size (with libgomp, only
   * the master does), the bound: a member's taskwait before that reads the slots of cap members,
   * never fewer than there are. */
  if (t->rid != r->rid) t->rid = r->rid;
  if (!__atomic_load_n(&t->nthreads, __ATOMIC_RELAXED)) __atomic_store_n(&t->nthreads, cap, __ATOMIC_RELAXED);
  t->master = th;
  t->ctx_saved = L->ctx;
  t->state_saved = pm_state_get(L);
  t->depth0 = L->depth;
  /* trace_team and the task clocks below, like the adapter's words (gomp_parallel.c), are written
   * only when their value changes: a write takes the line from every member's cache, and each
   * member's next read of it is then a transfer between cores inside the region */
  uint32_t trace_team = UINT32_MAX;
  if (pm_events_on()) { /* the trace: ThreadFork before the region's Enter */
    pm_event_team_fork(L, cap, now);
    trace_team = pm_event_team_define(L, cap);
  }
  if (t->trace_team != trace_team) t->trace_team = trace_team;
  pm_ctx_set(L, PM_CTX_PARALLEL, now);
  uint32_t fork_point = pm_loc_fork_point(L);
  if (t->fork_point != fork_point) t->fork_point = fork_point;
  push(L, r->rid, PM_STATE_RUNTIME, now);
  t->t_fork = now;
  t->m_useful0 = L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL];
  t->m_idle0 = pm_omp_idle_ns(L);
  t->fork_cp = pm_omp_clocks(L);
  if (t->tasks) { /* members write them only in instances with tasks */
    memset(t->task_cp, 0, sizeof t->task_cp);
    t->tasks = 0;
  }
  /* Slots are not cleared (their gen tells the instance). Clock halves left by a previous instance
   * are older than the fork clock every member merges first, so they can never win a max. */
  return t;
}

void **pm_omp_team_user(pm_omp_team *t) { return t->user; }
void pm_omp_member_prefetch(const pm_omp_team *t) { __builtin_prefetch(&t->fork_cp); }

/* Whether f's slot belongs to f's instance: not after the team was forked again (a frame a late
 * exit from the join barrier left open: settle_barrier), when the slot is the next instance's. */
static int slot_current(const pm_omp_frame *f) {
  return f->tid < f->team->cap && __atomic_load_n(&f->team->gen, __ATOMIC_RELAXED) == f->gen;
}

static void write_times(pm_omp_slot *s, const pm_loc *L, const pm_omp_frame *f, uint64_t now) {
  s->useful = L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL] - f->useful0;
  s->idle = pm_omp_idle_ns(L) - f->idle0;
  s->t_arrive = now;
}

void pm_omp_publish_times(pm_loc *L, pm_omp_frame *f, uint64_t now) {
  if (slot_current(f)) write_times(&f->team->slot[f->tid], L, f, now);
}

/* Publishes the member's clocks and statistics (L charged up to now by the caller). */
void pm_omp_publish(pm_loc *L, pm_omp_frame *f, uint64_t now) {
  pm_loc_cp_settle(L); /* an arrival: the last barrier's exchange before its half can be reused */
  pm_omp_team *t = f->team;
  if (!slot_current(f)) return;
  pm_omp_slot *s = &t->slot[f->tid];
  pm_omp_cp2 c = pm_omp_clocks(L);
  s->cp[f->epoch & 1].c = c;
  s->last = c;
  s->after_join = (uint64_t)f->after_join;
  s->arrived = f->gen;
  write_times(s, L, f, now);
}

/* The thread's top frame f, closed on the location: off the thread's stack; its task records with
 * dependences are free to reuse. */
static void frame_pop(pm_omp_thread *th, pm_omp_frame *f) {
  f->status = PM_OMP_CLOSED;
  th->depth--;
  pm_omp_tasks_release(th);
}

/* Closes the top frame f at time t: pops what the implicit task left on the location's stack (a
 * worker's region node too), restores a worker's context and state. */
static void frame_close(pm_omp_thread *th, pm_loc *L, pm_omp_frame *f, uint64_t t) {
  pm_loc_cp_settle(L); /* before the team's slots can be reused */
  if (f->trace_team != UINT32_MAX) {
    /* the trace: ThreadTeamEnd inside the worker's region node, after what the task left open */
    while (L->depth > f->depth0 + !f->is_master) pm_call_exit(L, t);
    pm_event_team_end(L, f->trace_team, t);
  }
  if (f->is_master)
    while (L->depth > f->depth0) pm_call_exit(L, t);
  else /* the pops, the context and the state at t, in one step */
    pm_call_unwind(L, f->depth0, (int)f->ctx_saved, (pm_state)f->state_saved, t);
  frame_pop(th, f);
}

/* Closes the finished frames on top of the thread's stack: those whose implicit task ended, and
 * a join barrier the master has completed. A frame in another barrier is an enclosing region
 * (the thread runs a task there) and stays. An ended frame without a join time (a pooled thread
 * reused before its master recorded the join) is closed now. */
static void close_finished(pm_omp_thread *th, pm_loc *L, uint64_t now) {
  while (th->depth && !th->overflow) {
    pm_omp_frame *f = &th->frame[th->depth - 1];
    if (f->is_master || !(f->status == PM_OMP_ENDED || f->status == PM_OMP_IN_BARRIER)) break;
    uint64_t tj = pm_omp_join_time(f);
    if (f->status == PM_OMP_IN_BARRIER && !tj) break;
    frame_close(th, L, f, tj && tj <= now ? tj : now);
  }
}

/* A worker beginning an instance of the region whose last instance it is leaving (a loop of
 * parallel regions: the common case) stays in the region's node: its bottom frame closes and the
 * new instance's node is entered in one step (pm_call_pass), where frame_close and the enter take
 * five transitions, with the same result. Only without a trace (its events need each transition)
 * and where the slow way would enter the very node it leaves: same region, same fork point. Returns
 * whether it did; *depth0 and *ctx_saved then get the closed frame's. */
static int pass_to_next_instance(pm_omp_thread *th, pm_loc *L, const pm_omp_team *t, uint64_t now, uint32_t *depth0,
                                 uint32_t *ctx_saved) {
  if (th->depth != 1 || th->overflow || t->trace_team != UINT32_MAX || t->rid == PM_REGION_NONE) return 0;
  pm_omp_frame *f = &th->frame[0];
  if (f->is_master || f->trace_team != UINT32_MAX || f->rid != t->rid || f->fork_point != t->fork_point) return 0;
  if (f->status != PM_OMP_ENDED && f->status != PM_OMP_IN_BARRIER) return 0;
  uint64_t tj = pm_omp_join_time(f);
  if (f->status == PM_OMP_IN_BARRIER && !tj) return 0; /* still in a barrier of an enclosing region */
  pm_loc_cp_settle(L);                                 /* before the team's slots can be reused */
  if (!pm_call_pass(L, f->depth0 + 1, tj && tj <= now ? tj : now, (int)f->ctx_saved, (pm_state)f->state_saved,
                    PM_CTX_PARALLEL, PM_STATE_USEFUL, now))
    return 0;
  *depth0 = f->depth0;
  *ctx_saved = f->ctx_saved;
  frame_pop(th, f);
  return 1;
}

pm_omp_frame *pm_omp_implicit_begin(pm_loc *L, pm_omp_team *t, uint32_t tid, uint32_t nthreads, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (!th) return NULL;
  uint32_t depth0 = 0, ctx_saved = 0;
  int passed = t && !(tid == 0 && t->master == th) && pass_to_next_instance(th, L, t, now, &depth0, &ctx_saved);
  if (!passed) close_finished(th, L, now);
  if (!t || th->overflow || th->depth >= PM_OMP_MAX_NEST) {
    th->overflow++;
    return NULL;
  }
  pm_omp_frame *f = &th->frame[th->depth++];
  memset(f, 0, sizeof *f);
  f->team = t;
  f->gen = __atomic_load_n(&t->gen, __ATOMIC_RELAXED); /* the fork completed before any member began */
  f->tid = tid;
  f->status = PM_OMP_RUNNING;
  f->is_master = tid == 0 && t->master == th;
  /* every member knows the team size; only a change is written (the line is read by all) */
  if (nthreads && __atomic_load_n(&t->nthreads, __ATOMIC_RELAXED) != nthreads)
    __atomic_store_n(&t->nthreads, nthreads, __ATOMIC_RELAXED);
  if (f->is_master) {
    f->depth0 = L->depth; /* above the region node pushed at the fork */
    pm_state_set(L, PM_STATE_USEFUL, now);
  } else {
    if (!th->named && L->role == PM_ROLE_THREAD) {
      char name[48];
      snprintf(name, sizeof name, "OpenMP thread %u", tid);
      pm_loc_set_role(L, PM_ROLE_THREAD, name);
      th->named = 1;
    }
    /* a worker's bottom frame returns it to idle; a nested one to what it was doing */
    f->state_saved = th->depth == 1 ? PM_STATE_IDLE : pm_state_get(L);
    f->rid = t->rid != PM_REGION_NONE ? t->rid : L->cur_node->region;
    f->fork_point = t->fork_point;
    if (passed) { /* in the region's node already */
      f->ctx_saved = ctx_saved;
      f->depth0 = depth0;
    } else {
      f->ctx_saved = L->ctx;
      f->depth0 = L->depth;
      pm_ctx_set(L, PM_CTX_PARALLEL, now);
      /* the member's region node is the master's: the same call path in the profile (Score-P's
       * placement; a Cube user selecting the region sees every thread of the team) */
      pm_call_enter_under(L, f->rid, PM_STATE_USEFUL, f->fork_point, now);
    }
    pm_omp_merge(L, &t->fork_cp);
  }
  f->useful0 = L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL];
  f->idle0 = pm_omp_idle_ns(L);
  f->trace_team = t->trace_team;
  /* A hint: the lines a worker's arrival writes, which the master read at the last join, taken
   * exclusive while the body runs (the write would otherwise wait for them on the way to the
   * join). Paired runs: an empty region -78 / -87 ns (libgomp), -173 / -312 (libomp), with the
   * join's (join_prefetch). */
  if (!f->is_master && tid < t->cap) {
    pm_line_prefetch_write(&t->slot[tid].last);
    pm_line_prefetch_write(&t->slot[tid].useful);
    pm_line_prefetch_write(&t->slot[tid].cp[0]);
  }
  if (f->trace_team != UINT32_MAX) pm_event_team_begin(L, f->trace_team, tid, now);
  return f;
}

void pm_omp_implicit_end(pm_loc *L, pm_omp_frame *f, int join_wait, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (!th) return;
  if (!f) {
    if (th->overflow) th->overflow--;
    return;
  }
  if (f->status == PM_OMP_CLOSED || pm_omp_top(th) != f) return;
  if (f->status == PM_OMP_RUNNING) {
    if (join_wait)
      push(L, pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER), PM_STATE_SYNC_WAIT, now);
    else {
      pm_state_set(L, PM_STATE_RUNTIME, now); /* after its join barrier: leaving the region */
      f->after_join = 1;
    }
    /* the join reads the members' slots, not the master's (it has its own clocks at hand) */
    if (!f->is_master) pm_omp_publish(L, f, now);
  }
  f->status = PM_OMP_ENDED;
}

/* The members of t's current instance that have a slot (members beyond cap have none). */
static uint32_t slotted_members(const pm_omp_team *t) {
  uint32_t n = __atomic_load_n(&t->nthreads, __ATOMIC_RELAXED);
  return n < t->cap ? n : t->cap;
}

/* A hint (no effect on any value): the lines of the workers' last clocks and statistics, which
 * the master's join reads. */
static void prefetch_last_arrivals(const pm_omp_team *t) {
  uint32_t n = slotted_members(t);
  for (uint32_t j = 1; j < n; j++) {
    __builtin_prefetch(&t->slot[j].last);
    __builtin_prefetch(&t->slot[j].useful);
  }
}

/* Hints at the join (no effect on any value): the members' last clocks and times, read below
 * after the master's own bookkeeping, asked for first so that the transfers overlap it; and the
 * fork line, which every member has read by now and the next fork writes, taken exclusive, so
 * that the next fork's writes do not wait for it on the way to the runtime's start of the team. */
static void join_prefetch(const pm_omp_team *t) {
  prefetch_last_arrivals(t);
  pm_line_prefetch_write(&t->fork_cp);
}

void pm_omp_join(pm_loc *L, pm_omp_team *t, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (!th || !t) return;
  join_prefetch(t);
  pm_loc_cp_settle(L); /* an explicit barrier's exchange: before the next fork reuses the slots */
  pm_omp_frame *f = pm_omp_top(th);
  pm_cp_clock own_then = {0, 0, 0}; /* the master's own clock when it left its join barrier, if reported */
  int at_barrier = 0;
  unsigned e = 0; /* the slots' half of that barrier */
  int master_frame = f && f->team == t && f->is_master;
  /* Without a trace or counters, the master's levels (its implicit task's, then the region's
   * node) are left and its context and state restored in one step (pm_call_unwind: the same times,
   * fewer steps); a trace needs each event in its order, counters each transition where it is. */
  const int one_step = !pm_events_on() && !L->nobs && !(master_frame && f->trace_team != UINT32_MAX);
  if (master_frame) {
    if ((at_barrier = f->join_exited)) {
      own_then = f->join_own;
      e = f->epoch & 1;
    }
    if (one_step) {
      pm_loc_cp_settle(L);
      frame_pop(th, f);
    } else {
      frame_close(th, L, f, now);
    }
  }
  if (one_step) {
    pm_call_unwind(L, t->depth0, (int)t->ctx_saved, (pm_state)t->state_saved, now);
  } else {
    while (L->depth > t->depth0) pm_call_exit(L, now); /* the region node of the fork */
    pm_event_team_join(L, now);                        /* the trace: after the region's Leave */
    charge(L, now);
  }
  pm_omp_rstat *r = t->region;
  uint32_t n = __atomic_load_n(&t->nthreads, __ATOMIC_RELAXED);
  uint64_t span = now > t->t_fork ? now - t->t_fork : 0;
  if (n == 0) n = 1;
  pm_omp_region_add(r, n, span);
  pm_omp_region_add_thread(r, 0, L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL] - t->m_useful0,
                           pm_omp_idle_ns(L) - t->m_idle0);
  /* the members' clocks: merged at the join barrier's end when the master reported it, where a
   * barrier's exchange merges them; else now (GOMP: the runtime's join is not observed). A member
   * that went on after that barrier before this join (libomp reported its exit early) brings two:
   * its arrival (cp[e]), merged there, and its last clock, merged now. */
  pm_omp_cp2 m = {{0, 0, 0}, {0, 0, 0}}, m_now = m;
  for (uint32_t j = 1; j < n; j++) {
    if (j >= t->cap) {
      pm_omp_region_add_thread(r, j, 0, span);
      continue;
    }
    pm_omp_slot *s = &t->slot[j];
    if (s->arrived == t->gen) {
      /* the member waited from its arrival to now: that wait is idle inside the region */
      pm_omp_region_add_thread(r, j, s->useful, s->idle + (now > s->t_arrive ? now - s->t_arrive : 0));
      if (at_barrier && s->after_join) {
        pm_omp_cp2_max(&m, &s->cp[e].c);
        pm_omp_cp2_max(&m_now, &s->last);
      } else {
        pm_omp_cp2_max(&m, &s->last);
      }
    } else {
      pm_omp_region_add_thread(r, j, 0, span); /* not measured: it did nothing we saw */
    }
  }
  record_join(t, n, now);
  tasks_max(&m, t, n, 0);
  tasks_max(&m, t, n, 1);
  merge_at(L, at_barrier ? &own_then : &L->cp_own, &m);
  if (at_barrier) pm_omp_merge(L, &m_now);
  if (!one_step) {
    pm_ctx_set(L, (int)t->ctx_saved, now);
    pm_state_set(L, (pm_state)t->state_saved, now);
  }
  th->forks--;
}

/* ------------------------------------------------------------------------------------- barriers */
void pm_omp_barrier_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  push(L, r, s, now);
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  if (f && f->status == PM_OMP_RUNNING) {
    pm_omp_publish(L, f, now);
    f->status = PM_OMP_IN_BARRIER;
  }
}

/* When f is a worker's join barrier that the master has joined: its join time, and the barrier's
 * end (libomp reports it at the next fork) is late. 0 otherwise. */
static uint64_t late_join_time(const pm_omp_frame *f) {
  return f && !f->is_master && f->status == PM_OMP_IN_BARRIER ? pm_omp_join_time(f) : 0;
}

/* The exchange of a barrier the thread left (pm_omp_barrier_exit): the other members' arrivals and
 * the phase's task end clocks, merged where the thread's own clock was when it left. */
static void settle_barrier(const pm_loc *L, pm_cp_clock *poff, pm_cp_clock *goff) {
  const pm_omp_thread *th = L->omp;
  /* read once: a peek by the finalizer may race with the owner rewriting the record, and must not
   * pair one barrier's team with another's member count (the gen checks drop such a mix) */
  pm_omp_team *t = th->owed_team;
  if (!t) return;
  const uint64_t gen = th->owed_gen;
  const uint32_t e = th->owed_e & 1, tid = th->owed_tid, n = th->owed_n < t->cap ? th->owed_n : t->cap;
  const pm_cp_clock own = th->owed_own;
  /* The instance may be over and the team forked again, its members rewriting the slots: a
   * worker whose late exit from the join barrier came before the master recorded the join takes
   * it for an ordinary exit (late_join_time found no join). The exchange is then dropped (the
   * join merged the arrivals; the next fork brings them). gen changes before the next instance's
   * members write, so an unchanged gen after the reads means they read this instance's values. */
  if (__atomic_load_n(&t->gen, __ATOMIC_ACQUIRE) != gen) return;
  pm_omp_cp2 m = {{0, 0, 0}, {0, 0, 0}};
  for (uint32_t j = 0; j < n; j++)
    if (j != tid) pm_omp_cp2_max(&m, &t->slot[j].cp[e].c);
  tasks_max(&m, t, n, e);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&t->gen, __ATOMIC_RELAXED) != gen) return;
  pm_loc_cp_merge(&own, poff, &m.p);
  pm_loc_cp_merge(&own, goff, &m.g);
}

void pm_omp_barrier_exit(pm_loc *L, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  uint64_t tj = late_join_time(f);
  if (tj) {
    frame_close(th, L, f, tj <= now ? tj : now);
    return;
  }
  pm_call_exit(L, now);
  if (f && f->status == PM_OMP_IN_BARRIER) {
    pm_loc_cp_settle(L); /* an exchange still owed (none after an arrival, which reads the clocks) */
    th->owed_team = f->team;
    th->owed_n = slotted_members(f->team);
    th->owed_e = f->epoch & 1;
    th->owed_tid = f->tid;
    th->owed_own = L->cp_own;
    th->owed_gen = f->gen;
    pm_loc_cp_owe(L, settle_barrier);
    f->epoch++;
    f->status = PM_OMP_RUNNING;
    pm_omp_tasks_release(th);
  }
}

int pm_omp_is_join_barrier(pm_loc *L, const void *code) {
  pm_omp_thread *th = L->omp;
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  return code && f && f->is_master && f->status == PM_OMP_RUNNING && f->team->code == code;
}

void pm_omp_join_barrier_enter(pm_loc *L, pm_region_id r, uint64_t now) {
  /* an arrival: a member that leaves this barrier early may then publish into the half an earlier
   * barrier's owed exchange reads */
  pm_loc_cp_settle(L);
  push(L, r, PM_STATE_SYNC_WAIT, now);
}

void pm_omp_join_barrier_exit(pm_loc *L, uint64_t now) {
  pm_call_exit(L, now);
  pm_omp_thread *th = pm_omp_thread_of(L);
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  if (f && f->is_master) {
    /* the join reads every member's last clocks and statistics: ask for their lines now, so that
     * they travel while the runtime ends the implicit task and the region (empty libomp region,
     * 2 threads, paired runs against the build without: 5-7 ns less in each of 4 series of 21) */
    prefetch_last_arrivals(f->team);
    f->join_exited = 1;
    f->join_own = L->cp_own;
    f->join_t = now;
  }
}

uint64_t pm_omp_implicit_end_time(const pm_loc *L, const pm_omp_frame *f) {
  /* Not with observers (hardware counters): they read their values at every charge, and a
   * transition dated earlier than the counters' reading would put the join's counts in the
   * useful state while its time goes to runtime. */
  if (f && f->is_master && f->join_exited && f->status == PM_OMP_RUNNING && f->join_t >= L->t_last && !L->nobs)
    return f->join_t;
  return pm_clock_now();
}

void pm_omp_barrier_prefetch(const pm_loc *L) {
  pm_omp_thread *th = L->omp;
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  if (!f || f->status != PM_OMP_IN_BARRIER) return;
  const pm_omp_team *t = f->team;
  uint32_t n = slotted_members(t), e = f->epoch & 1;
  for (uint32_t j = 0; j < n; j++)
    if (j != f->tid) __builtin_prefetch(&t->slot[j].cp[e].c);
  /* The half this member writes at its next arrival: the others read it last for the barrier
   * before this one, and have all done so (each reads at the latest when it arrives here). Taken
   * exclusive now, the write finds it so: otherwise the write's transfer from the last reader
   * stalls the runtime's next barrier, whose atomic waits for every earlier store. */
  if (f->tid < t->cap) pm_line_prefetch_write(&t->slot[f->tid].cp[e ^ 1].c);
}

int pm_omp_late_join(pm_loc *L) {
  pm_omp_thread *th = L->omp;
  return th && late_join_time(pm_omp_top(th));
}

int pm_omp_frame_done(const pm_omp_frame *f) { return f && f->status == PM_OMP_CLOSED; }

void pm_omp_wait(pm_loc *L, int begin, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (th && late_join_time(pm_omp_top(th))) return;
  pm_state_set(L, begin ? PM_STATE_SYNC_WAIT : PM_STATE_RUNTIME, now);
}

void pm_omp_taskwait_enter(pm_loc *L, pm_region_id r, uint64_t now) { push(L, r, PM_STATE_SYNC_WAIT, now); }

void pm_omp_taskwait_exit(pm_loc *L, uint64_t now) {
  pm_call_exit(L, now);
  pm_omp_thread *th = pm_omp_thread_of(L);
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  if (f) {
    /* an over-approximation: every task of the team completed in this phase, not only children */
    pm_omp_cp2 tc = {{0, 0, 0}, {0, 0, 0}};
    tasks_max(&tc, f->team, __atomic_load_n(&f->team->nthreads, __ATOMIC_RELAXED), f->epoch & 1);
    pm_omp_merge(L, &tc);
  }
}

/* ----------------------------------------------------------------------------------- lifecycle */
void pm_omp_thread_end(pm_loc *L, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (th) close_finished(th, L, now);
}

void pm_omp_finalize(uint64_t t_end) {
  uint32_t n = pm_loc_count();
  for (uint32_t i = 0; i < n && i < PM_MAX_LOCATIONS; i++) {
    pm_omp_thread *th = pm_omp_thread_at(i);
    if (!th || th->L != pm_loc_at(i) || th->L->closed) continue;
    /* only frames with a recorded join: a worker still inside a region keeps its state */
    while (th->depth && !th->overflow) {
      pm_omp_frame *f = &th->frame[th->depth - 1];
      if (f->is_master || (f->status != PM_OMP_ENDED && f->status != PM_OMP_IN_BARRIER)) break;
      uint64_t tj = pm_omp_join_time(f);
      if (!tj || tj > t_end) break;
      frame_close(th, th->L, f, tj);
    }
  }
}

void pm_omp_reset(void) {
  for (uint32_t i = 0; i < PM_MAX_LOCATIONS; i++) {
    pm_omp_thread *th = threads[i];
    if (!th) continue;
    for (int d = 0; d < PM_OMP_MAX_NEST; d++) free(th->team_cache[d]);
    if (th->L->cp_pending == settle_barrier) th->L->cp_pending = NULL; /* its team is freed */
    if (th->L->omp == th) th->L->omp = NULL;
    free(th);
    threads[i] = NULL;
  }
  pthread_mutex_lock(&retired_lock);
  while (retired_teams) {
    pm_omp_team *t = retired_teams;
    retired_teams = t->retired_next;
    free(t);
  }
  pthread_mutex_unlock(&retired_lock);
  pm_omp_tasks_reset();
  pm_omp_regions_reset();
  __atomic_store_n(&rids_ready, 0, __ATOMIC_RELEASE);
  pm_omp_ompt_active = 0;
}
