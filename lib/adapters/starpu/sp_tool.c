/* StarPU adapter: StarPU 1.4's tool interface (starpu_profiling_tool.h), compiled against 1.4's
 * headers. StarPU 1.4 calls starpu_prof_tool_library_register in the library that STARPU_PROF_TOOL
 * names (dlopen; `popmeter run` sets it to libpopmeter), or the preloaded definition when a shared
 * StarPU calls its own weak one. It is the only way into a program linked with a static StarPU, whose
 * internal calls cannot be interposed.
 *
 * What the interface reports, and what popmeter makes of it:
 *   init begin / end (application thread)   StarPU's initialisation (RUNTIME under "starpu_init")
 *   driver init (each worker thread)        a worker location, idle since the initialisation began
 *   start / end of CPU and GPU execution    the task body: USEFUL under its codelet's region; the task
 *                                           (starpu_task_get_current on the worker) gives codelet,
 *                                           handles and access modes, tag and flops
 * The task DAG is built from data handles alone, when each task starts: a task starts only after
 * the tasks it depends on through its data have ended, and popmeter publishes a task's output when
 * its body ends, so the last writer and readers of a handle seen at a start are the task's data
 * predecessors. Not reported by the interface, hence absent here: submission, explicit and tag
 * dependencies, the ready and pop times, waits, StarPU-MPI's per-handle transfers. A worker's time
 * outside bodies counts as idle, so runtime overhead is not separable: the profile says so
 * (runtime_observed false) and the task model prints e_runtime as n/a.
 * (The interface's transfer events are the data wizard's progress calls, not bus transfers, and
 * their byte fields count requests: bus transfers come from the handles' placement, as for 1.3.)
 *
 * StarPU functions are looked up with dlsym (sp_real.c): a program linked with a static StarPU must
 * export them, with -rdynamic as starpu-1.4.pc's Libs do; otherwise tasks are not measured and the
 * run says why. */
#define _GNU_SOURCE
#include "sp_task_fields.h"
#include "pm_lifecycle.h"
#include <dlfcn.h>
#include <starpu_profiling_tool.h>

static int tool_on;              /* StarPU 1.4 with every function popmeter calls */
static __thread int tls_in_init; /* this thread is inside starpu_init (region open) */

static int version_ok(const struct starpu_prof_tool_info *pi) {
  static int told;
  if (pi->starpu_version[0] == 1 && pi->starpu_version[1] == 4) return 1;
  if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
    pm_warn("StarPU tool interface: StarPU %u.%u.%u is not 1.4 (the version popmeter's tool adapter was built for); "
            "tasks are not measured",
            pi->starpu_version[0], pi->starpu_version[1], pi->starpu_version[2]);
  return 0;
}

static void on_init_begin(struct starpu_prof_tool_info *pi, union starpu_prof_tool_event_info *ei,
                          struct starpu_prof_tool_api_info *ai) {
  (void)ei;
  (void)ai;
  if (!version_ok(pi) || !pm_core_activate()) return;
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  sp_regions_init();
  uint64_t t0 = pm_clock_now();
  if (!sp_t_init) sp_t_init = t0;
  pm_loc_set_thread_classifier(sp_classify_thread);
  sp_thread *T = sp_self();
  if (T) T->kind = SP_THREAD_APP;
  if (sp_resolve() == 0) {
    __atomic_store_n(&tool_on, 1, __ATOMIC_RELEASE);
    pm_tg_mark_runtime_unobserved();
  } else {
    pm_warn("StarPU tool interface: StarPU's functions (starpu_task_get_current, starpu_worker_get_id, ...) are not "
            "visible to popmeter; a program linked with a static StarPU must be linked with -rdynamic; tasks are "
            "not measured");
  }
  /* StarPU 1.4.7 reports the beginning twice: the region is opened once */
  if (!tls_in_init) {
    tls_in_init = 1;
    pm_call_enter(L, sp_region[SP_R_INIT], PM_STATE_RUNTIME, t0);
  }
  pm_leave_tool(L);
}

static void on_init_end(struct starpu_prof_tool_info *pi, union starpu_prof_tool_event_info *ei,
                        struct starpu_prof_tool_api_info *ai) {
  (void)pi;
  (void)ei;
  (void)ai;
  if (!tls_in_init) return;
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  tls_in_init = 0;
  pm_call_exit(L, pm_clock_now());
  pm_leave_tool(L);
}

