/* Online critical path through a task DAG (docs/metrics.md §0.3, §4, §6): Lamport-clock propagation
 * during the run, no trace.
 *
 * Every task carries two families of clocks, each with the CUE / COM / COO variants of pm_core.h:
 *  - happens-before clocks (hb_*): the clocks of the core's locations. A task's input is merged
 *    into its worker's location when it starts and its output is the worker's clock when it ends,
 *    so they include the worker's program order: they are the execution's Lamport clocks and feed
 *    TL/PL/G-CUE of the critical-path model (t_i <= PL-CUE <= G-CUE holds by construction).
 *  - DAG clocks (dag_*): cp(task) = own time + max cp(predecessors), over dependency edges only
 *    (no worker order): the critical-path bound CPB of the task model. Own time: CUE the task
 *    body; COM body + data fetch (runtime weighs in COM); COO body, plus MPI transfer time on
 *    StarPU-MPI receive edges.
 * Each family exists with process-local scope (pl: no cross-process edge) and global scope (g).
 * The thread-local scope is the core's (a location's useful time).
 *
 * Edges: (1) submission: a task cannot start before the thread that submitted it reached that
 * point, so its input starts at the submitter's location clock; (2) data: per data handle, the
 * clocks of the last writer and of the readers since (last writer / readers, as StarPU's
 * sequential consistency orders them), merged when a task starts and updated when it ends;
 * (3) explicit task dependencies (records kept alive by reference counts until the successor
 * started); (4) tag dependencies; (5) across processes: StarPU-MPI transfers of a handle carry the
 * writer's clock (lib/adapters/starpu/sp_mpi_clock.c).
 * Why handle clocks rather than pointers to predecessor tasks: the state per handle is bounded
 * and needs no task to outlive its end; it is exact as long as StarPU orders the accesses to a
 * handle (sequential consistency on), because a successor starts only after the post-exec hook of
 * its predecessor ran (StarPU 1.3 calls it before releasing dependencies, docs/runtime-facts.md §2.2).
 *
 * "What lies on the path": the DAG clock dag_g.cue carries its composition, a bounded sparse
 * vector of (key, ns) whose entries sum to dag_g.cue; key = rank << 32 | 32-bit hash of the
 * codelet name (PM_TG_KEY_APP: time of application threads before a submission). When more than
 * PM_TG_COMP_N keys meet on one path the smallest share goes to 'other'. dag_g.coo carries the MPI
 * part of its chain (coo_mpi). */
#ifndef PM_TASKGRAPH_H
#define PM_TASKGRAPH_H
#include "pm_core.h"
#include "pm_slab.h"

#define PM_TG_COMP_N 6
#define PM_TG_KEY_APP 0xffffffffu /* low half of a key: application thread time */
static inline uint64_t pm_tg_key(int rank, uint32_t what) { return ((uint64_t)(uint32_t)rank << 32) | what; }
PM_HIDDEN uint32_t pm_tg_name_hash(const char *name); /* FNV-1a 32, never PM_TG_KEY_APP */

typedef struct {
  uint64_t key, ns;
} pm_tg_part;
typedef struct {
  uint32_t n;
  pm_tg_part e[PM_TG_COMP_N];
  uint64_t other;
} pm_tg_comp;

typedef struct {
  pm_cp_clock hb_pl, hb_g;   /* happens-before (location domain) */
  pm_cp_clock dag_pl, dag_g; /* task DAG only */
  uint64_t coo_mpi;          /* MPI share of dag_g.coo along its chain */
  pm_tg_comp comp;           /* composition of dag_g.cue */
} pm_tg_clk;

