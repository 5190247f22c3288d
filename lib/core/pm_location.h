/* Internal layout of a location (one per thread or device stream). Only the owning thread writes
 * the hot fields; the finalizer reads them (at finalize the owner is normally quiet; a thread that
 * still runs may make a few nanoseconds of its last interval inexact, never inconsistent). */
#ifndef PM_LOCATION_H
#define PM_LOCATION_H
#include "pm_core.h"

/* Nesting: the call path keeps PM_MAX_DEPTH levels; deeper regions are folded into the deepest kept
 * node (their time is charged there), but their states are kept: a call entered at any depth (an
 * MPI call inside a deep recursion) is in its own state until it returns. PM_MAX_FOLDED_STATES
 * state changes can be pending below the kept levels at once; more are charged in the state of the
 * last one kept. */
#define PM_MAX_DEPTH 128
#define PM_MAX_FOLDED_STATES 32
#define PM_NODE_CHUNK 256      /* call-path nodes are allocated in chunks that never move */
#define PM_MAX_NODE_CHUNKS 256 /* => at most 65536 call paths per location (bounded memory) */
#define PM_MAX_LOCATIONS 4096

/* A node's parent is a node of the same location, UINT32_MAX for the root, or a node of another
 * location of the process: PM_NODE_REMOTE | location id << 16 | node index (pm_call_enter_under:
 * a team member's parallel region hangs under its master's fork point). */
#define PM_NODE_REMOTE 0x80000000u
_Static_assert(PM_MAX_LOCATIONS <= (1 << 15) && PM_NODE_CHUNK * PM_MAX_NODE_CHUNKS <= (1 << 16),
               "a remote parent packs a location id and a node index into 31 bits");
static inline uint32_t pm_node_remote(uint32_t loc, uint32_t node) { return PM_NODE_REMOTE | loc << 16 | node; }
static inline int pm_node_is_remote(uint32_t parent) { return parent != UINT32_MAX && (parent & PM_NODE_REMOTE); }
static inline uint32_t pm_node_remote_loc(uint32_t parent) { return (parent & ~PM_NODE_REMOTE) >> 16; }
static inline uint32_t pm_node_remote_node(uint32_t parent) { return parent & 0xffffu; }

/* One call path as seen by one location. Times are exclusive (charged while this is the current
 * node), per state. Node 0 is the root "main"; a thread without fork point may have a base node
 * under it (pm_loc_set_base). */
typedef struct {
  pm_region_id region;
  uint32_t parent; /* node index, UINT32_MAX for the root, or a remote parent (PM_NODE_REMOTE) */
  /* the child entered last from this node: region + 1 (0: none) and its index. A loop enters the
   * same few children over and over, and each from its own parent, so one entry per node finds
   * nearly every child without the hash (owner only) */
  uint32_t last_key, last_child;
  uint64_t visits;
  uint64_t polls;
  uint64_t time[PM_STATE_COUNT];                                 /* ns, exclusive */
  uint64_t bytes_sent, bytes_received, msgs_sent, msgs_received; /* point-to-point */
  uint64_t coll_bytes_out, coll_bytes_in;                        /* collective calls */
  uint64_t io_bytes_read, io_bytes_written;
  /* ns of this call path's MPI time a location would also spend on an ideal network: at each merge
   * of an incoming clock at the end of an MPI call, the part of the call the clock jump explains
   * (pm_cp_merge_global_call); the rest of its MPI time is transfer (docs/metrics.md §1.4) */
  uint64_t mpi_wait;
} pm_cpnode;

typedef struct {
  uint64_t key;
  uint32_t node;
} pm_cpslot;

/* An observer of location events: the OTF2 trace writer, the hardware-counter sampler. Locations
 * have no observer unless one was added before they registered; the hot path then pays one
 * predictable branch per transition. Callbacks run on the owning thread, so an observer's
 * per-location data needs no lock, with three exceptions: attach of a virtual location (on the
 * thread creating it), charge from pm_loc_flush (the finalizing thread, at the end of the run) and
 * restart (the thread restarting the window, when MPI_Init returns). Any callback may be NULL. */
#define PM_MAX_OBSERVERS 4
typedef struct pm_loc_observer {
  /* the location was registered (slot: index into L->obs_data for this observer's private data) */
  void (*attach)(pm_loc *L, unsigned slot);
  /* the interval [L->t_last, now) in L->state on node L->cur is about to be charged (it may be
   * empty: now <= L->t_last) */
  void (*charge)(pm_loc *L, unsigned slot, uint64_t now);
  /* region r was entered (state s); depth is the nesting depth after the enter (1 = first level) */
  void (*enter)(pm_loc *L, unsigned slot, pm_region_id r, pm_state s, uint32_t depth, uint64_t now);
  /* the region at 'depth' (the one entered last) is being left */
  void (*leave)(pm_loc *L, unsigned slot, uint32_t depth, uint64_t now);
  /* the state changed without a region enter/leave (pm_state_set) */
  void (*state)(pm_loc *L, unsigned slot, pm_state from, pm_state to, uint64_t now);
  /* the measured window restarts at 'now' (pm_core_restart_window): forget what came before */
  void (*restart)(pm_loc *L, unsigned slot, uint64_t now);
  /* the thread of L exits (not called for virtual locations, nor at process exit) */
  void (*detach)(pm_loc *L, unsigned slot, uint64_t now);
} pm_loc_observer;

