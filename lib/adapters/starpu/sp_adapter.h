/* StarPU adapter of popmeter: internal interface shared by its files.
 *   sp_real.c       resolution of StarPU functions (interposed: RTLD_NEXT; called: RTLD_DEFAULT)
 *   sp_common.c     threads, workers, task bodies on the timeline (no StarPU struct or enum: serves 1.3 and 1.4)
 *   sp_task_fields.h what a task record reads from a struct starpu_task (compiled with each version's headers)
 *   sp_lifecycle.c  starpu_initialize / starpu_shutdown, scheduler hooks (StarPU 1.3)
 *   sp_task.c       task submission, ready / pop prologues, start / end of task bodies
 *   sp_sync.c       waits, data acquire / release, explicit and tag dependencies, handle lifetime
 *   sp_mpi.c        StarPU-MPI: per-handle sends and receives (peer, bytes, post / complete)
 *   sp_mpi_clock.c  critical-path clocks across processes for StarPU-MPI transfers (side channel)
 *   sp_tool.c       StarPU 1.4's tool interface (starpu_prof_tool), built against 1.4's headers
 * The interposition files (lifecycle, task, sync, mpi) read StarPU 1.3's structs: they stay passive in a
 * process whose StarPU is another version (sp_lifecycle.c checks at starpu_initialize).
 * See README.md in this folder for the hook points and the clock protocol.
 *
 * Preload hygiene (docs/runtime-facts.md §1, §2.1): libpopmeter has no hard reference to a StarPU symbol. The functions
 * StarPU's own libraries call through the PLT are interposed by defining them here and calling the
 * next definition (dlsym RTLD_NEXT, resolved lazily); StarPU functions we merely call are looked up
 * with dlsym(RTLD_DEFAULT) once StarPU is initialised. Struct layouts come from the headers. */
#ifndef SP_ADAPTER_H
#define SP_ADAPTER_H
#include <starpu.h>
#include "pm_core.h"
#include "pm_taskgraph.h"
#include "pm_task_stats.h"

#define SP_EXPORT __attribute__((visibility("default")))

