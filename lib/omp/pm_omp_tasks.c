/* Explicit OpenMP tasks in the critical-path clocks and the location states.
 *
 * A task starts with max(executing thread's clocks, its creator's clocks at the creation, the end
 * clocks of its predecessors); its end clocks go to the team (pm_omp_team.c merges them at the
 * next barrier, taskwait and join). While a task body runs the thread is useful; when the thread
 * returns to whatever it was doing (a barrier or taskwait wait), that state comes back.
 *
 * Records (OMPT): per-thread free lists over slabs, so creating a task allocates nothing in the
 * steady state. A record goes back to the list of the thread that allocated it, also when another
 * thread completed the task (through the owner's remote list): otherwise a thread that creates
 * the tasks others run would take a new slab every 64 tasks while the records pile up on the
 * runners' lists, memory growing with the run (2 threads, a million tasks: +250 MB). A record
 * without dependences is recycled when its task completes. A record with dependences may still be
 * named as a predecessor while its task runs, and libomp reports an edge only while the
 * predecessor is incomplete; the sink reads the predecessor's end clock when it starts, which is
 * before the barrier that ends the phase. So such records are retired at completion and recycled
 * after the completing thread's next barrier. At most PM_OMP_MAX_RETIRED of them live at once:
 * beyond that, a new task's dependence edges are not followed (its creation and end clocks still
 * are). */
#include "pm_omp_internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLAB 64
typedef struct slab {
  struct slab *next;
  pm_omp_task t[SLAB];
} slab;
static slab *slabs;
static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t live_with_deps;

static pm_omp_task *task_alloc(pm_omp_thread *th) {
  if (PM_UNLIKELY(!th->free_tasks)) th->free_tasks = __atomic_exchange_n(&th->remote_free, NULL, __ATOMIC_ACQUIRE);
  if (PM_UNLIKELY(!th->free_tasks)) {
    slab *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_mutex_lock(&slab_lock);
    s->next = slabs;
    slabs = s;
    pthread_mutex_unlock(&slab_lock);
    for (int i = 0; i < SLAB; i++) {
      s->t[i].owner = th;
      s->t[i].pred = s->t[i].pred_inline;
      s->t[i].cappred = sizeof s->t[i].pred_inline / sizeof *s->t[i].pred_inline;
      s->t[i].next = th->free_tasks;
      th->free_tasks = &s->t[i];
    }
  }
  pm_omp_task *t = th->free_tasks;
  th->free_tasks = t->next;
  return t;
}

static void drop_preds(pm_omp_task *t) {
  if (t->pred && t->pred != t->pred_inline) free(t->pred);
  t->pred = t->pred_inline;
  t->npred = 0;
  t->cappred = sizeof t->pred_inline / sizeof *t->pred_inline;
}

/* Only pushes go onto a remote list and its owner takes it whole, so a compare-and-swap push has
 * no ABA problem. */
