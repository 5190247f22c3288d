/* Data movement of a task runtime, aggregated during the run for the profile: bus transfers into
 * each memory node (seen when a worker fetches a task's data) and StarPU-MPI transfers per peer,
 * plus the handles (by StarPU-MPI data tag) that moved the most bytes. Fed by the StarPU adapter;
 * read by the profile builder at finalize. Updates take atomics (per-task transfers) or a mutex
 * (per-message MPI records, which are rarer than tasks). */
#ifndef PM_TASK_COMM_H
#define PM_TASK_COMM_H
#include "pm_core.h"

#define PM_TC_MAX_NODES 64
#define PM_TC_MAX_PEERS 65536
#define PM_TC_TOP_HANDLES 16
enum { PM_TC_SEND = 0, PM_TC_RECV = 1 };

typedef struct {
  uint64_t count, bytes;
  char kind[16];
} pm_tc_node;
typedef struct {
  int peer, dir;
  uint64_t count, bytes;
  double time;
} pm_tc_peer; /* time: post -> complete, s */
typedef struct {
  int64_t data_tag;
  int peer, dir;
  uint64_t count, bytes;
} pm_tc_handle;

PM_HIDDEN void pm_tc_node_kind(int node, const char *kind); /* "RAM", "OpenCL", ... */
PM_HIDDEN void pm_tc_transfer(int node, uint64_t bytes);    /* one transfer into node */
/* One StarPU-MPI transfer completed (latency in ns: post -> completion; 0 when unknown). */
PM_HIDDEN void pm_tc_mpi(int peer, int dir, int64_t data_tag, uint64_t bytes, uint64_t latency_ns);
/* Side-channel clock messages (critical path across processes). */
enum { PM_TC_CLOCK_SENT = 0, PM_TC_CLOCK_RECEIVED, PM_TC_CLOCK_LOST, PM_TC_CLOCK_COUNT };
PM_HIDDEN void pm_tc_clock_event(int what);
PM_HIDDEN uint64_t pm_tc_clock_count(int what);

/* Snapshot for the profile (malloc'd arrays; the caller frees them). */
typedef struct {
  int nnodes;
  pm_tc_node node[PM_TC_MAX_NODES];
  int npeers;
  pm_tc_peer *peer;
  int nhandles;
  pm_tc_handle *handle;       /* the PM_TC_TOP_HANDLES largest by bytes */
  uint64_t handles_untracked; /* transfers whose handle did not fit the table */
} pm_tc_snapshot;
PM_HIDDEN int pm_tc_snapshot_get(pm_tc_snapshot *s);
PM_HIDDEN void pm_tc_snapshot_free(pm_tc_snapshot *s);
PM_HIDDEN void pm_tc_reset(void);
#endif
