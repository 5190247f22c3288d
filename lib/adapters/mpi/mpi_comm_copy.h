/* popmeter's own copies of a communicator (pm_mpi_comm_copy, mpi_comm_copy.c). */
#ifndef PM_MPI_COMM_COPY_H
#define PM_MPI_COMM_COPY_H
#include <mpi.h>
#include "pm_vocabulary.h"

/* A new intracommunicator with the ranks of base, in the same order, made without a nonblocking
 * collective where the MPI library allows (MPI_Comm_create_group; MPI_Comm_dup for an
 * intercommunicator or without MPI-3). Collective over base: every rank must call it, in the same
 * order as its other collectives on base. Only where no receive with MPI_ANY_TAG can be pending on
 * base: inside MPI_Init, or on a communicator of popmeter's own. Open MPI 4.1 sends the creation's
 * messages on base with an application tag, and such a receive takes them (measured: one pending
 * on MPI_COMM_WORLD makes MPI_Comm_create_group hang). Returns the MPI error code; *out is
 * MPI_COMM_NULL on failure. */
PM_HIDDEN int pm_mpi_comm_copy(MPI_Comm base, MPI_Comm *out);
#endif
