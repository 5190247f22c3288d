/* GOMP synchronisation and worksharing calls.
 *
 * Barriers (GOMP_barrier, the implicit barrier of GOMP_loop_end / GOMP_sections_end, and their
 * cancellable forms): pm_omp_barrier_enter/exit around the real call, i.e. the clock exchange, and
 * sync_wait for the whole call (libgomp cannot tell waiting from barrier overhead). Tasks run
 * inside the barrier go through the task trampoline and count as useful.
 * Loop chunks and sections handed out by the runtime (*_start, *_next, *_end_nowait), and
 * GOMP_single_start: runtime state in the node "omp schedule" / "omp single". Static loops
 * without a schedule call never enter libgomp. Ordered loops are not interposed.
 * Critical sections: the node "omp critical" is entered waiting for the lock and stays, useful,
 * until GOMP_critical_end (the OMPT adapter builds the same node from mutex callbacks). */
#include "gomp_adapter.h"

/* ---------------------------------------------------------------------------------- barriers */
static pm_loc *barrier_enter(pm_omp_rkind k) {
  pm_loc *L = pm_gomp_enter();
  if (L) {
    pm_omp_barrier_enter(L, pm_omp_region(k), PM_STATE_SYNC_WAIT, pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}
static void barrier_exit(pm_loc *L) {
  if (!L) return;
  pm_omp_barrier_prefetch(L);
  pm_omp_barrier_exit(L, pm_clock_now());
}

PM_GOMP_REAL(void, GOMP_barrier, (void))
PM_EXPORT void GOMP_barrier(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_BARRIER);
  get_GOMP_barrier()();
  barrier_exit(L);
}

PM_GOMP_REAL(bool, GOMP_barrier_cancel, (void))
PM_EXPORT bool GOMP_barrier_cancel(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_BARRIER);
  bool r = get_GOMP_barrier_cancel()();
  barrier_exit(L);
  return r;
}

PM_GOMP_REAL(void, GOMP_loop_end, (void))
PM_EXPORT void GOMP_loop_end(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_IMPLICIT_BARRIER);
  get_GOMP_loop_end()();
  barrier_exit(L);
}

PM_GOMP_REAL(bool, GOMP_loop_end_cancel, (void))
PM_EXPORT bool GOMP_loop_end_cancel(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_IMPLICIT_BARRIER);
  bool r = get_GOMP_loop_end_cancel()();
  barrier_exit(L);
  return r;
}

PM_GOMP_REAL(void, GOMP_sections_end, (void))
PM_EXPORT void GOMP_sections_end(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_IMPLICIT_BARRIER);
  get_GOMP_sections_end()();
  barrier_exit(L);
}

PM_GOMP_REAL(bool, GOMP_sections_end_cancel, (void))
PM_EXPORT bool GOMP_sections_end_cancel(void) {
  pm_loc *L = barrier_enter(PM_OMP_R_IMPLICIT_BARRIER);
  bool r = get_GOMP_sections_end_cancel()();
  barrier_exit(L);
  return r;
}

