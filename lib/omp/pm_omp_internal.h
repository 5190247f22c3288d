/* Internal layout of the OpenMP accounting layer (pm_omp.h): threads, frames, teams, tasks and
 * region aggregates. Shared by pm_omp_team.c, pm_omp_tasks.c, pm_omp_regions.c and unit tests. */
#ifndef PM_OMP_INTERNAL_H
#define PM_OMP_INTERNAL_H
#include "pm_omp.h"
#include "pm_location.h"

#define PM_OMP_MAX_NEST 8        /* implicit-task frames per thread; deeper regions are not measured */
#define PM_OMP_MAX_TEAM 256      /* per-thread region statistics; threads beyond fold into the last */
#define PM_OMP_MAX_REGIONS 1024  /* distinct parallel regions; more fold into one "other" entry */
#define PM_OMP_MAX_RETIRED 65536 /* task records with dependences kept until the next barrier */

enum { PM_OMP_RUNNING = 1, PM_OMP_IN_BARRIER, PM_OMP_ENDED, PM_OMP_CLOSED };

/* Aggregates of one parallel region over its instances (ns). Written with atomic adds by the
 * masters at their joins; read at finalize. */
typedef struct pm_omp_rstat {
  uintptr_t key;    /* code address */
  pm_region_id rid; /* call-path region */
  char *name;
  uint32_t nthreads; /* largest team seen (capped at PM_OMP_MAX_TEAM) */
  uint64_t instances, span;
  uint64_t useful[PM_OMP_MAX_TEAM], idle[PM_OMP_MAX_TEAM];
} pm_omp_rstat;

/* A member's implicit task in a team. */
struct pm_omp_frame {
  pm_omp_team *team;
  uint32_t tid, status;
  uint32_t epoch;     /* barriers this member has passed in the team */
  uint32_t depth0;    /* location stack depth when the frame began */
  uint32_t ctx_saved; /* context and state to restore when it closes (workers) */
  uint32_t state_saved;
  int is_master;
  uint64_t useful0, idle0; /* location counters (PM_CTX_PARALLEL) at the begin */
  uint64_t gen;            /* the team instance (pm_omp_team.gen) the frame belongs to */
  uint32_t trace_team;     /* the trace's thread-team id (lib/trace), UINT32_MAX: none */
  int join_exited;         /* the master left its join barrier (pm_omp_join_barrier_exit) ... */
  pm_cp_clock join_own;    /* ... with this own clock: pm_omp_join merges at that point */
  uint64_t join_t;         /* ... at this time */
  int after_join;          /* a member's implicit task ended after it left the join barrier */
  /* a worker's region node: the region and the master's call path it was entered under */
  pm_region_id rid;
  uint32_t fork_point;
};

typedef struct pm_omp_thread {
  pm_loc *L;
  uint32_t depth;    /* frames in use */
  uint32_t overflow; /* implicit tasks nested beyond PM_OMP_MAX_NEST (ignored) */
  pm_omp_frame frame[PM_OMP_MAX_NEST];
  uint32_t forks; /* teams this thread is the open master of */
  pm_omp_team *team_cache[PM_OMP_MAX_NEST];
  uint8_t impl_state; /* state of the implicit task when it switched to a task */
  int named;
  pm_omp_task *free_tasks, *retired_tasks;
  uint32_t nretired;
  /* The barrier exchange owed to the clocks (L->cp_pending): the members' arrivals at barrier
   * half owed_e of owed_team (owed_n slotted members), merged where the thread's own clock was
   * owed_own, when the thread left that barrier. */
  pm_omp_team *owed_team;
  uint32_t owed_e, owed_n, owed_tid;
  pm_cp_clock owed_own;
  uint64_t owed_gen; /* the team instance of that barrier */
  /* Task records this thread owns that other threads completed: they push them here (atomic),
   * the owner takes the whole list when its free list runs dry. Padded to its own cache line: the
   * other threads write it. */
  char pad_before[64];
  pm_omp_task *remote_free;
  char pad_after[64 - sizeof(pm_omp_task *)];
} pm_omp_thread;

