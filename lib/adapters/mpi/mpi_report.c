/* End of an MPI run: align the ranks, then reduce every process's profile to rank 0 over popmeter's
 * private communicator (the pm_ipc MPI implementation) and report there.
 * Every MPI symbol is referenced weakly (preload hygiene: no hard dependency on libmpi). */
#include <mpi.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "pm_core.h"
#include "pm_lifecycle.h"
#include "mpi_adapter.h"

#pragma weak PMPI_Gather
#pragma weak PMPI_Gatherv
#pragma weak PMPI_Bcast
#pragma weak PMPI_Barrier
#pragma weak PMPI_Comm_rank
#pragma weak PMPI_Comm_size
#pragma weak ompi_mpi_int
#pragma weak ompi_mpi_char

static int mpi_gather(const pm_ipc *self, const char *buf, size_t len, char ***out) {
  MPI_Comm comm = pm_mpi_tool_comm();
  int n = len > INT_MAX ? -1 : (int)len;
  int *lens = NULL, *displs = NULL, ok = 1;
  char *all = NULL;
  *out = NULL;
  if (self->rank == 0) {
    lens = calloc((size_t)self->size, sizeof *lens);
    displs = calloc((size_t)self->size, sizeof *displs);
    if (!lens || !displs) ok = 0;
  }
  /* sizes first; rank 0 decides whether the gather can proceed and tells everyone */
  if (PMPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, comm) != MPI_SUCCESS) ok = 0;
  if (self->rank == 0 && ok) {
    long long total = 0;
    for (int i = 0; i < self->size; i++) {
      if (lens[i] < 0) {
        ok = 0;
        break;
      }
      displs[i] = (int)total;
      total += lens[i];
    }
    if (ok && (total > INT_MAX || !(all = malloc((size_t)total + 1)))) ok = 0;
  }
  PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (ok && PMPI_Gatherv(buf, n, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, comm) != MPI_SUCCESS) ok = 0;
  if (ok && self->rank == 0) {
    char **v = calloc((size_t)self->size, sizeof *v);
    if (!v) ok = 0;
    for (int i = 0; ok && i < self->size; i++) {
      if (!(v[i] = malloc((size_t)lens[i] + 1))) break; /* a missing part is reported by the merger */
      memcpy(v[i], all + displs[i], (size_t)lens[i]);
      v[i][lens[i]] = '\0';
    }
    *out = v;
  }
  free(all);
  free(lens);
  free(displs);
  return ok ? 0 : -1;
}

static int mpi_bcast(const pm_ipc *self, void *buf, size_t len, int root) {
  (void)self;
  if (len > INT_MAX) return -1;
  return PMPI_Bcast(buf, (int)len, MPI_BYTE, root, pm_mpi_tool_comm()) == MPI_SUCCESS ? 0 : -1;
}
static int mpi_barrier(const pm_ipc *self) {
  (void)self;
  return PMPI_Barrier(pm_mpi_tool_comm()) == MPI_SUCCESS ? 0 : -1;
}

/* The ipc over popmeter's communicator (valid between MPI_Init* and MPI_Finalize). */
void pm_mpi_make_ipc(pm_ipc *ipc) {
  *ipc = (pm_ipc){0, 1, mpi_gather, NULL, mpi_bcast, mpi_barrier};
  MPI_Comm comm = pm_mpi_tool_comm();
  PMPI_Comm_rank(comm, &ipc->rank);
  PMPI_Comm_size(comm, &ipc->size);
}

void pm_mpi_finalize_hook(void) {
  if (!pm_core_is_active() || pm_core_finalized()) return;
  pm_ipc ipc;
  pm_mpi_make_ipc(&ipc);
  /* Close every rank's window at the same moment: time a rank waits here for the slowest one is
   * real waiting, charged to MPI_Finalize as MPI time. */
  pm_loc *L = pm_loc_self();
  if (L) {
    pm_region_id r = pm_region_register("MPI_Finalize", PM_PARADIGM_MPI, PM_ROLE_FUNCTION);
    pm_call_enter(L, r, PM_STATE_MPI_MGMT, pm_clock_now());
  }
  PMPI_Barrier(pm_mpi_tool_comm());
  pm_core_finalize(&ipc, NULL);
}