/* The calling thread as a worker (first sight), or NULL when it is none. fallback_id: the event's
 * worker id, trusted only where 1.4.7 fills it (driver init; the exec events say 0 for every worker). */
static sp_thread *worker_self(pm_loc *L, int fallback_id) {
  sp_thread *T = sp_self();
  if (!T) return NULL;
  if (PM_LIKELY(T->kind == SP_THREAD_WORKER)) return T;
  return sp_classify_worker(T, L, fallback_id) ? T : NULL;
}

static void on_driver_init(struct starpu_prof_tool_info *pi, union starpu_prof_tool_event_info *ei,
                           struct starpu_prof_tool_api_info *ai) {
  (void)ei;
  (void)ai;
  if (!__atomic_load_n(&tool_on, __ATOMIC_ACQUIRE)) return;
  pm_loc *L = pm_loc_self();
  if (L) worker_self(L, pi->worker_id);
}

/* Start of a task body, on its worker. */
static void on_exec_start(struct starpu_prof_tool_info *pi, union starpu_prof_tool_event_info *ei,
                          struct starpu_prof_tool_api_info *ai) {
  (void)pi;
  (void)ei;
  (void)ai;
  if (!__atomic_load_n(&tool_on, __ATOMIC_ACQUIRE)) return;
  pm_loc *L = pm_loc_self();
  sp_thread *T = L ? worker_self(L, -1) : NULL;
  struct starpu_task *task = T ? sp_fn.task_get_current() : NULL;
  if (!task || !task->cl) return;
  pm_tg_task *rec = pm_tg_task_new_unmapped(task);
  if (!rec) return;
  /* one body at a time per worker, except asynchronous accelerator bodies: those are found by pointer */
  if (T->tool_task && pm_tg_task_map(rec) != 0) {
    pm_tg_task_unref(rec);
    return;
  }
  if (!T->tool_task) T->tool_task = rec;
  fill_record(rec, task);
  rec->predicted = task->predicted;
  rec->flags |= PM_TG_SUBMITTED; /* (submission is not reported: no submitter clock to merge) */
  sp_body_start(rec, L, T);
}

static void on_exec_end(struct starpu_prof_tool_info *pi, union starpu_prof_tool_event_info *ei,
                        struct starpu_prof_tool_api_info *ai) {
  (void)pi;
  (void)ei;
  (void)ai;
  if (!__atomic_load_n(&tool_on, __ATOMIC_ACQUIRE)) return;
  pm_loc *L = pm_loc_self();
  sp_thread *T = L ? sp_self() : NULL;
  struct starpu_task *task = T ? sp_fn.task_get_current() : NULL;
  if (!task) return;
  pm_tg_task *rec = T->tool_task && T->tool_task->key == task ? T->tool_task : pm_tg_task_find(task);
  if (!rec || (rec->flags & (PM_TG_STARTED | PM_TG_ENDED)) != PM_TG_STARTED) return;
  sp_body_end(rec, L, T);
  if (rec == T->tool_task)
    T->tool_task = NULL;
  else
    pm_tg_task_unmap(rec);
  pm_tg_task_unref(rec);
}

SP_EXPORT void starpu_prof_tool_library_register(starpu_prof_tool_entry_register_func reg,
                                                 starpu_prof_tool_entry_register_func unreg) {
  (void)unreg;
  if (!reg) return;
  /* StarPU dlcloses the library STARPU_PROF_TOOL named at shutdown: popmeter must outlive that (its
   * report runs at exit, its threads' data is read then), so it marks itself never to be unloaded */
  Dl_info self;
  if (dladdr((void *)on_init_begin, &self) && self.dli_fname) { /* (a static function: this library) */
    void *pin = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (!pin) pm_warn("StarPU tool interface: cannot keep %s loaded (%s)", self.dli_fname, dlerror());
  }
  reg(starpu_prof_tool_event_init_begin, on_init_begin, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_init_end, on_init_end, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_driver_init, on_driver_init, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_start_cpu_exec, on_exec_start, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_end_cpu_exec, on_exec_end, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_start_gpu_exec, on_exec_start, starpu_prof_tool_command_reg);
  reg(starpu_prof_tool_event_end_gpu_exec, on_exec_end, starpu_prof_tool_command_reg);
}

int sp_tool_expected(void) { return 1; }
