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

/* Designated initialisers: a field a kind does not use stays 0 / NULL. */
#define TIME(u, d, parent_, states_, descr_)                                                           \
  {                                                                                                    \
    .uniq = u, .disp = d, .uom = "sec", .descr = descr_, .parent = parent_, .type = PM_CUBE_EXCLUSIVE, \
    .dtype = PM_CUBE_DOUBLE, .src = PM_CUBE_SRC_STATES, .states = states_                              \
  }
#define COUNT(u, d, uom_, field, descr_)                                                              \
  {                                                                                                   \
    .uniq = u, .disp = d, .uom = uom_, .descr = descr_, .parent = -1, .type = PM_CUBE_EXCLUSIVE,      \
    .dtype = PM_CUBE_UINT64, .src = PM_CUBE_SRC_COUNT, .count_offset = offsetof(pm_prof_value, field) \
  }
/* A root row of seconds whose values come from a source of their own (not a state set) */
#define SECONDS(u, d, src_, descr_)                                                               \
  {                                                                                               \
    .uniq = u, .disp = d, .uom = "sec", .descr = descr_, .parent = -1, .type = PM_CUBE_EXCLUSIVE, \
    .dtype = PM_CUBE_DOUBLE, .src = src_                                                          \
  }
/* POSTDERIVED: evaluated once on the selection (metric::x(i) are sums over its locations) */
#define DERIVED(u, d, uom_, expr, descr_, ghost_)                                                  \
  {                                                                                                \
    .uniq = u, .disp = d, .uom = uom_, .descr = descr_, .parent = -1, .type = PM_CUBE_POSTDERIVED, \
    .dtype = PM_CUBE_DOUBLE, .src = PM_CUBE_SRC_DERIVED, .cubepl = expr, .ghost = ghost_           \
  }
/* PREDERIVED_INCLUSIVE: evaluated per (call path inclusive, location), folded over locations with
 * aggr and over call paths with plus; minus arg1 makes the exclusive value the inclusive one */
#define PREDERIVED(u, d, uom_, expr, aggr_, plus_, descr_, ghost_, init_)                                   \
  {                                                                                                         \
    .uniq = u, .disp = d, .uom = uom_, .descr = descr_, .parent = -1, .type = PM_CUBE_PREDERIVED_INCLUSIVE, \
    .dtype = PM_CUBE_DOUBLE, .src = PM_CUBE_SRC_DERIVED, .cubepl = expr, .aggr = aggr_, .plus = plus_,      \
    .minus = "arg1", .ghost = ghost_, .init = init_                                                         \
  }
/* PREDERIVED_EXCLUSIVE: evaluated per (call path exclusive, location), summed like a stored metric */
#define PREDERIVED_EXCL(u, d, uom_, expr, descr_)                                                           \
  {                                                                                                         \
    .uniq = u, .disp = d, .uom = uom_, .descr = descr_, .parent = -1, .type = PM_CUBE_PREDERIVED_EXCLUSIVE, \
    .dtype = PM_CUBE_DOUBLE, .src = PM_CUBE_SRC_DERIVED, .cubepl = expr                                     \
  }
