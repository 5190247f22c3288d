/* Names of the vocabulary (pm_vocabulary.h): states (popmeter.json keys), their classes, location roles, task attributes. */
#include "pm_vocabulary.h"
#include <stddef.h>

static const char *const state_names[PM_STATE_COUNT] = {
    [PM_STATE_USEFUL] = "useful",     [PM_STATE_MPI_P2P] = "mpi_p2p",   [PM_STATE_MPI_COLL] = "mpi_coll",
    [PM_STATE_MPI_SYNC] = "mpi_sync", [PM_STATE_MPI_MGMT] = "mpi_mgmt", [PM_STATE_MPI_IO] = "mpi_io",
    [PM_STATE_POSIX_IO] = "posix_io", [PM_STATE_RUNTIME] = "runtime",   [PM_STATE_SYNC_WAIT] = "sync_wait",
    [PM_STATE_IDLE] = "idle",         [PM_STATE_DEVICE] = "device",     [PM_STATE_TOOL] = "tool",
    [PM_STATE_OFF] = "off",
};

static const pm_state_class state_classes[PM_STATE_COUNT] = {
    [PM_STATE_USEFUL] = PM_CLASS_USEFUL, [PM_STATE_MPI_P2P] = PM_CLASS_MPI,     [PM_STATE_MPI_COLL] = PM_CLASS_MPI,
    [PM_STATE_MPI_SYNC] = PM_CLASS_MPI,  [PM_STATE_MPI_MGMT] = PM_CLASS_MPI,    [PM_STATE_MPI_IO] = PM_CLASS_IO,
    [PM_STATE_POSIX_IO] = PM_CLASS_IO,   [PM_STATE_RUNTIME] = PM_CLASS_RUNTIME, [PM_STATE_SYNC_WAIT] = PM_CLASS_IDLE,
    [PM_STATE_IDLE] = PM_CLASS_IDLE,     [PM_STATE_DEVICE] = PM_CLASS_DEVICE,   [PM_STATE_TOOL] = PM_CLASS_OTHER,
    [PM_STATE_OFF] = PM_CLASS_OTHER,
};

const char *pm_state_name(pm_state s) { return (unsigned)s < PM_STATE_COUNT ? state_names[s] : "?"; }
pm_state_class pm_state_class_of(pm_state s) {
  return (unsigned)s < PM_STATE_COUNT ? state_classes[s] : PM_CLASS_OTHER;
}

static const char *const role_names[PM_LOC_ROLE_COUNT] = {"main",     "thread", "worker", "accel_worker",
                                                          "progress", "device", "other"};
const char *pm_loc_role_name(pm_loc_role r) { return (unsigned)r < PM_LOC_ROLE_COUNT ? role_names[r] : "other"; }

static const char *const task_attr_names[PM_TT_NATTR] = {
    [PM_TT_TAG] = "task tag",
    [PM_TT_FLOPS] = "task flops",
    [PM_TT_SUBMIT] = "task submitted",
    [PM_TT_READY] = "task ready",
    [PM_TT_POP] = "task popped",
    [PM_TT_CP_IN] = "task critical path in",
    [PM_TT_CP_OUT] = "task critical path out",
};
const char *pm_task_attr_name(int i) { return i >= 0 && i < PM_TT_NATTR ? task_attr_names[i] : NULL; }
