/* The weight of each state in the critical-path clocks (pm_state_tables.h). */
#include "pm_state_tables.h"

/* Critical-path weights (docs/metrics.md §0.3): CUE counts useful time only; COM counts all but
 * MPI; COO counts all but OpenMP/runtime time (runtime overhead and thread waits); with
 * POPMETER_IO_AS_USEFUL CUE counts file I/O as well (pm_cp_masks_io_useful). Time that is not
 * part of the application (tool, off) counts nowhere. All-ones masks let the hot path add
 * branch-free: clock += dt & mask. */
#define ALL UINT64_MAX
uint64_t pm_cp_mask_cue[PM_STATE_COUNT] = {[PM_STATE_USEFUL] = ALL};
void pm_cp_masks_io_useful(int on) {
  pm_cp_mask_cue[PM_STATE_MPI_IO] = pm_cp_mask_cue[PM_STATE_POSIX_IO] = on ? ALL : 0;
}
const uint64_t pm_cp_mask_com[PM_STATE_COUNT] = {
    [PM_STATE_USEFUL] = ALL,    [PM_STATE_MPI_IO] = ALL, [PM_STATE_POSIX_IO] = ALL, [PM_STATE_RUNTIME] = ALL,
    [PM_STATE_SYNC_WAIT] = ALL, [PM_STATE_IDLE] = ALL,   [PM_STATE_DEVICE] = ALL};
const uint64_t pm_cp_mask_coo[PM_STATE_COUNT] = {
    [PM_STATE_USEFUL] = ALL,   [PM_STATE_MPI_P2P] = ALL, [PM_STATE_MPI_COLL] = ALL, [PM_STATE_MPI_SYNC] = ALL,
    [PM_STATE_MPI_MGMT] = ALL, [PM_STATE_MPI_IO] = ALL,  [PM_STATE_POSIX_IO] = ALL, [PM_STATE_DEVICE] = ALL};
