/* MPI events, reported by the MPI adapter (lib/adapters/mpi/mpi_trace.c) from inside the call's
 * region on the calling thread. Sends are stamped at the start of their call (the frame's enter
 * time), receives at the end, so that a message never appears to arrive before it left. Ranks
 * (peer, root) are ranks in the communicator, as OTF2 wants them; communicators are this
 * process's ids (0: MPI_COMM_WORLD, 1: MPI_COMM_SELF, then pm_trace_comm_define order), translated
 * at finalize by the mapping tables. */
#include "pm_trace.h"
#include "pm_module.h"
#include "pm_events.h"
#include <stdlib.h>

uint32_t pm_trace_comm_define(int size, const int *world_ranks) {
  if (pm_tr_state() != PM_TR_OPEN || size <= 0) return UINT32_MAX;
  uint64_t *m = malloc(sizeof *m * (size_t)size);
  if (!m) return UINT32_MAX;
  for (int i = 0; i < size; i++) m[i] = (uint64_t)world_ranks[i];
  uint32_t id = pm_tcomm_add(PM_TCOMM_MPI, size, m, 0);
  free(m);
  return id;
}

/* Request ids: the MPI handle cannot be one (Open MPI gives one shared, already completed request
 * to every send that completed at once), so every non-blocking operation gets a number. */
static uint64_t req_seq;
static uint64_t next_req(void) { return __atomic_add_fetch(&req_seq, 1, __ATOMIC_RELAXED); }

uint64_t pm_trace_mpi_send(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, int nonblocking) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t, req = 0;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, 0, 1, &t) : NULL;
  if (!w) return 0;
  if (nonblocking) {
    req = next_req();
    pm_tloc_count(T, OTF2_EvtWriter_MpiIsend(w, NULL, t, (uint32_t)peer, comm, (uint32_t)tag, bytes, req));
  } else {
    pm_tloc_count(T, OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)peer, comm, (uint32_t)tag, bytes));
  }
  T->nmpi++;
  T->np2p++;
  pm_tloc_end(T);
  return req;
}

/* An event about request req alone (completion of an Isend, cancellation). */
static void request_event(pm_loc *L, uint64_t req,
                          OTF2_ErrorCode (*write)(OTF2_EvtWriter *, OTF2_AttributeList *, OTF2_TimeStamp, uint64_t)) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  OTF2_EvtWriter *w = T && req ? pm_tloc_begin(T, 0, 0, &t) : NULL;
  if (!w) return;
  pm_tloc_count(T, write(w, NULL, t, req));
  pm_tloc_end(T);
}

void pm_trace_mpi_send_complete(pm_loc *L, uint64_t req) { request_event(L, req, OTF2_EvtWriter_MpiIsendComplete); }

uint64_t pm_trace_mpi_recv_request(pm_loc *L) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, 0, 0, &t) : NULL;
  if (!w) return 0;
  uint64_t req = next_req();
  pm_tloc_count(T, OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, req));
  pm_tloc_end(T);
  return req;
}

void pm_trace_mpi_recv(pm_loc *L, uint32_t comm, int peer, int tag, uint64_t bytes, uint64_t req) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, 0, 0, &t) : NULL;
  if (!w) return;
  if (req)
    pm_tloc_count(T, OTF2_EvtWriter_MpiIrecv(w, NULL, t, (uint32_t)peer, comm, (uint32_t)tag, bytes, req));
  else
    pm_tloc_count(T, OTF2_EvtWriter_MpiRecv(w, NULL, t, (uint32_t)peer, comm, (uint32_t)tag, bytes));
  T->nmpi++;
  T->np2p++;
  pm_tloc_end(T);
}

void pm_trace_mpi_request_cancelled(pm_loc *L, uint64_t req) {
  request_event(L, req, OTF2_EvtWriter_MpiRequestCancelled);
}

/* Remembered on the location; the region's leave writes CollectiveBegin (at the call's start)
 * and CollectiveEnd (at its end) with the bytes the adapter counted in between. */
void pm_trace_mpi_collective(pm_loc *L, uint32_t comm, int root) {
  pm_tloc *T = pm_tloc_of(L);
  if (!T || !T->depth || !(T->frame[T->depth - 1].flags & TF_MPI_COLL)) return;
  T->coll_depth = T->depth;
  T->coll_comm = comm;
  T->coll_root = root;
}
