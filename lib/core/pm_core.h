/* popmeter measurement core: the internal API that adapters call.
 *
 * Model: every thread that produces events is a *location*. A location is always in exactly one
 * *state* (useful, MPI point-to-point, I/O, runtime, idle, ...); each transition reads the clock once
 * and charges the elapsed time to the state being left, both on the location and on its current
 * call-path node. Only the owning thread writes its location, so the hot path has no locks.
 * Everything is read at finalize (lib/core/profile_build.c) into the run profile.
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

#define PM_HIDDEN __attribute__((visibility("hidden")))
#define PM_LIKELY(x) __builtin_expect(!!(x), 1)
#define PM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------------------------------ states */
typedef enum {
  PM_STATE_USEFUL = 0, /* application code */
  PM_STATE_MPI_P2P,    /* blocking or non-blocking point-to-point call */
  PM_STATE_MPI_COLL,   /* collective (blocking, or the posting of a non-blocking one) */
  PM_STATE_MPI_SYNC,   /* wait / test / probe: completing requests */
  PM_STATE_MPI_MGMT,   /* init, finalize, communicators, datatypes, other management */
  PM_STATE_MPI_IO,     /* MPI-IO file calls */
  PM_STATE_POSIX_IO,   /* POSIX / stdio file I/O */
  PM_STATE_RUNTIME,    /* task or OpenMP runtime overhead (scheduling, fork/join, data management) */
  PM_STATE_SYNC_WAIT,  /* thread synchronisation wait (OpenMP barrier, lock) */
  PM_STATE_IDLE,       /* no work: sleeping worker, waiting for a task */
  PM_STATE_DEVICE,     /* host blocked in a device runtime call (CUDA sync, memcpy) */
  PM_STATE_TOOL,       /* popmeter's own work (finalize reduction, trace flush) */
  PM_STATE_OFF,        /* not measured: before activation, paused, after finalize */
  PM_STATE_COUNT
} pm_state;

/* The coarse class a state belongs to in the POP models. */
typedef enum {
  PM_CLASS_USEFUL = 0,
  PM_CLASS_MPI,
  PM_CLASS_IO,
  PM_CLASS_RUNTIME,
  PM_CLASS_IDLE,
  PM_CLASS_DEVICE,
  PM_CLASS_OTHER,
  PM_CLASS_COUNT
} pm_state_class;

PM_HIDDEN pm_state_class pm_state_class_of(pm_state s);
PM_HIDDEN const char *pm_state_name(pm_state s); /* "useful", "mpi_p2p", ... (JSON keys) */

/* Context bit: whether the location is inside an OpenMP parallel region (additive model). */
enum { PM_CTX_SERIAL = 0, PM_CTX_PARALLEL = 1, PM_CTX_COUNT = 2 };

