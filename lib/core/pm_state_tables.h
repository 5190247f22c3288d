#ifndef PM_STATE_TABLES_H
#define PM_STATE_TABLES_H
#include "pm_core.h"
PM_HIDDEN extern uint64_t pm_cp_mask_cue[PM_STATE_COUNT];
PM_HIDDEN extern const uint64_t pm_cp_mask_com[PM_STATE_COUNT];
PM_HIDDEN extern const uint64_t pm_cp_mask_coo[PM_STATE_COUNT];
/* on = POPMETER_IO_AS_USEFUL=1: file I/O counts as useful on the critical path (CUE) too, as it does in
 * the models; called at activation, before any location measures. */
PM_HIDDEN void pm_cp_masks_io_useful(int on);
#endif