/* One member's slot, on its own cache lines, written only by that member. cp[e & 1].c holds the
 * clock at the arrival at the team's barrier number e: a fast member reaching barrier e+1 cannot
 * overwrite what a slow one still reads after barrier e (it writes the other half), and cannot
 * reach e+2 before the slow one has arrived at e+1, i.e. finished reading (a member reads the
 * others' arrivals at e at the latest when it arrives at e+1: pm_omp_team.c). Each half has its
 * own line, apart from the rest: a member prefetches the others' half when it leaves barrier e,
 * and their arrival writes at e+1 (the other half, the statistics) leave that copy valid.
 * last/t_arrive/useful/idle: at the latest arrival (barrier or end of the implicit task), read by
 * the master after the join. task_cp: its tasks' end clocks (same halves as cp): each member keeps
 * its own maximum, so completing a task writes the member's own line, and a reader takes the
 * maximum over the slots. arrived: the team instance the arrival belongs to (the master never
 * clears slots, so that a fork costs no write to the members' lines). */
typedef struct {
  _Alignas(64) pm_omp_cp2 c;
} pm_omp_arrival;
typedef struct {
  pm_omp_arrival cp[2];
  _Alignas(64) pm_omp_cp2 task_cp[2]; /* max end clock of the tasks the member completed in each barrier phase */
  _Alignas(64) pm_omp_cp2 last;
  uint64_t arrived;
  uint64_t t_arrive, useful, idle;
  /* last is from after the member left the join barrier (libomp may report that exit before the
   * master's join): its arrival there is in cp[] (pm_omp_join) */
  uint64_t after_join;
} pm_omp_slot;

/* A member's last instance joined, and that join's time (pm_omp_team.joins). */
typedef struct {
  uint64_t gen, t_join;
} pm_omp_joined;

/* A master's team, reused by its forks at one nesting depth (gen tells the instances apart). Its
 * fields sit on cache lines by who writes them when, because each line a member reads after the
 * master wrote it is one transfer between cores (~170 ns on the development VM), on the way
 * through the region: the fork line (written at every fork, read by every member at its begin),
 * the team line (members read it, the master writes it only when a value changes), the master's
 * line (never read by a member in the common case) and the task clocks (only with tasks). */
struct pm_omp_team {
  /* the fork line */
  _Alignas(64) pm_omp_cp2 fork_cp; /* master's clocks at the fork */
  uint64_t gen;                    /* instance number of this team object (starts at 1; atomic) */
  /* The join time of instance gen - 1, written at the fork before gen: a worker learns the end of
   * its last instance (libomp reports it at the worker's next fork) from the line it reads anyway.
   * joins[] keeps it for a worker that is not in the next instance. */
  uint64_t t_join_prev;
  /* the team line */
  _Alignas(64) pm_region_id rid; /* the region's call-path id (members need not read region) */
  uint32_t fork_point;           /* the master's call path at the fork: members enter rid under it */
  uint32_t cap, nthreads;
  uint32_t trace_team; /* the trace's thread-team id of this instance (lib/trace) */
  int tasks;           /* a member completed a task in this instance (else no task_cp to read) */
  void *user[2];       /* adapter data (GOMP: outlined function and its argument) */
  /* the master's line */
  _Alignas(64) pm_omp_rstat *region;
  const void *code; /* the fork's code address (libomp names the master's join barrier with it) */
  pm_omp_thread *master;
  uint32_t ctx_saved, state_saved; /* master's context, state and stack depth before the fork */
  uint32_t depth0;
  uint64_t t_fork, m_useful0, m_idle0;
  uint64_t joined, t_joined; /* the last instance joined (0: none) and its join time */
  pm_omp_team *retired_next; /* replaced by a larger team: kept until reset */
  /* the task clocks */
  _Alignas(64) pm_omp_cp2 task_cp[2]; /* the same as the slots' task_cp, for members beyond cap (rare) */
  /* per member (cap of them, after the slots): its last instance joined and that join's time,
   * written by the master at each join into its own lines */
  pm_omp_joined *joins;
  pm_omp_slot slot[];
};

