#ifndef PM_STATE_TABLES_H
#define PM_STATE_TABLES_H
#include "pm_core.h"
PM_HIDDEN extern const uint64_t pm_cp_mask_cue[PM_STATE_COUNT];
PM_HIDDEN extern const uint64_t pm_cp_mask_com[PM_STATE_COUNT];
PM_HIDDEN extern const uint64_t pm_cp_mask_coo[PM_STATE_COUNT];
#endif