/* dst = max(dst, src) per clock; comp and coo_mpi follow their clock's argmax (ties keep dst). */
PM_HIDDEN void pm_tg_clk_merge(pm_tg_clk *dst, const pm_tg_clk *src);
/* Merges only the global parts (a clock from another process: hb_g, dag_g, coo_mpi, comp). */
PM_HIDDEN void pm_tg_clk_merge_global(pm_tg_clk *dst, const pm_tg_clk *src);
/* Adds a task's own time to the DAG clocks (both scopes); key attributes cue to the composition. */
PM_HIDDEN void pm_tg_clk_advance(pm_tg_clk *c, uint64_t cue, uint64_t com, uint64_t coo, uint64_t key);
/* Adds MPI transfer time on a receive edge to the COO DAG clocks. */
PM_HIDDEN void pm_tg_clk_add_mpi(pm_tg_clk *c, uint64_t ns);
PM_HIDDEN void pm_tg_comp_add(pm_tg_comp *c, uint64_t key, uint64_t ns);
PM_HIDDEN uint64_t pm_tg_comp_sum(const pm_tg_comp *c);
/* An application thread as a dependency source (it submits tasks, notifies tags, writes data it
 * acquired). Its happens-before clocks are its location's; its DAG clock is its own: the task DAG
 * clocks it merged (waits, acquisitions) plus its own time since (weighted per variant like the
 * location's, attributed to pm_tg_key(rank, APP) in the composition). The location's clock is not
 * used for the DAG: after a wait it holds the workers' program order, which is no dependency. */
typedef struct pm_tg_snap pm_tg_snap;
typedef struct {
  int init;
  uint64_t mark[3]; /* the location's own cue/com/coo time at the last update */
  pm_tg_clk clk;    /* dag_* and comp meaningful; hb_* unused */
  uint32_t gen;     /* bumped when clk changes other than by the thread's own time */
  /* The thread's clock at an earlier submission, shared by the tasks it submitted since (their
   * clocks are that one advanced by the thread's own time in between: see pm_tg_task_submit_by).
   * Reference counted with a bias: the thread holds PM_TG_SNAP_BIAS references and hands them
   * out without atomics (snap_uses), returning the unused rest when it takes a new snapshot. */
  pm_tg_snap *snap;
  uint32_t snap_gen, snap_uses;
  uint64_t snap_epoch;
} pm_tg_thread;
/* Brings th up to the location's current accounting (call after a transition at 'now'). */
PM_HIDDEN void pm_tg_thread_sync(pm_tg_thread *th, const pm_loc *L, int rank);
/* The thread now depends on c (dag parts and composition). */
PM_HIDDEN void pm_tg_thread_merge(pm_tg_thread *th, const pm_tg_clk *c);
/* The thread's clock as a dependency source: hb = L's clocks, dag = th's (synced first). */
PM_HIDDEN void pm_tg_thread_clock(pm_tg_thread *th, const pm_loc *L, int rank, pm_tg_clk *out);
/* Wire form for StarPU-MPI side-channel messages (global parts only). */
#define PM_TG_WIRE_WORDS (3 + 3 + 1 + 1 + 2 * PM_TG_COMP_N + 1)
PM_HIDDEN void pm_tg_clk_pack(const pm_tg_clk *c, uint64_t *w);
PM_HIDDEN void pm_tg_clk_unpack(pm_tg_clk *c, const uint64_t *w); /* global parts; rest zero */

/* ------------------------------------------------------------------------------------ handles */
enum { PM_TG_ACC_NONE = 0, PM_TG_ACC_READ, PM_TG_ACC_WRITE, PM_TG_ACC_COMMUTE };
typedef struct pm_tg_handle pm_tg_handle;
/* The entry of a foreign data handle, created on first use; returns a new reference (NULL when
 * memory runs out: the caller then ignores that dependency). */
PM_HIDDEN pm_tg_handle *pm_tg_handle_get(const void *key);
PM_HIDDEN void pm_tg_handle_ref(pm_tg_handle *h);
PM_HIDDEN void pm_tg_handle_put(pm_tg_handle *h);
/* The handle is unregistered: later uses of the same address get a fresh entry. */
PM_HIDDEN void pm_tg_handle_forget(const void *key);
/* Merges into *in what an access of class acc depends on (read: last writer and commuting
 * writers; write: also the readers since; commute: writer and readers). */
