/* StarPU adapter: tasks. Submission (starpu_task_submit, which starpu_task_insert and
 * starpu_mpi_task_insert call through the PLT), ready and pop times (chained prologue callbacks),
 * body start and end (exec hooks, sp_lifecycle.c), the end of body-less tasks (chained callback).
 *
 * Per task, popmeter keeps a record (pm_tg_task, from a slab) found from the task pointer; it is
 * dropped when the task ends, because StarPU's task pointers are recycled (docs/runtime-facts.md §2.3). The task is
 * read and changed only before the real submit returns control (a detached task may already be
 * freed afterwards) and in its own hooks. What the application set stays observable: its prologue
 * callbacks are called from ours with their own arguments, and the task's fields are restored when
 * its body ends; popmeter never touches callback_arg nor the *_arg_free flags. */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include "sp_task_fields.h"
#include "pm_lifecycle.h"
#include "pm_location.h"
#include "pm_ptrmap.h"
#include "pm_task_comm.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U_PROLOGUE = 0, U_POP_PROLOGUE = 1, U_CALLBACK = 2 }; /* pm_tg_task.user[] slots */

static int has_body(const struct starpu_task *task) {
  if (!task->cl) return 0;
  int32_t where = task->where != -1 ? task->where : (int32_t)task->cl->where;
  return where != STARPU_NOWHERE;
}

/* ------------------------------------------------------------------------------- prologues */
/* Ready time (prologue_callback_func, any thread) and pop time (prologue_callback_pop_func, the
 * worker). When the application set no such prologue (the common case), popmeter's takes the
 * record itself as argument ("direct": no lookup on the per-task path); otherwise popmeter's
 * chains the application's, whose argument stays in place, and finds the record from the task. */
static void on_ready(pm_tg_task *rec) { rec->t_ready = pm_clock_now(); }

static void on_pop(pm_tg_task *rec) {
  pm_tg_task_prefetch(rec);
  uint64_t t = pm_clock_now();
  rec->t_pop = t;
  pm_loc *L = pm_loc_self();
  sp_thread *T = L ? sp_self() : NULL;
  if (!T) return;
  if (PM_UNLIKELY(T->kind != SP_THREAD_WORKER)) sp_classify_worker(T, L, -1);
  if (T->running == 0 && L->depth == 0) pm_state_set(L, PM_STATE_RUNTIME, t);
}

static void ready_direct(void *arg) { on_ready(arg); }
static void pop_direct(void *arg) { on_pop(arg); }

/* The record a direct pop prologue carries, or NULL (none, or another task's: a copied task). */
static pm_tg_task *direct_record(const struct starpu_task *task) {
  if (PM_LIKELY(task->prologue_callback_pop_func == pop_direct)) {
    pm_tg_task *rec = task->prologue_callback_pop_arg;
    if (PM_LIKELY(rec && rec->key == task)) return rec;
  }
  return NULL;
}

/* The record of a task: from the pop prologue's argument when direct, else from the task map. */
static pm_tg_task *record_of(struct starpu_task *task) {
  pm_tg_task *rec = direct_record(task);
  return rec ? rec : pm_tg_task_find(task);
}

static pm_tg_task *current_record(void) {
  struct starpu_task *task = sp_fn.task_get_current();
  return task ? record_of(task) : NULL;
}
static void ready_chained(void *arg) {
  pm_tg_task *rec = current_record();
  if (!rec) return;
  on_ready(rec);
  void (*orig)(void *) = (void (*)(void *))rec->user[U_PROLOGUE];
  if (orig) orig(arg);
}
static void pop_chained(void *arg) {
  pm_tg_task *rec = current_record();
  if (!rec) return;
  on_pop(rec);
  void (*orig)(void *) = (void (*)(void *))rec->user[U_POP_PROLOGUE];
  if (orig) orig(arg);
}

