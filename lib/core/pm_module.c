/* The module registry and the lifecycle steps (pm_module.h). Registration happens before any thread
 * of the application runs (constructors, test set-up): the table is read without locks. */
#include "pm_module.h"
#include "pm_events.h"

static const pm_module *modules[PM_MAX_MODULES];
static int nmodules;

void pm_module_register(const pm_module *m) {
  for (int i = 0; i < nmodules; i++)
    if (modules[i] == m) return;
  if (nmodules == PM_MAX_MODULES) return;
  int i = nmodules++;
  for (; i > 0 && modules[i - 1]->order > m->order; i--) modules[i] = modules[i - 1]; /* stays sorted */
  modules[i] = m;
}

#define EACH(field)                     \
  for (int i_ = 0; i_ < nmodules; i_++) \
    if (modules[i_]->field)
#define M modules[i_]

void pm_modules_activate(const pm_config *cfg) { EACH(activate) M->activate(cfg); }
int pm_modules_begin(const struct pm_ipc *ipc) {
  int events = 0;
  EACH(begin) events |= M->begin(ipc);
  return events;
}
void pm_modules_end(uint64_t t_end) { EACH(end) M->end(t_end); }
void pm_modules_finalize(const struct pm_ipc *ipc, uint64_t t_end) { EACH(finalize) M->finalize(ipc, t_end); }
int pm_modules_to_profile(struct pm_profile *p, uint64_t t_start) {
  EACH(to_profile) if (M->to_profile(p, t_start) != 0) return -1;
  return 0;
}
void pm_modules_place(const char *dir) { EACH(place) M->place(dir); }
void pm_modules_report(struct pm_profile *run, const char *note, double reduce_seconds) {
  EACH(report) M->report(run, note, reduce_seconds);
}

/* ------------------------------------------------------------------------------------- events */
const pm_event_sink *pm_event_sink_now;
void pm_events_subscribe(const pm_event_sink *s) { __atomic_store_n(&pm_event_sink_now, s, __ATOMIC_RELEASE); }