/* One-entry cache of a child node: key = (node << 32 | region) + 1 (0: empty), child its index. */
typedef struct {
  uint64_t key;
  uint32_t child;
} pm_child_cache;

/* Children a location finds without its call-path hash when a node's last-child entry does not
 * hold them: a direct-mapped cache of this many entries, indexed by a hash of (node, region). */
#define PM_CHILD_CACHE_BITS 5
#define PM_CHILD_CACHE (1 << PM_CHILD_CACHE_BITS)

struct pm_loc {
  /* ---- hot: written on every transition by the owning thread ---- */
  uint64_t t_last;           /* time of the last transition */
  uint32_t state;            /* current pm_state */
  uint32_t ctx;              /* PM_CTX_SERIAL / PM_CTX_PARALLEL */
  uint32_t cur;              /* current call-path node */
  pm_cpnode *cur_node;       /* == pm_loc_node(L, cur), cached for the hot path */
  pm_cpnode *byte_node;      /* node most recently entered: pm_add_* charge it */
  pm_child_cache push_cache; /* entering a region under a remote parent (pm_call_enter_under) */
  pm_child_cache poll_cache; /* pm_poll */
  /* children entered by turns from one node (MPI_Irecv, MPI_Isend, MPI_Waitall in a loop), which
   * its single last-child entry misses every time (child_local) */
  pm_child_cache child_cache[PM_CHILD_CACHE];
  pm_cpnode *poll_node; /* the node of the last poll (pm_cp_merge_global_poll) */
  uint32_t depth;       /* region stack depth (can exceed PM_MAX_DEPTH: folded) */
  uint64_t time[PM_CTX_COUNT][PM_STATE_COUNT];
  /* Lamport clocks (ns of weighted time): the location's own time under each weight, and how far
   * merges have moved its process-scope and global clocks ahead of it (process = own + cp_poff,
   * global = own + cp_goff: a transition adds to one clock triple instead of three) */
  pm_cp_clock cp_own, cp_poff, cp_goff;
  /* A merge the location owes its clocks (an OpenMP barrier's, lib/omp), or NULL: applied before
   * the clocks are read. Merges commute (each one is a maximum at its own point), so a merge may
   * be applied late; only a read must wait for it. The function merges into the offsets it is
   * given and changes nothing else, so that another thread can read the settled clocks without
   * writing the location (pm_loc_cp_peek). */
  void (*cp_pending)(const struct pm_loc *L, pm_cp_clock *poff, pm_cp_clock *goff);
  uint64_t bytes_sent, bytes_received, msgs_sent, msgs_received;
  uint64_t coll_bytes_out, coll_bytes_in, coll_calls;
  uint64_t io_bytes_read, io_bytes_written;
  uint64_t polls;
  uint64_t poll_pending;             /* ns of polls since the last transition, not yet in time[] (pm_poll) */
  uint64_t poll_last;                /* end of the last poll (a run of polls goes on while no transition) */
  uint64_t poll_exact;               /* duration of the last poll timed with both clocks (pm_poll_start) */
  int poll_run;                      /* the last poll joined a run: the next one reads no start */
  uint64_t poll_iter;                /* the run's last span per poll (a poll and the loop around it) */
  int poll_deferred;                 /* a poll of the run read no clock: its time is in the next span */
  uint64_t off_wall, off_cpu;        /* a run's reference for its off-CPU time: clock, thread CPU time */
  uint64_t run_t0;                   /* when the current run of polls started */
  int in_tool;                       /* reentrancy guard depth */
  void *omp;                         /* the OpenMP team model's record of this thread (lib/omp), or NULL */
  uint32_t nobs;                     /* observers attached (0: none, the common case) */
  void *obs_data[PM_MAX_OBSERVERS];  /* each observer's private per-location data */
  uint32_t stack_node[PM_MAX_DEPTH]; /* call-path node at each depth (0 = root) */
  uint8_t stack_state[PM_MAX_DEPTH]; /* state to restore when leaving that depth */
  /* below PM_MAX_DEPTH: the state changes of folded levels (depth entered, state to restore) */
  uint32_t folded_depth[PM_MAX_FOLDED_STATES];
  uint8_t folded_state[PM_MAX_FOLDED_STATES];
  uint32_t nfolded;
  /* ---- call-path storage (owner allocates; chunks never move, so the finalizer can read) ---- */
  pm_cpnode *chunks[PM_MAX_NODE_CHUNKS];
  uint32_t nnodes; /* published with release order after a node is initialised */
  pm_cpslot *hash; /* (parent,region) -> node, open addressing, owner only */
  uint32_t hash_cap;
  int nodes_exhausted; /* set once when the bound is hit (reported at finalize) */
  /* ---- identity ---- */
  uint32_t id;
  pm_loc_role role;
  int is_virtual; /* device stream: no thread behind it */
  int closed;     /* thread exited: state frozen at OFF */
  uint64_t t_registered;
  /* Time the thread was ready to run while another thread had its CPU (the kernel's run-queue wait,
   * ns): its value when the window began, and the window's total once the thread has exited.
   * UINT64_MAX: not known (a virtual location, or a kernel that does not say). */
  int32_t tid;
  uint64_t runq_base, runq_final;
  char name[48];
};