/* ${pop_compute}[location]: 1 for a compute location (pm_cube_init_expression) */
#define COMPUTE "${pop_compute}[${calculation::sysres::id}]"

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
    /* per thread, not per call path: the whole run's value sits at the root call path */
    SECONDS("cpu_wait", "CPU wait", PM_CUBE_SRC_CPU_WAIT,
            "Time the thread was ready to run while other threads had the CPUs (the kernel's run-queue wait), "
            "within its states above: the whole run's value, at the root call path (0 where unknown)."),
    COUNT("visits", "Visits", "occ", visits, "Number of times the call path was entered."),
    COUNT("polls", "Polls", "occ", polls,
          "Polling calls (MPI_Test*, MPI_Iprobe, MPI_Improbe); their time is MPI time (Wait/test)."),
    COUNT("bytes_sent", "Bytes sent", "bytes", bytes_sent, "Point-to-point bytes sent."),
    COUNT("bytes_received", "Bytes received", "bytes", bytes_received, "Point-to-point bytes received."),
    COUNT("messages_sent", "Messages sent", "occ", msgs_sent, "Point-to-point messages sent."),
    COUNT("messages_received", "Messages received", "occ", msgs_received, "Point-to-point messages received."),
    COUNT("coll_bytes_out", "Collective bytes out", "bytes", coll_bytes_out,
          "Bytes collective calls sent to other processes (a broadcast root: its buffer once per peer)."),
    COUNT("coll_bytes_in", "Collective bytes in", "bytes", coll_bytes_in,
          "Bytes collective calls received from other processes."),
    COUNT("io_bytes_read", "File bytes read", "bytes", io_bytes_read, "Bytes read by file I/O calls."),
    COUNT("io_bytes_written", "File bytes written", "bytes", io_bytes_written, "Bytes written by file I/O calls."),
    /* Score-P's names for what the Cube GUI's Advisor reads before it derives its own (docs/cube.md):
     * with them its POP analyses use popmeter's useful time, not "time minus MPI minus OpenMP
     * synchronisation", which would count idle workers, runtime and I/O as computation. */
    PREDERIVED_EXCL("execution", "Execution", "sec", "metric::time(e) - metric::idle(e) + metric::sync_wait(e)",
                    "Measured time without idle threads (time - idle + synchronisation wait): Score-P's 'execution'."),
    PREDERIVED_EXCL("comp", "Computation", "sec", "metric::useful(e)",
                    "Useful time, under the name the Cube GUI's Advisor reads as computation ('comp')."),
    /* POP efficiencies per call path and per selection of the system tree (docs/cube.md). CubeLib
     * (4.6 to 4.8) does not apply a POSTDERIVED metric's aggr expression when it reads the metric from
     * a file, so a maximum over locations is a PREDERIVED_INCLUSIVE metric aggregated with max; the
     * efficiencies are POSTDERIVED ratios of them. The helpers are GHOSTs; a metric must be defined
     * before the metrics that refer to it. */
    PREDERIVED("pop_nloc", "Compute locations (count)", "", COMPUTE, NULL, "max(arg1, arg2)",
               "Number of compute locations (not progress threads or device streams) among the selected ones.", 1, 1),
    DERIVED("pop_nsel", "Compute locations in the selection", "", "min(@N@, metric::pop_nloc(i))",
            "The N of the efficiencies: compute locations in the selection (at most the run's @N@).", 1),
    PREDERIVED("pop_useful_c", "Useful time of compute locations", "sec", COMPUTE " * metric::useful(i)", NULL, NULL,
               "Useful time summed over the compute locations of the selection (inclusive).", 1, 0),
    PREDERIVED("pop_max_useful", "Max useful time", "sec", COMPUTE " * metric::useful(i)", "max(arg1, arg2)",
               "max(arg1, arg2)", "Largest useful time of a single compute location at this call path (inclusive).", 0,
               0),
    PREDERIVED("pop_max_time", "Max time", "sec", COMPUTE " * metric::time(i)", "max(arg1, arg2)", "max(arg1, arg2)",
               "Largest measured time of a single compute location at this call path (inclusive): its runtime R.", 0,
               0),
    DERIVED("pop_pe", "Parallel efficiency", "",
            "metric::pop_useful_c(i) / (metric::pop_nsel(i) * metric::pop_max_time(i))",
            "Sum of useful time / (N * max time) over the compute locations of the selection: LB * CommE.", 0),
    DERIVED("pop_lb", "Load balance", "", "metric::pop_useful_c(i) / (metric::pop_nsel(i) * metric::pop_max_useful(i))",
            "Average useful time / max useful time over the compute locations of the selection.", 0),
    DERIVED("pop_comme", "Communication efficiency", "", "metric::pop_max_useful(i) / metric::pop_max_time(i)",
            "Max useful time / max time: the loss to communication, synchronisation and waiting.", 0),
    /* The last PM_CUBE_NTRANSFER rows, written only when the run measured the transfer time (the
     * critical path on): MPI time minus the waiting the clocks explain, serialization and transfer
     * efficiency per call path, and the two maxima the Advisor's POP Assessment reads under these
     * names (its "Maximal total time (in ideal network)", with its own expressions). */
    SECONDS("transfer_time_mpi", "MPI transfer", PM_CUBE_SRC_TRANSFER,
            "MPI time an ideal network would save: time in MPI calls minus the waiting for partners that the "
            "critical-path clocks explain (MPI-IO not included)."),
    PREDERIVED(
        "max_total_time", "Maximal total time", "sec", "metric::execution()", NULL, NULL,
        "Execution time at this call path, as the Cube GUI's Advisor defines it (max over processes is its own).", 1,
        0),
    PREDERIVED("max_total_time_ideal", "Maximal total time in ideal network", "sec",
               "metric::execution() - metric::transfer_time_mpi()", NULL, NULL,
               "Execution time minus MPI transfer time, as the Cube GUI's Advisor defines it.", 1, 0),
    PREDERIVED("pop_max_ideal", "Max time on an ideal network", "sec",
               COMPUTE " * (metric::time(i) - metric::transfer_time_mpi(i))", "max(arg1, arg2)", "max(arg1, arg2)",
               "Largest time of a single compute location at this call path without its MPI transfer time "
               "(inclusive): the runtime on an ideal network.",
               0, 0),
    DERIVED("pop_sere", "Serialization efficiency", "", "metric::pop_max_useful(i) / metric::pop_max_ideal(i)",
            "Max useful time / max time on an ideal network: the loss to waiting that instantaneous transfers "
            "would not remove.",
            0),
    DERIVED("pop_te", "Transfer efficiency", "", "metric::pop_max_ideal(i) / metric::pop_max_time(i)",
            "Max time on an ideal network / max time: the loss to MPI transfers. SerE * TE = CommE.", 0),
};
const int pm_cube_nmetrics = (int)(sizeof pm_cube_metrics / sizeof pm_cube_metrics[0]);

