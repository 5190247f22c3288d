/* The MPI adapter's side of the OTF2 trace (lib/trace, docs/trace.md): which communicator a call
 * used, and the point-to-point and collective events. Everything here runs only when tracing is on
 * (pm_mpi_trace_on, set once at MPI_Init when every rank agreed to trace).
 *
 * Communicators: MPI_COMM_WORLD is 0 and MPI_COMM_SELF 1; every intracommunicator created through
 * a wrapped call (dup, split, create, cartesian and graph topologies...) is defined to the trace
 * with its members as ranks of MPI_COMM_WORLD. The handle -> id table is lock-free for readers and
 * overwrites the entry of a handle that MPI reuses after MPI_Comm_free. Intercommunicators and
 * communicators from calls that are not wrapped (MPI_Comm_idup, dynamic processes) have no id:
 * their calls keep their regions but carry no message or collective events. */
#include "mpi_adapter.h"
#include "pm_events.h"
#include <pthread.h>
#include <stdlib.h>

/* weak, like everything of MPI in this adapter (mpi_weak.h) */
#pragma weak PMPI_Comm_group
#pragma weak PMPI_Group_free
#pragma weak PMPI_Group_translate_ranks
#pragma weak ompi_mpi_group_null

int pm_mpi_trace_on;

#define PM_MPI_TCOMM_SLOTS 4096 /* power of two; a full table leaves new communicators out */
static struct {
  uintptr_t key;
  uint32_t id;
} tab[PM_MPI_TCOMM_SLOTS];
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t slot_of(uintptr_t k) {
  return (uint32_t)(((uint64_t)(k >> 3) * 0x9E3779B97F4A7C15ull) >> 52) & (PM_MPI_TCOMM_SLOTS - 1);
}

uint32_t pm_mpi_trace_comm(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return 0;
  if (c == MPI_COMM_SELF) return 1;
  uintptr_t k = (uintptr_t)c;
  for (uint32_t i = slot_of(k), n = 0; n < PM_MPI_TCOMM_SLOTS; i = (i + 1) & (PM_MPI_TCOMM_SLOTS - 1), n++) {
    uintptr_t s = __atomic_load_n(&tab[i].key, __ATOMIC_ACQUIRE);
    if (s == k) return __atomic_load_n(&tab[i].id, __ATOMIC_RELAXED);
    if (s == 0) break;
  }
  return UINT32_MAX;
}

static void put(uintptr_t k, uint32_t id) {
  pthread_mutex_lock(&tab_lock);
  for (uint32_t i = slot_of(k), n = 0; n < PM_MPI_TCOMM_SLOTS; i = (i + 1) & (PM_MPI_TCOMM_SLOTS - 1), n++) {
    uintptr_t s = tab[i].key;
    if (s == k || s == 0) {
      __atomic_store_n(&tab[i].id, id, __ATOMIC_RELAXED);
      __atomic_store_n(&tab[i].key, k, __ATOMIC_RELEASE);
      break;
    }
  }
  pthread_mutex_unlock(&tab_lock);
}

void pm_mpi_trace_newcomm(MPI_Comm c) {
  if (!pm_mpi_trace_on || c == MPI_COMM_NULL) return;
  int inter = 0, n = 0;
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter) {
    put((uintptr_t)c, UINT32_MAX);
    return;
  }
  if (PMPI_Comm_size(c, &n) != MPI_SUCCESS || n <= 0) return;
  int *ranks = malloc(2 * sizeof(int) * (size_t)n);
  MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
  uint32_t id = UINT32_MAX;
  if (ranks && PMPI_Comm_group(c, &g) == MPI_SUCCESS && PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
    for (int i = 0; i < n; i++) ranks[i] = i;
    if (PMPI_Group_translate_ranks(g, n, ranks, wg, ranks + n) == MPI_SUCCESS) id = pm_event_comm_define(n, ranks + n);
  }
  if (g != MPI_GROUP_NULL) PMPI_Group_free(&g);
  if (wg != MPI_GROUP_NULL) PMPI_Group_free(&wg);
  free(ranks);
  put((uintptr_t)c, id); /* also when undefined: a reused handle must not keep an old id */
}

void pm_mpi_trace_init(void) { __atomic_store_n(&pm_mpi_trace_on, 1, __ATOMIC_RELEASE); }

void pm_mpi_t_send(pm_mpi_ctx *X, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request req) {
  if (!X->L || peer == MPI_PROC_NULL) return;
  uint32_t c = pm_mpi_trace_comm(comm);
  if (c == UINT32_MAX) return;
  uint64_t bytes = pm_mpi_type_bytes(count, type);
  if (req == MPI_REQUEST_NULL) {
    pm_event_send(X->L, c, peer, tag, bytes, 0);
    return;
  }
  uint64_t id = pm_event_send(X->L, c, peer, tag, bytes, 1);
  if (!id) return;
  pm_mpi_reqinfo old;
  if (pm_mpi_reqtab_get(req, &old) && (old.kind & 0xff) == PM_REQ_SEND) {
    /* a handle already given for another send still outstanding: Open MPI's shared request of
     * the sends that completed at once. This send is complete now; the entry stays the other's. */
    pm_event_send_complete(X->L, id);
    return;
  }
  /* remembered until its completion (MpiIsendComplete); send requests are not tracked otherwise */
  pm_mpi_reqinfo info = {PM_REQ_SEND, NULL, NULL, c + 1, id};
  pm_mpi_reqtab_put(req, &info);
}

void pm_mpi_t_coll(pm_mpi_ctx *X, MPI_Comm comm, int root) {
  if (!X->L) return;
  uint32_t c = pm_mpi_trace_comm(comm);
  if (c != UINT32_MAX) pm_event_collective(X->L, c, root);
}
