/* The public API of popmeter.h: user regions, pause/resume, queries. */
#include "popmeter.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include <stdint.h>
#include <string.h>

#define PM_API __attribute__((visibility("default")))

static int mismatch_reported;

/* User regions are entered often with the same names: a small per-thread cache keyed by the name's
 * address (checked against the registered name, since a caller may reuse a buffer) keeps the
 * registry's mutex off the per-call path. */
#define NAME_CACHE 16
static __thread struct {
  const char *ptr;
  pm_region_id id;
} name_cache[NAME_CACHE];

static pm_region_id user_region(const char *name) {
  unsigned slot = (unsigned)(((uintptr_t)name >> 4) % NAME_CACHE);
  if (name_cache[slot].ptr == name && pm_region_paradigm(name_cache[slot].id) == PM_PARADIGM_USER &&
      strcmp(pm_region_name(name_cache[slot].id), name) == 0)
    return name_cache[slot].id;
  pm_region_id r = pm_region_register(name, PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  if (r != PM_REGION_NONE) {
    name_cache[slot].ptr = name;
    name_cache[slot].id = r;
  }
  return r;
}

static int deep_reported;

/* Enters user region `name`; wait: in the synchronisation-wait state, else in the current one. */
static void user_enter(const char *name, int wait) {
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  if (L->depth == PM_MAX_DEPTH && !__atomic_exchange_n(&deep_reported, 1, __ATOMIC_RELAXED))
    pm_warn("regions nested deeper than %d levels (\"%s\"): deeper ones are charged to the call path of "
            "level %d, their MPI and I/O time still counted as such",
            PM_MAX_DEPTH, name ? name : "(null)", PM_MAX_DEPTH);
  pm_region_id r = user_region(name ? name : "(null)");
  if (r != PM_REGION_NONE) pm_call_enter(L, r, wait ? PM_STATE_SYNC_WAIT : pm_state_get(L), pm_clock_now());
  pm_leave_tool(L);
}

PM_API void pm_region_begin(const char *name) { user_enter(name, 0); }
PM_API void pm_wait_begin(const char *name) { user_enter(name, 1); }
/* the exit restores the state the region was entered from, whichever kind it is */
PM_API void pm_wait_end(const char *name) { pm_region_end(name); }

PM_API void pm_region_end(const char *name) {
  pm_loc *L = pm_enter_tool();
  if (!L) return;
  const char *cur = pm_region_name(L->cur_node->region);
  /* below the kept levels the names are not known: an end is taken as the innermost region's */
  if (L->depth == 0 || (L->depth <= PM_MAX_DEPTH && name && strcmp(cur, name) != 0)) {
    if (!__atomic_exchange_n(&mismatch_reported, 1, __ATOMIC_RELAXED))
      pm_warn("pm_region_end(\"%s\") does not close the innermost open region (\"%s\"); ignored",
              name ? name : "(null)", L->depth ? cur : "none");
  } else {
    pm_region_exit(L, pm_clock_now());
  }
  pm_leave_tool(L);
}

PM_API void pm_pause(void) {
  if (pm_core_is_active()) pm_core_pause();
}
PM_API void pm_resume(void) {
  if (pm_core_is_active()) pm_core_resume();
}
PM_API int pm_is_active(void) { return pm_core_is_active(); }

PM_API int pm_query_thread(pm_thread_times *out) {
  memset(out, 0, sizeof *out);
  pm_loc *L = pm_loc_self();
  if (!L) return -1;
  pm_state cur = pm_state_set(L, (pm_state)L->state, pm_clock_now()); /* brings the times up to now */
  (void)cur;
  double *slot[PM_CLASS_COUNT] = {&out->useful, &out->mpi,    &out->io,   &out->runtime,
                                  &out->idle,   &out->device, &out->other};
  for (int c = 0; c < PM_CTX_COUNT; c++)
    for (int s = 0; s < PM_STATE_COUNT; s++) *slot[pm_state_class_of((pm_state)s)] += (double)L->time[c][s] * 1e-9;
  return 0;
}
