/* StarPU adapter: activation at starpu_initialize, the scheduler's exec hooks, the worker timeline.
 *
 * Exec hooks: after the real starpu_initialize, pre_exec_hook / post_exec_hook of the policy of
 * each scheduling context are replaced by trampolines that chain the policy's own hooks (StarPU
 * copies the policy per context, and passing a wrapped policy in the conf fails once STARPU_SCHED
 * is set -- docs/runtime-facts.md §2.2). The global context is patched at init; other contexts when the first task
 * is submitted to them (starpu_sched_ctx_create is variadic and cannot be forwarded).
 * StarPU 1.3 runs the post-exec hook before releasing the task's dependencies, so a successor
 * never starts before its predecessor's end was published (pm_taskgraph.h).
 *
 * Worker timeline: IDLE from StarPU's init (the worker exists from then on), whenever the
 * worker looks for a task (_starpu_get_worker_task, which both the CPU and the OpenCL drivers call
 * through the PLT and in which a worker without work sleeps) and while StarPU is paused; RUNTIME
 * from the pop of a task (pop prologue) to the start of its body (data fetch) and after the body
 * (dependency release, callbacks); USEFUL during the body (pre_exec -> post_exec), under the
 * codelet's region. */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include "pm_lifecycle.h"
#include "pm_location.h"
#include "pm_task_comm.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int sp_on;

/* A CPU body still open is over: its post-exec hook never came (sp_task_body_unfinished; an OpenCL
 * body may still run). */
static void end_hookless_body(sp_thread *T, pm_loc *L) {
  if (PM_UNLIKELY(T->body != NULL) && T->wtype == 0) sp_task_body_unfinished(T, L);
}

/* A worker waits, for a task or paused: its last body is over, and unless a body runs the worker
 * is idle. */
static void worker_waits(sp_thread *T, pm_loc *L) {
  end_hookless_body(T, L);
  if (T->running == 0 && L->depth == 0 && pm_state_get(L) != PM_STATE_IDLE)
    pm_state_set(L, PM_STATE_IDLE, pm_clock_now());
}

/* A worker looks for its next task. */
SP_EXPORT struct starpu_task *_starpu_get_worker_task(void *worker, int workerid, unsigned memnode) {
  static struct starpu_task *(*real)(void *, int, unsigned);
  SP_REAL(real, _starpu_get_worker_task);
  if (PM_LIKELY(sp_on)) {
    pm_loc *L = pm_loc_self();
    sp_thread *T = L ? sp_self() : NULL;
    if (T) {
      if (PM_UNLIKELY(T->kind != SP_THREAD_WORKER)) sp_classify_worker(T, L, -1);
      worker_waits(T, L);
    }
  }
  return real ? real(worker, workerid, memnode) : NULL;
}

/* A thread that drives a worker itself (starpu_driver_run_once: StarPU-MPI's progression thread when
 * STARPU_MPI_DRIVER_CALL_FREQUENCY > 0) goes back to its own loop in between, where it calls MPI
 * without looking for a task first: a body StarPU ran no post-exec hook for (a task of
 * starpu_execute_on_each_worker) is over when the call returns, else the loop's time and calls are
 * charged to the body (18 ms of a progression loop's time under execute_on_all_wrapper, seen with
 * sanitizers). Other bodies ended in their post-exec hook, inside the call. */
SP_EXPORT int starpu_driver_run_once(struct starpu_driver *d) {
  static int (*real)(struct starpu_driver *);
  SP_REAL(real, starpu_driver_run_once);
  int ret = real ? real(d) : -ENOSYS;
  if (PM_LIKELY(sp_on)) {
    pm_loc *L = pm_loc_self();
    sp_thread *T = L ? sp_self() : NULL;
    if (T && T->kind == SP_THREAD_WORKER) end_hookless_body(T, L);
  }
  return ret;
}

/* starpu_pause / starpu_resume: how deep StarPU is paused. A paused worker waits at the top of its
 * loop (_starpu_may_pause, called through the PLT by the CPU and OpenCL drivers) without looking for
 * a task: idle, not in the state its last task left (runtime), and a body StarPU ran no post-exec
 * hook for ends where the driver ended it. Unpaused, the check is one load. */
static int pause_depth;

SP_EXPORT void starpu_pause(void) {
  static void (*real)(void);
  SP_REAL(real, starpu_pause);
  __atomic_add_fetch(&pause_depth, 1, __ATOMIC_RELEASE);
  if (real) real();
}

