/* StarPU adapter: synchronisation and dependencies.
 *  - waits (task / tag / all): the waiting thread is in SYNC_WAIT, then merges the clocks of every
 *    task ended so far (the tasks it waited for are among them; merging the others too can only
 *    lengthen its clock by tasks that ended before the wait returned -- an over-approximation
 *    that is exact for starpu_task_wait_for_all, the common case);
 *  - data acquire / release by application threads: the thread depends on the handle's last
 *    writer; releasing a handle acquired for writing makes the thread its last writer;
 *  - explicit task dependencies and tag dependencies (recorded for pm_taskgraph);
 *  - handle lifetime: registration and unregistration drop the handle's state (its address may be
 *    recycled); synchronous partitioning hands the parent's clock to the children and back. */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include "pm_lifecycle.h"
#include "pm_location.h"
#include "pm_task_comm.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Merges one clock (a handle's, or every task's) into the calling thread: its location takes the
 * happens-before clocks, its DAG clock the DAG clocks. */
static void thread_merge(pm_loc *L, sp_thread *T, const pm_tg_clk *c) {
  pm_cp_merge_process(L, c->hb_pl);
  pm_cp_merge_global(L, c->hb_g);
  if (!T) return;
  pm_tg_thread_sync(&T->th, L, pm_core_rank()); /* own time up to now first, then the edge */
  pm_tg_thread_merge(&T->th, c);
}

void sp_thread_merge_all(pm_loc *L, sp_thread *T) {
  pm_tg_clk all;
  pm_tg_max_so_far(&all);
  thread_merge(L, T, &all);
}

static pm_loc *wait_begin(void) {
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_call_enter(L, sp_region[SP_R_WAIT], PM_STATE_SYNC_WAIT, pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}
static void wait_end(pm_loc *L) {
  if (!L || !(L = pm_enter_tool())) return;
  pm_call_exit(L, pm_clock_now());
  sp_thread_merge_all(L, sp_self());
  pm_leave_tool(L);
}

SP_EXPORT int starpu_task_wait_for_all(void) {
  static int (*real)(void);
  SP_REAL(real, starpu_task_wait_for_all);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real();
  wait_end(L);
  return rc;
}

SP_EXPORT int starpu_task_wait(struct starpu_task *task) {
  static int (*real)(struct starpu_task *);
  SP_REAL(real, starpu_task_wait);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real(task);
  wait_end(L);
  return rc;
}

SP_EXPORT int starpu_task_wait_array(struct starpu_task **tasks, unsigned nb_tasks) {
  static int (*real)(struct starpu_task **, unsigned);
  SP_REAL(real, starpu_task_wait_array);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real(tasks, nb_tasks);
  wait_end(L);
  return rc;
}

SP_EXPORT int starpu_task_wait_for_n_submitted(unsigned n) {
  static int (*real)(unsigned);
  SP_REAL(real, starpu_task_wait_for_n_submitted);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real(n);
  wait_end(L);
  return rc;
}

SP_EXPORT int starpu_tag_wait(starpu_tag_t id) {
  static int (*real)(starpu_tag_t);
  SP_REAL(real, starpu_tag_wait);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real(id);
  wait_end(L);
  return rc;
}

SP_EXPORT int starpu_tag_wait_array(unsigned ntags, starpu_tag_t *id) {
  static int (*real)(unsigned, starpu_tag_t *);
  SP_REAL(real, starpu_tag_wait_array);
  if (!real) return -ENOSYS;
  pm_loc *L = wait_begin();
  int rc = real(ntags, id);
  wait_end(L);
  return rc;
}

/* ------------------------------------------------------------------------- data acquire / release */
/* Handles a thread holds (acquired by the application), to know at release whether it wrote. */
#define HELD_MAX 16
typedef struct {
  starpu_data_handle_t h;
  int acc;
} held;
static __thread held tls_held[HELD_MAX];
static __thread int tls_nheld;

static void acquired(starpu_data_handle_t h, int node, enum starpu_data_access_mode mode) {
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  sp_thread *T = sp_self();
  int acc = sp_access_class(mode);
  pm_tg_handle *hh = pm_tg_handle_get(h);
  if (hh) {
    pm_tg_clk c;
    memset(&c, 0, sizeof c);
    pm_tg_handle_pre(hh, acc, &c);
    thread_merge(L, T, &c);
    if (pm_tg_handle_place(hh, node, (mode & STARPU_R) != 0, (mode & STARPU_W) != 0))
      pm_tc_transfer(node, sp_fn.data_get_size(h));
    pm_tg_handle_put(hh);
  }
  if (tls_nheld < HELD_MAX) tls_held[tls_nheld++] = (held){h, acc};
  pm_leave_tool(L);
}

/* The application releases h: if it had acquired it for writing, it is h's last writer now. */
static void released(starpu_data_handle_t h) {
  int acc = PM_TG_ACC_NONE;
  for (int i = tls_nheld - 1; i >= 0; i--)
    if (tls_held[i].h == h) {
      acc = tls_held[i].acc;
      tls_held[i] = tls_held[--tls_nheld];
      break;
    }
  if (acc != PM_TG_ACC_WRITE && acc != PM_TG_ACC_COMMUTE) return;
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  pm_tg_handle *hh = pm_tg_handle_get(h);
  if (hh) {
    pm_tg_clk c;
    pm_state_set(L, pm_state_get(L), pm_clock_now()); /* bring the thread's clocks up to now */
    sp_thread_clock(&c, L, sp_self());
    pm_tg_handle_post(hh, PM_TG_ACC_WRITE, &c);
    pm_tg_handle_put(hh);
  }
  pm_leave_tool(L);
}

SP_EXPORT int starpu_data_acquire(starpu_data_handle_t h, enum starpu_data_access_mode mode) {
  static int (*real)(starpu_data_handle_t, enum starpu_data_access_mode);
  SP_REAL(real, starpu_data_acquire);
  if (!real) return -ENOSYS;
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_call_enter(L, sp_region[SP_R_ACQUIRE], PM_STATE_SYNC_WAIT, pm_clock_now());
    pm_leave_tool(L);
  }
  int rc = real(h, mode);
  if (L && (L = pm_enter_tool())) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  if (L && rc == 0) acquired(h, STARPU_MAIN_RAM, mode);
  return rc;
}

