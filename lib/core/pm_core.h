/* popmeter measurement core: the internal API that adapters call.
 *
 * Model: every thread that produces events is a *location*. A location is always in exactly one
 * *state* (useful, MPI point-to-point, I/O, runtime, idle, ...); each transition reads the clock once
 * and charges the elapsed time to the state being left, both on the location and on its current
 * call-path node. Only the owning thread writes its location, so the hot path has no locks.
 * Everything is read at finalize (lib/core/pm_profile_build.c) into the run profile.
 *
 * Adapters use the pattern:
 *     pm_loc *L = pm_enter_tool();            // NULL: popmeter inactive or re-entered -> call through
 *     if (!L) return PMPI_Foo(...);
 *     pm_call_enter(L, region, PM_STATE_MPI_P2P, pm_clock_now());
 *     rc = PMPI_Foo(...);
 *     pm_call_exit(L, pm_clock_now());
 *     pm_leave_tool(L);
 */
#ifndef PM_CORE_H
#define PM_CORE_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include "pm_vocabulary.h"

/* ------------------------------------------------------------------------------------------- clock */
/* Nanoseconds on CLOCK_MONOTONIC, read through the TSC when pm_clock_tsc_start found it usable
 * (pm_clock.c), or on the virtual clock when a test switched to it. */
PM_HIDDEN extern int pm_clock_is_virtual;
PM_HIDDEN extern uint64_t pm_clock_virtual_ns;
/* A TSC anchor: clock = ns0 + (tsc - tsc0) * mult / 2^32 while tsc - tsc0 < valid. Immutable once
 * published in pm_clock_tsc. */
