/* Where the time went (docs/metrics.md §10): the runtime R minus the average useful time of the
 * compute locations, R - A, split into additive losses in seconds, along the critical-path model
 * (§4). With t_i the useful critical path of compute location i (A = avg t, C = max t), M_p the
 * largest t of process p, B = sum_p t_p M_p / T, P the longest process-local critical path,
 * G = G-CUE and O = G-COO:
 *
 *   load imbalance within processes   B - A     (LB_X = A / B)
 *   load imbalance across processes   C - B     (LB_mpi = B / C)
 *   serialization within processes    P - C     (SerE_X = C / P)
 *   serialization across processes    G - P     (SerE_mpi = P / G)
 *   transfer (MPI)                    O - G     (TE_mpi = G / O)
 *   transfer (OpenMP / task runtime)  R - O     (TE_X = O / R)
 *
 * They add up to R - A, as each ratio's loss is the difference of the two times it divides. The
 * table's "where the time went" ranks them. Without a critical path, serialization and transfer
 * are one loss, R - C (communication). */
#ifndef PM_LOSSES_H
#define PM_LOSSES_H
#include "pm_input.h"

typedef enum {
  PM_LOSS_LB_THREADS = 0,
  PM_LOSS_LB_PROCESSES,
  PM_LOSS_SER_THREADS,
  PM_LOSS_SER_PROCESSES,
  PM_LOSS_TRANSFER_MPI,
  PM_LOSS_TRANSFER_RUNTIME,
  PM_LOSS_COMMUNICATION, /* without a critical path only: serialization + transfer */
  PM_LOSS_COUNT
} pm_loss_kind;

typedef struct {
  int valid;                     /* 0: nothing computed (no compute location, zero runtime, bad input) */
  int has_split;                 /* 1: serialization and transfer apart (critical path measured) */
  double runtime;                /* R */
  double avg_useful;             /* A */
  double max_useful;             /* C */
  double seconds[PM_LOSS_COUNT]; /* each >= 0 (a negative difference, from inconsistent clocks, is 0) */
  /* useful time summed per process: the busiest and the least busy process (indices) */
  int busiest, least_busy;
  double busiest_useful, least_busy_useful;
} pm_time_losses;

/* Fills out from in; returns out->valid. */
int pm_losses_compute(const pm_run_input *in, pm_time_losses *out);
#endif
