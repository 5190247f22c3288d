/* OTF2 trace writer (POPMETER_TRACE=1): internal interface shared by the files of lib/trace.
 * The user documentation, including the filter rule and what is supported, is docs/trace.md.
 *
 *   trace_main.c     lifecycle: activation, start (MPI_Init), finalize, statistics, placement
 *   trace_loc.c      the location observer: per-location event writers, filter, flush accounting
 *   trace_archive.c  the OTF2 archive: open/close, bounded memory pool, flush and collective callbacks
 *   trace_defs.c     definitions: each process's part, unified on rank 0, written as OTF2 definitions
 *   trace_filter.c   POPMETER_TRACE_FILTER: exclusion patterns and the minimum duration
 *   trace_mpi.c      MPI events (raised by lib/adapters/mpi through pm_events.h), communicators
 *   trace_omp.c      OpenMP fork/join and thread-team events (raised by lib/omp through pm_events.h)
 *   trace_task.c     task attributes on a task body's Leave (raised by a task adapter through pm_events.h)
 *
 * Ids: an OTF2 location is rank * PM_MAX_LOCATIONS + the core's location id, so every process
 * writes final location ids without a mapping; regions and communicators carry process-local ids
 * in the events and are translated by mapping tables written at finalize. Timestamps are
 * CLOCK_MONOTONIC nanoseconds plus a per-process offset (non-zero only on other hosts than
 * rank 0's), clamped so that they never decrease on a location. */
#ifndef PM_TRACE_H
#define PM_TRACE_H
#include <otf2/otf2.h>
#include <pthread.h>
#include "pm_location.h"
#include "pm_ipc.h"
#include "pm_config.h"
#include "pm_events.h"
struct pm_profile;
struct pm_module;

/* ------------------------------------------------------------------------------------ filter */
typedef struct {
  char **pat; /* fnmatch patterns of region names to exclude */
  int npat;
  uint64_t min_ns; /* regions shorter than this are dropped (see trace_loc.c), 0: off */
} pm_tfilter;
/* Parses spec ("pat1,pat2,min=<us>"); every bad item yields one warning through warn and is
 * ignored. Returns the number of bad items. */
PM_HIDDEN int pm_tfilter_parse(const char *spec, pm_tfilter *f, void (*warn)(const char *fmt, ...));
PM_HIDDEN int pm_tfilter_excludes(const pm_tfilter *f, const char *name);
PM_HIDDEN void pm_tfilter_free(pm_tfilter *f);

/* --------------------------------------------------------------------------- global state */
enum { PM_TR_OFF = 0, PM_TR_WAITING, PM_TR_OPEN, PM_TR_CLOSING, PM_TR_CLOSED };

typedef struct {
  uint64_t events;        /* events written (all locations of this process) */
  uint64_t flushes;       /* buffer flushes during the run (not the final ones) */
  uint64_t flush_ns;      /* time spent in them */
  uint64_t bytes;         /* size of this process's event files */
  uint64_t dropped_short; /* regions dropped by the minimum duration */
} pm_tstats;

typedef struct {
  int state; /* PM_TR_* (atomic) */
  int slot;  /* observer slot */
  int rank, nprocs;
  int collective; /* archive opened over MPI by nprocs > 1 processes */
  pm_tfilter filter;
  pm_region_id flush_region; /* "popmeter:flush" */
  int64_t offset;            /* added to every timestamp */
  uint64_t t_open;           /* trace time when the archive opened */
  uint64_t t_close;
  uint64_t metric_period_ns; /* minimum interval between two metric samples on a location */
  size_t budget;             /* POPMETER_TRACE_BUFFER in bytes */
  OTF2_Archive *archive;
  pthread_mutex_t lock; /* archive-level calls (writer creation), registries */
  char stage[4096];     /* directory holding the archive until it is placed */
  int owner;            /* this process places the archive (rank 0, or each rank alone) */
  uint32_t first_loc;   /* the location that opened the archive (MPI_Init's thread): OTF2 id = rank */
  int placed;
  char final_dir[4096];
  pm_tstats stats; /* of this process (events and bytes known at finalize) */
  int nerrors;     /* errors reported by OTF2 */
  char first_error[256];
} pm_tglobal;
PM_HIDDEN extern pm_tglobal pm_tr;

static inline int pm_tr_state(void) { return __atomic_load_n(&pm_tr.state, __ATOMIC_ACQUIRE); }
/* Trace time of a clock value. */
static inline uint64_t pm_tr_time(uint64_t now) { return (uint64_t)((int64_t)now + pm_tr.offset); }

