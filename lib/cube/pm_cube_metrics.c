/* The metric tree of profile.cubex (docs/cube.md explains each metric).
 *
 * Stored metrics are EXCLUSIVE along the call tree (a row holds the time spent at that call path
 * itself; CubeLib derives inclusive values) and, as CubeLib requires, INCLUSIVE along the metric
 * tree: a parent's stored value contains its children's (time = useful + mpi + ...; the Cube GUI
 * shows parent minus children when the parent is expanded). That is why a parent's state set is the
 * union of its children's plus its own part.
 *
 * Adding a metric (e.g. a hardware counter) is one row: pick its source, keep the table in
 * pre-order, and the writer, the anchor and the checker tests follow. */
#include "pm_cube_internal.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(x) (1u << (x))
#define MPI_STATES \
  (S(PM_STATE_MPI_P2P) | S(PM_STATE_MPI_COLL) | S(PM_STATE_MPI_SYNC) | S(PM_STATE_MPI_MGMT) | S(PM_STATE_MPI_IO))
#define IDLE_STATES (S(PM_STATE_IDLE) | S(PM_STATE_SYNC_WAIT))
/* Every state but "off" (paused, before activation, after finalize: not measured) */
#define ALL_STATES (((1u << PM_STATE_COUNT) - 1) & ~S(PM_STATE_OFF))

#define TIME(u, d, parent, states, descr) \
  { u, d, "sec", descr, parent, PM_CUBE_EXCLUSIVE, PM_CUBE_DOUBLE, PM_CUBE_SRC_STATES, states, 0, NULL, NULL }
#define COUNT(u, d, uom, field, descr)                                                                             \
  {                                                                                                                \
    u, d, uom, descr, -1, PM_CUBE_EXCLUSIVE, PM_CUBE_UINT64, PM_CUBE_SRC_COUNT, 0, offsetof(pm_prof_value, field), \
        NULL, NULL                                                                                                 \
  }
#define DERIVED(u, d, uom, expr, aggr, descr) \
  { u, d, uom, descr, -1, PM_CUBE_POSTDERIVED, PM_CUBE_DOUBLE, PM_CUBE_SRC_DERIVED, 0, 0, expr, aggr }

/* Indices used as parents below; the unit test checks them against the rows. */
enum { M_TIME = 0, M_MPI = 2, M_IDLE = 9 };

