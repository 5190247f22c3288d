/* Process lifecycle: activation, configuration, messages, finalization. */
#ifndef PM_LIFECYCLE_H
#define PM_LIFECYCLE_H
#include "pm_core.h"
#include "pm_config.h"
#include "pm_ipc.h"
struct pm_profile;

PM_HIDDEN void pm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PM_HIDDEN void pm_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PM_HIDDEN void pm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
PM_HIDDEN const pm_config *pm_config_get(void);
PM_HIDDEN int pm_core_rank(void);
PM_HIDDEN int pm_core_size(void);
PM_HIDDEN uint64_t pm_core_window_start(void);
PM_HIDDEN void pm_process_identity(struct pm_profile *p);
PM_HIDDEN struct pm_profile *pm_profile_build_process(uint64_t t_start, uint64_t t_end);
/* Index in this process's profile of the location with id loc_id (main thread first, then the
 * others in registration order); -1 for an unknown id. O(locations). */
PM_HIDDEN int pm_profile_loc_index(uint32_t loc_id);
/* End of measurement: snapshot, reduce through ipc, report on rank 0. Runs once per process;
 * later calls return at once. 'why' (may be NULL) is printed as a note in the report. */
PM_HIDDEN void pm_core_finalize(const pm_ipc *ipc, const char *why);
/* SIGTERM of a parallel run reports before dying (pm_terminate.c): armed when the process learns it
 * is one of several; disarmed in a forked child. */
PM_HIDDEN void pm_terminate_arm(void);
PM_HIDDEN void pm_terminate_after_fork_child(void);
PM_HIDDEN int pm_core_finalized(void);
PM_HIDDEN int pm_in_tool(void);
PM_HIDDEN void pm_set_in_tool(int v);
PM_HIDDEN void pm_regions_reset(void);
#endif
