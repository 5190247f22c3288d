/* What the trace adds to the process profile: its statistics (events, bytes of the event files,
 * buffer flushes during the run and the time they took), so that popmeter.json carries them and
 * the end-of-run table reports them (lib/report/pm_report_models.c). */
#include "pm_trace.h"
#include "pm_module.h"
#include "pm_events.h"
#include "pm_profile.h"

int pm_trace_to_profile(struct pm_profile *p) {
  if (pm_tr_state() != PM_TR_CLOSED || !p || p->nprocesses < 1) return 0;
  pm_prof_process *q = &p->proc[0];
  q->trace_events = pm_tr.stats.events;
  q->trace_bytes = pm_tr.stats.bytes;
  q->trace_flushes = __atomic_load_n(&pm_tr.stats.flushes, __ATOMIC_RELAXED);
  q->trace_flush_time = (double)__atomic_load_n(&pm_tr.stats.flush_ns, __ATOMIC_RELAXED) * 1e-9;
  return 0;
}