/* ------------------------------------------------------------------------- per location */
/* TF_EARLY: entered before the archive opened (its time is then the open time) */
enum { TF_EXCLUDED = 1, TF_WRITTEN = 2, TF_LEFT = 4, TF_MPI_COLL = 8, TF_FORCE = 16, TF_EARLY = 32 };
typedef struct {
  pm_region_id region;
  uint32_t flags;     /* TF_* */
  uint64_t t;         /* trace time of the enter */
  uint64_t out0, in0; /* the location's collective byte counters at the enter */
} pm_tframe;

typedef struct pm_tloc {
  pm_loc *L;
  OTF2_EvtWriter *w; /* created at the first event after the archive opened */
  uint64_t ref;      /* OTF2 location id */
  uint64_t t_last;   /* last trace time written */
  uint32_t depth;    /* frames in use (the core's depth, capped at PM_MAX_DEPTH) */
  uint32_t pending;  /* lowest frame whose enter may still be unwritten (== depth: none) */
  int closed;        /* thread exited or finalized: nothing more is written */
  int failed;        /* the writer could not be created */
  int in_acct;       /* accounting a flush (reentrancy guard) */
  int busy;          /* the owner is writing (finalize waits for it) */
  int guard_saved;   /* the thread's reentrancy guard before the write */
  uint64_t flush_t0, flush_t1;
  int flush_pending;
  uint64_t nevents, nmpi;
  uint64_t np2p;       /* point-to-point events (the rank's MPI location is the thread with most) */
  uint64_t t_metric;   /* trace time of the last metric sample */
  uint32_t coll_depth; /* frame (1-based) whose collective was reported, 0: none */
  uint32_t coll_comm;
  int coll_root;
  pthread_mutex_t *vlock;   /* virtual locations: fed from other threads */
  uint32_t omp_n, omp_team; /* last thread team this location forked (size, id): a cache */
  pm_event_task task;       /* the task whose body's Leave comes next (trace_task.c) */
  uint32_t task_depth;      /* the depth of that body's frame, 0: none pending */
  OTF2_AttributeList *attrs;
  pm_tframe frame[PM_MAX_DEPTH];
} pm_tloc;

PM_HIDDEN pm_tloc *pm_tloc_of(pm_loc *L);
/* Starts writing an event on T at clock time now (0: read the clock; at_call_start: at the enter
 * of the innermost region instead, an MPI call's start): NULL when nothing may be written (trace not open,
 * location closed, writer failed); otherwise the writer, *t set to the trace time (clamped so
 * that it never decreases), the Enters still pending written first. Pair with pm_tloc_end. */
PM_HIDDEN OTF2_EvtWriter *pm_tloc_begin(pm_tloc *T, uint64_t now, int at_call_start, uint64_t *t);
PM_HIDDEN void pm_tloc_end(pm_tloc *T);
PM_HIDDEN void pm_tloc_count(pm_tloc *T, OTF2_ErrorCode rc);
/* Finalize: closes the open frames at t_end (every Enter gets its Leave), writes a last metric
 * sample and closes the writer. Called for every location by the finalizing thread. */
PM_HIDDEN void pm_tloc_close(pm_tloc *T, uint64_t t_end);
PM_HIDDEN int pm_tloc_observer_add(void);
/* Opens the event writer of the calling thread's location now (its buffer and event file), so
 * that its first event in the measured window does not pay for it (MPI_Init). */
PM_HIDDEN void pm_tloc_open_self(void);
PM_HIDDEN void pm_tloc_reset(void);
/* Tests: forget everything (the archive, if open, is abandoned). */
PM_HIDDEN void pm_trace_reset_for_tests(void);
PM_HIDDEN uint32_t pm_tloc_count_all(void);
PM_HIDDEN pm_tloc *pm_tloc_at(uint32_t i);
/* The metric: cumulative useful time of a location (OTF2 metric class 0, member 0). */
#define PM_TR_METRIC 0
/* The location of the calling thread that is currently flushing (flush callbacks). */
PM_HIDDEN void pm_tloc_flush_started(pm_tloc *T, uint64_t now);
PM_HIDDEN void pm_tloc_flush_done(pm_tloc *T, uint64_t now);

/* -------------------------------------------------------------------------- task attributes */
/* Attribute ids of a task body's Leave: PM_TT_* (pm_vocabulary.h), the same in every process (no
 * mapping table). */
PM_HIDDEN void pm_ttask_attr(int i, const char **name, const char **desc, OTF2_Type *type);
/* The attributes for the Leave of the frame at depth (1-based) when a task's values wait for it
 * (then consumed), else NULL. */
PM_HIDDEN OTF2_AttributeList *pm_ttask_attributes(pm_tloc *T, uint32_t depth);

