/* Optional measurement modules (OTF2 trace writer, hardware counters, CUDA activity plugin) plug into
 * the lifecycle through these hooks. Each is a weak symbol: a module that is not linked in (the unit
 * tests link the core alone) is simply absent. A module adds its pm_loc_observer in its activate
 * hook, which runs before the first location registers. */
#ifndef PM_EXTENSIONS_H
#define PM_EXTENSIONS_H
#include "pm_core.h"
#include "pm_config.h"
struct pm_profile;

/* At activation, with the parsed configuration. */
PM_HIDDEN void pm_trace_activate(const pm_config *cfg) __attribute__((weak));
PM_HIDDEN void pm_counters_activate(const pm_config *cfg) __attribute__((weak));
PM_HIDDEN void pm_cuda_activate(const pm_config *cfg) __attribute__((weak));

/* At finalize, after every location was flushed at t_end and before the profile is built: the
 * CUDA plugin drains its activity buffers, the counter module reads its last values, the trace
 * writer closes open regions (every Enter gets its Leave). Called in this order. */
PM_HIDDEN void pm_cuda_finalize(uint64_t t_end) __attribute__((weak));
PM_HIDDEN void pm_counters_finalize(uint64_t t_end) __attribute__((weak));
PM_HIDDEN void pm_trace_finalize(uint64_t t_end) __attribute__((weak));

/* While the process profile is built: each module adds what it measured (counters per location
 * and call path, trace statistics, device activity). 0, or -1 out of memory. */
PM_HIDDEN int pm_counters_to_profile(struct pm_profile *p) __attribute__((weak));
PM_HIDDEN int pm_trace_to_profile(struct pm_profile *p) __attribute__((weak));
PM_HIDDEN int pm_cuda_to_profile(struct pm_profile *p) __attribute__((weak));
/* File I/O per file class (lib/adapters/io/io_classes.c). Profile location indices of live
 * locations: pm_profile_loc_index (pm_lifecycle.h). */
PM_HIDDEN int pm_io_to_profile(struct pm_profile *p) __attribute__((weak));
#endif