typedef struct {
  uint64_t tsc0, ns0, mult, valid;
  uint64_t mono0; /* CLOCK_MONOTONIC read at the anchor (the rate of the next block is measured from it) */
} pm_tsc_block;
PM_HIDDEN extern const pm_tsc_block *pm_clock_tsc; /* NULL: CLOCK_MONOTONIC through clock_gettime */
PM_HIDDEN uint64_t pm_clock_tsc_slow(const pm_tsc_block *b, uint64_t tsc);
static inline uint64_t pm_clock_monotonic(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static inline uint64_t pm_clock_now(void) {
  if (PM_UNLIKELY(pm_clock_is_virtual)) return __atomic_load_n(&pm_clock_virtual_ns, __ATOMIC_RELAXED);
#if defined(__x86_64__)
  const pm_tsc_block *b = __atomic_load_n(&pm_clock_tsc, __ATOMIC_ACQUIRE);
  if (PM_LIKELY(b != NULL)) {
    uint64_t t = __builtin_ia32_rdtsc(), d = t - b->tsc0;
    if (PM_LIKELY(d < b->valid)) return b->ns0 + ((d * b->mult) >> 32);
    return pm_clock_tsc_slow(b, t);
  }
#endif
  return pm_clock_monotonic();
}
/* At activation: switch to the TSC when the kernel keeps CLOCK_MONOTONIC on an invariant TSC and
 * POPMETER_CLOCK allows it (calibrates for 1 ms). Returns 1 when the TSC is used. */
PM_HIDDEN int pm_clock_tsc_start(int allowed);
/* The block that follows b when re-anchoring at (tsc, mono); returns the clock at tsc (exposed for
 * the unit test of the rate correction). */
PM_HIDDEN uint64_t pm_clock_tsc_next(const pm_tsc_block *b, uint64_t tsc, uint64_t mono, pm_tsc_block *out);
PM_HIDDEN void pm_clock_use_virtual(uint64_t start_ns); /* tests: switch to the virtual clock */
PM_HIDDEN void pm_clock_advance(uint64_t ns);           /* tests: move the virtual clock forward */
/* CPU time of the calling thread (ns; a system call: for rare events only). On the virtual clock: the
 * virtual time minus what pm_clock_advance_off_cpu spent off the CPU. */
PM_HIDDEN uint64_t pm_clock_thread_cpu(void);
PM_HIDDEN void pm_clock_advance_off_cpu(uint64_t ns); /* tests: time passes, the thread is preempted */

/* ---------------------------------------------------------------------------------------- regions */
/* A region is a named code entity: "main", a user region, an MPI function, a codelet, an OpenMP
 * parallel region. Registered once (locked, rare), then referred to by its small integer id. */
typedef uint32_t pm_region_id;
#define PM_REGION_NONE ((pm_region_id)UINT32_MAX)
/* Returns the id of the region with this name and paradigm, creating it if needed. Thread-safe. */
PM_HIDDEN pm_region_id pm_region_register(const char *name, pm_paradigm paradigm, pm_region_role role);
PM_HIDDEN const char *pm_region_name(pm_region_id id);
PM_HIDDEN pm_paradigm pm_region_paradigm(pm_region_id id);
PM_HIDDEN pm_region_role pm_region_role_of(pm_region_id id);
PM_HIDDEN uint32_t pm_region_count(void);
/* Registrations of new names merged into "(more regions)" because the registry was full (65,529
 * distinct names; pm_region.c). */
PM_HIDDEN uint64_t pm_region_folded(void);

/* ------------------------------------------------------------------------------------- locations */
typedef struct pm_loc pm_loc;

/* The calling thread's location, registering it lazily. NULL when measurement is inactive
 * (not activated yet, disabled, in a child after fork without re-activation). */
PM_HIDDEN pm_loc *pm_loc_self(void);
/* Reentrancy-guarded access for wrappers: NULL when inactive or when the tool is already on the
 * stack of this thread (e.g. MPI called from inside popmeter's own finalize). Inline: every event
 * of every adapter goes through it, and its common case (a registered thread, measuring, not
 * re-entered) is three loads; the rest is pm_enter_tool_slow. */
PM_HIDDEN extern __thread pm_loc *pm_tls_loc __attribute__((tls_model("initial-exec")));
PM_HIDDEN extern __thread int pm_tls_guard __attribute__((tls_model("initial-exec")));
PM_HIDDEN extern int pm_core_active; /* measuring (pm_lifecycle.c) */
PM_HIDDEN pm_loc *pm_enter_tool_slow(void);
static inline pm_loc *pm_enter_tool(void) {
  pm_loc *L = pm_tls_loc;
  if (PM_LIKELY(L != NULL && !pm_tls_guard && __atomic_load_n(&pm_core_active, __ATOMIC_ACQUIRE))) {
    pm_tls_guard = 1;
    return L;
  }
  return pm_enter_tool_slow();
}
static inline void pm_leave_tool(pm_loc *L) {
  (void)L;
  pm_tls_guard = 0;
}
PM_HIDDEN void pm_loc_set_role(pm_loc *L, pm_loc_role role, const char *name);
PM_HIDDEN uint32_t pm_loc_id(const pm_loc *L);
/* Registers a location that is not a thread (a device stream); it is fed by explicit timestamps. */
PM_HIDDEN pm_loc *pm_loc_create_virtual(pm_loc_role role, const char *name);
/* A thread that existed, idle, before its first event (a task-runtime worker started during the
 * runtime's initialisation): moves the location's registration back to t (or leaves it, t equal
 * to it) and starts it in state s, provided nothing was charged to it yet; otherwise only switches it
 * to s at 'now'. */
PM_HIDDEN void pm_loc_backdate(pm_loc *L, uint64_t t, pm_state s, uint64_t now);
/* Called on every new thread location right after its registration, on that thread (adapters use
 * it to recognise threads they do not create, e.g. StarPU-MPI's progress thread by its name). */
PM_HIDDEN void pm_loc_set_thread_classifier(void (*fn)(pm_loc *L));
/* Every location's call tree has the root "main", so one root holds the whole process. A thread
 * with no fork point in the program (a task-runtime worker, a progress thread) keeps what it does
 * under a child of the root that says what it is, region r (e.g. "StarPU worker"): called by the
 * adapter that recognises the thread, while the thread is at the root (else it does nothing). */
PM_HIDDEN void pm_loc_set_base(pm_loc *L, pm_region_id r);

/* ------------------------------------------------------------------------------- state accounting */
/* Move the location to state s at time now; returns the previous state. One clock read per
 * transition is the caller's job (pass the same 'now' to everything happening at that instant). */
PM_HIDDEN pm_state pm_state_set(pm_loc *L, pm_state s, uint64_t now);
PM_HIDDEN pm_state pm_state_get(const pm_loc *L);
PM_HIDDEN void pm_ctx_set(pm_loc *L, int ctx, uint64_t now); /* enter/leave OpenMP parallel */

/* Region enter/exit on the call-path tree, with a state change (adapters' common case):
 * pm_call_enter pushes region + state, pm_call_exit pops both. The call path keeps PM_MAX_DEPTH
 * levels (pm_location.h): deeper regions are charged to the deepest node, in their own states. */
PM_HIDDEN void pm_call_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now);
PM_HIDDEN void pm_call_exit(pm_loc *L, uint64_t now);
/* Where a team's members attach their implicit task: the current call path of L (the master, at
 * the fork), as a reference another location of the process can enter under. */