/* Applies the merge the location owes, if any (pm_loc.cp_pending). The owed merge is logically
 * part of the clock already, so readers given a const location apply it too. The merge comes
 * before the pointer is cleared (release; plain stores on x86): a peek that finds no merge owed
 * finds it in the offsets, one that finds it owed applies it again, which changes nothing (a
 * maximum). */
static inline void pm_loc_cp_settle(const pm_loc *L) {
  if (PM_UNLIKELY(L->cp_pending != NULL)) {
    pm_loc *W = (pm_loc *)L;
    W->cp_pending(W, &W->cp_poff, &W->cp_goff);
    __atomic_store_n(&W->cp_pending, NULL, __ATOMIC_RELEASE);
  }
}
/* Makes merge owed by L (its owner, after writing what merge reads) */
static inline void pm_loc_cp_owe(pm_loc *L, void (*merge)(const pm_loc *, pm_cp_clock *, pm_cp_clock *)) {
  __atomic_store_n(&L->cp_pending, merge, __ATOMIC_RELEASE);
}
/* The settled clocks of a location of another thread (the finalizer's), without writing it. The
 * owner may be running: the values are those of some moment, never torn into an inconsistent
 * merge (the owed function reads its record once and checks it). */
static inline void pm_loc_cp_peek(const pm_loc *L, pm_cp_clock *process, pm_cp_clock *global) {
  void (*owed)(const pm_loc *, pm_cp_clock *, pm_cp_clock *) = __atomic_load_n(&L->cp_pending, __ATOMIC_ACQUIRE);
  pm_cp_clock poff = L->cp_poff, goff = L->cp_goff;
  if (owed) owed(L, &poff, &goff);
  *process = (pm_cp_clock){L->cp_own.cue + poff.cue, L->cp_own.com + poff.com, L->cp_own.coo + poff.coo};
  *global = (pm_cp_clock){L->cp_own.cue + goff.cue, L->cp_own.com + goff.com, L->cp_own.coo + goff.coo};
}
/* The clocks of pm_cp_process / pm_cp_global, inline for the core's own layers. */
static inline pm_cp_clock pm_loc_cp_process(const pm_loc *L) {
  pm_loc_cp_settle(L);
  return (pm_cp_clock){L->cp_own.cue + L->cp_poff.cue, L->cp_own.com + L->cp_poff.com, L->cp_own.coo + L->cp_poff.coo};
}
static inline pm_cp_clock pm_loc_cp_global(const pm_loc *L) {
  pm_loc_cp_settle(L);
  return (pm_cp_clock){L->cp_own.cue + L->cp_goff.cue, L->cp_own.com + L->cp_goff.com, L->cp_own.coo + L->cp_goff.coo};
}
/* clock = max(clock, in) for the clock own + *off */
static inline void pm_loc_cp_merge(const pm_cp_clock *own, pm_cp_clock *off, const pm_cp_clock *in) {
  if (in->cue > own->cue + off->cue) off->cue = in->cue - own->cue;
  if (in->com > own->com + off->com) off->com = in->com - own->com;
  if (in->coo > own->coo + off->coo) off->coo = in->coo - own->coo;
}
PM_HIDDEN pm_cpnode *pm_loc_node(const pm_loc *L, uint32_t idx);
PM_HIDDEN uint32_t pm_loc_node_count(const pm_loc *L);
PM_HIDDEN uint32_t pm_loc_count(void);
PM_HIDDEN pm_loc *pm_loc_at(uint32_t i);
/* Close every open interval at time 'now' without changing states (finalize-time snapshot). */
PM_HIDDEN void pm_loc_flush(pm_loc *L, uint64_t now);
PM_HIDDEN void pm_locations_reset(void);
/* Adds an observer for every location registered from now on (call it at activation, before the
 * first location exists, or accept that earlier locations are not observed). Returns its slot, or
 * -1 when PM_MAX_OBSERVERS are taken. The observer must outlive the process's measurement. */
PM_HIDDEN int pm_loc_observer_add(const pm_loc_observer *obs);
/* Forgets what location L measured so far (times, counts, clocks; call paths keep their shape):
 * the measured window restarts at 'now'. */
PM_HIDDEN void pm_loc_restart(pm_loc *L, uint64_t now);
/* ns the location's thread waited for a CPU in the window (so far, or until it exited);
 * UINT64_MAX when not known. */
PM_HIDDEN uint64_t pm_loc_cpu_wait(const pm_loc *L);
#endif
