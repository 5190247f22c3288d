/* Concurrent map from a foreign pointer (a starpu_task, a data handle, a StarPU-MPI request) to
 * popmeter's record for it. Foreign pointers are recycled by malloc, so entries are removed as soon
 * as the object ends (task end, handle unregistration). The map is split into stripes selected by
 * the key's hash, each with its own spin lock and open-addressing table (linear probing with
 * backward-shift deletion: no tombstones, so a long run of insert/remove keeps probes short).
 * Operations cost one uncontended lock and a probe or two; tables grow, never shrink. */
#ifndef PM_PTRMAP_H
#define PM_PTRMAP_H
#include "pm_slab.h"

#define PM_PTRMAP_STRIPES 64

typedef struct {
  const void *key;
  void *val;
} pm_ptrmap_slot;
typedef struct {
  pm_spin lock;
  uint32_t cap, n; /* cap is a power of two (0 before the first insert) */
  pm_ptrmap_slot *slot;
  char pad[64 - sizeof(pm_spin) - 8 - sizeof(void *)]; /* one stripe per cache line */
} pm_ptrmap_stripe;
typedef struct {
  pm_ptrmap_stripe s[PM_PTRMAP_STRIPES];
} pm_ptrmap;

PM_HIDDEN void pm_ptrmap_init(pm_ptrmap *m);
/* Inserts or replaces key -> val; 0, or -1 when memory runs out (the entry is then absent). */
PM_HIDDEN int pm_ptrmap_put(pm_ptrmap *m, const void *key, void *val);
PM_HIDDEN void *pm_ptrmap_get(pm_ptrmap *m, const void *key);
/* Removes key; returns its value (NULL if absent). */
PM_HIDDEN void *pm_ptrmap_take(pm_ptrmap *m, const void *key);
/* Returns the value for key, inserting make(arg) first when absent (make runs under the stripe
 * lock: keep it short; it may return NULL, and then nothing is inserted). hold (may be NULL) runs
 * on the value under the lock too, so a reference can be taken before a concurrent take+free. */
PM_HIDDEN void *pm_ptrmap_get_or_make(pm_ptrmap *m, const void *key, void *(*make)(void *arg), void *arg,
                                      void (*hold)(void *val));
/* Removes key only while it maps to val (a recycled foreign pointer may map to a newer record). */
PM_HIDDEN int pm_ptrmap_take_if(pm_ptrmap *m, const void *key, const void *val);
/* Calls fn on every entry (not concurrently with writers: finalize and tests only). */
PM_HIDDEN void pm_ptrmap_foreach(pm_ptrmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg);
PM_HIDDEN uint64_t pm_ptrmap_size(pm_ptrmap *m);
PM_HIDDEN void pm_ptrmap_destroy(pm_ptrmap *m);
#endif
