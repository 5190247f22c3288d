/* The PAPI backend of the counter module: one event set per thread, created and read on that
 * thread (PAPI_thread_init with pthread_self). Reasons are PAPI's own words (PAPI_strerror) plus,
 * when the event's component is disabled, the component's disabled_reason: on a machine without a
 * PMU that reads "Component containing event is disabled (perf_event: Error libpfm4 no default PMU
 * found)". Built only when configure finds PAPI. */
#include "pm_counters.h"
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int es;
  long long v[PM_CTR_MAX];
} papi_thread;

static int ncodes;
static int codes[PM_CTR_MAX];

static unsigned long thread_id(void) { return (unsigned long)pthread_self(); }

/* " (component: disabled reason)" when component cidx is disabled; "" otherwise. */
static void component_note(int cidx, char *out, size_t len) {
  out[0] = '\0';
  const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
  if (ci && ci->disabled)
    snprintf(out, len, " (%.40s: %.120s)", ci->name, ci->disabled_reason[0] ? ci->disabled_reason : "disabled");
}
/* the CPU component: a native name that does not resolve is its business (a disabled one makes
 * every native name "not supported": say that it is disabled, as for presets) */
static int cpu_component(void) { return PAPI_get_component_index("perf_event"); }

static int p_init(char *why, size_t len) {
  int rc = PAPI_is_initialized() ? (int)PAPI_VER_CURRENT : PAPI_library_init(PAPI_VER_CURRENT);
  if (rc != (int)PAPI_VER_CURRENT) {
    snprintf(why, len, "PAPI_library_init failed: %s", rc > 0 ? "library version mismatch" : PAPI_strerror(rc));
    return -1;
  }
  /* the application may have called it first (with its own id function): that one stays */
  PAPI_thread_init(thread_id);
  ncodes = 0;
  return 0;
}

static int p_known(const char *event, char *why, size_t len) {
  int code;
  int rc = PAPI_event_name_to_code((char *)event, &code);
  if (rc == PAPI_OK) return 1;
  char note[PM_CTR_WHY];
  component_note(cpu_component(), note, sizeof note); /* a native name: the CPU component decides */
  snprintf(why, len, "%s%s", PAPI_strerror(note[0] ? PAPI_ECMP_DISABLED : rc), note);
  return 0;
}

/* Adds the events one at a time to a probe event set on this thread, so one that does not fit
 * (unknown, unsupported, no counter left) is rejected with its reason while the others stay;
 * then checks that the accepted set really starts. */
static int p_select(int n, const char *const *events, int *ok, char (*why)[PM_CTR_WHY]) {
  int es = PAPI_NULL;
  ncodes = 0;
  if (PAPI_create_eventset(&es) != PAPI_OK) {
    for (int i = 0; i < n; i++) {
      ok[i] = 0;
      snprintf(why[i], PM_CTR_WHY, "PAPI_create_eventset failed");
    }
    return 0;
  }
  for (int i = 0; i < n; i++) {
    int code, rc = PAPI_event_name_to_code((char *)events[i], &code);
    char note[PM_CTR_WHY] = "";
    ok[i] = 0;
    if (rc != PAPI_OK) {
      component_note(cpu_component(), note, sizeof note);
      snprintf(why[i], PM_CTR_WHY, "%s%s", PAPI_strerror(note[0] ? PAPI_ECMP_DISABLED : rc), note);
      continue;
    }
    rc = PAPI_add_event(es, code);
    if (rc != PAPI_OK) {
      component_note(PAPI_get_event_component(code), note, sizeof note);
      if (rc == PAPI_ECNFLCT)
        snprintf(why[i], PM_CTR_WHY, "no hardware counter left for it next to the events before it (%s)",
                 PAPI_strerror(rc));
      else
        snprintf(why[i], PM_CTR_WHY, "%s%s", PAPI_strerror(rc), note);
      continue;
    }
    ok[i] = 1;
    codes[ncodes++] = code;
  }
  if (ncodes > 0) {
    int rc = PAPI_start(es);
    long long v[PM_CTR_MAX];
    if (rc == PAPI_OK)
      PAPI_stop(es, v);
    else {
      for (int i = 0; i < n; i++)
        if (ok[i]) {
          ok[i] = 0;
          snprintf(why[i], PM_CTR_WHY, "PAPI_start failed: %s", PAPI_strerror(rc));
        }
      ncodes = 0;
    }
  }
  PAPI_cleanup_eventset(es);
  PAPI_destroy_eventset(&es);
  return ncodes;
}

static void *p_thread_start(char *why, size_t len) {
  papi_thread *t = calloc(1, sizeof *t);
  if (!t) {
    snprintf(why, len, "out of memory");
    return NULL;
  }
  t->es = PAPI_NULL;
  int rc = PAPI_create_eventset(&t->es);
  if (rc == PAPI_OK) rc = PAPI_add_events(t->es, codes, ncodes);
  if (rc == PAPI_OK) rc = PAPI_start(t->es);
  if (rc != PAPI_OK) {
    snprintf(why, len, "%s", PAPI_strerror(rc));
    if (t->es != PAPI_NULL) {
      PAPI_cleanup_eventset(t->es);
      PAPI_destroy_eventset(&t->es);
    }
    free(t);
    return NULL;
  }
  return t;
}

static int p_read(void *ctx, uint64_t *values) {
  papi_thread *t = ctx;
  if (PAPI_read(t->es, t->v) != PAPI_OK) return -1;
  for (int e = 0; e < ncodes; e++) values[e] = (uint64_t)t->v[e];
  return 0;
}

static void p_thread_stop(void *ctx) {
  papi_thread *t = ctx;
  long long v[PM_CTR_MAX];
  PAPI_stop(t->es, v);
  PAPI_cleanup_eventset(t->es);
  PAPI_destroy_eventset(&t->es);
  PAPI_unregister_thread();
  free(t);
}

static const pm_ctr_backend papi_backend = {"papi",         p_init, p_known,       p_select,
                                            p_thread_start, p_read, p_thread_stop, NULL};
const pm_ctr_backend *pm_ctr_papi_backend(void) { return &papi_backend; }