const pm_cube_metric_def pm_cube_metrics[] = {
    TIME("time", "Time", -1, ALL_STATES,
         "Measured time of the locations: every state except 'off' (paused or not yet measured)."),
    TIME("useful", "Useful", M_TIME, S(PM_STATE_USEFUL),
         "Time in application code: not in MPI, the task/OpenMP runtime, waiting or file I/O."),
    TIME("mpi", "MPI", M_TIME, MPI_STATES, "Time inside MPI calls."),
    TIME("mpi_p2p", "Point-to-point", M_MPI, S(PM_STATE_MPI_P2P), "Blocking and non-blocking point-to-point calls."),
    TIME("mpi_collective", "Collective", M_MPI, S(PM_STATE_MPI_COLL),
         "Collective calls (blocking, or the posting of a non-blocking one)."),
    TIME("mpi_sync", "Wait/test", M_MPI, S(PM_STATE_MPI_SYNC), "Completion of requests: MPI_Wait*, MPI_Test*, probes."),
    TIME("mpi_management", "Management", M_MPI, S(PM_STATE_MPI_MGMT),
         "Init, finalize, communicator and datatype management."),
    TIME("mpi_io", "MPI-IO", M_MPI, S(PM_STATE_MPI_IO), "MPI-IO file calls."),
    TIME("runtime", "Runtime overhead", M_TIME, S(PM_STATE_RUNTIME),
         "Task or OpenMP runtime overhead: scheduling, fork/join, data management."),
    TIME("idle", "Idle", M_TIME, IDLE_STATES,
         "No work: sleeping workers, threads waiting for tasks, plus synchronisation waits."),
    TIME("sync_wait", "Synchronisation wait", M_IDLE, S(PM_STATE_SYNC_WAIT),
         "Thread synchronisation waits (OpenMP barriers, locks)."),
    TIME("file_io", "File I/O", M_TIME, S(PM_STATE_POSIX_IO), "POSIX and stdio file I/O."),
    TIME("device", "Device", M_TIME, S(PM_STATE_DEVICE),
         "Host blocked in a device runtime call (synchronisation, copies)."),
    TIME("measurement", "Measurement", M_TIME, S(PM_STATE_TOOL),
         "popmeter's own work (finalize reduction, trace flush)."),
    COUNT("visits", "Visits", "occ", visits, "Number of times the call path was entered."),
    COUNT("polls", "Polls", "occ", polls, "Polling calls (MPI_Test*, MPI_Iprobe) counted without timing."),
    COUNT("bytes_sent", "Bytes sent", "bytes", bytes_sent, "Point-to-point bytes sent."),
    COUNT("bytes_received", "Bytes received", "bytes", bytes_received, "Point-to-point bytes received."),
    COUNT("messages_sent", "Messages sent", "occ", msgs_sent, "Point-to-point messages sent."),
    COUNT("messages_received", "Messages received", "occ", msgs_received, "Point-to-point messages received."),
    COUNT("io_bytes_read", "File bytes read", "bytes", io_bytes_read, "Bytes read by file I/O calls."),
    COUNT("io_bytes_written", "File bytes written", "bytes", io_bytes_written, "Bytes written by file I/O calls."),
    /* POP efficiencies per call path (POSTDERIVED: evaluated after aggregation, for the selected call
   * path; metric::x(i) takes the call path inclusive of its callees whatever the GUI's expansion
   * state, because an efficiency is not additive along the call tree). With a cubeplaggr "aggr"
   * expression CubeLib evaluates the expression per location and folds the results with it, which
   * is how a maximum over locations is expressed. A referenced metric must be defined before the
   * metric that refers to it. */
    DERIVED("pop_max_useful", "Max useful time", "sec", "metric::useful(i)", "max(arg1, arg2)",
            "Largest useful time of a single location at this call path (inclusive)."),
    DERIVED("pop_max_time", "Max time", "sec", "metric::time(i)", "max(arg1, arg2)",
            "Largest measured time of a single location at this call path (inclusive): the call path's runtime R."),
    DERIVED("pop_pe", "Parallel efficiency", "", "metric::useful(i) / (@N@ * metric::pop_max_time())", NULL,
            "Sum of useful time over locations / (N * max time): LB * CommE. N = number of compute locations."),
    DERIVED("pop_lb", "Load balance", "", "metric::useful(i) / (@N@ * metric::pop_max_useful())", NULL,
            "Average useful time / max useful time over the N compute locations."),
    DERIVED("pop_comme", "Communication efficiency", "", "metric::pop_max_useful() / metric::pop_max_time()", NULL,
            "Max useful time / max time: the loss to communication, synchronisation and waiting."),
};
const int pm_cube_nmetrics = (int)(sizeof pm_cube_metrics / sizeof pm_cube_metrics[0]);

char *pm_cube_expression(const pm_cube_metric_def *m, int ncompute) {
  const char *e = m->cubepl ? m->cubepl : "";
  char num[16];
  snprintf(num, sizeof num, "%d", ncompute);
  size_t len = strlen(e) + 1;
  for (const char *q = e; (q = strstr(q, "@N@")); q += 3) len += strlen(num);
  char *out = malloc(len), *o = out;
  if (!out) return NULL;
  for (const char *q = e; *q;) {
    if (strncmp(q, "@N@", 3) == 0) {
      o += sprintf(o, "%s", num);
      q += 3;
    } else
      *o++ = *q++;
  }
  *o = '\0';
  return out;
}

double pm_cube_time_of(const pm_cube_metric_def *m, const pm_prof_value *v) {
  double t = 0;
  for (int s = 0; s < PM_STATE_COUNT; s++)
    if (m->states & S(s)) t += v->time[s];
  return t;
}

uint64_t pm_cube_count_of(const pm_cube_metric_def *m, const pm_prof_value *v) {
  uint64_t c;
  memcpy(&c, (const char *)v + m->count_offset, sizeof c);
  return c;
}