SP_EXPORT int starpu_data_acquire_on_node(starpu_data_handle_t h, int node, enum starpu_data_access_mode mode) {
  static int (*real)(starpu_data_handle_t, int, enum starpu_data_access_mode);
  SP_REAL(real, starpu_data_acquire_on_node);
  if (!real) return -ENOSYS;
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_call_enter(L, sp_region[SP_R_ACQUIRE], PM_STATE_SYNC_WAIT, pm_clock_now());
    pm_leave_tool(L);
  }
  int rc = real(h, node, mode);
  if (L && (L = pm_enter_tool())) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  if (L && rc == 0) acquired(h, node, mode);
  return rc;
}

static __thread int tls_in_release; /* starpu_data_release calls starpu_data_release_on_node */

SP_EXPORT void starpu_data_release_on_node(starpu_data_handle_t h, int node) {
  static void (*real)(starpu_data_handle_t, int);
  SP_REAL(real, starpu_data_release_on_node);
  if (!real) return;
  /* StarPU-MPI releases a received handle this way: the sender's clock must be merged before the
   * release lets the handle's readers start */
  if (sp_on && !tls_in_release && !(sp_mpi_on_release && sp_mpi_on_release(h))) released(h);
  real(h, node);
}

SP_EXPORT void starpu_data_release(starpu_data_handle_t h) {
  static void (*real)(starpu_data_handle_t);
  SP_REAL(real, starpu_data_release);
  if (!real) return;
  if (sp_on && !tls_in_release) released(h);
  tls_in_release++;
  real(h);
  tls_in_release--;
}

/* ------------------------------------------------------------------------------ dependencies */
SP_EXPORT void starpu_task_declare_deps_array(struct starpu_task *task, unsigned ndeps,
                                              struct starpu_task *task_array[]) {
  static void (*real)(struct starpu_task *, unsigned, struct starpu_task **);
  SP_REAL(real, starpu_task_declare_deps_array);
  if (!real) return;
  pm_loc *L = sp_on && task && task_array ? pm_enter_tool() : NULL;
  if (L) {
    pm_tg_task *succ = sp_task_record_unsubmitted(task);
    for (unsigned i = 0; succ && i < ndeps; i++) {
      pm_tg_task *pred = task_array[i] ? sp_task_record(task_array[i]) : NULL;
      if (pred) pm_tg_task_add_pred(succ, pred);
    }
    pm_leave_tool(L);
  }
  real(task, ndeps, task_array);
}

