/* OpenMP accounting shared by the OMPT adapter (LLVM libomp) and the GOMP adapter (GCC libgomp).
 *
 * An adapter translates its runtime's events into the calls below; this layer owns what both need:
 *  - per thread, a small stack of implicit-task *frames* (nested parallelism), which set the
 *    location's context (PM_CTX_PARALLEL inside a region) and states (useful in the body,
 *    sync_wait in barriers, runtime during the fork, idle between regions);
 *  - per team, a slot array through which the members exchange their critical-path clocks at
 *    barriers (Lamport: a barrier gives everyone the max of the team's clocks; a fork gives every
 *    member the master's clock) and hand their statistics to the master at the join;
 *  - per parallel region (keyed by code address), aggregates over its instances: span and, per
 *    thread, useful and idle time (TALP split, per-region additive efficiency). Bounded memory.
 *
 * Workers leave a region asynchronously: neither libgomp nor libomp tells a worker when the join
 * barrier it waits in completes (libomp reports it at the next fork). So a worker that reached the
 * end of its implicit task stays in sync_wait; the master records the join time in the team (the
 * worker finds it in the line it reads at the next fork anyway, or in the master's per-member
 * record), and the worker's next event (or finalize) closes the frame retroactively at that time:
 * sync_wait inside the region up to the join, idle outside it afterwards.
 *
 * Threading: every call is made by the thread that owns L (unit tests drive virtual locations from
 * one thread). Hot-path calls take no lock and allocate nothing after the first region. */
#ifndef PM_OMP_H
#define PM_OMP_H
#include "pm_core.h"

typedef struct pm_omp_team pm_omp_team;
typedef struct pm_omp_frame pm_omp_frame;
typedef struct pm_omp_task pm_omp_task;
typedef struct {
  pm_cp_clock p, g;
} pm_omp_cp2; /* process-local and global clocks */

/* Set once the OMPT tool is initialized: libomp then reports everything, including the regions of
 * GCC-compiled code that calls libomp's GOMP_* entry points, so the GOMP wrappers pass through. */
PM_HIDDEN extern int pm_omp_ompt_active;

/* Call-path regions of OpenMP constructs, identical for both adapters. */
typedef enum {
  PM_OMP_R_BARRIER = 0,      /* explicit barrier */
  PM_OMP_R_IMPLICIT_BARRIER, /* end of a worksharing construct, and the join at the region end */
  PM_OMP_R_TASKWAIT,
  PM_OMP_R_TASKGROUP,
  PM_OMP_R_CRITICAL,
  PM_OMP_R_LOCK,
  PM_OMP_R_ORDERED,
  PM_OMP_R_SINGLE,
  PM_OMP_R_LOOP,
  PM_OMP_R_SECTIONS,
  PM_OMP_R_WORKSHARE,
  PM_OMP_R_SCHEDULE,    /* dispatching loop chunks / sections (runtime) */
  PM_OMP_R_TASK_CREATE, /* creating an explicit task (runtime) */
  PM_OMP_R_COUNT
} pm_omp_rkind;
PM_HIDDEN pm_region_id pm_omp_region(pm_omp_rkind k);

/* ------------------------------------------------------------------------------ parallel regions */
/* Master, before the fork. code identifies the region (outlined function or call site); cap is an
 * upper bound of the team size. Enters the region's call path in the runtime state (fork
 * overhead), PM_CTX_PARALLEL. NULL: not measured (too deeply nested, out of memory) -> the adapter
 * passes through and must not call pm_omp_join. */
PM_HIDDEN pm_omp_team *pm_omp_fork(pm_loc *L, const void *code, uint32_t cap, uint64_t now);
/* Two words of adapter data carried by a team (GOMP: the outlined function and its argument). */
PM_HIDDEN void **pm_omp_team_user(pm_omp_team *t);
/* A member about to begin its implicit task in team t: asks for the team's fork line (the master's
 * clocks at the fork, the instance, the last join's time), which the master has just written and
 * pm_omp_implicit_begin reads, so that its transfer overlaps the work before (a hint). */
