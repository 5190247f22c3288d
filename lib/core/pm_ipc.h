/* Process-level communication used at finalize (and by the trace writer when it opens its archive at
 * MPI_Init): an MPI implementation (over popmeter's private communicator, lib/adapters/mpi) and a
 * serial one (non-MPI programs, or MPI without MPI_Finalize). */
#ifndef PM_IPC_H
#define PM_IPC_H
#include <stddef.h>
#include <stdint.h>
typedef struct pm_ipc {
  int rank, size;
  /* Collects every process's buffer on rank 0. On rank 0 *out receives 'size' malloc'd buffers
   * (NUL-terminated) and the caller frees them; other ranks get *out = NULL. 0 on success. */
  int (*gather)(const struct pm_ipc *self, const char *buf, size_t len, char ***out);
  void *impl;
  /* Optional (NULL when the implementation has none): broadcast of len bytes from root; barrier.
   * 0 on success. The trace writer's OTF2 collective callbacks are built on gather/bcast/barrier. */
  int (*bcast)(const struct pm_ipc *self, void *buf, size_t len, int root);
  int (*barrier)(const struct pm_ipc *self);
} pm_ipc;
extern const pm_ipc pm_ipc_serial;
#endif