struct pm_omp_task {
  pm_omp_cp2 create, end;
  pm_omp_task *next;    /* free / retired list */
  pm_omp_thread *owner; /* the thread whose slab holds the record: it is freed back to it */
  pm_omp_task **pred;   /* predecessors (pred_inline or heap) */
  uint32_t npred, cappred;
  pm_omp_task *pred_inline[4];
  uint8_t has_deps, started, done, saved_state;
};

/* The thread's record, created at its first OpenMP event (NULL: out of memory). Every event
 * needs it: the location keeps a pointer to it. */
PM_HIDDEN pm_omp_thread *pm_omp_thread_new(pm_loc *L);
static inline pm_omp_thread *pm_omp_thread_of(pm_loc *L) {
  pm_omp_thread *th = L->omp;
  return PM_LIKELY(th != NULL) ? th : pm_omp_thread_new(L);
}
PM_HIDDEN pm_omp_thread *pm_omp_thread_at(uint32_t loc_id);
/* The frame whose team the thread works in now, or NULL (none, or inside an ignored region). */
static inline pm_omp_frame *pm_omp_top(pm_omp_thread *th) {
  return th->depth && !th->overflow ? &th->frame[th->depth - 1] : NULL;
}
/* Time of L inside parallel regions that OpenMP made non-useful: waits and runtime overhead. */
static inline uint64_t pm_omp_idle_ns(const pm_loc *L) {
  const uint64_t *t = L->time[PM_CTX_PARALLEL];
  return t[PM_STATE_SYNC_WAIT] + t[PM_STATE_IDLE] + t[PM_STATE_RUNTIME];
}
static inline void pm_omp_clock_max(pm_cp_clock *a, const pm_cp_clock *b) {
  if (b->cue > a->cue) a->cue = b->cue;
  if (b->com > a->com) a->com = b->com;
  if (b->coo > a->coo) a->coo = b->coo;
}
static inline void pm_omp_cp2_max(pm_omp_cp2 *a, const pm_omp_cp2 *b) {
  pm_omp_clock_max(&a->p, &b->p);
  pm_omp_clock_max(&a->g, &b->g);
}
PM_HIDDEN void pm_omp_cp2_atomic_max(pm_omp_cp2 *a, const pm_omp_cp2 *b);
/* The join time of frame f's team instance, 0 while the master has not joined it. */
PM_HIDDEN uint64_t pm_omp_join_time(const pm_omp_frame *f);
/* A task's end clocks c into the task clocks of frame f's barrier phase (its member's slot). */
PM_HIDDEN void pm_omp_task_end_clocks(pm_omp_frame *f, const pm_omp_cp2 *c);
PM_HIDDEN pm_omp_cp2 pm_omp_clocks(const pm_loc *L);
PM_HIDDEN void pm_omp_merge(pm_loc *L, const pm_omp_cp2 *c);
/* Publishes f's clocks and statistics into its team slot (L charged up to now). */
PM_HIDDEN void pm_omp_publish(pm_loc *L, pm_omp_frame *f, uint64_t now);
/* Publishes only f's statistics (useful and idle time, as of now): after an arrival, whose
 * clocks the slot holds already. */
PM_HIDDEN void pm_omp_publish_times(pm_loc *L, pm_omp_frame *f, uint64_t now);

/* Tasks (pm_omp_tasks.c): records completed with dependences become reusable after a barrier. */
PM_HIDDEN void pm_omp_tasks_release(pm_omp_thread *th);
PM_HIDDEN void pm_omp_tasks_reset(void);

/* Regions (pm_omp_regions.c) */
PM_HIDDEN pm_omp_rstat *pm_omp_region_get(const void *code);
PM_HIDDEN void pm_omp_region_add(pm_omp_rstat *r, uint32_t nthreads, uint64_t span);
PM_HIDDEN void pm_omp_region_add_thread(pm_omp_rstat *r, uint32_t tid, uint64_t useful, uint64_t idle);
PM_HIDDEN void pm_omp_regions_reset(void);
#endif