PM_HIDDEN void pm_omp_member_prefetch(const pm_omp_team *t);
/* Every member (master included, tid 0) at the start of its implicit task in team t: closes a
 * finished frame whose join is known, takes the master's clock, starts useful time. nthreads: the
 * team's size, or 0 when the member does not know it (the team keeps the last size given, at
 * first the fork's bound). Returns the frame to pass to pm_omp_implicit_end, or NULL (t NULL,
 * nesting too deep). */
PM_HIDDEN pm_omp_frame *pm_omp_implicit_begin(pm_loc *L, pm_omp_team *t, uint32_t tid, uint32_t nthreads, uint64_t now);
/* A member at the end of its implicit task. join_wait = 1 when the runtime's join barrier follows
 * unobserved (GOMP): the member then waits in sync_wait until the join. A frame already closed (the
 * OMPT join barrier's late end did it) is left alone. */
PM_HIDDEN void pm_omp_implicit_end(pm_loc *L, pm_omp_frame *f, int join_wait, uint64_t now);
/* Master, after the join: closes its frame and the region's call path, merges the members' final
 * clocks, records the join time for them (pm_omp_join_time), adds the instance to the region's
 * aggregates. */
PM_HIDDEN void pm_omp_join(pm_loc *L, pm_omp_team *t, uint64_t now);

/* Barriers (explicit, implicit, the OMPT join barrier): enter pushes region r in state s
 * (sync_wait, or runtime when the adapter reports the waiting part apart) and publishes the
 * thread's clock and statistics; exit makes the thread owe its clocks the team's (merged where
 * it left, read when the clocks are next read: pm_loc.cp_pending), or closes the frame when the
 * barrier was the join and the master has already recorded its time (libomp workers). */
PM_HIDDEN void pm_omp_barrier_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now);
PM_HIDDEN void pm_omp_barrier_exit(pm_loc *L, uint64_t now);
/* The master's own join barrier (libomp reports it with the region's code address, which
 * pm_omp_is_join_barrier recognises): a call-path node in sync_wait, without the clock exchange of
 * other barriers. The exchange would be the join's own: pm_omp_join merges every member's arrival
 * and the tasks' end clocks at the master's own clock of this barrier's end (the exit records it),
 * exactly what the exchange would have merged. The members learn the master's clock at the next
 * fork: libomp reports their exit from this barrier then (a member whose exit were reported before
 * the join would read an older half of the master's slot, which cannot win over its own clock). */
PM_HIDDEN int pm_omp_is_join_barrier(pm_loc *L, const void *code);
PM_HIDDEN void pm_omp_join_barrier_enter(pm_loc *L, pm_region_id r, uint64_t now);
PM_HIDDEN void pm_omp_join_barrier_exit(pm_loc *L, uint64_t now);
/* Right after the runtime's barrier returned, before the clock read of pm_omp_barrier_exit: asks
 * for the other members' arrival clocks (their lines are in their writers' caches), so that the
 * transfers overlap the work up to the exchange's read (a hint). */
PM_HIDDEN void pm_omp_barrier_prefetch(const pm_loc *L);
/* The waiting part of a synchronisation (OMPT sync_region_wait): sync_wait from begin to end,
 * runtime around it. Ignored for the late end of a join barrier (its exit closes the frame). */
PM_HIDDEN void pm_omp_wait(pm_loc *L, int begin, uint64_t now);
/* 1 when the thread's current barrier is a join the master has completed and recorded: the ends
 * libomp reports for it (wait, barrier) are late, and pm_omp_barrier_exit closes the frame at the
 * join time, whatever 'now' it is given as long as it is not earlier: an adapter need not read the
 * clock for them. */