PM_HIDDEN void pm_tg_handle_pre(pm_tg_handle *h, int acc, pm_tg_clk *in);
/* Publishes the end of an access: a write becomes the last writer (readers reset). */
PM_HIDDEN void pm_tg_handle_post(pm_tg_handle *h, int acc, const pm_tg_clk *out);
PM_HIDDEN const void *pm_tg_handle_key(const pm_tg_handle *h);
/* Asynchronous partitioning: the accesses of 'to' submitted from now on, up to and including its
 * next exclusive write, depend on everything 'from' holds when they start (its writer, readers
 * and commuting writers), as when the runtime's switch task reads 'from' and writes 'to'
 * (partition: parent -> child; unpartition: child -> parent). The runtime starts them after the
 * switch, itself after the accesses of 'from' submitted before it. */
PM_HIDDEN void pm_tg_handle_link(pm_tg_handle *to, pm_tg_handle *from);
/* Data placement, for bus transfers: the memory nodes (< 64) holding a valid copy, as the
 * runtime's MSI coherence keeps them (a read copies the data into the node, a write leaves the
 * node's copy the only valid one). Eviction under memory pressure is not modelled. */
PM_HIDDEN void pm_tg_handle_home(pm_tg_handle *h, int node); /* registration: valid = {node}; < 0: none */
/* 1 while neither the home nor an access of the handle was seen (registered before popmeter watched,
 * or registration not observable): the caller may then give its home from the runtime. */
PM_HIDDEN int pm_tg_handle_unplaced(const pm_tg_handle *h);
/* An access on 'node'; returns 1 when the data had to be transferred into node (a read of data
 * valid elsewhere only). A handle whose home was never seen starts valid where first accessed. */
PM_HIDDEN int pm_tg_handle_place(pm_tg_handle *h, int node, int reads, int writes);

/* -------------------------------------------------------------------------------------- tasks */
enum {
  PM_TG_HAS_BODY = 1, /* runs a codelet: pre/post-exec hooks fire */
  PM_TG_SUBMITTED = 2,
  PM_TG_STARTED = 4,
  PM_TG_ENDED = 8,        /* out is valid */
  PM_TG_MAPPED = 16,      /* reachable from its foreign pointer */
  PM_TG_USE_TAG = 32,     /* task->use_tag: tag dependencies and notification */
  PM_TG_FRESH = 64,       /* a new record whose clock nothing merged into: made by find_or_new, or so
                           * marked by the caller of new_unmapped; its submission shares a snapshot */
  PM_TG_ENDS_OTHER = 128, /* an end dependency of another task: its end releases that task */
};
#define PM_TG_INLINE_BUFS 4
#define PM_TG_MAX_PRED_DEPTH 32
/* acc: PM_TG_ACC_*; mode: the runtime's own access mode bits (opaque here); bytes: data size */
typedef struct {
  pm_tg_handle *h;
  uint16_t acc, mode;
  uint32_t bytes;
} pm_tg_buf;

typedef struct pm_tg_task {
  const void *key; /* foreign task pointer */
  uint32_t refs;   /* 1 (own life) + 1 per explicit successor not yet started */
  uint32_t flags;
  uint32_t nbufs, npreds, cap_preds;
  uint32_t codelet; /* the adapter's codelet index */
  uint64_t tag;     /* task tag (tag_id) */
  uint64_t t_submit, t_ready, t_pop, t_start;
  uint64_t bytes;  /* sum of the sizes of the task's data */
  double flops;    /* declared flops (0: unknown) */
  float predicted; /* the scheduler's prediction in us (NaN: none) */
  uint32_t ninh;   /* (inh, below) */
  /* The inputs merged so far; once the task ended (PM_TG_ENDED), its output. Allocated on first
   * need (the task starts, or something is merged into it before), because a pending task's only
   * input is usually its submitter's clock, which snap and snap_d keep in 32 bytes: a program may
   * have many thousands of tasks pending, and memory that fresh costs microseconds per page in a
   * VM. Read it through pm_tg_task_clk. */
  pm_tg_clk *clk;
  pm_tg_snap *snap; /* the submitter's clock: snap advanced by snap_d (while clk is NULL) */
  uint64_t snap_d[3];
  pm_tg_buf buf[PM_TG_INLINE_BUFS];
  pm_tg_buf *more_buf; /* buffers beyond PM_TG_INLINE_BUFS (malloc'd, rare) */
  /* Explicit predecessors: a single one is held in the record itself (cap_preds == 1; chains of
   * tasks, the common case, then start without reading an array written on another thread), more
   * in an array (pooled up to 4, malloc'd beyond). Read them through pm_tg_task_preds. */
  union {
    struct pm_tg_task **preds;
    struct pm_tg_task *pred_one;
  };
  struct pm_tg_ends *ends;   /* end dependencies (malloc'd on the first one, rare) */
  struct pm_tg_handle **inh; /* ninh handles whose whole state it inherits (pm_tg_handle_link, rare) */
  void *user[3];             /* adapter's slots (original prologue / callback functions) */
} pm_tg_task;
/* 256 bytes: a record fills 4 cache lines exactly (the pool hands them out in address order from
 * page-aligned chunks), and starting a task reads a record last written when it was submitted,
 * usually long before and out of cache. */