PM_HIDDEN uint32_t pm_loc_fork_point(const pm_loc *L);
/* pm_call_enter for a team member: region r is entered as a child of the call path fork_point of
 * the team's master (pm_loc_fork_point), not of L's current one, so the profile merges the master's
 * and the members' parallel-region time into one call path (as Score-P does); leaving it returns
 * L to its own call path. */
PM_HIDDEN void pm_call_enter_under(pm_loc *L, pm_region_id r, pm_state s, uint32_t fork_point, uint64_t now);
/* A team member passing from one instance of a region to the next without leaving its node: the
 * same as popping every level above depth `keep` at t_leave, popping the node at `keep` too, moving
 * to (out_ctx, out_state) until now and entering the same node again in (in_ctx, in_state) at now
 * (pm_ctx_set, pm_call_enter_under), in one step: the node stays, the interval between the two
 * instances is charged to its parent. Returns 0, having changed nothing, where that step would not
 * be exact: observers attached (they must see the leave and the enter), polls not yet charged, the
 * levels folded beyond PM_MAX_DEPTH, or fewer than `keep` levels. */
PM_HIDDEN int pm_call_pass(pm_loc *L, uint32_t keep, uint64_t t_leave, int out_ctx, pm_state out_state, int in_ctx,
                           pm_state in_state, uint64_t now);
/* Leaving levels at one instant: the same as popping every level above `depth` at now, then
 * pm_ctx_set(ctx) and pm_state_set(s) at now, in one step (a team's join: the master leaves its
 * implicit barrier and the region's node and returns to what it did before the fork). The intervals
 * after the first pop are empty, so one charge does it all; with observers attached (they must see
 * each leave and each change) or levels folded beyond PM_MAX_DEPTH, it takes those steps one by one. */
PM_HIDDEN void pm_call_unwind(pm_loc *L, uint32_t depth, int ctx, pm_state s, uint64_t now);
/* Region enter/exit without a state change (user regions, codelets whose state is set apart). */
PM_HIDDEN void pm_region_enter(pm_loc *L, pm_region_id r, uint64_t now);
PM_HIDDEN void pm_region_exit(pm_loc *L, uint64_t now);

/* A polling call (MPI_Test*, MPI_Iprobe, MPI_Improbe...) of region r that ran from t_start to
 * t_end: counted on r's call path, its time charged there as MPI (state mpi_sync), without a state
 * change: the location's next transition takes the polls' time out of the state it charges. A run
 * of polls with no transition between them is timed as one interval when the gaps are no longer
 * than the polls themselves (or than PM_POLL_GAP_NS): a busy-wait loop's own code and popmeter's
 * wrapper count as polling; computation between polls stays in its own state. Exact to within one
 * poll's cost per poll. */
#define PM_POLL_GAP_NS 500
/* A run of polls that lasts this long takes a reference of the thread's CPU time (one system call),
 * from which a later span or gap that does not fit the run tells preemption from computation. */
#define PM_POLL_REF_NS 50000
PM_HIDDEN void pm_poll(pm_loc *L, pm_region_id r, uint64_t t_start, uint64_t t_end);
/* The t_start a poll passes to pm_poll: the clock, or PM_POLL_UNTIMED inside a run of back-to-back
 * polls (two in a row already joined by a short gap, nothing else since). There the run is timed
 * from one read poll end to the next: no start read (a read costs ~21 ns on the development VM, a
 * failing MPI_Test ~36), and no end read either for every other poll (pm_poll_end). pm_poll leaves
 * the run at a gap that does not fit it (computation between polls) and charges that poll the
 * run's last exactly timed poll, so the error stays within one poll's cost; the next poll is timed
 * exactly again. */