PM_HIDDEN int pm_omp_late_join(pm_loc *L);
/* 1 when the implicit task of frame f was closed already (pm_omp_implicit_end does nothing then,
 * so its caller need not read the clock). */
PM_HIDDEN int pm_omp_frame_done(const pm_omp_frame *f);
/* The time of the end of frame f's implicit task, for its pm_omp_implicit_end: the master's own
 * join barrier's end when it left that barrier and did nothing since (libomp reports the end of
 * its implicit task right after it: what the runtime does in between is its join, runtime time,
 * not the task's useful time) when no observer reads counters at the location's charges, else the
 * clock now. */
PM_HIDDEN uint64_t pm_omp_implicit_end_time(const pm_loc *L, const pm_omp_frame *f);
/* Taskwait / taskgroup end: sync_wait; exit merges the clocks of the tasks completed meanwhile. */
PM_HIDDEN void pm_omp_taskwait_enter(pm_loc *L, pm_region_id r, uint64_t now);
PM_HIDDEN void pm_omp_taskwait_exit(pm_loc *L, uint64_t now);

/* --------------------------------------------------------------------------------- explicit tasks */
/* Creation context of a task: charges the creator up to now and returns its clocks. */
PM_HIDDEN pm_omp_cp2 pm_omp_task_context(pm_loc *L, uint64_t now);
/* The same where the creation is itself a call-path node (region r, runtime state) entered now: the
 * entry charges the creator, so the clocks need no transition of their own. */
PM_HIDDEN pm_omp_cp2 pm_omp_task_create_enter(pm_loc *L, pm_region_id r, uint64_t now);
/* A task body run as a call on the executing thread (GOMP trampolines): merges the creator's
 * clocks, useful state; end publishes the task's end clock to the team (barriers, taskwait). */
PM_HIDDEN pm_state pm_omp_task_body_begin(pm_loc *L, const pm_omp_cp2 *create, uint64_t now);
PM_HIDDEN void pm_omp_task_body_end(pm_loc *L, pm_state prev, uint64_t now);

/* OMPT tasks, which switch at scheduling points instead of nesting as calls. has_deps: the task
 * takes part in dependences (its record then lives until the next barrier, see pm_omp_tasks.c). */
PM_HIDDEN pm_omp_task *pm_omp_task_new(pm_loc *L, int has_deps, uint64_t now);
/* The task takes part in dependences (OMPT dependences callback; idempotent). */
PM_HIDDEN void pm_omp_task_mark_deps(pm_omp_task *t);
/* An edge src -> sink reported at sink's creation (src not complete yet). */
PM_HIDDEN void pm_omp_task_depend(pm_omp_task *src, pm_omp_task *sink);
/* The thread leaves 'prior' (NULL: its implicit task) and runs 'next' (NULL: its implicit task);
 * prior_done: prior's body has finished. */
PM_HIDDEN void pm_omp_task_switch(pm_loc *L, pm_omp_task *prior, int prior_done, pm_omp_task *next, uint64_t now);

/* ----------------------------------------------------------------------------------- lifecycle */
/* A runtime thread exits (OMPT thread_end): closes its finished frames at their join times first. */
PM_HIDDEN void pm_omp_thread_end(pm_loc *L, uint64_t now);
/* Finalize, before the locations are flushed: closes the frames of workers that are waiting for
 * a join the master has already recorded (their time since the join is idle, not sync_wait). */
PM_HIDDEN void pm_omp_finalize(uint64_t t_end);
PM_HIDDEN void pm_omp_reset(void); /* tests: forget every thread, team, task and region */

/* The aggregates of the process's parallel regions, appended to the profile at finalize. */
struct pm_profile;
PM_HIDDEN int pm_omp_regions_export(struct pm_profile *p);

/* The OpenMP team model as a module (pm_module.h): end = pm_omp_finalize, to_profile = the region
 * aggregates. */
struct pm_module;
PM_HIDDEN extern const struct pm_module pm_omp_module;
#endif