/* One prologue slot (function, argument, its free flag) for record rec: direct where the application
 * has no prologue, chained to the application's otherwise. A direct one already there is ours (a
 * declaration installed it, sp_task_record_unsubmitted) and points at rec; one the application
 * replaced since is chained like any of its own, with the argument it had before ours (NULL) when
 * it replaced only the function. */
typedef void (*sp_prologue_fn)(void *);
static void install_prologue(sp_prologue_fn *fn, void **arg, unsigned arg_free, sp_prologue_fn direct,
                             sp_prologue_fn chained, void **saved, pm_tg_task *rec) {
  if (*fn == chained) return;
  if (*fn == direct) {
    if (*arg == rec) return;
    *saved = NULL; /* the application set an argument of its own but no function: keep its argument */
    *fn = chained;
    return;
  }
  if (*arg == rec) *arg = NULL;
  if (!*fn && !*arg && !arg_free) {
    *fn = direct;
    *arg = rec;
  } else {
    *saved = (void *)*fn;
    *fn = chained;
  }
}

static int no_prologues(const struct starpu_task *task) {
  return !task->prologue_callback_func && !task->prologue_callback_arg && !task->prologue_callback_arg_free &&
         !task->prologue_callback_pop_func && !task->prologue_callback_pop_arg && !task->prologue_callback_pop_arg_free;
}

static void install_prologues(struct starpu_task *task, pm_tg_task *rec) {
  install_prologue(&task->prologue_callback_func, &task->prologue_callback_arg, task->prologue_callback_arg_free,
                   ready_direct, ready_chained, &rec->user[U_PROLOGUE], rec);
  install_prologue(&task->prologue_callback_pop_func, &task->prologue_callback_pop_arg,
                   task->prologue_callback_pop_arg_free, pop_direct, pop_chained, &rec->user[U_POP_PROLOGUE], rec);
}

/* End of a task without body: StarPU runs its callback (after releasing its successors, which
 * pm_tg_task_value covers) -- the only event such a task produces. */
static void bodyless_callback(void *arg) {
  struct starpu_task *task = sp_fn.task_get_current();
  pm_tg_task *rec = task ? pm_tg_task_find(task) : NULL;
  if (!rec) return;
  void (*orig)(void *) = (void (*)(void *))rec->user[U_CALLBACK];
  task->callback_func = orig;
  pm_tg_task_end_bodyless(rec);
  pm_tg_task_unmap(rec);
  pm_tg_task_unref(rec);
  if (orig) orig(arg);
}

static void restore_fields(struct starpu_task *task, pm_tg_task *rec) {
  if (task->prologue_callback_func == ready_direct) {
    task->prologue_callback_func = NULL;
    task->prologue_callback_arg = NULL;
  } else if (task->prologue_callback_func == ready_chained)
    task->prologue_callback_func = (void (*)(void *))rec->user[U_PROLOGUE];
  if (task->prologue_callback_pop_func == pop_direct) {
    task->prologue_callback_pop_func = NULL;
    task->prologue_callback_pop_arg = NULL;
  } else if (task->prologue_callback_pop_func == pop_chained)
    task->prologue_callback_pop_func = (void (*)(void *))rec->user[U_POP_PROLOGUE];
  if (task->callback_func == bodyless_callback) task->callback_func = (void (*)(void *))rec->user[U_CALLBACK];
}

/* ------------------------------------------------------------------------------- submission */
/* A worker's clock as a dependency source. What a worker does outside bodies runs in task
 * callbacks (starpu_data_acquire_cb, which starpu_data_unregister_submit uses: the callback of
 * one body-less task submits the next there) and continues the task whose callback runs: that task's clock so far (its
 * start clock and body time), or what a successor sees of it (ended, or body-less). The worker's
 * own time is its bodies, in their tasks' clocks already; counted as the thread's own time
 * (pm_tg_thread_sync), it put every body the worker had run on the path of each task submitted
 * there (mfsolve on 2 ranks x 1 worker: a path of the worker's whole busy time, "application
 * threads"). No current task: only the location's happens-before clocks. */