#define PM_POLL_UNTIMED UINT64_MAX
PM_HIDDEN uint64_t pm_poll_start(pm_loc *L);
/* The t_end a poll passes to pm_poll: the clock, or PM_POLL_UNTIMED for every other poll of a run
 * (its start was not read either). Such a poll reads no clock at all: its time goes into the span
 * from the run's last read end to the next poll's end, which then holds two polls and their loop;
 * when the run is left before that span closes (a transition, or computation before the next
 * poll) it is charged what one poll of the run took with its loop. Half a clock read per poll
 * inside a run, the error still within one poll's cost. */
PM_HIDDEN uint64_t pm_poll_end(pm_loc *L, uint64_t t_start);

/* Communication volume of the location (and of its current call-path node). */
PM_HIDDEN void pm_add_sent(pm_loc *L, uint64_t bytes, uint64_t messages);
PM_HIDDEN void pm_add_received(pm_loc *L, uint64_t bytes, uint64_t messages);
PM_HIDDEN void pm_add_collective(pm_loc *L, uint64_t bytes_out, uint64_t bytes_in);
PM_HIDDEN void pm_add_io(pm_loc *L, uint64_t bytes_read, uint64_t bytes_written);

/* --------------------------------------------------------------------------- critical path clocks */
/* Lamport clocks, in nanoseconds of weighted time:
 *   cue: useful time only; com: everything but MPI; coo: everything but runtime/OpenMP/idle.
 * tl_* never merges; pl_* merges within the process; g_* merges across processes too.
 * Each transition advances the clocks of the location by the time spent in the state left. */
typedef struct {
  uint64_t cue, com, coo;
} pm_cp_clock;
PM_HIDDEN pm_cp_clock pm_cp_global(const pm_loc *L);
PM_HIDDEN pm_cp_clock pm_cp_process(const pm_loc *L);
/* Merge an incoming dependency: local = max(local, incoming). */
PM_HIDDEN void pm_cp_merge_global(pm_loc *L, pm_cp_clock in);
/* pm_cp_merge_global at the end of an MPI call that took call_ns, just left with pm_call_exit: the
 * part of the call an ideal network would also have spent waiting -- the jump of the com clock
 * (everything but MPI: the ideal-network time), at most call_ns -- is credited to the call's node
 * as waiting; the rest of its MPI time is transfer. */
PM_HIDDEN void pm_cp_merge_global_call(pm_loc *L, pm_cp_clock in, uint64_t call_ns);
/* The same for a poll that completed a message at t_end (pm_poll was called): the run of polls
 * since the last transition is the call, the last poll's node gets the credit. */
PM_HIDDEN void pm_cp_merge_global_poll(pm_loc *L, pm_cp_clock in, uint64_t t_end);
PM_HIDDEN void pm_cp_merge_process(pm_loc *L, pm_cp_clock in);

/* --------------------------------------------------------------------------------- process state */
/* Lifecycle: activation happens lazily at the first adapter entry point. */
PM_HIDDEN int pm_core_activate(void); /* returns 1 if active */
static inline int pm_core_is_active(void) { return __atomic_load_n(&pm_core_active, __ATOMIC_ACQUIRE); }
PM_HIDDEN void pm_core_pause(void); /* popmeter.h pause/resume */
PM_HIDDEN void pm_core_resume(void);
/* Restarts the measured window now: what was measured before is forgotten. The MPI adapter calls it
 * when MPI_Init returns, so an MPI program's window is MPI_Init -> MPI_Finalize however popmeter
 * was activated (preload, launcher or link). */
PM_HIDDEN void pm_core_restart_window(void);
/* Process identity, set by the MPI adapter (or 0/1 for non-MPI programs). */
PM_HIDDEN void pm_core_set_process(int rank, int nprocs);

/* For tests: reset everything to the freshly-loaded state. */
PM_HIDDEN void pm_core_reset_for_tests(void);

#endif