/* --------------------------------------------------------------------------- StarPU functions */
typedef struct {
  struct starpu_task *(*task_get_current)(void);
  int (*worker_get_id)(void);
  enum starpu_worker_archtype (*worker_get_type)(int id);
  void (*worker_get_name)(int id, char *dst, size_t maxlen);
  unsigned (*worker_get_memory_node)(unsigned workerid);
  size_t (*data_get_size)(starpu_data_handle_t h);
  unsigned (*data_get_sequential_consistency_flag)(starpu_data_handle_t h);
  struct starpu_sched_policy *(*sched_ctx_get_sched_policy)(unsigned ctx);
  unsigned (*sched_ctx_get_context)(void);
  enum starpu_node_kind (*node_get_kind)(unsigned node);
  int (*data_get_nb_children)(starpu_data_handle_t h);
  starpu_data_handle_t (*data_get_child)(starpu_data_handle_t h, unsigned i);
  void (*get_version)(int *major, int *minor, int *release);
  int (*data_get_home_node)(starpu_data_handle_t h);
} sp_fns;
PM_HIDDEN extern sp_fns sp_fn;
PM_HIDDEN int sp_resolve(void);            /* fills sp_fn; 0 when everything needed was found */
PM_HIDDEN void *sp_next(const char *name); /* next definition of an interposed function */
/* Defined when the StarPU 1.4 tool adapter is built in (sp_tool.c). */
PM_HIDDEN int sp_tool_expected(void) __attribute__((weak));
/* The version of the StarPU library in the process (starpu_get_version); -1 when it has none. */
PM_HIDDEN int sp_runtime_version(int *major, int *minor);
#define SP_REAL(var, name)                           \
  do {                                               \
    if (PM_UNLIKELY(!(var))) (var) = sp_next(#name); \
  } while (0)

/* Access-mode bits the version-neutral code tests (the same values in StarPU 1.3 and 1.4; checked
 * in every file that includes this header, against that file's StarPU headers). */
enum { SP_MODE_R = 1, SP_MODE_W = 2, SP_MODE_SCRATCH = 4, SP_MODE_REDUX = 8 };
_Static_assert((int)STARPU_R == SP_MODE_R && (int)STARPU_W == SP_MODE_W && (int)STARPU_SCRATCH == SP_MODE_SCRATCH &&
                   (int)STARPU_REDUX == SP_MODE_REDUX,
               "StarPU access-mode bits changed");

/* pm_tg_task.flags: the task has a tag for the per-tag statistics */
#define SP_HAS_TAG_FLAG 0x10000u

/* ---------------------------------------------------------------------------- adapter state */
PM_HIDDEN extern int sp_on;            /* StarPU 1.3 initialised and hooks installed */
PM_HIDDEN extern int sp_end_deps_used; /* some task got end dependencies (sp_sync.c) */
PM_HIDDEN extern uint64_t sp_t_init;   /* start of the first starpu_initialize */
/* SP_R_WORKER, SP_R_PROGRESS: the base call path of StarPU's own threads (pm_loc_set_base) */
enum {
  SP_R_INIT,
  SP_R_SHUTDOWN,
  SP_R_SUBMIT,
  SP_R_WAIT,
  SP_R_ACQUIRE,
  SP_R_MPI,
  SP_R_WORKER,
  SP_R_PROGRESS,
  SP_R_COUNT
};
PM_HIDDEN extern pm_region_id sp_region[SP_R_COUNT];
PM_HIDDEN void sp_regions_init(void);      /* registers sp_region[] once (after activation) */
PM_HIDDEN void sp_patch_ctx(unsigned ctx); /* installs the exec hooks on a context's policy */

/* The name of a memory node's kind, for the bus-transfer table. */
static inline const char *sp_node_kind_name(enum starpu_node_kind k) {
  switch (k) {
  case STARPU_CPU_RAM: return "RAM";
  case STARPU_CUDA_RAM: return "CUDA";
  case STARPU_OPENCL_RAM: return "OpenCL";
  case STARPU_DISK_RAM: return "disk";
  default: return "other";
  }
}

/* Per thread (allocated on first use; the TLS slot holds only a pointer). */
enum { SP_THREAD_UNKNOWN = 0, SP_THREAD_APP, SP_THREAD_WORKER, SP_THREAD_PROGRESS };
typedef struct {
  int kind;
  int workerid, wtype, memnode; /* workers: wtype 0 CPU, 1 accelerator */
  int running;                  /* task bodies in progress (asynchronous OpenCL may overlap) */
  pm_ts_thread *stats;
  pm_tg_thread th;       /* the thread's DAG clock (application threads) */
  int ended_valid;       /* workers: ended holds the output of the task that just ended, */
  pm_tg_clk ended;       /* kept for the end-dependency release StarPU makes next (sp_sync.c) */
  pm_tg_task *tool_task; /* StarPU 1.4 tool interface: the body running on this worker */
  pm_tg_task *body;      /* the body a CPU worker started last, until it ends (sp_body_end) */
  uint64_t body_end_t;   /* when the driver last ended a body of this worker (_starpu_driver_end_job) */
} sp_thread;
PM_HIDDEN sp_thread *sp_self(void);
/* First sight of a worker thread: role, name, backdated idle start. sp_worker_init (sp_common.c) takes
 * what StarPU said: accel 0 for a CPU worker, node_kind the name of the worker's memory node kind
 * (NULL: unknown). */
PM_HIDDEN void sp_worker_init(sp_thread *T, pm_loc *L, int id, int accel, const char *name, int memnode,
                              const char *node_kind);
/* Asks StarPU about the calling thread (inline: the enums are read with the including file's StarPU
 * headers, 1.3's or 1.4's); fallback_id when StarPU does not know the thread (< 0: none). Returns 0
 * when the thread is no worker. */
static inline int sp_classify_worker(sp_thread *T, pm_loc *L, int fallback_id) {
  int id = sp_fn.worker_get_id ? sp_fn.worker_get_id() : -1;
  if (id < 0) id = fallback_id;
  if (id < 0) return 0; /* not a StarPU worker after all */
  char name[48] = "";
  sp_fn.worker_get_name(id, name, sizeof name);
  int memnode = (int)sp_fn.worker_get_memory_node((unsigned)id);
  sp_worker_init(T, L, id, sp_fn.worker_get_type(id) != STARPU_CPU_WORKER, name, memnode,
                 sp_fn.node_get_kind ? sp_node_kind_name(sp_fn.node_get_kind((unsigned)memnode)) : NULL);
  return 1;
}

/* A task body on its worker (sp_common.c): start (bus transfers of the data the worker's node lacked,
 * USEFUL under the codelet's region, DAG start) and end (timeline, DAG clock, codelet statistics). */
PM_HIDDEN void sp_body_start(pm_tg_task *rec, pm_loc *L, sp_thread *T);
PM_HIDDEN void sp_body_end(pm_tg_task *rec, pm_loc *L, sp_thread *T);
PM_HIDDEN void sp_body_end_at(pm_tg_task *rec, pm_loc *L, sp_thread *T, uint64_t t); /* ended at t */

/* ------------------------------------------------------------------------------------- tasks */
PM_HIDDEN void sp_task_pre_exec(struct starpu_task *task);
PM_HIDDEN void sp_task_post_exec(struct starpu_task *task);
/* A CPU worker looks for its next task while T->body is still open: StarPU 1.3 ran the pre-exec
 * hook of that task but runs no post-exec hook for its internal tasks (those of
 * starpu_execute_on_each_worker, for one), so the body ended before this call, when the driver
 * ended it (T->body_end_t; the worker may have been paused since). Ends it there. */
PM_HIDDEN void sp_task_body_unfinished(sp_thread *T, pm_loc *L);
/* Record of a task (created on first sight: declare_deps may name a task before its submission). */
PM_HIDDEN pm_tg_task *sp_task_record(struct starpu_task *task);
/* sp_task_record for a task the caller owns and has not submitted (the successor of a dependency
 * declaration): may install popmeter's prologues on it right away (sp_task.c). */
PM_HIDDEN pm_tg_task *sp_task_record_unsubmitted(struct starpu_task *task);
/* The DAG's view of an access mode. */
static inline int sp_access_class(enum starpu_data_access_mode mode) {
  if (mode & STARPU_SCRATCH) return PM_TG_ACC_NONE;
  if (mode & STARPU_REDUX) return PM_TG_ACC_COMMUTE;
  if (mode & STARPU_W) return (mode & STARPU_COMMUTE) ? PM_TG_ACC_COMMUTE : PM_TG_ACC_WRITE;
  if (mode & STARPU_R) return PM_TG_ACC_READ;
  return PM_TG_ACC_NONE;
}
/* Merges every task clock ended so far into the calling application thread (after a wait). */
PM_HIDDEN void sp_thread_merge_all(pm_loc *L, sp_thread *T);
/* The clock of the calling thread as a dependency source. */
PM_HIDDEN void sp_thread_clock(pm_tg_clk *out, pm_loc *L, sp_thread *T);

/* Thread named "MPI" (StarPU-MPI's progress thread) -> progress role; installed as the core's
 * thread classifier, so it runs when the thread first appears (sp_lifecycle.c). */
PM_HIDDEN void sp_classify_thread(pm_loc *L);

/* ------------------------------------------------------------------------------------ StarPU-MPI */
/* Data release (StarPU-MPI releases a received handle this way before running its callback):
 * returns 1 when it completed a tracked receive of h. Weak: absent when built without MPI. */
PM_HIDDEN int sp_mpi_on_release(starpu_data_handle_t h) __attribute__((weak));

#endif