static void worker_clock(pm_tg_clk *out, pm_loc *L) {
  struct starpu_task *cur = sp_fn.task_get_current ? sp_fn.task_get_current() : NULL;
  pm_tg_task *r = cur ? record_of(cur) : NULL;
  uint32_t flags = r ? __atomic_load_n(&r->flags, __ATOMIC_ACQUIRE) : 0;
  if ((flags & (PM_TG_STARTED | PM_TG_ENDED)) == PM_TG_STARTED) { /* in a body's callback */
    *out = *pm_tg_task_clk(r);
    uint64_t now = pm_clock_now(), body = now > r->t_start ? now - r->t_start : 0;
    pm_tg_clk_advance(out, body, body, body, pm_tg_key(pm_core_rank(), pm_ts_codelet_hash(r->codelet)));
  } else if (r) { /* ended, or body-less (StarPU-MPI's data acquisitions): what a successor sees */
    pm_tg_task_value(r, out);
  } else {
    memset(out, 0, sizeof *out);
  }
  out->hb_pl = pm_cp_process(L);
  out->hb_g = pm_cp_global(L);
}

void sp_thread_clock(pm_tg_clk *out, pm_loc *L, sp_thread *T) {
  if (T && T->kind == SP_THREAD_WORKER) {
    worker_clock(out, L);
    return;
  }
  if (T) {
    pm_tg_thread_clock(&T->th, L, pm_core_rank(), out);
    return;
  }
  memset(out, 0, sizeof *out);
  out->hb_pl = pm_cp_process(L);
  out->hb_g = pm_cp_global(L);
}

/* Records made before submission (declare_deps names tasks not yet submitted): while there has
 * been none, a submission needs no lookup. */
static int records_before_submit;

/* The record of a task named by the application (explicit dependencies): a submitted task with
 * a direct pop prologue carries it; otherwise it is found, or made, in the task map (in one step:
 * two threads may name one task at once). *made: 1 when this call made it. */
static pm_tg_task *record_named(struct starpu_task *task, int *made) {
  *made = 0;
  pm_tg_task *rec = record_of(task);
  if (rec) return rec;
  __atomic_store_n(&records_before_submit, 1, __ATOMIC_RELEASE);
  return pm_tg_task_find_or_new(task, made);
}

pm_tg_task *sp_task_record(struct starpu_task *task) {
  int made;
  return record_named(task, &made);
}

/* The same for the successor of a dependency declaration, which StarPU requires to be the caller's
 * and not yet submitted: a record made here gets its direct prologues now, when the task has
 * none, so that its next lookups (further declarations, its submission) need no map: with many
 * tasks pending, each map access is a cache miss, and the removal at the task's end one more on
 * another thread. The record stays mapped until the submission, which looks it up there should
 * the application have set prologues of its own in between (install_prologue chains them). Never
 * for a predecessor: another thread may be submitting it. */
pm_tg_task *sp_task_record_unsubmitted(struct starpu_task *task) {
  int made;
  pm_tg_task *rec = record_named(task, &made);
  if (rec && made && task->status == STARPU_TASK_INIT && has_body(task) && no_prologues(task))
    install_prologues(task, rec); /* both direct */
  return rec;
}

/* The record a task brings to its submission: its direct prologue's argument, else (when records
 * were made before submission at all) the task map's. */
static pm_tg_task *submitted_record(struct starpu_task *task) {
  pm_tg_task *rec = direct_record(task);
  if (rec) return rec;
  return __atomic_load_n(&records_before_submit, __ATOMIC_ACQUIRE) ? pm_tg_task_find(task) : NULL;
}