/* ------------------------------------------------------------------------------------------- clock */
/* Nanoseconds on CLOCK_MONOTONIC, or on the virtual clock when a test switched to it. */
PM_HIDDEN extern int pm_clock_is_virtual;
PM_HIDDEN extern uint64_t pm_clock_virtual_ns;
static inline uint64_t pm_clock_now(void) {
  if (PM_UNLIKELY(pm_clock_is_virtual)) return __atomic_load_n(&pm_clock_virtual_ns, __ATOMIC_RELAXED);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
PM_HIDDEN void pm_clock_use_virtual(uint64_t start_ns); /* tests: switch to the virtual clock */
PM_HIDDEN void pm_clock_advance(uint64_t ns);           /* tests: move the virtual clock forward */

/* ---------------------------------------------------------------------------------------- regions */
/* A region is a named code entity: "main", a user region, an MPI function, a codelet, an OpenMP
 * parallel region. Registered once (locked, rare), then referred to by its small integer id. */
typedef enum {
  PM_PARADIGM_USER = 0,
  PM_PARADIGM_MPI,
  PM_PARADIGM_OPENMP,
  PM_PARADIGM_STARPU,
  PM_PARADIGM_IO,
  PM_PARADIGM_CUDA,
  PM_PARADIGM_MEASUREMENT,
  PM_PARADIGM_COUNT
} pm_paradigm;
typedef enum {
  PM_ROLE_FUNCTION = 0,
  PM_ROLE_POINT2POINT,
  PM_ROLE_COLLECTIVE,
  PM_ROLE_BARRIER,
  PM_ROLE_PARALLEL,
  PM_ROLE_TASK,
  PM_ROLE_FILE_IO,
  PM_ROLE_WRAPPER,
  PM_ROLE_ARTIFICIAL,
  PM_ROLE_COUNT
} pm_region_role;

typedef uint32_t pm_region_id;
#define PM_REGION_NONE ((pm_region_id)UINT32_MAX)
/* Returns the id of the region with this name and paradigm, creating it if needed. Thread-safe. */
PM_HIDDEN pm_region_id pm_region_register(const char *name, pm_paradigm paradigm, pm_region_role role);
PM_HIDDEN const char *pm_region_name(pm_region_id id);
PM_HIDDEN pm_paradigm pm_region_paradigm(pm_region_id id);
PM_HIDDEN pm_region_role pm_region_role_of(pm_region_id id);
PM_HIDDEN uint32_t pm_region_count(void);

/* ------------------------------------------------------------------------------------- locations */
typedef enum {
  PM_ROLE_MAIN = 0,     /* the process's main thread (first registered) */
  PM_ROLE_THREAD,       /* another application thread (OpenMP thread, pthread) */
  PM_ROLE_WORKER,       /* task-runtime CPU worker */
  PM_ROLE_ACCEL_WORKER, /* task-runtime accelerator worker */
  PM_ROLE_PROGRESS,     /* communication progress thread (StarPU-MPI "MPI") */
  PM_ROLE_DEVICE,       /* a device stream (CUDA), fed by the CUPTI plugin */
  PM_ROLE_OTHER,        /* helper threads we do not model */
  PM_LOC_ROLE_COUNT
} pm_loc_role;
PM_HIDDEN const char *pm_loc_role_name(pm_loc_role r);

typedef struct pm_loc pm_loc;

/* The calling thread's location, registering it lazily. NULL when measurement is inactive
 * (not activated yet, disabled, in a child after fork without re-activation). */
PM_HIDDEN pm_loc *pm_loc_self(void);
/* Reentrancy-guarded access for wrappers: NULL when inactive or when the tool is already on the
 * stack of this thread (e.g. MPI called from inside popmeter's own finalize). */
PM_HIDDEN pm_loc *pm_enter_tool(void);
PM_HIDDEN void pm_leave_tool(pm_loc *L);
PM_HIDDEN void pm_loc_set_role(pm_loc *L, pm_loc_role role, const char *name);
PM_HIDDEN uint32_t pm_loc_id(const pm_loc *L);
/* Registers a location that is not a thread (a device stream); it is fed by explicit timestamps. */
PM_HIDDEN pm_loc *pm_loc_create_virtual(pm_loc_role role, const char *name);
/* A thread that existed, idle, before its first event (a task-runtime worker started during the
 * runtime's initialisation): moves the location's registration back to t and starts it in state s,
 * provided nothing was charged to it yet; otherwise only switches it to s at 'now'. */
PM_HIDDEN void pm_loc_backdate(pm_loc *L, uint64_t t, pm_state s, uint64_t now);
/* Called on every new thread location right after its registration, on that thread (adapters use
 * it to recognise threads they do not create, e.g. StarPU-MPI's progress thread by its name). */
PM_HIDDEN void pm_loc_set_thread_classifier(void (*fn)(pm_loc *L));

/* ------------------------------------------------------------------------------- state accounting */
/* Move the location to state s at time now; returns the previous state. One clock read per
 * transition is the caller's job (pass the same 'now' to everything happening at that instant). */
PM_HIDDEN pm_state pm_state_set(pm_loc *L, pm_state s, uint64_t now);
PM_HIDDEN pm_state pm_state_get(const pm_loc *L);
PM_HIDDEN void pm_ctx_set(pm_loc *L, int ctx, uint64_t now); /* enter/leave OpenMP parallel */

/* Region enter/exit on the call-path tree, with a state change (adapters' common case):
 * pm_call_enter pushes region + state, pm_call_exit pops both. Nesting depth is bounded
 * (PM_MAX_DEPTH); deeper calls are accounted to the deepest node. */
PM_HIDDEN void pm_call_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now);
PM_HIDDEN void pm_call_exit(pm_loc *L, uint64_t now);
/* Region enter/exit without a state change (user regions, codelets whose state is set apart). */
PM_HIDDEN void pm_region_enter(pm_loc *L, pm_region_id r, uint64_t now);
PM_HIDDEN void pm_region_exit(pm_loc *L, uint64_t now);

/* Counted without timestamps (polling calls: MPI_Test*, MPI_Iprobe). */
PM_HIDDEN void pm_count_poll(pm_loc *L, pm_region_id r);

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
PM_HIDDEN void pm_cp_merge_process(pm_loc *L, pm_cp_clock in);

/* --------------------------------------------------------------------------------- process state */
/* Lifecycle: activation happens lazily at the first adapter entry point. */
PM_HIDDEN int pm_core_activate(void); /* returns 1 if active */
PM_HIDDEN int pm_core_is_active(void);
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
