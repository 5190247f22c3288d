/* What one read of another rank's collective clock slot (mpi_cpslots.c) means for this rank's
 * collective of a given epoch. Kept apart, without MPI, so that its cases are unit-tested. */
#ifndef PM_MPI_CPSLOT_VERDICT_H
#define PM_MPI_CPSLOT_VERDICT_H
#include <stdint.h>

#define PM_CPSLOT_BUSY UINT64_MAX /* the slot's seq while its owner writes it */

typedef enum {
  PM_CPSLOT_MERGE,  /* the owner's clocks of this collective: merge them */
  PM_CPSLOT_ABSENT, /* the owner had not entered when this rank left: no dependency, nothing lost */
  PM_CPSLOT_LOST    /* the owner's clocks of this collective were overwritten by a later one */
} pm_cpslot_verdict;

/* seq: the slot's seq as first read; torn: it changed before the read ended. An older seq is an
 * owner that had not entered this collective when the read began: a rooted collective's root (or
 * a rank the data did not come from) may enter after this rank left, and when it enters during the
 * read the read is torn, yet the clocks it brings are still no dependency of this rank's. Only a
 * later epoch, or this epoch rewritten while read (its owner a ring of collectives ahead), lost
 * the clocks this collective carried. */
static inline pm_cpslot_verdict pm_cpslot_verdict_of(uint64_t seq, int torn, uint64_t epoch) {
  if (seq == PM_CPSLOT_BUSY || seq < epoch) return PM_CPSLOT_ABSENT;
  if (seq > epoch || torn) return PM_CPSLOT_LOST;
  return PM_CPSLOT_MERGE;
}
#endif