/* ------------------------------------------------------------------------------- archive */
/* Opens the archive in pm_tr.stage: serially (ipc NULL) or collectively over ipc. 0 on success;
 * otherwise err names the problem. */
PM_HIDDEN int pm_tarchive_open(const pm_ipc *ipc, char *err, size_t errlen);
/* The OTF2 location id of location loc_id of this process. */
PM_HIDDEN uint64_t pm_tarchive_location_id(uint32_t loc_id);
PM_HIDDEN OTF2_EvtWriter *pm_tarchive_writer(pm_tloc *T);
/* Closes every event writer (their files are complete afterwards). */
PM_HIDDEN void pm_tarchive_close_events(void);
/* Writes the definitions and closes the archive: collectively over ipc, or this process alone. */
PM_HIDDEN int pm_tarchive_finish(const pm_ipc *ipc);
/* A process of a multi-process archive that exits without MPI_Finalize: writes an archive of its
 * own (dir stage.rank<r>) with its definitions and moves its event files there. */
PM_HIDDEN int pm_tarchive_finish_alone(void);
PM_HIDDEN size_t pm_tarchive_memory_peak(void);

/* ----------------------------------------------------------------------------- definitions */
/* Communicators and thread teams: process-local ids, unified at finalize. */
enum { PM_TCOMM_MPI = 0, PM_TCOMM_SELF, PM_TCOMM_TEAM };
PM_HIDDEN uint32_t pm_tcomm_add(int kind, int n, const uint64_t *members, uint32_t key);
PM_HIDDEN void pm_tcomm_set_member(uint32_t id, uint32_t index, uint64_t member);
PM_HIDDEN void pm_tcomm_reset(void);
/* This process's part of the definitions, as text (malloc'd). */
PM_HIDDEN char *pm_tdefs_local(void);
/* Rank 0 (or a process alone): writes global definitions and every location's mapping tables from
 * the parts of all processes. 0 on success. */
PM_HIDDEN int pm_tdefs_write(OTF2_Archive *a, char **parts, int nparts);
/* The MPI collective operation of an MPI region name, or -1. */
PM_HIDDEN int pm_tdefs_collective_op(const char *name);
/* ------------------------------------------------------------ the module and its event sink */
/* The module (pm_module.h): activate (POPMETER_TRACE=1: the observer; a process without MPI opens
 * its archive alone), begin = pm_trace_start, finalize, to_profile (the trace statistics), place =
 * pm_trace_place. The event functions below form the sink it subscribes (pm_events.h). */
PM_HIDDEN extern const struct pm_module pm_trace_module;
PM_HIDDEN void pm_trace_activate(const pm_config *cfg);
/* MPI programs, every rank once the MPI adapter's private communicator exists (collective: the
 * ranks agree on tracing and open one archive). 1 when MPI events are to be reported. */
PM_HIDDEN int pm_trace_start(const struct pm_ipc *ipc);
PM_HIDDEN void pm_trace_finalize(const struct pm_ipc *ipc, uint64_t t_end);
PM_HIDDEN int pm_trace_to_profile(struct pm_profile *p);
/* The output directory (NULL when no files are written): the owner moves the archive there. */
PM_HIDDEN void pm_trace_place(const char *dir);
/* The events (pm_events.h says what each means). */
PM_HIDDEN uint32_t pm_trace_comm_define(int size, const int *world_ranks);
PM_HIDDEN uint64_t pm_trace_mpi_send(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, int nonblocking);
PM_HIDDEN void pm_trace_mpi_send_complete(pm_loc *L, uint64_t req);
PM_HIDDEN uint64_t pm_trace_mpi_recv_request(pm_loc *L);
PM_HIDDEN void pm_trace_mpi_recv(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, uint64_t req);
PM_HIDDEN void pm_trace_mpi_request_cancelled(pm_loc *L, uint64_t req);
PM_HIDDEN void pm_trace_mpi_collective(pm_loc *L, uint32_t comm, int root);
PM_HIDDEN void pm_trace_omp_fork(pm_loc *L, uint32_t nthreads, uint64_t now);
PM_HIDDEN void pm_trace_omp_join(pm_loc *L, uint64_t now);
PM_HIDDEN uint32_t pm_trace_omp_team(pm_loc *master, uint32_t nthreads);
PM_HIDDEN void pm_trace_omp_team_begin(pm_loc *L, uint32_t team, uint32_t tid, uint64_t now);
PM_HIDDEN void pm_trace_omp_team_end(pm_loc *L, uint32_t team, uint64_t now);
PM_HIDDEN void pm_trace_task_end(pm_loc *L, const pm_event_task *t);
#endif
