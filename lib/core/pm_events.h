/* Events of the measured program that are not state transitions: messages and collectives (raised
 * by the MPI adapter) and OpenMP thread teams (raised by the OpenMP team model). The core hands them
 * to the one subscribed sink (the trace writer, when POPMETER_TRACE=1); without a subscriber each
 * raise is one load and one branch.
 *
 * Messages: comm is an id from pm_event_comm_define (0: MPI_COMM_WORLD, 1: MPI_COMM_SELF); peer and
 * root are ranks in comm. A non-blocking send and a receive request get a request id from the sink
 * (unique in the process; 0 when nothing was recorded), which the completion events repeat (req 0:
 * a blocking call). A collective is raised when the call completes, before its region is left.
 * Teams: the master forks a team of up to nthreads threads (the sink gives the team an id); every
 * member, master included, begins and ends its part; the master joins.
 * Tasks: a task runtime's adapter raises task_end on the worker that ran a body, just before the
 * body's region is left, with what the trace attaches to that Leave (docs/trace.md). */
#ifndef PM_EVENTS_H
#define PM_EVENTS_H
#include "pm_core.h"

/* Times are clock values (ns), 0 when the runtime did not show them; cp_in / cp_out: the task DAG's
 * global CUE clock (lib/tasks/pm_taskgraph.h) when the body started (its inputs merged) and when
 * it ended, so that the task whose cp_out equals another's cp_in is its predecessor on the path. */
typedef struct {
  uint64_t tag;
  int has_tag;
  double flops; /* 0: not declared */
  uint64_t t_submit, t_ready, t_pop;
  uint64_t cp_in, cp_out;
} pm_event_task;

typedef struct pm_event_sink {
  uint32_t (*comm_define)(int size, const int *world_ranks);
  uint64_t (*send)(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, int nonblocking);
  void (*send_complete)(pm_loc *L, uint64_t req);
  uint64_t (*recv_request)(pm_loc *L);
  void (*recv)(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, uint64_t req);
  void (*request_cancelled)(pm_loc *L, uint64_t req);
  void (*collective)(pm_loc *L, uint32_t comm, int root);
  void (*team_fork)(pm_loc *L, uint32_t nthreads, uint64_t now);
  uint32_t (*team_define)(pm_loc *master, uint32_t nthreads);
  void (*team_begin)(pm_loc *L, uint32_t team, uint32_t tid, uint64_t now);
  void (*team_end)(pm_loc *L, uint32_t team, uint64_t now);
  void (*team_join)(pm_loc *L, uint64_t now);
  void (*task_end)(pm_loc *L, const pm_event_task *t);
} pm_event_sink;

PM_HIDDEN extern const pm_event_sink *pm_event_sink_now;
/* Subscribes s (NULL: none), from a module's activate. */
PM_HIDDEN void pm_events_subscribe(const pm_event_sink *s);

#define PM_EVENT_SINK() __atomic_load_n(&pm_event_sink_now, __ATOMIC_ACQUIRE)
static inline int pm_events_on(void) { return PM_EVENT_SINK() != NULL; }
static inline uint32_t pm_event_comm_define(int size, const int *world_ranks) {
  const pm_event_sink *s = PM_EVENT_SINK();
  return s ? s->comm_define(size, world_ranks) : UINT32_MAX;
}
static inline uint64_t pm_event_send(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, int nonblocking) {
  const pm_event_sink *s = PM_EVENT_SINK();
  return s ? s->send(L, comm, peer, tag, bytes, nonblocking) : 0;
}
static inline void pm_event_send_complete(pm_loc *L, uint64_t req) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->send_complete(L, req);
}
static inline uint64_t pm_event_recv_request(pm_loc *L) {
  const pm_event_sink *s = PM_EVENT_SINK();
  return s ? s->recv_request(L) : 0;
}
static inline void pm_event_recv(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, uint64_t req) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->recv(L, comm, peer, tag, bytes, req);
}
static inline void pm_event_request_cancelled(pm_loc *L, uint64_t req) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->request_cancelled(L, req);
}
static inline void pm_event_collective(pm_loc *L, uint32_t comm, int root) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->collective(L, comm, root);
}
static inline void pm_event_team_fork(pm_loc *L, uint32_t nthreads, uint64_t now) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->team_fork(L, nthreads, now);
}
static inline uint32_t pm_event_team_define(pm_loc *master, uint32_t nthreads) {
  const pm_event_sink *s = PM_EVENT_SINK();
  return s ? s->team_define(master, nthreads) : UINT32_MAX;
}
static inline void pm_event_team_begin(pm_loc *L, uint32_t team, uint32_t tid, uint64_t now) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->team_begin(L, team, tid, now);
}
static inline void pm_event_team_end(pm_loc *L, uint32_t team, uint64_t now) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->team_end(L, team, now);
}
static inline void pm_event_team_join(pm_loc *L, uint64_t now) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s) s->team_join(L, now);
}
static inline void pm_event_task_end(pm_loc *L, const pm_event_task *t) {
  const pm_event_sink *s = PM_EVENT_SINK();
  if (s && s->task_end) s->task_end(L, t);
}
#endif