/* Variadic: the arguments are collected and handed to the array version (same semantics). */
SP_EXPORT void starpu_task_declare_deps(struct starpu_task *task, unsigned ndeps, ...) {
  struct starpu_task *small[16], **a = ndeps <= 16 ? small : malloc(ndeps * sizeof *a);
  va_list ap;
  va_start(ap, ndeps);
  for (unsigned i = 0; i < ndeps; i++) {
    struct starpu_task *t = va_arg(ap, struct starpu_task *);
    if (a) a[i] = t;
  }
  va_end(ap);
  if (a) starpu_task_declare_deps_array(task, ndeps, a);
  if (a != small) free(a);
}

int sp_end_deps_used;

/* End dependencies (pm_taskgraph.h): StarPU's declare_end_deps calls end_dep_add, and each end
 * dependency's termination (or declare_end_deps itself, for one already ended) calls
 * end_dep_release, all through the PLT. The releaser's clock: on a worker right after an end
 * dependency ended, that task's output; else the calling thread's clock. */
SP_EXPORT void starpu_task_end_dep_add(struct starpu_task *t, int nb_deps) {
  static void (*real)(struct starpu_task *, int);
  SP_REAL(real, starpu_task_end_dep_add);
  if (!real) return;
  pm_loc *L = sp_on && t && nb_deps > 0 ? pm_enter_tool() : NULL;
  if (L) {
    pm_tg_task *rec = sp_task_record(t);
    /* mapped, so that the releases find it by its pointer even after its body ended */
    if (rec && pm_tg_task_map(rec) == 0 && pm_tg_task_end_deps_add(rec, nb_deps) == 0)
      __atomic_store_n(&sp_end_deps_used, 1, __ATOMIC_RELEASE);
    pm_leave_tool(L);
  }
  real(t, nb_deps);
}

SP_EXPORT void starpu_task_end_dep_release(struct starpu_task *t) {
  static void (*real)(struct starpu_task *);
  SP_REAL(real, starpu_task_end_dep_release);
  if (!real) return;
  pm_loc *L = sp_on && t ? pm_enter_tool() : NULL;
  if (L) {
    pm_tg_task *rec = pm_tg_task_find(t);
    if (rec && rec->ends) {
      sp_thread *T = sp_self();
      pm_tg_clk c;
      if (T && T->kind == SP_THREAD_WORKER && T->ended_valid)
        c = T->ended;
      else {
        pm_state_set(L, pm_state_get(L), pm_clock_now()); /* the thread's own time up to now */
        sp_thread_clock(&c, L, T);
      }
      pm_tg_task_end_dep_release(rec, &c); /* its termination (post-exec hook) drops the record */
    }
    pm_leave_tool(L);
  }
  real(t);
}

SP_EXPORT void starpu_task_declare_end_deps_array(struct starpu_task *task, unsigned ndeps,
                                                  struct starpu_task *task_array[]) {
  static void (*real)(struct starpu_task *, unsigned, struct starpu_task **);
  SP_REAL(real, starpu_task_declare_end_deps_array);
  if (!real) return;
  pm_loc *L = sp_on && task_array ? pm_enter_tool() : NULL;
  if (L) {
    for (unsigned i = 0; i < ndeps; i++) {
      pm_tg_task *dep = task_array[i] ? sp_task_record(task_array[i]) : NULL;
      if (dep) __atomic_or_fetch(&dep->flags, PM_TG_ENDS_OTHER, __ATOMIC_RELAXED);
    }
    pm_leave_tool(L);
  }
  real(task, ndeps, task_array);
}

SP_EXPORT void starpu_tag_declare_deps_array(starpu_tag_t id, unsigned ndeps, starpu_tag_t *array) {
  static void (*real)(starpu_tag_t, unsigned, starpu_tag_t *);
  SP_REAL(real, starpu_tag_declare_deps_array);
  if (!real) return;
  if (sp_on && array && ndeps) pm_tg_tag_declare(id, (int)ndeps, array);
  real(id, ndeps, array);
}

SP_EXPORT void starpu_tag_declare_deps(starpu_tag_t id, unsigned ndeps, ...) {
  starpu_tag_t small[16], *a = ndeps <= 16 ? small : malloc(ndeps * sizeof *a);
  va_list ap;
  va_start(ap, ndeps);
  for (unsigned i = 0; i < ndeps; i++) {
    starpu_tag_t t = va_arg(ap, starpu_tag_t);
    if (a) a[i] = t;
  }
  va_end(ap);
  if (a) starpu_tag_declare_deps_array(id, ndeps, a);
  if (a != small) free(a);
}