static pm_tg_task *track_submit(struct starpu_task *task, pm_loc *L, uint64_t t) {
  pm_tg_task *rec = submitted_record(task);
  if (rec && (rec->flags & PM_TG_SUBMITTED)) { /* a stale record of a recycled task pointer */
    restore_fields(task, rec);
    pm_tg_task_unmap(rec);
    pm_tg_task_unref(rec);
    rec = NULL;
  }
  /* a record is reached from its task through the pop prologue's argument (direct mode); only
   * tasks that need a lookup by pointer go into the task map */
  if (!rec) {
    if (!(rec = pm_tg_task_new_unmapped(task))) return NULL;
    rec->flags |= PM_TG_FRESH;
  }
  if (has_body(task)) {
    fill_record(rec, task);
    install_prologues(task, rec);
    if (task->prologue_callback_pop_func != pop_direct) {
      if (pm_tg_task_map(rec) != 0) {
        restore_fields(task, rec);
        pm_tg_task_unref(rec);
        return NULL;
      }
    } else if (!rec->ends) /* reached through its prologue from now on (end dependencies look it up) */
      pm_tg_task_unmap(rec);
  } else {
    restore_fields(task, rec); /* prologues installed while it had a codelet */
    if (pm_tg_task_map(rec) != 0) {
      pm_tg_task_unref(rec);
      return NULL;
    }
    rec->tag = task->tag_id;
    if (task->use_tag) rec->flags |= PM_TG_USE_TAG;
    if (task->callback_func != bodyless_callback) {
      rec->user[U_CALLBACK] = (void *)task->callback_func;
      task->callback_func = bodyless_callback;
    }
  }
  sp_thread *T = sp_self();
  if (T && T->kind == SP_THREAD_WORKER) {
    pm_tg_clk c;
    sp_thread_clock(&c, L, T);
    pm_tg_task_submit(rec, &c, t);
  } else if (T) {
    pm_tg_task_submit_by(rec, &T->th, L, pm_core_rank(), t);
  } else {
    pm_tg_task_submit(rec, NULL, t);
  }
  return rec;
}

SP_EXPORT int starpu_task_submit(struct starpu_task *task) {
  static int (*real)(struct starpu_task *);
  SP_REAL(real, starpu_task_submit);
  if (!real) return -ENOSYS;
  if (!PM_LIKELY(sp_on) || !task) return real(task);
  pm_loc *L = pm_enter_tool();
  if (!L) return real(task);
  unsigned ctx = task->sched_ctx < STARPU_NMAX_SCHED_CTXS ? task->sched_ctx : sp_fn.sched_ctx_get_context();
  if (ctx < STARPU_NMAX_SCHED_CTXS) sp_patch_ctx(ctx);
  uint64_t t0 = pm_clock_now();
  pm_call_enter(L, sp_region[SP_R_SUBMIT], PM_STATE_RUNTIME, t0);
  pm_tg_task *rec = track_submit(task, L, t0);
  pm_leave_tool(L);
  int rc = real(task);
  if ((L = pm_enter_tool()) != NULL) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  if (rc != 0 && rec) { /* not submitted: the task is still the application's */
    restore_fields(task, rec);
    pm_tg_task_unmap(rec);
    pm_tg_task_unref(rec);
  }
  return rc;
}

/* ------------------------------------------------------------------------------- bodies */
void sp_task_pre_exec(struct starpu_task *task) {
  pm_loc *L = pm_loc_self();
  if (!L) return;
  sp_thread *T = sp_self();
  if (!T) return;
  if (PM_UNLIKELY(T->kind != SP_THREAD_WORKER)) sp_classify_worker(T, L, -1);
  pm_tg_task *rec = record_of(task);
  if (PM_UNLIKELY(!rec || !(rec->flags & PM_TG_HAS_BODY))) {
    /* a task regenerated by StarPU (no new submission) or declared but never seen submitted */
    if (!rec && !(rec = pm_tg_task_new(task))) return;
    fill_record(rec, task);
    rec->flags |= PM_TG_SUBMITTED;
  }
  rec->predicted = task->predicted;
  sp_body_start(rec, L, T);
}

/* When rec's body ended: the time _starpu_driver_end_job read for it on its worker T, or now when
 * that reading is another body's (or none). */