static void task_free(pm_omp_thread *th, pm_omp_task *t) {
  drop_preds(t);
  pm_omp_thread *o = t->owner;
  if (PM_LIKELY(o == th)) {
    t->next = th->free_tasks;
    th->free_tasks = t;
    return;
  }
  pm_omp_task *head = __atomic_load_n(&o->remote_free, __ATOMIC_RELAXED);
  do t->next = head;
  while (!__atomic_compare_exchange_n(&o->remote_free, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

void pm_omp_tasks_release(pm_omp_thread *th) {
  if (PM_LIKELY(!th->retired_tasks)) return;
  __atomic_fetch_sub(&live_with_deps, th->nretired, __ATOMIC_RELAXED);
  while (th->retired_tasks) {
    pm_omp_task *t = th->retired_tasks;
    th->retired_tasks = t->next;
    task_free(th, t);
  }
  th->nretired = 0;
}

/* --------------------------------------------------------------------------- clocks of a body */
pm_omp_cp2 pm_omp_task_context(pm_loc *L, uint64_t now) {
  pm_state_set(L, pm_state_get(L), now);
  return pm_omp_clocks(L);
}

/* The end of a task body on L (charged up to now): its clocks to the team of the thread's current
 * frame. A thread that runs tasks after it arrived at a barrier or at the end of its implicit task
 * (often: tasks are run from the join barrier) publishes its times again, so that the master's
 * statistics at the join count those bodies as useful, not as waiting; its clocks need not be
 * published again: the task clocks reach every reader of its arrival (barrier exit, join). */
static void publish_end(pm_loc *L, pm_omp_cp2 *out, uint64_t now) {
  pm_omp_cp2 c = pm_omp_clocks(L);
  if (out) *out = c;
  pm_omp_thread *th = pm_omp_thread_of(L);
  pm_omp_frame *f = th ? pm_omp_top(th) : NULL;
  if (!f) return;
  pm_omp_task_end_clocks(f, &c);
  if (f->status != PM_OMP_RUNNING) pm_omp_publish_times(L, f, now);
}

pm_omp_cp2 pm_omp_task_create_enter(pm_loc *L, pm_region_id r, uint64_t now) {
  pm_call_enter(L, r, PM_STATE_RUNTIME, now);
  return pm_omp_clocks(L);
}

pm_state pm_omp_task_body_begin(pm_loc *L, const pm_omp_cp2 *create, uint64_t now) {
  pm_state prev = pm_state_set(L, PM_STATE_USEFUL, now);
  pm_omp_merge(L, create);
  return prev;
}

void pm_omp_task_body_end(pm_loc *L, pm_state prev, uint64_t now) {
  pm_state_set(L, prev, now); /* charges the body first, so the end clock includes it */
  publish_end(L, NULL, now);
}

/* ------------------------------------------------------------------------------- OMPT records */
pm_omp_task *pm_omp_task_new(pm_loc *L, int has_deps, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  pm_omp_task *t = th ? task_alloc(th) : NULL;
  if (!t) return NULL; /* a free record has no predecessors (task_free dropped them) */
  t->has_deps = t->started = t->done = 0;
  t->saved_state = PM_STATE_USEFUL;
  t->create = pm_omp_task_context(L, now);
  if (has_deps) pm_omp_task_mark_deps(t);
  return t;
}

void pm_omp_task_mark_deps(pm_omp_task *t) {
  if (!t || t->has_deps || t->done) return;
  if (__atomic_add_fetch(&live_with_deps, 1, __ATOMIC_RELAXED) > PM_OMP_MAX_RETIRED) {
    __atomic_fetch_sub(&live_with_deps, 1, __ATOMIC_RELAXED);
    return; /* over the bound: its edges will not be followed */
  }
  t->has_deps = 1;
  memset(&t->end, 0, sizeof t->end); /* a successor may read it before the task ends (as none) */
}

void pm_omp_task_depend(pm_omp_task *src, pm_omp_task *sink) {
  /* a record without dependences is recycled at completion: it must not be kept as a predecessor */
  if (!src || !sink || !src->has_deps || sink->started || src == sink) return;
  if (sink->npred == sink->cappred) {
    uint32_t ncap = sink->cappred * 2;
    pm_omp_task **p = malloc(sizeof *p * ncap);
    if (!p) return; /* the edge is lost: the path is under-estimated */
    memcpy(p, sink->pred, sizeof *p * sink->npred);
    if (sink->pred != sink->pred_inline) free(sink->pred);
    sink->pred = p;
    sink->cappred = ncap;
  }
  sink->pred[sink->npred++] = src;
}

/* The end of t's body, L charged up to now. how: 1 completed (record reusable unless it has
 * dependences), 2 body finished but the task completes later (detach: the record must survive until
 * the next barrier). */
static void complete(pm_omp_thread *th, pm_loc *L, pm_omp_task *t, int how, uint64_t now) {
  /* only a successor reads the end clocks: a record without dependences is recycled right away */
  publish_end(L, t->has_deps || how == 2 ? &t->end : NULL, now);
  t->done = 1;
  if (t->has_deps || how == 2) {
    if (!t->has_deps) __atomic_fetch_add(&live_with_deps, 1, __ATOMIC_RELAXED);
    t->next = th->retired_tasks;
    th->retired_tasks = t;
    th->nretired++;
  } else {
    task_free(th, t);
  }
}

void pm_omp_task_switch(pm_loc *L, pm_omp_task *prior, int prior_done, pm_omp_task *next, uint64_t now) {
  pm_omp_thread *th = pm_omp_thread_of(L);
  if (!th) return;
  pm_state cur = pm_state_get(L);
  pm_omp_task *ended = NULL;
  if (prior) {
    if (!prior_done)
      prior->saved_state = (uint8_t)cur;
    else if (!prior->done)
      ended = prior;
  } else {
    th->impl_state = (uint8_t)cur;
  }
  /* the one transition charges the ended body up to now; its end clocks are taken right after it,
   * before the next task's inputs are merged */
  if (next && !next->started) {
    next->started = 1;
    pm_state_set(L, PM_STATE_USEFUL, now);
    if (ended) complete(th, L, ended, prior_done, now);
    pm_omp_merge(L, &next->create);
    for (uint32_t i = 0; i < next->npred; i++) pm_omp_merge(L, &next->pred[i]->end);
    drop_preds(next);
  } else {
    pm_state_set(L, (pm_state)(next ? next->saved_state : th->impl_state), now);
    if (ended) complete(th, L, ended, prior_done, now);
  }
}

void pm_omp_tasks_reset(void) {
  pthread_mutex_lock(&slab_lock);
  while (slabs) {
    slab *s = slabs;
    slabs = s->next;
    for (int i = 0; i < SLAB; i++)
      if (s->t[i].pred && s->t[i].pred != s->t[i].pred_inline) free(s->t[i].pred);
    free(s);
  }
  pthread_mutex_unlock(&slab_lock);
  live_with_deps = 0;
}