SP_EXPORT void starpu_tag_notify_from_apps(starpu_tag_t id) {
  static void (*real)(starpu_tag_t);
  SP_REAL(real, starpu_tag_notify_from_apps);
  if (!real) return;
  pm_loc *L = sp_on ? pm_enter_tool() : NULL;
  if (L) {
    pm_tg_clk c;
    pm_state_set(L, pm_state_get(L), pm_clock_now());
    sp_thread_clock(&c, L, sp_self());
    pm_tg_tag_done(id, &c);
    pm_leave_tool(L);
  }
  real(id);
}

SP_EXPORT void starpu_tag_remove(starpu_tag_t id) {
  static void (*real)(starpu_tag_t);
  SP_REAL(real, starpu_tag_remove);
  if (!real) return;
  if (sp_on) pm_tg_tag_forget(id);
  real(id);
}

/* ------------------------------------------------------------------------------ handle lifetime */
SP_EXPORT void starpu_data_register(starpu_data_handle_t *handleptr, int home_node, void *data_interface,
                                    struct starpu_data_interface_ops *ops) {
  static void (*real)(starpu_data_handle_t *, int, void *, struct starpu_data_interface_ops *);
  SP_REAL(real, starpu_data_register);
  if (!real) return;
  real(handleptr, home_node, data_interface, ops);
  if (!sp_on || !handleptr) return;
  pm_tg_handle_forget(*handleptr); /* state of a previous handle at this address */
  pm_tg_handle *h = pm_tg_handle_get(*handleptr);
  if (h) {
    pm_tg_handle_home(h, home_node);
    pm_tg_handle_put(h);
  }
}

#define UNREGISTER(name)                        \
  SP_EXPORT void name(starpu_data_handle_t h) { \
    static void (*real)(starpu_data_handle_t);  \
    SP_REAL(real, name);                        \
    if (!real) return;                          \
    if (sp_on) pm_tg_handle_forget(h);          \
    real(h);                                    \
  }
UNREGISTER(starpu_data_unregister)
UNREGISTER(starpu_data_unregister_no_coherency)
UNREGISTER(starpu_data_unregister_submit)

/* Asynchronous partitioning: StarPU orders the children's first accesses after the parent's
 * accesses (and the parent's next access after the children's) with internal switch tasks that
 * popmeter does not see as data accesses; the handles are linked instead (pm_tg_handle_link). */
static void link_handles(starpu_data_handle_t to, starpu_data_handle_t from) {
  pm_tg_handle *t = pm_tg_handle_get(to), *f = t ? pm_tg_handle_get(from) : NULL;
  if (t && f) pm_tg_handle_link(t, f);
  pm_tg_handle_put(f);
  pm_tg_handle_put(t);
}
static void link_children(starpu_data_handle_t parent, unsigned n, starpu_data_handle_t *children, int gather) {
  pm_loc *L = sp_on && parent && children ? pm_enter_tool() : NULL;
  if (!L) return;
  for (unsigned i = 0; i < n; i++)
    if (children[i]) {
      if (gather)
        link_handles(parent, children[i]);
      else
        link_handles(children[i], parent);
    }
  pm_leave_tool(L);
}

/* A plan makes new child handles (their addresses may be recycled ones): they start fresh. */
SP_EXPORT void starpu_data_partition_plan(starpu_data_handle_t initial, struct starpu_data_filter *f,
                                          starpu_data_handle_t *children) {
  static void (*real)(starpu_data_handle_t, struct starpu_data_filter *, starpu_data_handle_t *);
  SP_REAL(real, starpu_data_partition_plan);
  if (!real) return;
  real(initial, f, children);
  if (!sp_on || !f || !children) return;
  unsigned n = f->get_nchildren ? f->get_nchildren(f, initial) : f->nchildren;
  for (unsigned i = 0; i < n; i++)
    if (children[i]) pm_tg_handle_forget(children[i]);
}

SP_EXPORT void starpu_data_partition_clean(starpu_data_handle_t root, unsigned nparts, starpu_data_handle_t *children) {
  static void (*real)(starpu_data_handle_t, unsigned, starpu_data_handle_t *);
  SP_REAL(real, starpu_data_partition_clean);
  if (!real) return;
  real(root, nparts, children); /* unregisters the children (the array is the caller's) */
  if (sp_on && children)
    for (unsigned i = 0; i < nparts; i++)
      if (children[i]) pm_tg_handle_forget(children[i]);
}

