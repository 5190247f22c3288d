/* GOMP parallel regions: GOMP_parallel and its combined forms (parallel loop, sections,
 * reductions), and the old ABI GOMP_parallel_start / GOMP_parallel_end (GCC < 4.9).
 *
 * The master forks the team (pm_omp_fork, keyed by the outlined function, whose symbol names the
 * region) and hands libgomp a trampoline instead of the outlined function; the team carries the
 * real function and argument. Every member runs the trampoline: implicit task begin, the body,
 * implicit task end, after which it waits, unobserved, in libgomp's join barrier. The master's
 * call returns after the join: pm_omp_join. With the old ABI the master calls the outlined
 * function itself between the two calls, so its implicit task is begun and ended there.
 *
 * When the wrappers pass through (a GCC binary on libomp, measured by OMPT; docs/openmp.md), the
 * real function must be reached by a tail call: libomp keys and names a region by the return
 * address of the call into it (OMPT's codeptr_ra), which must be the application's call site, not
 * a point inside the wrapper (every region would then be one, named after the wrapper). So the
 * pass-through is a call in tail position, and gomp.am compiles this folder with
 * -foptimize-sibling-calls, which -O2 implies but -O1 (the sanitizer build) does not. */
#include "gomp_adapter.h"

/* Master: the team of a new region, or NULL to pass through. */
static pm_omp_team *region_fork(pm_gomp_fn fn, void *data, unsigned nthreads) {
  pm_loc *L = pm_gomp_enter_fork();
  if (!L) return NULL;
  uint32_t cap = nthreads ? nthreads : (uint32_t)pm_gomp_max_threads();
  pm_omp_team *t = pm_omp_fork(L, (const void *)fn, cap, pm_clock_now());
  if (t) { /* written only when they change: every member's trampoline reads this line */
    void **u = pm_omp_team_user(t);
    if (u[0] != (void *)fn) u[0] = (void *)fn;
    if (u[1] != data) u[1] = data;
  }
  pm_leave_tool(L);
  return t;
}

static void region_join(pm_omp_team *t) {
  pm_loc *L = pm_enter_tool();
  if (!L) return; /* measurement ended meanwhile (finalize) */
  pm_omp_join(L, t, pm_clock_now());
  pm_leave_tool(L);
}

/* Only the master asks libgomp for the team's size: omp_get_num_threads reads libgomp's team
 * record, a line the master has just written, and on a worker that read is a transfer between
 * cores on the way into every region (2.7 % of all samples of a loop of empty regions on the
 * development VM, the worker's largest item). The workers pass 0: the team keeps the master's
 * count (pm_omp_fork). */
static pm_omp_frame *member_begin(pm_omp_team *t) {
  pm_loc *L = pm_enter_tool();
  if (!L) return NULL;
  uint32_t tid = (uint32_t)pm_gomp_thread_num();
  pm_omp_frame *f = pm_omp_implicit_begin(L, t, tid, tid == 0 ? (uint32_t)pm_gomp_num_threads() : 0, pm_clock_now());
  pm_leave_tool(L);
  return f;
}

static void member_end(pm_omp_frame *f) {
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  pm_omp_implicit_end(L, f, 1, pm_clock_now());
  pm_leave_tool(L);
}

/* What every member runs instead of the outlined function. */
static void trampoline(void *arg) {
  pm_omp_team *t = arg;
  pm_omp_member_prefetch(t);
  void **u = pm_omp_team_user(t);
  pm_gomp_fn fn = (pm_gomp_fn)u[0];
  void *data = u[1]; /* read before the body: the master reuses the team later */
  pm_omp_frame *f = member_begin(t);
  fn(data);
  member_end(f);
}

PM_GOMP_REAL(void, GOMP_parallel, (pm_gomp_fn, void *, unsigned, unsigned))
PM_EXPORT void GOMP_parallel(pm_gomp_fn fn, void *data, unsigned num_threads, unsigned flags) {
  pm_omp_team *t = region_fork(fn, data, num_threads);
  if (!t) { /* pass through: a tail call */
    get_GOMP_parallel()(fn, data, num_threads, flags);
    return;
  }
  get_GOMP_parallel()(trampoline, t, num_threads, flags);
  region_join(t);
}

PM_GOMP_REAL(unsigned, GOMP_parallel_reductions, (pm_gomp_fn, void *, unsigned, unsigned))
PM_EXPORT unsigned GOMP_parallel_reductions(pm_gomp_fn fn, void *data, unsigned num_threads, unsigned flags) {
  pm_omp_team *t = region_fork(fn, data, num_threads);
  if (!t) return get_GOMP_parallel_reductions()(fn, data, num_threads, flags);
  unsigned r = get_GOMP_parallel_reductions()(trampoline, t, num_threads, flags);
  region_join(t);
  return r;
}

PM_GOMP_REAL(void, GOMP_parallel_sections, (pm_gomp_fn, void *, unsigned, unsigned, unsigned))
PM_EXPORT void GOMP_parallel_sections(pm_gomp_fn fn, void *data, unsigned num_threads, unsigned count, unsigned flags) {
  pm_omp_team *t = region_fork(fn, data, num_threads);
  if (!t) {
    get_GOMP_parallel_sections()(fn, data, num_threads, count, flags);
    return;
  }
  get_GOMP_parallel_sections()(trampoline, t, num_threads, count, flags);
  region_join(t);
}