_Static_assert(sizeof(pm_tg_task) == 256, "pm_tg_task: keep it at 4 cache lines");

/* The task's clock, allocated (from its submitter's) if it has none yet. Never NULL: when memory
 * runs out, a shared scratch clock stands in (the task's critical path is then not exact). */
PM_HIDDEN pm_tg_clk *pm_tg_task_clk(pm_tg_task *t);
/* Submitter snapshots alive (tests). */
PM_HIDDEN uint64_t pm_tg_snapshots_live(void);
/* New record for foreign task pointer key (may be NULL: an unmapped record); refs = 1. */
PM_HIDDEN pm_tg_task *pm_tg_task_new(const void *key);
/* New record for key that is not reachable from it (the caller keeps the pointer itself). */
PM_HIDDEN pm_tg_task *pm_tg_task_new_unmapped(const void *key);
/* Makes an unmapped record reachable from its key. 0, or -1 out of memory. */
PM_HIDDEN int pm_tg_task_map(pm_tg_task *t);
PM_HIDDEN pm_tg_task *pm_tg_task_find(const void *key);
static inline struct pm_tg_task *const *pm_tg_task_preds(const pm_tg_task *t) {
  return t->cap_preds == 1 ? &t->pred_one : t->preds;
}
/* Asks for the record's lines ahead of its start, when a worker has just popped the task: the
 * record was last written when the task was submitted, usually long before and out of cache, and
 * its start reads all four lines (then the predecessors' records, which it asks for itself). */
PM_HIDDEN void pm_tg_task_prefetch(const pm_tg_task *t);
/* The record of key, created (unsubmitted, mapped) if absent, in one step of the map: threads that
 * ask for one key at once get the same record. *made (when not NULL): 1 for the caller that created
 * it. NULL: out of memory. */
PM_HIDDEN pm_tg_task *pm_tg_task_find_or_new(const void *key, int *made);
/* Removes the record from the map (the foreign pointer may be recycled from now on). */
PM_HIDDEN void pm_tg_task_unmap(pm_tg_task *t);
PM_HIDDEN void pm_tg_task_unref(pm_tg_task *t);
/* Buffer i of the task (i < nbufs), and appending one (handle reference moves into the record). */
PM_HIDDEN pm_tg_buf *pm_tg_task_buf(pm_tg_task *t, uint32_t i);
PM_HIDDEN int pm_tg_task_add_buf(pm_tg_task *t, pm_tg_handle *h, int acc, uint64_t bytes);
/* Explicit dependency succ -> pred (takes a reference on pred). 0 or -1 (out of memory). */
PM_HIDDEN int pm_tg_task_add_pred(pm_tg_task *succ, pm_tg_task *pred);

/* Lifecycle, called by the adapter in this order (times in ns):
 *  submit: clk = clock of the submitting thread (pm_tg_thread_clock)
 *  start (on the worker, location W): merges explicit predecessors, tag dependencies and the
 *         handles' clocks into clk, then clk.hb into W's location clocks
 *  end (on the worker): clk.hb = W's clocks, clk.dag += own time (in place: the inputs are not
 *         needed any more); publishes clk to the handles, the tag and the thread's maximum. */
