/* The run profile: the one contract between measurement and analysis (docs/architecture.md). A process builds
 * its own profile at finalize; rank 0 merges all of them; popmeter.json carries it, so every model
 * can be recomputed offline. Times are in seconds. */
#ifndef PM_PROFILE_H
#define PM_PROFILE_H
#include <stdint.h>
#include <stdio.h>
#include "pm_vocabulary.h"

#define PM_PROFILE_SCHEMA "popmeter-profile"
#define PM_PROFILE_VERSION 1

typedef struct {
  double cue, com, coo;
} pm_prof_cp;

typedef struct {
  int rank;
  char host[64];
  int node; /* index of host among distinct hosts */
  long pid;
  double window;  /* length of this process's measured window (s) */
  char cuda[160]; /* CUDA module: "" not looked for, "measured", or why not ("no CUDA device (...)") */
  /* OTF2 trace (lib/trace): events written, size of the event files, buffer flushes during the
   * run and the time they took; all 0 when the process was not traced */
  uint64_t trace_events, trace_bytes, trace_flushes;
  double trace_flush_time;
} pm_prof_process;

/* A device stream (role device, lib/adapters/cuda): kernel time is its useful time, copy and memset
 * time its device time; memcpy_overlapped is the part of that copy time during which a kernel of
 * another stream of the same device ran. */
typedef struct {
  int device, stream;
  uint64_t kernels, copies, bytes;
  double memcpy_overlapped;
} pm_prof_device;

typedef struct {
  char name[48];
  int role;          /* pm_loc_role */
  int process;       /* index into processes */
  int thread;        /* index of the location within its process */
  double registered; /* seconds after the window start when the location appeared */
  /* seconds the thread was ready to run while another thread had its CPU (the kernel's run-queue
   * wait); < 0: not known (device streams, older profiles, kernels without it) */
  double cpu_wait;
  double time[PM_CTX_COUNT][PM_STATE_COUNT];
  uint64_t msgs_sent, msgs_received, bytes_sent, bytes_received;
  uint64_t coll_calls, coll_bytes_out, coll_bytes_in, polls;
  uint64_t io_bytes_read, io_bytes_written;
  pm_prof_cp cp_process, cp_global;
  int callpaths_truncated; /* the per-location call-path bound was reached */
  pm_prof_device dev;      /* role device only */
} pm_prof_location;

typedef struct {
  char *name;
  int paradigm;
  int role;
} pm_prof_region;
typedef struct {
  int parent;
  int region;
} pm_prof_cnode; /* parent -1: a root */

typedef struct {
  int cnode, location;
  uint64_t visits, polls, bytes_sent, bytes_received, msgs_sent, msgs_received;
  uint64_t io_bytes_read, io_bytes_written;
  double time[PM_STATE_COUNT]; /* exclusive time per state at this call path */
  /* bytes of collective calls at this call path (docs/json.md "collective_bytes"); bytes_sent and
   * bytes_received are point-to-point only */
  uint64_t coll_bytes_out, coll_bytes_in;
  /* MPI time at this call path that an ideal network would not spend: the MPI states' time minus
   * the waiting the critical-path clocks explain (docs/metrics.md §1.4); valid when the profile's
   * has_mpi_transfer is set */
  double mpi_transfer;
} pm_prof_value;

/* ---- OpenMP parallel regions (lib/adapters/ompt, lib/adapters/gomp; lib/omp/pm_omp*.c) ----
 * One entry per parallel region (code address) and process, aggregated over its instances. */
typedef struct {
  char *name;   /* function of the outlined body or of the fork call site */
  int process;  /* index into processes */
  int nthreads; /* largest team seen; length of the two arrays */
  uint64_t instances;
  double span;           /* wall time of the region on its master, summed over instances (s) */
  double *thread_useful; /* [nthreads] useful time of team member j inside the region (s) */
  double *thread_idle;   /* [nthreads] sync wait + runtime + idle of member j inside it (s) */
} pm_prof_omp_region;

struct pm_prof_tasks;     /* task-runtime part: pm_profile_tasks.h */
struct pm_prof_io;        /* file I/O per file class: pm_profile_io.h */
struct pm_prof_counters;  /* hardware counters: pm_profile_counters.h */
struct pm_prof_published; /* what the program published (popmeter.h): pm_profile_published.h */