/* Combined parallel loops: libgomp sets the loop up for the team, the body fetches chunks. */
#define PARALLEL_LOOP_CHUNK(name)                                                                         \
  PM_GOMP_REAL(void, name, (pm_gomp_fn, void *, unsigned, long, long, long, long, unsigned))              \
  PM_EXPORT void name(pm_gomp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk, \
                      unsigned flags) {                                                                   \
    pm_omp_team *t = region_fork(fn, data, n);                                                            \
    if (!t) {                                                                                             \
      get_##name()(fn, data, n, start, end, incr, chunk, flags);                                          \
      return;                                                                                             \
    }                                                                                                     \
    get_##name()(trampoline, t, n, start, end, incr, chunk, flags);                                       \
    region_join(t);                                                                                       \
  }
#define PARALLEL_LOOP_RUNTIME(name)                                                                             \
  PM_GOMP_REAL(void, name, (pm_gomp_fn, void *, unsigned, long, long, long, unsigned))                          \
  PM_EXPORT void name(pm_gomp_fn fn, void *data, unsigned n, long start, long end, long incr, unsigned flags) { \
    pm_omp_team *t = region_fork(fn, data, n);                                                                  \
    if (!t) {                                                                                                   \
      get_##name()(fn, data, n, start, end, incr, flags);                                                       \
      return;                                                                                                   \
    }                                                                                                           \
    get_##name()(trampoline, t, n, start, end, incr, flags);                                                    \
    region_join(t);                                                                                             \
  }
PARALLEL_LOOP_CHUNK(GOMP_parallel_loop_static)
PARALLEL_LOOP_CHUNK(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP_CHUNK(GOMP_parallel_loop_guided)
PARALLEL_LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_guided)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ------------------------------------------------------------------------------------- old ABI */
/* The teams this thread opened with *_start and not yet closed with GOMP_parallel_end. */
#define OLD_NEST 8
static __thread struct {
  pm_omp_team *team;
  pm_omp_frame *frame;
} old_stack[OLD_NEST];
static __thread int old_depth;

/* Before the real *_start: the team (NULL: not measured); the slot is taken even then, so that
 * GOMP_parallel_end pairs with the right start. */
static pm_omp_team *old_fork(pm_gomp_fn fn, void *data, unsigned n) {
  pm_omp_team *t = old_depth < OLD_NEST ? region_fork(fn, data, n) : NULL;
  if (old_depth < OLD_NEST) old_stack[old_depth].team = t;
  old_depth++;
  return t;
}
/* After the real *_start: the master is about to run the body itself. */
static void old_master_begin(pm_omp_team *t) {
  if (t && old_depth <= OLD_NEST) old_stack[old_depth - 1].frame = member_begin(t);
}

PM_GOMP_REAL(void, GOMP_parallel_start, (pm_gomp_fn, void *, unsigned))
PM_EXPORT void GOMP_parallel_start(pm_gomp_fn fn, void *data, unsigned num_threads) {
  pm_omp_team *t = old_fork(fn, data, num_threads);
  if (!t) {
    get_GOMP_parallel_start()(fn, data, num_threads);
    return;
  }
  get_GOMP_parallel_start()(trampoline, t, num_threads);
  old_master_begin(t);
}

PM_GOMP_REAL(void, GOMP_parallel_sections_start, (pm_gomp_fn, void *, unsigned, unsigned))
PM_EXPORT void GOMP_parallel_sections_start(pm_gomp_fn fn, void *data, unsigned num_threads, unsigned count) {
  pm_omp_team *t = old_fork(fn, data, num_threads);
  if (!t) {
    get_GOMP_parallel_sections_start()(fn, data, num_threads, count);
    return;
  }
  get_GOMP_parallel_sections_start()(trampoline, t, num_threads, count);
  old_master_begin(t);
}

#define OLD_LOOP_CHUNK(name)                                                                                \
  PM_GOMP_REAL(void, name, (pm_gomp_fn, void *, unsigned, long, long, long, long))                          \
  PM_EXPORT void name(pm_gomp_fn fn, void *data, unsigned n, long start, long end, long incr, long chunk) { \
    pm_omp_team *t = old_fork(fn, data, n);                                                                 \
    if (!t) {                                                                                               \
      get_##name()(fn, data, n, start, end, incr, chunk);                                                   \
      return;                                                                                               \
    }                                                                                                       \
    get_##name()(trampoline, t, n, start, end, incr, chunk);                                                \
    old_master_begin(t);                                                                                    \
  }
OLD_LOOP_CHUNK(GOMP_parallel_loop_static_start)
OLD_LOOP_CHUNK(GOMP_parallel_loop_dynamic_start)
OLD_LOOP_CHUNK(GOMP_parallel_loop_guided_start)

PM_GOMP_REAL(void, GOMP_parallel_loop_runtime_start, (pm_gomp_fn, void *, unsigned, long, long, long))
PM_EXPORT void GOMP_parallel_loop_runtime_start(pm_gomp_fn fn, void *data, unsigned n, long start, long end,
                                                long incr) {
  pm_omp_team *t = old_fork(fn, data, n);
  if (!t) {
    get_GOMP_parallel_loop_runtime_start()(fn, data, n, start, end, incr);
    return;
  }
  get_GOMP_parallel_loop_runtime_start()(trampoline, t, n, start, end, incr);
  old_master_begin(t);
}

PM_GOMP_REAL(void, GOMP_parallel_end, (void))
PM_EXPORT void GOMP_parallel_end(void) {
  pm_omp_team *t = NULL;
  if (old_depth > 0 && --old_depth < OLD_NEST) {
    t = old_stack[old_depth].team;
    if (t) member_end(old_stack[old_depth].frame);
  }
  get_GOMP_parallel_end()();
  if (t) region_join(t);
}