int pm_cube_nmetrics_of(const pm_profile *p) {
  return p->has_mpi_transfer ? pm_cube_nmetrics : pm_cube_nmetrics - PM_CUBE_NTRANSFER;
}

char *pm_cube_init_expression(const pm_profile *p, const pm_cube_layout *lay) {
  pm_cube_buf b = {0};
  pm_cube_buf_puts(&b, "{ global(pop_compute); ${i} = 0; while ( ${cube::#locations} > ${i} ) { "
                       "${pop_compute}[${i}] = 1; ${i} = ${i} + 1; };");
  for (int c = 0; c < p->nlocations; c++) {
    if (!pm_prof_loc_computes(&p->loc[lay->loc_of_col[c]])) pm_cube_buf_printf(&b, " ${pop_compute}[%d] = 0;", c);
  }
  pm_cube_buf_puts(&b, " return 0; }");
  if (b.failed) {
    pm_cube_buf_free(&b);
    return NULL;
  }
  return b.s;
}

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
  if (m->src == PM_CUBE_SRC_TRANSFER) return v->mpi_transfer;
  if (m->src == PM_CUBE_SRC_CPU_WAIT) return 0; /* per location: pm_cube_location_value */
  double t = 0;
  for (int s = 0; s < PM_STATE_COUNT; s++)
    if (m->states & S(s)) t += v->time[s];
  return t;
}

double pm_cube_location_value(const pm_cube_metric_def *m, const pm_prof_location *l) {
  return m->src == PM_CUBE_SRC_CPU_WAIT && l->cpu_wait > 0 ? l->cpu_wait : 0;
}

uint64_t pm_cube_count_of(const pm_cube_metric_def *m, const pm_prof_value *v) {
  uint64_t c;
  memcpy(&c, (const char *)v + m->count_offset, sizeof c);
  return c;
}