#define PARTITION_SUBMIT(name, gather, params, args)  \
  SP_EXPORT void name params {                        \
    static void(*real) params;                        \
    SP_REAL(real, name);                              \
    if (!real) return;                                \
    link_children(initial, nparts, children, gather); \
    real args;                                        \
  }
PARTITION_SUBMIT(starpu_data_partition_submit, 0,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children),
                 (initial, nparts, children))
PARTITION_SUBMIT(starpu_data_partition_readonly_submit, 0,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children),
                 (initial, nparts, children))
PARTITION_SUBMIT(starpu_data_partition_submit_sequential_consistency, 0,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children, int sc),
                 (initial, nparts, children, sc))
PARTITION_SUBMIT(starpu_data_unpartition_submit, 1,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children, int node),
                 (initial, nparts, children, node))
PARTITION_SUBMIT(starpu_data_unpartition_readonly_submit, 1,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children, int node),
                 (initial, nparts, children, node))
PARTITION_SUBMIT(starpu_data_unpartition_submit_sequential_consistency, 1,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children, int node, int sc),
                 (initial, nparts, children, node, sc))
PARTITION_SUBMIT(starpu_data_unpartition_submit_sequential_consistency_cb, 1,
                 (starpu_data_handle_t initial, unsigned nparts, starpu_data_handle_t *children, int node, int sc,
                  void (*cb)(void *), void *cb_arg),
                 (initial, nparts, children, node, sc, cb, cb_arg))

/* Synchronous partitioning waits for the parent's tasks: the children start from its clock. */
SP_EXPORT void starpu_data_partition(starpu_data_handle_t initial_handle, struct starpu_data_filter *f) {
  static void (*real)(starpu_data_handle_t, struct starpu_data_filter *);
  SP_REAL(real, starpu_data_partition);
  if (!real) return;
  real(initial_handle, f);
  if (!sp_on || !sp_fn.data_get_nb_children || !sp_fn.data_get_child) return;
  pm_tg_handle *p = pm_tg_handle_get(initial_handle);
  if (!p) return;
  pm_tg_clk c;
  memset(&c, 0, sizeof c);
  pm_tg_handle_pre(p, PM_TG_ACC_WRITE, &c);
  pm_tg_handle_put(p);
  int n = sp_fn.data_get_nb_children(initial_handle);
  for (int i = 0; i < n; i++) {
    starpu_data_handle_t ch = sp_fn.data_get_child(initial_handle, (unsigned)i);
    pm_tg_handle_forget(ch);
    pm_tg_handle *hc = pm_tg_handle_get(ch);
    if (hc) {
      pm_tg_handle_post(hc, PM_TG_ACC_WRITE, &c);
      pm_tg_handle_put(hc);
    }
  }
}

SP_EXPORT void starpu_data_unpartition(starpu_data_handle_t root_data, unsigned gathering_node) {
  static void (*real)(starpu_data_handle_t, unsigned);
  SP_REAL(real, starpu_data_unpartition);
  if (!real) return;
  pm_tg_clk c;
  memset(&c, 0, sizeof c);
  int n = sp_on && sp_fn.data_get_nb_children && sp_fn.data_get_child ? sp_fn.data_get_nb_children(root_data) : 0;
  starpu_data_handle_t small[64], *ch = n <= 64 ? small : malloc((size_t)n * sizeof *ch);
  if (!ch) n = 0;
  for (int i = 0; i < n; i++) ch[i] = sp_fn.data_get_child(root_data, (unsigned)i);
  real(root_data, gathering_node); /* waits for the children's tasks */
  for (int i = 0; i < n; i++) {
    pm_tg_handle *hc = pm_tg_handle_get(ch[i]);
    if (hc) {
      pm_tg_handle_pre(hc, PM_TG_ACC_WRITE, &c);
      pm_tg_handle_put(hc);
    }
    pm_tg_handle_forget(ch[i]);
  }
  if (n > 0) {
    pm_tg_handle *p = pm_tg_handle_get(root_data);
    if (p) {
      pm_tg_handle_post(p, PM_TG_ACC_WRITE, &c);
      pm_tg_handle_put(p);
    }
  }
  if (ch != small) free(ch);
}