SP_EXPORT void starpu_resume(void) {
  static void (*real)(void);
  SP_REAL(real, starpu_resume);
  if (real) real();
  int d = __atomic_load_n(&pause_depth, __ATOMIC_RELAXED);
  while (d > 0 && !__atomic_compare_exchange_n(&pause_depth, &d, d - 1, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
}

SP_EXPORT void _starpu_may_pause(void) {
  static void (*real)(void);
  SP_REAL(real, _starpu_may_pause);
  if (PM_UNLIKELY(__atomic_load_n(&pause_depth, __ATOMIC_ACQUIRE) > 0) && sp_on) {
    pm_loc *L = pm_loc_self();
    sp_thread *T = L ? sp_self() : NULL;
    if (T && T->kind == SP_THREAD_WORKER) worker_waits(T, L);
  }
  if (real) real();
}

/* ---------------------------------------------------------------------------- exec hooks */
typedef void (*exec_hook)(struct starpu_task *, unsigned);
static struct {
  exec_hook pre, post;
  struct starpu_sched_policy *policy;
} ctxs[STARPU_NMAX_SCHED_CTXS];
static int patched[STARPU_NMAX_SCHED_CTXS];
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;

static void pre_exec_trampoline(struct starpu_task *task, unsigned ctx) {
  /* the policy's own hook first: our timestamp is then the closest to the body */
  if (ctx < STARPU_NMAX_SCHED_CTXS && ctxs[ctx].pre) ctxs[ctx].pre(task, ctx);
  sp_task_pre_exec(task);
}
static void post_exec_trampoline(struct starpu_task *task, unsigned ctx) {
  sp_task_post_exec(task);
  if (ctx < STARPU_NMAX_SCHED_CTXS && ctxs[ctx].post) ctxs[ctx].post(task, ctx);
}

void sp_patch_ctx(unsigned ctx) {
  if (ctx >= STARPU_NMAX_SCHED_CTXS || __atomic_load_n(&patched[ctx], __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&patch_lock);
  struct starpu_sched_policy *p = patched[ctx] ? NULL : sp_fn.sched_ctx_get_sched_policy(ctx);
  if (p) {
    /* a policy we already patched (shared or re-initialised) keeps its recorded originals */
    if (p->pre_exec_hook != pre_exec_trampoline) {
      ctxs[ctx].pre = p->pre_exec_hook;
      ctxs[ctx].post = p->post_exec_hook;
    }
    ctxs[ctx].policy = p;
    p->pre_exec_hook = pre_exec_trampoline;
    p->post_exec_hook = post_exec_trampoline;
    __atomic_store_n(&patched[ctx], 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&patch_lock);
}

static void unpatch_all(void) {
  pthread_mutex_lock(&patch_lock);
  memset(patched, 0, sizeof patched);
  memset(ctxs, 0, sizeof ctxs);
  pthread_mutex_unlock(&patch_lock);
}

/* --------------------------------------------------------------------------- init / shutdown */
SP_EXPORT int starpu_initialize(struct starpu_conf *conf, int *argc, char ***argv) {
  static int (*real)(struct starpu_conf *, int *, char ***);
  SP_REAL(real, starpu_initialize);
  if (!real) return -ENODEV;
  if (!pm_core_activate()) return real(conf, argc, argv);
  /* this file reads StarPU 1.3's structs: another version is left alone (1.4 is measured through its
   * tool interface, sp_tool.c) */
  int major, minor;
  if (sp_runtime_version(&major, &minor) != 0 || major != 1 || minor != 3) {
    static int told;
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED) &&
        !(major == 1 && minor == 4 && sp_tool_expected && sp_tool_expected()))
      pm_warn(
          "StarPU adapter: StarPU %d.%d is not 1.3 and popmeter has no tool interface for it; tasks are not measured",
          major, minor);
    return real(conf, argc, argv);
  }
  pm_loc *L = pm_enter_tool();
  if (!L) return real(conf, argc, argv);
  sp_regions_init();
  uint64_t t0 = pm_clock_now();
  if (!sp_t_init) sp_t_init = t0;
  pm_loc_set_thread_classifier(sp_classify_thread);
  sp_self()->kind = SP_THREAD_APP;
  pm_call_enter(L, sp_region[SP_R_INIT], PM_STATE_RUNTIME, t0);
  pm_leave_tool(L);
  int rc = real(conf, argc, argv);
  L = pm_enter_tool();
  if (rc == 0) {
    if (sp_resolve() == 0) {
      sp_patch_ctx(0);
      __atomic_store_n(&sp_on, 1, __ATOMIC_RELEASE);
    } else {
      pm_warn("StarPU adapter: this StarPU lacks functions popmeter needs; tasks are not measured");
    }
  }
  if (L) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  return rc;
}

SP_EXPORT void starpu_shutdown(void) {
  static void (*real)(void);
  SP_REAL(real, starpu_shutdown);
  if (!real) return;
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_call_enter(L, sp_region[SP_R_SHUTDOWN], PM_STATE_RUNTIME, pm_clock_now());
    pm_leave_tool(L);
  }
  real();
  __atomic_store_n(&sp_on, 0, __ATOMIC_RELEASE);
  unpatch_all();
  if (L && (L = pm_enter_tool()) != NULL) {
    pm_call_exit(L, pm_clock_now());
    sp_thread_merge_all(L, sp_self()); /* shutdown waited for every task */
    pm_leave_tool(L);
  }
}
