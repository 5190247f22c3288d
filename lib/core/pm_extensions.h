/* Optional measurement modules (OTF2 trace writer, hardware counters, CUDA activity plugin) plug into
 * the lifecycle through these hooks. Each is a weak symbol: a module that is not linked in (the unit
 * tests link the core alone) is simply absent. A module adds its pm_loc_observer in its activate
 * hook, which runs before the first location registers. */
#ifndef PM_EXTENSIONS_H
#define PM_EXTENSIONS_H
#include "pm_core.h"
#include "pm_config.h"
struct pm_profile;
struct pm_ipc;

/* At activation, with the parsed configuration. */
PM_HIDDEN void pm_trace_activate(const pm_config *cfg) __attribute__((weak));
PM_HIDDEN void pm_counters_activate(const pm_config *cfg) __attribute__((weak));
PM_HIDDEN void pm_cuda_activate(const pm_config *cfg) __attribute__((weak));

/* At finalize, after every location was flushed at t_end and before the profile is built: the
 * CUDA plugin drains its activity buffers, the counter module reads its last values, the trace
 * writer closes open regions (every Enter gets its Leave). Called in this order. */
PM_HIDDEN void pm_cuda_finalize(uint64_t t_end) __attribute__((weak));
PM_HIDDEN void pm_counters_finalize(uint64_t t_end) __attribute__((weak));
PM_HIDDEN void pm_trace_finalize(const struct pm_ipc *ipc, uint64_t t_end) __attribute__((weak));

/* While the process profile is built: each module adds what it measured (counters per location
 * and call path, trace statistics, device activity). 0, or -1 out of memory. */
PM_HIDDEN int pm_counters_to_profile(struct pm_profile *p) __attribute__((weak));
PM_HIDDEN int pm_trace_to_profile(struct pm_profile *p) __attribute__((weak));
PM_HIDDEN int pm_cuda_to_profile(struct pm_profile *p) __attribute__((weak));
/* File I/O per file class (lib/adapters/io/io_classes.c). Profile location indices of live
 * locations: pm_profile_loc_index (pm_lifecycle.h). */
PM_HIDDEN int pm_io_to_profile(struct pm_profile *p) __attribute__((weak));

/* ---- trace writer (lib/trace, docs/trace.md): event hooks of the adapters ----
 * MPI programs: the MPI adapter calls pm_trace_start on every rank once its private communicator
 * exists (collective: the ranks agree on tracing and open one archive); it returns 1 when MPI
 * events are to be reported. The report calls pm_trace_place with the output directory (NULL when
 * no files are written) to move the archive there. */
PM_HIDDEN int pm_trace_start(const struct pm_ipc *ipc) __attribute__((weak));
PM_HIDDEN void pm_trace_place(const char *dir) __attribute__((weak));
/* MPI events, on the calling thread's location, inside the call's region. comm: an id from
 * pm_trace_comm_define (0: MPI_COMM_WORLD, 1: MPI_COMM_SELF); peer/root: ranks in comm. The
 * non-blocking forms return the event's request id (unique in the process; 0 when nothing was
 * written), which the completion events repeat (req 0: a blocking call). */
PM_HIDDEN uint32_t pm_trace_comm_define(int size, const int *world_ranks) __attribute__((weak));
PM_HIDDEN uint64_t pm_trace_mpi_send(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, int nonblocking)
    __attribute__((weak));
PM_HIDDEN void pm_trace_mpi_send_complete(pm_loc *L, uint64_t req) __attribute__((weak));
PM_HIDDEN uint64_t pm_trace_mpi_recv_request(pm_loc *L) __attribute__((weak));
PM_HIDDEN void pm_trace_mpi_recv(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, uint64_t req)
    __attribute__((weak));
PM_HIDDEN void pm_trace_mpi_request_cancelled(pm_loc *L, uint64_t req) __attribute__((weak));
/* A blocking collective on comm (root: rank in comm, -1 when the operation has none) completed:
 * called before the call's region is left, which writes the collective's events. */
PM_HIDDEN void pm_trace_mpi_collective(pm_loc *L, uint32_t comm, int root) __attribute__((weak));
/* OpenMP (lib/omp/pm_omp_team.c): the master forks / joins a team of up to nthreads threads;
 * every member (master included) begins / ends its part of the team. */
PM_HIDDEN void pm_trace_omp_fork(pm_loc *L, uint32_t nthreads, uint64_t now) __attribute__((weak));
PM_HIDDEN void pm_trace_omp_join(pm_loc *L, uint64_t now) __attribute__((weak));
PM_HIDDEN uint32_t pm_trace_omp_team(pm_loc *master, uint32_t nthreads) __attribute__((weak));
PM_HIDDEN void pm_trace_omp_team_begin(pm_loc *L, uint32_t team, uint32_t tid, uint64_t now) __attribute__((weak));
PM_HIDDEN void pm_trace_omp_team_end(pm_loc *L, uint32_t team, uint64_t now) __attribute__((weak));
#endif