typedef struct pm_profile {
  char app[256];
  char command[1024];
  char start_time[40]; /* ISO 8601, local time of the measurement start */
  double runtime;      /* R: max over processes of the window */
  int has_critical_path;
  int has_mpi_transfer;    /* values carry mpi_transfer (measured with the critical path on) */
  int cp_io_useful;        /* the critical path counted file I/O as useful (POPMETER_IO_AS_USEFUL at run time) */
  uint64_t regions_folded; /* region registrations merged into "(more regions)" (registry full) */
  int nprocesses, nnodes;
  pm_prof_process *proc;
  int nlocations;
  pm_prof_location *loc;
  int nregions;
  pm_prof_region *reg;
  int ncnodes;
  pm_prof_cnode *cnode;
  int nvalues;
  pm_prof_value *val;
  /* ---- OpenMP parallel regions (see pm_prof_omp_region) ---- */
  int nomp_regions;
  pm_prof_omp_region *omp_region;
  /* ---- task runtime (StarPU): NULL when the run had no tasks ---- */
  struct pm_prof_tasks *tasks;
  /* ---- file I/O per file class: NULL when the run did no file I/O ---- */
  struct pm_prof_io *io;
  /* ---- hardware counters: NULL when the counter module was not part of the measurement ---- */
  struct pm_prof_counters *counters;
  /* ---- the program's tag tree and quantities over time: NULL when it published nothing ---- */
  struct pm_prof_published *published;
  /* ---- internal (pm_profile.c): capacities and hash indices of the growing tables ---- */
  struct pm_prof_index *index;
} pm_profile;

pm_profile *pm_profile_new(void);
void pm_profile_free(pm_profile *p);
/* Appends src (one or more processes) to dst, renumbering processes, regions (by name and
 * paradigm), call paths (by parent and region) and locations. Returns 0, or -1 out of memory. */
int pm_profile_merge(pm_profile *dst, const pm_profile *src);
/* Sets runtime, node indices and nnodes from the processes (call after the last merge). */
void pm_profile_finish(pm_profile *p);
int pm_profile_add_region(pm_profile *p, const char *name, int paradigm, int role);
int pm_profile_add_cnode(pm_profile *p, int parent, int region);
/* Appends an OpenMP region (name and arrays copied). Returns its index, or -1 out of memory. */
int pm_profile_add_omp_region(pm_profile *p, const pm_prof_omp_region *r);

/* Makes every name in the profile clean text (pm_text.h: invalid UTF-8 and control characters
 * escaped as \xHH), so that no output format refuses it. 0, or -1 out of memory (names then left
 * as they were may still be refused by a writer). */
int pm_profile_clean_text(pm_profile *p);

/* The largest number of threads of a process (its locations but progress threads and device
 * streams). O(processes x locations). */
int pm_prof_threads_max(const pm_profile *p);

/* A location that computes: a thread of the program (main, worker, other thread), not an MPI
 * progress thread nor a device stream. */
static inline int pm_prof_loc_computes(const pm_prof_location *l) {
  return l->role != PM_ROLE_PROGRESS && l->role != PM_ROLE_DEVICE;
}
/* Sum of a location's time in a state class, both contexts. */
double pm_prof_loc_class(const pm_prof_location *l, pm_state_class c);
/* The compute threads' waits for a CPU (not MPI progress threads, not device streams), over those
 * whose wait is known: their sum and maximum (seconds) and the sum of their lifetimes (every state
 * but off); returns how many are known (0: the rest is 0). */
int pm_prof_cpu_wait(const pm_profile *p, double *sum, double *max, double *lived);

/* JSON (see pm_profile_json.h for the jansson-level API). Reading returns NULL and fills err with a
 * message naming the problem; it never crashes on malformed input. */
char *pm_profile_to_json_string(const pm_profile *p); /* malloc'd, compact */
pm_profile *pm_profile_from_json_string(const char *text, char *err, size_t errlen);
pm_profile *pm_profile_read_file(const char *path, char *err, size_t errlen);
#endif
