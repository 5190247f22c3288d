/* popmeter's own communicators, made without a nonblocking collective.
 *
 * Open MPI 4.1 agrees on the context id of a communicator made by MPI_Comm_dup, MPI_Comm_split or
 * MPI_Comm_split_type with a nonblocking allreduce on the parent communicator (coll/libnbc), and
 * libnbc then keeps its progress function registered with opal_progress until the parent is freed,
 * which for MPI_COMM_WORLD is never: every poll and every wait loop of the application calls it
 * from then on. In a program that makes no communicator itself, popmeter's were the only cause
 * (measured: 5 % of an MPI_Barrier loop's samples and 3.4 % of a ping-pong's went to
 * ompi_coll_libnbc_progress, none without popmeter). MPI_Comm_create_group agrees with
 * point-to-point messages on the parent instead and registers nothing. popmeter makes its copies of
 * MPI_COMM_WORLD and MPI_COMM_SELF inside MPI_Init; the StarPU adapter's clock channel uses the
 * former (a dup of its own only where the MPI adapter made none: StarPU-MPI's progression thread
 * may already receive on MPI_COMM_WORLD then). */
#include "mpi_comm_copy.h"
#include "mpi_weak.h"

/* The tag of the creation's messages on base (see the header for where that is safe). */
#define PM_COPY_TAG 0x706d

int pm_mpi_comm_copy(MPI_Comm base, MPI_Comm *out) {
  *out = MPI_COMM_NULL;
  int inter = 1;
  /* the same branch on every rank: the same library, the same kind of communicator */
  if (PMPI_Comm_create_group && PMPI_Comm_group && PMPI_Group_free &&
      PMPI_Comm_test_inter(base, &inter) == MPI_SUCCESS && !inter) {
    MPI_Group g;
    int rc = PMPI_Comm_group(base, &g);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Comm_create_group(base, g, PM_COPY_TAG, out);
    PMPI_Group_free(&g);
    if (rc != MPI_SUCCESS) *out = MPI_COMM_NULL;
    return rc;
  }
  int rc = PMPI_Comm_dup(base, out);
  if (rc != MPI_SUCCESS) *out = MPI_COMM_NULL;
  return rc;
}