static uint64_t driver_end_time(const sp_thread *T, const pm_tg_task *rec) {
  return T->body == rec && T->body_end_t >= rec->t_start ? T->body_end_t : pm_clock_now();
}

void sp_task_post_exec(struct starpu_task *task) {
  pm_tg_task *rec = record_of(task);
  if (!rec) return;
  pm_loc *L = pm_loc_self();
  sp_thread *T = L ? sp_self() : NULL;
  /* (a task with end dependencies ended its body in _starpu_driver_end_job, on its worker). The
   * body ended when the driver said so, right after the codelet returned: what StarPU did since
   * (the output's coherency, the job's termination up to this hook) is the runtime's, not the
   * task's, and needs no clock read here */
  if (T && (rec->flags & (PM_TG_STARTED | PM_TG_ENDED)) == PM_TG_STARTED) {
    uint64_t t = driver_end_time(T, rec);
    /* not before an event the worker had since (a callback StarPU ran in between that submitted a
     * task): the body's node stayed open over it */
    sp_body_end_at(rec, L, T, t > L->t_last ? t : L->t_last);
  }
  /* also once popmeter has finalized: the task is the application's again either way */
  restore_fields(task, rec);
  pm_tg_task_unmap(rec);
  pm_tg_task_unref(rec);
}

void sp_task_body_unfinished(sp_thread *T, pm_loc *L) {
  pm_tg_task *rec = T->body;
  T->body = NULL;
  if ((rec->flags & (PM_TG_STARTED | PM_TG_ENDED)) == PM_TG_STARTED) {
    uint64_t t = T->body_end_t > rec->t_start ? T->body_end_t : pm_clock_now();
    sp_body_end_at(rec, L, T, t);
    /* since then the worker waited: for work, or paused (starpu_pause) before it could look */
    if (T->running == 0 && L->depth == 0) pm_state_set(L, PM_STATE_IDLE, t);
  }
  /* what the post-exec hook would have done, but the task itself: its owner may have destroyed it
   * already. A record reached through the task's prologue (not mapped) stays: nothing else points
   * to it once the task is gone (one record per such task) */
  if (rec->flags & PM_TG_MAPPED) {
    pm_tg_task_unmap(rec);
    pm_tg_task_unref(rec);
  }
}

/* StarPU 1.3 runs the post-exec hook at a task's termination, and the termination of a task with
 * end dependencies (starpu_task_end_dep_add, declare_end_deps) waits for the last release: it then
 * runs on the releasing thread, possibly much later. The drivers call this right after each body,
 * on the worker that ran it, through the PLT: such a task's body ends here. Other tasks end in the
 * post-exec hook (whose place is proven, docs/runtime-facts.md §2.2), at the time read here. */
SP_EXPORT void _starpu_driver_end_job(void *worker, void *job, void *perf_arch, int rank, int profiling) {
  static void (*real)(void *, void *, void *, int, int);
  SP_REAL(real, _starpu_driver_end_job);
  /* the end of the body, should its post-exec hook never come (sp_task_body_unfinished) */
  if (PM_LIKELY(sp_on)) {
    sp_thread *T = sp_self();
    if (T && T->body) T->body_end_t = pm_clock_now();
  }
  /* no lookup per task unless the program declared end dependencies at all */
  struct starpu_task *task = sp_on && __atomic_load_n(&sp_end_deps_used, __ATOMIC_ACQUIRE) && sp_fn.task_get_current
                                 ? sp_fn.task_get_current()
                                 : NULL;
  pm_tg_task *rec = task ? record_of(task) : NULL;
  if (rec && rec->ends && (rec->flags & (PM_TG_STARTED | PM_TG_ENDED)) == PM_TG_STARTED) {
    pm_loc *L = pm_loc_self();
    sp_thread *T = L ? sp_self() : NULL;
    if (T) sp_body_end_at(rec, L, T, driver_end_time(T, rec));
  }
  if (real) real(worker, job, perf_arch, rank, profiling);
}