/* ------------------------------------------------------------------------ runtime calls (nodes) */
static pm_loc *runtime_enter(pm_omp_rkind k) {
  pm_loc *L = pm_gomp_enter();
  if (L) {
    pm_call_enter(L, pm_omp_region(k), PM_STATE_RUNTIME, pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}
static void runtime_exit(pm_loc *L) {
  if (L) pm_call_exit(L, pm_clock_now());
}

/* Wraps a runtime call returning type ret with parameters params, called with args. */
#define RUNTIME_CALL(kind, ret, name, params, args) \
  PM_GOMP_REAL(ret, name, params)                   \
  PM_EXPORT ret name params {                       \
    pm_loc *L = runtime_enter(kind);                \
    ret r = get_##name() args;                      \
    runtime_exit(L);                                \
    return r;                                       \
  }
#define RUNTIME_CALL_VOID(kind, name) \
  PM_GOMP_REAL(void, name, (void))    \
  PM_EXPORT void name(void) {         \
    pm_loc *L = runtime_enter(kind);  \
    get_##name()();                   \
    runtime_exit(L);                  \
  }

typedef unsigned long long ull;
#define S PM_OMP_R_SCHEDULE
/* long loops: static/dynamic/guided (+nonmonotonic) take a chunk size, runtime ones do not */
#define LOOP_START_CHUNK(name) \
  RUNTIME_CALL(S, bool, name, (long s, long e, long i, long c, long *is, long *ie), (s, e, i, c, is, ie))
#define LOOP_START_RT(name) RUNTIME_CALL(S, bool, name, (long s, long e, long i, long *is, long *ie), (s, e, i, is, ie))
#define LOOP_NEXT(name) RUNTIME_CALL(S, bool, name, (long *is, long *ie), (is, ie))
LOOP_START_CHUNK(GOMP_loop_static_start)
LOOP_START_CHUNK(GOMP_loop_dynamic_start)
LOOP_START_CHUNK(GOMP_loop_guided_start)
LOOP_START_CHUNK(GOMP_loop_nonmonotonic_dynamic_start)
LOOP_START_CHUNK(GOMP_loop_nonmonotonic_guided_start)
LOOP_START_RT(GOMP_loop_runtime_start)
LOOP_START_RT(GOMP_loop_nonmonotonic_runtime_start)
LOOP_START_RT(GOMP_loop_maybe_nonmonotonic_runtime_start)
RUNTIME_CALL(S, bool, GOMP_loop_start,
             (long s, long e, long i, long sched, long c, long *is, long *ie, uintptr_t *red, void **mem),
             (s, e, i, sched, c, is, ie, red, mem))
LOOP_NEXT(GOMP_loop_static_next)
LOOP_NEXT(GOMP_loop_dynamic_next)
LOOP_NEXT(GOMP_loop_guided_next)
LOOP_NEXT(GOMP_loop_runtime_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)
/* unsigned long long loops */
#define ULL_START_CHUNK(name) \
  RUNTIME_CALL(S, bool, name, (bool up, ull s, ull e, ull i, ull c, ull *is, ull *ie), (up, s, e, i, c, is, ie))
#define ULL_START_RT(name) \
  RUNTIME_CALL(S, bool, name, (bool up, ull s, ull e, ull i, ull *is, ull *ie), (up, s, e, i, is, ie))
#define ULL_NEXT(name) RUNTIME_CALL(S, bool, name, (ull * is, ull * ie), (is, ie))
ULL_START_CHUNK(GOMP_loop_ull_static_start)
ULL_START_CHUNK(GOMP_loop_ull_dynamic_start)
ULL_START_CHUNK(GOMP_loop_ull_guided_start)
ULL_START_CHUNK(GOMP_loop_ull_nonmonotonic_dynamic_start)
ULL_START_CHUNK(GOMP_loop_ull_nonmonotonic_guided_start)
ULL_START_RT(GOMP_loop_ull_runtime_start)
ULL_START_RT(GOMP_loop_ull_nonmonotonic_runtime_start)
ULL_START_RT(GOMP_loop_ull_maybe_nonmonotonic_runtime_start)
RUNTIME_CALL(S, bool, GOMP_loop_ull_start,
             (bool up, ull s, ull e, ull i, long sched, ull c, ull *is, ull *ie, uintptr_t *red, void **mem),
             (up, s, e, i, sched, c, is, ie, red, mem))
ULL_NEXT(GOMP_loop_ull_static_next)
ULL_NEXT(GOMP_loop_ull_dynamic_next)
ULL_NEXT(GOMP_loop_ull_guided_next)
ULL_NEXT(GOMP_loop_ull_runtime_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next)
ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next)
RUNTIME_CALL_VOID(S, GOMP_loop_end_nowait)
/* sections */
RUNTIME_CALL(S, unsigned, GOMP_sections_start, (unsigned count), (count))
RUNTIME_CALL(S, unsigned, GOMP_sections2_start, (unsigned count, uintptr_t *red, void **mem), (count, red, mem))
RUNTIME_CALL(S, unsigned, GOMP_sections_next, (void), ())
RUNTIME_CALL_VOID(S, GOMP_sections_end_nowait)
#undef S
RUNTIME_CALL(PM_OMP_R_SINGLE, bool, GOMP_single_start, (void), ())

/* ---------------------------------------------------------------------------------- critical */
/* Critical nodes this thread entered: a release pops only what an acquire pushed (popmeter may
 * have been activated, or OMPT started, between the two). */
static __thread unsigned critical_depth;

static void critical_acquire(void (*real)(void), void (*real_named)(void **), void **pptr) {
  pm_loc *L = pm_gomp_enter();
  if (L) {
    pm_call_enter(L, pm_omp_region(PM_OMP_R_CRITICAL), PM_STATE_SYNC_WAIT, pm_clock_now());
    critical_depth++;
    pm_leave_tool(L);
  }
  if (real_named)
    real_named(pptr);
  else
    real();
  if (L) pm_state_set(L, PM_STATE_USEFUL, pm_clock_now()); /* inside: the node stays */
}
static void critical_release(void (*real)(void), void (*real_named)(void **), void **pptr) {
  if (real_named)
    real_named(pptr);
  else
    real();
  if (!critical_depth) return;
  pm_loc *L = pm_enter_tool();
  if (L) {
    pm_call_exit(L, pm_clock_now());
    critical_depth--;
    pm_leave_tool(L);
  }
}

PM_GOMP_REAL(void, GOMP_critical_start, (void))
PM_EXPORT void GOMP_critical_start(void) { critical_acquire(get_GOMP_critical_start(), NULL, NULL); }
PM_GOMP_REAL(void, GOMP_critical_end, (void))
PM_EXPORT void GOMP_critical_end(void) { critical_release(get_GOMP_critical_end(), NULL, NULL); }
PM_GOMP_REAL(void, GOMP_critical_name_start, (void **))
PM_EXPORT void GOMP_critical_name_start(void **pptr) { critical_acquire(NULL, get_GOMP_critical_name_start(), pptr); }
PM_GOMP_REAL(void, GOMP_critical_name_end, (void **))
PM_EXPORT void GOMP_critical_name_end(void **pptr) { critical_release(NULL, get_GOMP_critical_name_end(), pptr); }
