/* popmeter's own live metrics as PAPI software-defined events: sde:::popmeter::<name>, read by any
 * PAPI user in the process (the application itself, a tool that samples it). Registered once at
 * activation with libsde; each event is a callback that sums the locations when PAPI reads it, so
 * the hot path pays nothing. The sums read fields that their owners keep writing (a value may be
 * a few nanoseconds stale, never torn: every field is one aligned 64-bit word).
 *
 * Times include the interval a location is in right now, so useful_ns grows while a thread
 * computes, not only at its next transition. Built only when configure finds libsde. */
#include "pm_counters.h"
#include "pm_location.h"
#include <sde_lib.h>
#include <stdint.h>

typedef enum {
  S_LOCATIONS,
  S_USEFUL_NS,
  S_MPI_NS,
  S_IO_NS,
  S_RUNTIME_NS,
  S_IDLE_NS,
  S_BYTES_SENT,
  S_BYTES_RECEIVED,
  S_MESSAGES_SENT,
  S_MESSAGES_RECEIVED,
  S_IO_BYTES_READ,
  S_IO_BYTES_WRITTEN,
  S_TASKS_EXECUTED,
  S_COUNT
} sde_metric;

static const struct {
  const char *name;
  int instant;
  pm_state_class cls;
  const char *descr;
} defs[S_COUNT] = {
    [S_LOCATIONS] = {"locations", 1, 0, "Threads and device streams measured so far in this process."},
    [S_USEFUL_NS] = {"useful_ns", 0, PM_CLASS_USEFUL, "Useful time (application code) summed over the threads, ns."},
    [S_MPI_NS] = {"mpi_ns", 0, PM_CLASS_MPI, "Time inside MPI summed over the threads, ns."},
    [S_IO_NS] = {"io_ns", 0, PM_CLASS_IO, "Time in file I/O summed over the threads, ns."},
    [S_RUNTIME_NS] = {"runtime_ns", 0, PM_CLASS_RUNTIME, "Task / OpenMP runtime overhead summed over the threads, ns."},
    [S_IDLE_NS] = {"idle_ns", 0, PM_CLASS_IDLE, "Idle and synchronisation wait summed over the threads, ns."},
    [S_BYTES_SENT] = {"bytes_sent", 0, 0, "Point-to-point bytes sent."},
    [S_BYTES_RECEIVED] = {"bytes_received", 0, 0, "Point-to-point bytes received."},
    [S_MESSAGES_SENT] = {"messages_sent", 0, 0, "Point-to-point messages sent."},
    [S_MESSAGES_RECEIVED] = {"messages_received", 0, 0, "Point-to-point messages received."},
    [S_IO_BYTES_READ] = {"io_bytes_read", 0, 0, "Bytes read by file I/O calls."},
    [S_IO_BYTES_WRITTEN] = {"io_bytes_written", 0, 0, "Bytes written by file I/O calls."},
    [S_TASKS_EXECUTED] = {"tasks_executed", 0, 0, "Task bodies executed (StarPU tasks)."},
};

static uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

static uint64_t class_time(const pm_loc *L, pm_state_class cls, uint64_t now, int live) {
  uint64_t t = 0;
  for (int s = 0; s < PM_STATE_COUNT; s++)
    if (pm_state_class_of((pm_state)s) == cls) t += ld(&L->time[0][s]) + ld(&L->time[1][s]);
  unsigned st = __atomic_load_n(&L->state, __ATOMIC_RELAXED);
  uint64_t since = ld(&L->t_last);
  if (live && !L->closed && !L->is_virtual && pm_state_class_of((pm_state)st) == cls && now > since) t += now - since;
  return t;
}

static uint64_t tasks_of(const pm_loc *L) {
  uint64_t n = 0;
  for (uint32_t i = 0, k = pm_loc_node_count(L); i < k; i++) {
    const pm_cpnode *c = pm_loc_node(L, i);
    if (pm_region_role_of(c->region) == PM_ROLE_TASK) n += ld(&c->visits);
  }
  return n;
}

static long long read_metric(void *arg) {
  sde_metric m = (sde_metric)(intptr_t)arg;
  uint32_t n = pm_loc_count();
  if (m == S_LOCATIONS) return (long long)n;
  uint64_t now = pm_clock_now(), sum = 0;
  int live = pm_core_is_active();
  for (uint32_t i = 0; i < n; i++) {
    const pm_loc *L = pm_loc_at(i);
    if (!L) continue;
    switch (m) {
    case S_BYTES_SENT: sum += ld(&L->bytes_sent); break;
    case S_BYTES_RECEIVED: sum += ld(&L->bytes_received); break;
    case S_MESSAGES_SENT: sum += ld(&L->msgs_sent); break;
    case S_MESSAGES_RECEIVED: sum += ld(&L->msgs_received); break;
    case S_IO_BYTES_READ: sum += ld(&L->io_bytes_read); break;
    case S_IO_BYTES_WRITTEN: sum += ld(&L->io_bytes_written); break;
    case S_TASKS_EXECUTED: sum += tasks_of(L); break;
    default: sum += class_time(L, defs[m].cls, now, live); break;
    }
  }
  return (long long)sum;
}

void pm_sde_activate(void) {
  static int done;
  if (done) return; /* one registration per process, even across test resets */
  done = 1;
  papi_handle_t h = papi_sde_init("popmeter");
  if (!h) return;
  for (int m = 0; m < S_COUNT; m++) {
    int mode = PAPI_SDE_RO | (defs[m].instant ? PAPI_SDE_INSTANT : PAPI_SDE_DELTA);
    if (papi_sde_register_counter_cb(h, defs[m].name, mode, PAPI_SDE_long_long, read_metric, (void *)(intptr_t)m) ==
        SDE_OK)
      papi_sde_describe_counter(h, defs[m].name, defs[m].descr);
  }
}