PM_HIDDEN void pm_tg_task_submit(pm_tg_task *t, const pm_tg_clk *submitter, uint64_t now);
/* The same, the submitter being an application thread (th, at location L): saves a copy. */
PM_HIDDEN void pm_tg_task_submit_by(pm_tg_task *t, pm_tg_thread *th, const pm_loc *L, int rank, uint64_t now);
PM_HIDDEN void pm_tg_task_start(pm_tg_task *t, pm_loc *W, uint64_t now);
/* start in two steps: the inputs into clk (reads other threads' records: the costly part), then,
 * once W entered the body at 'now', clk.hb into W's clocks. An adapter that reads the clock between
 * the two keeps that work out of the body's time. */
PM_HIDDEN void pm_tg_task_inputs(pm_tg_task *t);
PM_HIDDEN void pm_tg_task_started(pm_tg_task *t, pm_loc *W, uint64_t now);
PM_HIDDEN void pm_tg_task_end(pm_tg_task *t, pm_loc *W, uint64_t now, uint64_t key);
/* A task without body (cl NULL or STARPU_NOWHERE) is complete: its output is its predecessors'. */
PM_HIDDEN void pm_tg_task_end_bodyless(pm_tg_task *t);
/* The clock a successor sees from t (its output when ended; for a body-less task still pending,
 * the maximum over its own predecessors). */
PM_HIDDEN void pm_tg_task_value(pm_tg_task *t, pm_tg_clk *v);

/* End dependencies (StarPU's starpu_task_end_dep_add / _release, which starpu_task_declare_end_deps
 * uses): the task's termination, which its successors wait for, also waits for n releases. Its
 * output is then the maximum of its own end clock and the clocks of the releases: a release before
 * the task's end is merged at its end, a later one into its output, published again to its data,
 * its tag and the running maximum (no successor can have read it: they wait for the last release).
 * end_deps_add: 0, or -1 out of memory (the dependency is then not tracked). */
PM_HIDDEN int pm_tg_task_end_deps_add(pm_tg_task *t, int n);
/* One release with the releaser's clock c. */
PM_HIDDEN void pm_tg_task_end_dep_release(pm_tg_task *t, const pm_tg_clk *c);

/* ---------------------------------------------------------------------------------------- tags */
PM_HIDDEN void pm_tg_tag_declare(uint64_t tag, int ndeps, const uint64_t *deps);
PM_HIDDEN void pm_tg_tag_merge_deps(uint64_t tag, pm_tg_clk *in);
PM_HIDDEN void pm_tg_tag_done(uint64_t tag, const pm_tg_clk *out); /* kept only if declared */
PM_HIDDEN void pm_tg_tag_forget(uint64_t tag);

/* ------------------------------------------------------------------------------------- summary */
/* Every thread that ends tasks keeps the maximum of their clocks; this merges them all. */
typedef struct {
  uint64_t tasks;    /* tasks ended (with a body) */
  uint64_t bodyless; /* body-less tasks completed */
  pm_tg_clk max;     /* per-clock maximum over ended tasks (comp of the dag_g.cue argmax) */
  uint64_t live_tasks, live_handles, peak_tasks;
} pm_tg_summary;
PM_HIDDEN void pm_tg_get_summary(pm_tg_summary *s);
/* Merges a clock into the calling thread's running maximum (tasks ended, receives completed). */
PM_HIDDEN void pm_tg_note_end(const pm_tg_clk *out, int bodyless);
/* The running maximum of every thread merged (used by waits: starpu_task_wait_for_all). */
PM_HIDDEN void pm_tg_max_so_far(pm_tg_clk *out);
/* The runtime's overhead outside task bodies is not observable (StarPU 1.4's tool interface reports
 * bodies only): the profile says so, and the task model does not pretend it was zero. */
PM_HIDDEN void pm_tg_mark_runtime_unobserved(void);
PM_HIDDEN int pm_tg_runtime_observed(void);
PM_HIDDEN void pm_tg_reset(void); /* frees everything (tests, and after the run's report) */
#endif
