/* Hardware counters per thread (docs/counters.md): the module (pm_module.h), and the backend interface it counts through.
 *
 * A backend counts N events on the calling thread. Two exist: PAPI (pm_counters_papi.c, built when
 * configure finds PAPI) and whatever a unit test installs with pm_counters_use_backend() (values
 * scripted or computed from the virtual clock), so the tests drive the real observer, profile and
 * model path with exact values. There is no user-visible fake: POPMETER_COUNTERS only knows auto,
 * papi and off.
 *
 * Counts are read only at the boundaries of useful time: when a useful interval is charged (the
 * observer's charge callback), and when a useful interval opens after a non-useful one. The delta
 * of a useful interval goes to the location and to the call-path node it was spent on; the delta
 * between two useful intervals goes to the location's "outside useful" total. */
#ifndef PM_COUNTERS_H
#define PM_COUNTERS_H
#include <stddef.h>
#include <stdint.h>
#include "pm_core.h"
#include "pm_config.h"

#define PM_CTR_MAX 32  /* events counted per thread */
#define PM_CTR_WHY 200 /* room for one reason */

typedef struct pm_ctr_backend {
  const char *name; /* "papi", or the test backend's name (the profile's "source") */
  /* Process set-up, on the activating thread. 0, or -1 with why when nothing can be counted. */
  int (*init)(char *why, size_t len);
  /* 1 when this machine knows the event (the default list keeps the FP classes the CPU has);
   * 0 with why otherwise. */
  int (*known)(const char *event, char *why, size_t len);
  /* Tries events[0..n-1] together on the calling thread, in order: one that cannot be counted
   * (unknown, unsupported, no counter left) is rejected with why[i] and the others are kept;
   * ok[i] says which. What thread_start counts afterwards is the accepted ones, in order. Returns
   * the number accepted. */
  int (*select)(int n, const char *const *events, int *ok, char (*why)[PM_CTR_WHY]);
  /* Starts counting on the calling thread; NULL (why filled) when this thread cannot count. */
  void *(*thread_start)(char *why, size_t len);
  /* The calling thread's current values of the accepted events (running totals). 0 or -1. */
  int (*read)(void *thread_ctx, uint64_t *values);
  void (*thread_stop)(void *thread_ctx);
  /* Widest vector unit of the machine in bits (0: unknown); NULL: ask the CPU. */
  int (*vector_width)(void);
} pm_ctr_backend;

/* The PAPI backend, or NULL when popmeter was built without PAPI. */
PM_HIDDEN const pm_ctr_backend *pm_ctr_papi_backend(void);
/* Tests: count through b (NULL: back to PAPI) from the next activation on. */
PM_HIDDEN void pm_counters_use_backend(const pm_ctr_backend *b);

typedef enum { PM_CTR_MODE_AUTO = 0, PM_CTR_MODE_PAPI, PM_CTR_MODE_OFF } pm_ctr_mode;
/* POPMETER_COUNTERS: auto, papi or off (any case); -1 for anything else. */
PM_HIDDEN int pm_ctr_parse_mode(const char *s);
/* Splits POPMETER_PAPI_EVENTS (comma-separated, blanks around names ignored) into at most max
 * names of at most PM_CTR_NAME-1 bytes; returns how many. Empty entries are skipped; *dropped
 * counts entries beyond max or too long (they are reported by the caller). */
#define PM_CTR_NAME 96
PM_HIDDEN int pm_ctr_parse_events(const char *list, char (*names)[PM_CTR_NAME], int max, int *dropped);

/* The live totals the SDE export reads (pm_counters_sde.c). */
PM_HIDDEN void pm_sde_activate(void);

/* The module (pm_module.h): activation adds the observer and chooses the events; finalize reads the
 * finalizing thread's last values; to_profile adds the counter part of the process profile. */
struct pm_profile;
struct pm_module;
PM_HIDDEN void pm_counters_activate(const pm_config *cfg);
PM_HIDDEN void pm_counters_finalize(uint64_t t_end);
PM_HIDDEN int pm_counters_to_profile(struct pm_profile *p);
PM_HIDDEN extern const struct pm_module pm_counters_module;
#endif
