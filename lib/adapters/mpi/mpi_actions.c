/* Actions of the MPI wrappers: what happens around the PMPI call besides the state transition.
 * Byte counting (README.md "Bytes"), request tracking, completion, Fortran conversions.
 * Every function here may run with X->L == NULL (no location on this thread) while the
 * critical-path protocol is on: accounting is then skipped, the protocol is not. */
#include "mpi_adapter.h"
#include "pm_events.h"
#include <stdlib.h>
#include <string.h>

#pragma weak PMPI_Get_elements_x
#pragma weak PMPI_Request_c2f

static inline int cp_on(void) { return (pm_mpi_flags & PM_MPI_CP) != 0; }
/* the trace communicator + 1 of comm while tracing (0: not traced) */
static inline uint32_t trace_comm(MPI_Comm comm) {
  if (PM_LIKELY(!pm_mpi_trace_on)) return 0;
  uint32_t c = pm_mpi_trace_comm(comm);
  return c == UINT32_MAX ? 0 : c + 1;
}
/* the trace's request id of a tracked request (persistent ones keep it in their state) */
static inline uint64_t trace_req(const pm_mpi_reqinfo *info) {
  return (info->kind & PM_REQ_PERSISTENT) && info->ps ? info->ps->trace_req : info->trace_req;
}

/* ------------------------------------------------------------------------------------ sizes */
uint64_t pm_mpi_type_bytes(int count, MPI_Datatype t) {
  if (count <= 0) return 0;
  MPI_Count sz = 0;
  if (PMPI_Type_size_x(t, &sz) != MPI_SUCCESS || sz <= 0) return 0;
  return (uint64_t)count * (uint64_t)sz;
}

uint64_t pm_mpi_status_bytes(const MPI_Status *st) {
  MPI_Count n = 0;
  if (!st || PMPI_Get_elements_x(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0 || n == MPI_UNDEFINED) return 0;
  return (uint64_t)n;
}

static uint64_t type_size(MPI_Datatype t) { return pm_mpi_type_bytes(1, t); }

/* ---------------------------------------------------------------------------------- Fortran */
const void *pm_mpi_f_buf(const void *p) {
  if (p && p == (const void *)mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (p && p == (const void *)mpi_fortran_bottom_) return MPI_BOTTOM;
  return p;
}

int pm_mpi_f_status_ignored(const MPI_Fint *st) {
  if (!st) return 1;
  if ((const void *)st == (const void *)mpi_fortran_status_ignore_) return 1;
  if (&MPI_F_STATUS_IGNORE && st == MPI_F_STATUS_IGNORE) return 1;
  return 0;
}

int pm_mpi_f_statuses_ignored(const MPI_Fint *st) {
  if (!st) return 1;
  if ((const void *)st == (const void *)mpi_fortran_statuses_ignore_) return 1;
  if (&MPI_F_STATUSES_IGNORE && st == MPI_F_STATUSES_IGNORE) return 1;
  return 0;
}

MPI_Status *pm_mpi_fst2c(const MPI_Fint *f, MPI_Status *c) {
  if (PMPI_Status_f2c(f, c) != MPI_SUCCESS) {
    memset(c, 0, sizeof *c);
    c->MPI_SOURCE = MPI_PROC_NULL;
  }
  return c;
}

/* ---------------------------------------------------------------------------- point-to-point */
void pm_mpi_pre_send(pm_mpi_ctx *X, int peer, int tag, MPI_Comm comm) {
  if (!cp_on() || peer == MPI_PROC_NULL) return;
  pm_mpi_cp_send_sh(X, pm_mpi_shadow_get(comm), peer, tag);
}

void pm_mpi_b_send(pm_mpi_ctx *X, int count, MPI_Datatype type, int peer) {
  if (!X->L || peer == MPI_PROC_NULL) return;
  pm_add_sent(X->L, pm_mpi_type_bytes(count, type), 1);
}

/* A completed receive (blocking, or a tracked request): bytes + clock, and the trace event
 * (tcomm: trace communicator + 1, 0: none; req: the trace's request id, 0 for a blocking receive). */
static void account_recv(pm_mpi_ctx *X, pm_mpi_shadow *sh, const MPI_Status *st, uint32_t tcomm, uint64_t req) {
  if (!st) return;
  int src = st->MPI_SOURCE;
  int cancelled = 0;
  if (src != MPI_PROC_NULL && src != MPI_ANY_SOURCE) PMPI_Test_cancelled(st, &cancelled);
  if (src == MPI_PROC_NULL || src == MPI_ANY_SOURCE || cancelled) { /* null / empty status, cancelled */
    if (tcomm && X->L && req) pm_event_request_cancelled(X->L, req);
    return;
  }
  uint64_t bytes = X->L ? pm_mpi_status_bytes(st) : 0;
  if (X->L) pm_add_received(X->L, bytes, 1);
  if (tcomm && X->L) pm_event_recv(X->L, tcomm - 1, src, st->MPI_TAG, bytes, req);
  if (sh && cp_on()) pm_mpi_cp_recv_sh(X, sh, st);
}

void pm_mpi_b_recv(pm_mpi_ctx *X, const MPI_Status *st, MPI_Comm comm) {
  if (!st || st->MPI_SOURCE == MPI_PROC_NULL) return;
  account_recv(X, cp_on() ? pm_mpi_shadow_get(comm) : NULL, st, trace_comm(comm), 0);
}

static void track(pm_mpi_ctx *X, MPI_Request req, uint32_t kind, MPI_Comm comm, pm_mpi_psend *ps) {
  if (req == MPI_REQUEST_NULL) {
    free(ps);
    return;
  }
  uint32_t tc = trace_comm(comm);
  /* a traced persistent receive keeps whether it is active in a state of its own */
  if (tc && kind == (PM_REQ_RECV | PM_REQ_PERSISTENT) && !ps) ps = calloc(1, sizeof *ps);
  pm_mpi_reqinfo info = {kind, cp_on() ? pm_mpi_shadow_ref(comm) : NULL, ps, tc, 0};
  if (tc && X->L && kind == PM_REQ_RECV) {
    pm_mpi_reqinfo old;
    /* the entry this one replaces (a handle MPI reuses, or shares between requests it completed
     * at once) will never complete in the trace: it ends here */
    if (pm_mpi_reqtab_get(req, &old) && (old.kind & 0xff) == PM_REQ_RECV && old.trace_comm && trace_req(&old))
      pm_event_request_cancelled(X->L, trace_req(&old));
    info.trace_req = pm_event_recv_request(X->L);
  }
  pm_mpi_reqtab_put(req, &info);
}

void pm_mpi_b_irecv(pm_mpi_ctx *X, MPI_Request req, MPI_Comm comm) { track(X, req, PM_REQ_RECV, comm, NULL); }
void pm_mpi_b_recv_init(pm_mpi_ctx *X, MPI_Request req, MPI_Comm comm) {
  track(X, req, PM_REQ_RECV | PM_REQ_PERSISTENT, comm, NULL);
}

void pm_mpi_b_send_init(pm_mpi_ctx *X, MPI_Request req, int count, MPI_Datatype type, int peer, int tag,
                        MPI_Comm comm) {
  pm_mpi_psend *ps = calloc(1, sizeof *ps);
  if (!ps) return;
  ps->bytes = pm_mpi_type_bytes(count, type); /* now: the datatype may be freed before MPI_Start */
  ps->peer = peer;
  ps->tag = tag;
  track(X, req, PM_REQ_PSEND | PM_REQ_PERSISTENT, comm, ps);
}

static void start_one(pm_mpi_ctx *X, MPI_Request req, int post) {
  pm_mpi_reqinfo info;
  if (req == MPI_REQUEST_NULL || !pm_mpi_reqtab_get(req, &info) || !info.ps) return;
  if ((info.kind & 0xff) == PM_REQ_RECV) { /* a traced persistent receive becomes active */
    if (post && info.trace_comm && X->L) {
      info.ps->trace_req = pm_event_recv_request(X->L);
      info.ps->active = info.ps->trace_req != 0;
    }
    return;
  }
  if ((info.kind & 0xff) != PM_REQ_PSEND || info.ps->peer == MPI_PROC_NULL) return;
  if (!post) {
    if (cp_on()) pm_mpi_cp_send_sh(X, info.sh, info.ps->peer, info.ps->tag);
  } else if (X->L) {
    pm_add_sent(X->L, info.ps->bytes, 1);
    if (info.trace_comm) {
      info.ps->trace_req = pm_event_send(X->L, info.trace_comm - 1, info.ps->peer, info.ps->tag, info.ps->bytes, 1);
      info.ps->active = info.ps->trace_req != 0;
    }
  }
}

void pm_mpi_pre_start(pm_mpi_ctx *X, MPI_Request req) {
  if (!pm_mpi_reqtab_empty()) start_one(X, req, 0);
}
void pm_mpi_b_start(pm_mpi_ctx *X, MPI_Request req) {
  if (!pm_mpi_reqtab_empty()) start_one(X, req, 1);
}
void pm_mpi_pre_startall(pm_mpi_ctx *X, int count, const MPI_Request *reqs) {
  if (pm_mpi_reqtab_empty()) return;
  for (int i = 0; i < count; i++) start_one(X, reqs[i], 0);
}
void pm_mpi_b_startall(pm_mpi_ctx *X, int count, const MPI_Request *reqs) {
  if (pm_mpi_reqtab_empty()) return;
  for (int i = 0; i < count; i++) start_one(X, reqs[i], 1);
}
void pm_mpi_pre_startall_f(pm_mpi_ctx *X, int count, const MPI_Fint *reqs) {
  if (pm_mpi_reqtab_empty()) return;
  for (int i = 0; i < count; i++) start_one(X, PMPI_Request_f2c(reqs[i]), 0);
}
void pm_mpi_b_startall_f(pm_mpi_ctx *X, int count, const MPI_Fint *reqs) {
  if (pm_mpi_reqtab_empty()) return;
  for (int i = 0; i < count; i++) start_one(X, PMPI_Request_f2c(reqs[i]), 1);
}

void pm_mpi_b_mprobe(pm_mpi_ctx *X, MPI_Message msg, MPI_Comm comm) {
  (void)X;
  uint32_t tc = trace_comm(comm);
  if ((!cp_on() && !tc) || msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC) return;
  pm_mpi_reqinfo info = {PM_REQ_MSG, cp_on() ? pm_mpi_shadow_ref(comm) : NULL, NULL, tc, 0};
  pm_mpi_reqtab_put(msg, &info);
}
void pm_mpi_b_improbe(pm_mpi_ctx *X, int flag, MPI_Message msg, MPI_Comm comm) {
  if (flag) pm_mpi_b_mprobe(X, msg, comm);
}

pm_mpi_shadow *pm_mpi_pre_mrecv(pm_mpi_ctx *X, MPI_Message msg) {
  pm_mpi_reqinfo info;
  X->trace_comm = 0;
  if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC || !pm_mpi_reqtab_take(msg, &info)) return NULL;
  X->trace_comm = info.trace_comm;
  return info.sh;
}

void pm_mpi_post_mrecv(pm_mpi_ctx *X, int rc, pm_mpi_shadow *sh, const MPI_Status *st) {
  if (rc == MPI_SUCCESS) account_recv(X, sh, st, X->trace_comm, 0);
  pm_mpi_shadow_unref(sh);
}

void pm_mpi_post_imrecv(pm_mpi_ctx *X, int rc, pm_mpi_shadow *sh, MPI_Request req) {
  if (rc != MPI_SUCCESS || req == MPI_REQUEST_NULL) {
    pm_mpi_shadow_unref(sh);
    return;
  }
  pm_mpi_reqinfo info = {PM_REQ_RECV, sh, NULL, X->trace_comm, 0};
  if (X->trace_comm && X->L) info.trace_req = pm_event_recv_request(X->L);
  pm_mpi_reqtab_put(req, &info);
}

static void drop_info(pm_mpi_reqinfo *info) {
  pm_mpi_shadow_unref(info->sh);
  free(info->ps);
}

void pm_mpi_pre_request_free(pm_mpi_ctx *X, MPI_Request req) {
  pm_mpi_reqinfo info;
  if (req == MPI_REQUEST_NULL || !pm_mpi_reqtab_take(req, &info)) return;
  /* a send the application lets go (fire and forget: StarPU-MPI's envelopes) is complete as far
   * as the trace is concerned */
  uint32_t kind = info.kind & 0xff;
  if (info.trace_comm && X->L && (kind == PM_REQ_SEND || (kind == PM_REQ_PSEND && info.ps && info.ps->active)))
    pm_event_send_complete(X->L, trace_req(&info));
  drop_info(&info);
}

/* ------------------------------------------------------------------------------- completion */
/* A tracked request completed: a receive's bytes and clock; the trace events of a traced one (a
 * persistent request counts only when it was started: waiting on an inactive one completes
 * nothing). */
static void complete_tracked(pm_mpi_ctx *X, const pm_mpi_reqinfo *info, const MPI_Status *st) {
  uint32_t kind = info->kind & 0xff;
  uint32_t tc = info->trace_comm;
  uint64_t req = trace_req(info);
  if (tc && (info->kind & PM_REQ_PERSISTENT) && info->ps) {
    if (!info->ps->active) tc = 0;
    info->ps->active = 0;
  }
  if (kind == PM_REQ_RECV)
    account_recv(X, info->sh, st, tc, req);
  else if ((kind == PM_REQ_SEND || kind == PM_REQ_PSEND) && tc && X->L)
    pm_event_send_complete(X->L, req);
}

void pm_mpi_complete1(pm_mpi_ctx *X, MPI_Request before, MPI_Request after, const MPI_Status *st) {
  if (before == MPI_REQUEST_NULL || pm_mpi_reqtab_empty()) return;
  pm_mpi_reqinfo info;
  int freed = (after == MPI_REQUEST_NULL); /* persistent requests stay allocated (inactive) */
  if (!(freed ? pm_mpi_reqtab_take(before, &info) : pm_mpi_reqtab_get(before, &info))) return;
  complete_tracked(X, &info, st);
  if (freed) drop_info(&info);
}

static void snap_init(pm_mpi_snap *S) {
  S->n = S->nrecv = S->have_st = 0;
  S->t = S->tbuf;
  S->st = NULL;
  S->fst = NULL;
  S->heap_t = S->heap_st = S->heap_fst = NULL;
}

/* Records the tracked requests among reqs (C handles, or Fortran handles converted one by one). */
static void snap_scan(pm_mpi_snap *S, int count, const MPI_Request *creqs, const MPI_Fint *freqs) {
  if (count > PM_MPI_SNAP_STACK) {
    S->heap_t = malloc((size_t)count * sizeof(pm_mpi_tracked));
    if (S->heap_t) S->t = S->heap_t;
  }
  int cap = S->heap_t ? count : PM_MPI_SNAP_STACK;
  for (int i = 0; i < count && S->n < cap; i++) {
    MPI_Request r = creqs ? creqs[i] : PMPI_Request_f2c(freqs[i]);
    if (r == MPI_REQUEST_NULL) continue;
    pm_mpi_tracked *t = &S->t[S->n];
    if (!pm_mpi_reqtab_get(r, &t->info)) continue;
    t->idx = i;
    t->req = r;
    S->n++;
    if ((t->info.kind & 0xff) == PM_REQ_RECV) S->nrecv++;
  }
}

MPI_Status *pm_mpi_snap_pre(pm_mpi_snap *S, int count, const MPI_Request *reqs, MPI_Status *user_st,
                            int single_status) {
  snap_init(S);
  S->st = user_st;
  S->have_st = (user_st != MPI_STATUSES_IGNORE);
  if (pm_mpi_reqtab_empty() || count <= 0 || !reqs) return user_st;
  snap_scan(S, count, reqs, NULL);
  if (S->nrecv && !S->have_st) {
    if (single_status || count <= PM_MPI_SNAP_STACK)
      S->st = S->stbuf;
    else if ((S->heap_st = malloc((size_t)count * sizeof(MPI_Status))))
      S->st = S->heap_st;
    S->have_st = (S->st != MPI_STATUSES_IGNORE);
  }
  return S->st;
}

MPI_Fint *pm_mpi_fsnap_pre(pm_mpi_snap *S, int count, const MPI_Fint *reqs, MPI_Fint *user_st, int single_status) {
  snap_init(S);
  S->fst = user_st;
  if (pm_mpi_reqtab_empty() || count <= 0 || !reqs) return user_st;
  S->have_st = !(single_status ? pm_mpi_f_status_ignored(user_st) : pm_mpi_f_statuses_ignored(user_st));
  snap_scan(S, count, NULL, reqs);
  if (S->nrecv && !S->have_st) {
    if (single_status || count <= PM_MPI_SNAP_STACK) {
      S->fst = S->fstbuf;
      S->have_st = 1;
    } else if ((S->heap_fst = malloc((size_t)count * PM_MPI_F_STATUS_SIZE * sizeof(MPI_Fint)))) {
      S->fst = S->heap_fst;
      S->have_st = 1;
    }
  }
  return S->fst;
}

void pm_mpi_snap_end(pm_mpi_snap *S) {
  free(S->heap_t);
  free(S->heap_st);
  free(S->heap_fst);
}

static pm_mpi_tracked *snap_find(pm_mpi_snap *S, int idx) {
  int lo = 0, hi = S->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (S->t[mid].idx == idx) return &S->t[mid];
    if (S->t[mid].idx < idx)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* Status k of the call (k: request index for *all, 0 for *any, position for *some). */
static const MPI_Status *snap_status(pm_mpi_snap *S, int k, int fortran, MPI_Status *tmp) {
  if (!S->have_st) return NULL;
  if (fortran) return pm_mpi_fst2c(S->fst + (size_t)k * PM_MPI_F_STATUS_SIZE, tmp);
  return &S->st[k];
}

static void snap_done(pm_mpi_ctx *X, pm_mpi_snap *S, pm_mpi_tracked *t, const MPI_Status *st, int rc, int freed) {
  if (rc == MPI_ERR_IN_STATUS && (!st || st->MPI_ERROR != MPI_SUCCESS)) return; /* pending or failed */
  complete_tracked(X, &t->info, st);
  if (freed) {
    pm_mpi_reqinfo info;
    if (pm_mpi_reqtab_take(t->req, &info)) drop_info(&info);
  }
  (void)S;
}

static void snap_post(pm_mpi_ctx *X, pm_mpi_snap *S, int rc, int which, int done_flag, int one_index, int outcount,
                      const int *cidx, const MPI_Fint *fidx, const MPI_Request *creqs, const MPI_Fint *freqs) {
  if (S->n == 0) return;
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) return;
  int fortran = (freqs != NULL);
  MPI_Status tmp;
#define FREED(i) (fortran ? PMPI_Request_f2c(freqs[i]) == MPI_REQUEST_NULL : creqs[i] == MPI_REQUEST_NULL)
  if (which == PM_MPI_DONE_ALL) {
    if (!done_flag && rc == MPI_SUCCESS) return; /* Testall: not all complete, nothing done */
    for (int j = 0; j < S->n; j++) {
      pm_mpi_tracked *t = &S->t[j];
      snap_done(X, S, t, snap_status(S, t->idx, fortran, &tmp), rc, FREED(t->idx));
    }
  } else if (which == PM_MPI_DONE_ONE) {
    if (!done_flag || one_index == MPI_UNDEFINED) return;
    int i = fortran ? one_index - 1 : one_index; /* Fortran indices are 1-based */
    pm_mpi_tracked *t = snap_find(S, i);
    if (t) snap_done(X, S, t, snap_status(S, 0, fortran, &tmp), MPI_SUCCESS, FREED(i));
  } else {
    if (outcount == MPI_UNDEFINED) return;
    for (int k = 0; k < outcount; k++) {
      int i = fortran ? (int)fidx[k] - 1 : cidx[k];
      pm_mpi_tracked *t = snap_find(S, i);
      if (t) snap_done(X, S, t, snap_status(S, k, fortran, &tmp), rc, FREED(i));
    }
  }
#undef FREED
}

void pm_mpi_snap_post(pm_mpi_ctx *X, pm_mpi_snap *S, int rc, int which, int done_flag, int one_index, int outcount,
                      const int *indices, const MPI_Request *reqs_after) {
  snap_post(X, S, rc, which, done_flag, one_index, outcount, indices, NULL, reqs_after, NULL);
}

void pm_mpi_fsnap_post(pm_mpi_ctx *X, pm_mpi_snap *S, int rc, int which, int done_flag, int one_index, int outcount,
                       const MPI_Fint *indices, const MPI_Fint *reqs_after) {
  snap_post(X, S, rc, which, done_flag, one_index, outcount, NULL, indices, NULL, reqs_after);
}

/* ------------------------------------------------------------------------------ collectives */
typedef struct {
  int inter, rank, size, rsize;
} cinfo;

static void comm_info(MPI_Comm c, cinfo *ci) {
  /* MPI_COMM_WORLD's never change: asked once (four calls into MPI saved per collective on it) */
  static cinfo world;
  static int world_known; /* 0: not yet, 1: being written, 2: known */
  int w = c == MPI_COMM_WORLD;
  if (w && __atomic_load_n(&world_known, __ATOMIC_ACQUIRE) == 2) {
    *ci = world;
    return;
  }
  ci->inter = 0;
  ci->rank = 0;
  ci->size = 1;
  PMPI_Comm_test_inter(c, &ci->inter);
  PMPI_Comm_rank(c, &ci->rank);
  PMPI_Comm_size(c, &ci->size);
  ci->rsize = ci->size;
  if (ci->inter) PMPI_Comm_remote_size(c, &ci->rsize);
  int expect = 0;
  if (w && __atomic_compare_exchange_n(&world_known, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    world = *ci;
    __atomic_store_n(&world_known, 2, __ATOMIC_RELEASE);
  }
}

/* peers that receive this process's block (intra: everybody else; inter: the remote group) */
static inline uint64_t peers(const cinfo *ci) { return ci->inter ? (uint64_t)ci->rsize : (uint64_t)(ci->size - 1); }

static inline void coll(pm_mpi_ctx *X, uint64_t out, uint64_t in) { pm_add_collective(X->L, out, in); }

static uint64_t sum_counts(const int *counts, int n, int skip, uint64_t tsize) {
  uint64_t s = 0;
  if (!counts) return 0;
  for (int i = 0; i < n; i++)
    if (i != skip && counts[i] > 0) s += (uint64_t)counts[i];
  return s * tsize;
}
/* counts[] summed over the peers: the remote group (inter), every rank but this one (intra). */
static inline uint64_t peer_counts(const cinfo *ci, const int *counts, uint64_t tsize) {
  return sum_counts(counts, ci->inter ? ci->rsize : ci->size, ci->inter ? -1 : ci->rank, tsize);
}
/* This process is the root of a rooted collective (inter: the root group's process passes MPI_ROOT). */
static inline int is_root(const cinfo *ci, int root) { return ci->inter ? root == MPI_ROOT : root == ci->rank; }

void pm_mpi_b_barrier(pm_mpi_ctx *X, MPI_Comm comm) {
  (void)comm;
  if (X->L) coll(X, 0, 0);
}

void pm_mpi_b_bcast(pm_mpi_ctx *X, const void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  (void)buf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t b = pm_mpi_type_bytes(count, t);
  if (ci.inter) {
    if (root == MPI_ROOT)
      coll(X, ci.rsize * b, 0);
    else if (root == MPI_PROC_NULL)
      coll(X, 0, 0);
    else
      coll(X, 0, b);
  } else if (root == ci.rank)
    coll(X, peers(&ci) * b, 0);
  else
    coll(X, 0, b);
}

/* Rooted "many to one" (gather, reduce): non-roots send 'sb', the root receives 'rb_each' from each
 * other process (or the explicit total 'rb_total' when >= 0). */
static void rooted_in(pm_mpi_ctx *X, const cinfo *ci, int root, uint64_t sb, uint64_t rb_each, int64_t rb_total) {
  if (ci->inter) {
    if (root == MPI_ROOT)
      coll(X, 0, rb_total >= 0 ? (uint64_t)rb_total : ci->rsize * rb_each);
    else if (root == MPI_PROC_NULL)
      coll(X, 0, 0);
    else
      coll(X, sb, 0);
  } else if (root == ci->rank)
    coll(X, 0, rb_total >= 0 ? (uint64_t)rb_total : peers(ci) * rb_each);
  else
    coll(X, sb, 0);
}
/* Rooted "one to many" (scatter): the root sends 'sb_each' to each other process (or 'sb_total'),
 * the others receive 'rb'. */
static void rooted_out(pm_mpi_ctx *X, const cinfo *ci, int root, int64_t sb_total, uint64_t sb_each, uint64_t rb) {
  if (ci->inter) {
    if (root == MPI_ROOT)
      coll(X, sb_total >= 0 ? (uint64_t)sb_total : ci->rsize * sb_each, 0);
    else if (root == MPI_PROC_NULL)
      coll(X, 0, 0);
    else
      coll(X, 0, rb);
  } else if (root == ci->rank)
    coll(X, sb_total >= 0 ? (uint64_t)sb_total : peers(ci) * sb_each, 0);
  else
    coll(X, 0, rb);
}

void pm_mpi_b_gather(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf, int rcount,
                     MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)sbuf;
  (void)rbuf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  int r = is_root(&ci, root);
  rooted_in(X, &ci, root, r ? 0 : pm_mpi_type_bytes(scount, st), r ? pm_mpi_type_bytes(rcount, rt) : 0, -1);
}

void pm_mpi_b_gatherv(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf,
                      const int *rcounts, MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)sbuf;
  (void)rbuf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  int r = is_root(&ci, root);
  int64_t total = r ? (int64_t)peer_counts(&ci, rcounts, type_size(rt)) : 0;
  rooted_in(X, &ci, root, r ? 0 : pm_mpi_type_bytes(scount, st), 0, total);
}

void pm_mpi_b_scatter(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf, int rcount,
                      MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)sbuf;
  (void)rbuf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  int r = is_root(&ci, root);
  rooted_out(X, &ci, root, -1, r ? pm_mpi_type_bytes(scount, st) : 0, r ? 0 : pm_mpi_type_bytes(rcount, rt));
}

void pm_mpi_b_scatterv(pm_mpi_ctx *X, const void *sbuf, const int *scounts, MPI_Datatype st, const void *rbuf,
                       int rcount, MPI_Datatype rt, int root, MPI_Comm comm) {
  (void)sbuf;
  (void)rbuf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  int r = is_root(&ci, root);
  int64_t total = r ? (int64_t)peer_counts(&ci, scounts, type_size(st)) : 0;
  rooted_out(X, &ci, root, total, 0, r ? 0 : pm_mpi_type_bytes(rcount, rt));
}

void pm_mpi_b_allgather(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                        MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t rb = pm_mpi_type_bytes(rcount, rt);
  uint64_t sb = (sbuf == MPI_IN_PLACE && !ci.inter) ? rb : pm_mpi_type_bytes(scount, st);
  coll(X, peers(&ci) * sb, peers(&ci) * rb);
}

void pm_mpi_b_allgatherv(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const int *rcounts,
                         MPI_Datatype rt, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t rts = type_size(rt);
  uint64_t sb = (sbuf == MPI_IN_PLACE && !ci.inter)
                    ? (rcounts && rcounts[ci.rank] > 0 ? (uint64_t)rcounts[ci.rank] * rts : 0)
                    : pm_mpi_type_bytes(scount, st);
  coll(X, peers(&ci) * sb, peer_counts(&ci, rcounts, rts));
}

void pm_mpi_b_alltoall(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                       MPI_Comm comm) {
  pm_mpi_b_allgather(X, sbuf, scount, st, rcount, rt, comm); /* same volume per peer */
}

void pm_mpi_b_alltoallv(pm_mpi_ctx *X, const void *sbuf, const int *scounts, MPI_Datatype st, const int *rcounts,
                        MPI_Datatype rt, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t in = peer_counts(&ci, rcounts, type_size(rt));
  uint64_t out = (sbuf == MPI_IN_PLACE) ? in : peer_counts(&ci, scounts, type_size(st));
  coll(X, out, in);
}

static uint64_t sum_counts_w(const int *counts, const MPI_Datatype *ct, const MPI_Fint *ft, int n, int skip) {
  uint64_t s = 0;
  if (!counts || (!ct && !ft)) return 0;
  for (int i = 0; i < n; i++)
    if (i != skip && counts[i] > 0) s += pm_mpi_type_bytes(counts[i], ct ? ct[i] : PMPI_Type_f2c(ft[i]));
  return s;
}

static void alltoallw(pm_mpi_ctx *X, const void *sbuf, const int *scounts, const MPI_Datatype *cst, const MPI_Fint *fst,
                      const int *rcounts, const MPI_Datatype *crt, const MPI_Fint *frt, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  int n = ci.inter ? ci.rsize : ci.size, skip = ci.inter ? -1 : ci.rank;
  uint64_t in = sum_counts_w(rcounts, crt, frt, n, skip);
  uint64_t out = (sbuf == MPI_IN_PLACE) ? in : sum_counts_w(scounts, cst, fst, n, skip);
  coll(X, out, in);
}
void pm_mpi_b_alltoallw(pm_mpi_ctx *X, const void *sbuf, const int *scounts, const MPI_Datatype *sts,
                        const int *rcounts, const MPI_Datatype *rts, MPI_Comm comm) {
  alltoallw(X, sbuf, scounts, sts, NULL, rcounts, rts, NULL, comm);
}
void pm_mpi_b_alltoallw_f(pm_mpi_ctx *X, const void *sbuf, const int *scounts, const MPI_Fint *sts, const int *rcounts,
                          const MPI_Fint *rts, MPI_Comm comm) {
  alltoallw(X, sbuf, scounts, NULL, sts, rcounts, NULL, rts, comm);
}

void pm_mpi_b_reduce(pm_mpi_ctx *X, const void *sbuf, int count, MPI_Datatype t, int root, MPI_Comm comm) {
  (void)sbuf;
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t b = pm_mpi_type_bytes(count, t);
  rooted_in(X, &ci, root, b, b, -1);
}

void pm_mpi_b_allreduce(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t b = pm_mpi_type_bytes(count, t);
  coll(X, peers(&ci) * b, peers(&ci) * b);
}

void pm_mpi_b_reduce_scatter(pm_mpi_ctx *X, const int *rcounts, MPI_Datatype t, MPI_Comm comm) {
  if (!X->L || !rcounts) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t ts = type_size(t);
  uint64_t mine = rcounts[ci.rank] > 0 ? (uint64_t)rcounts[ci.rank] * ts : 0;
  if (ci.inter) { /* approximation: own contribution to every block, own block from the remote group */
    coll(X, sum_counts(rcounts, ci.size, -1, ts), ci.rsize * mine);
  } else {
    coll(X, sum_counts(rcounts, ci.size, ci.rank, ts), peers(&ci) * mine);
  }
}

void pm_mpi_b_reduce_scatter_block(pm_mpi_ctx *X, int rcount, MPI_Datatype t, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t b = pm_mpi_type_bytes(rcount, t);
  coll(X, (ci.inter ? (uint64_t)ci.size : peers(&ci)) * b, peers(&ci) * b);
}

void pm_mpi_b_scan(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm) {
  if (!X->L) return;
  cinfo ci;
  comm_info(comm, &ci);
  uint64_t b = pm_mpi_type_bytes(count, t);
  coll(X, (uint64_t)(ci.size - 1 - ci.rank) * b, (uint64_t)ci.rank * b);
}
void pm_mpi_b_exscan(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm) { pm_mpi_b_scan(X, count, t, comm); }

/* Neighbourhood collectives: in/out degrees of the topology (Cartesian: 2 per dimension, including
 * MPI_PROC_NULL neighbours, whose buffer slots exist but move no data). */
static void degrees(MPI_Comm comm, int *indeg, int *outdeg) {
  int topo = MPI_UNDEFINED;
  *indeg = *outdeg = 0;
  if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return;
  if (topo == MPI_CART) {
    int nd = 0;
    PMPI_Cartdim_get(comm, &nd);
    *indeg = *outdeg = 2 * nd;
  } else if (topo == MPI_GRAPH) {
    int r = 0, nn = 0;
    PMPI_Comm_rank(comm, &r);
    PMPI_Graph_neighbors_count(comm, r, &nn);
    *indeg = *outdeg = nn;
  } else if (topo == MPI_DIST_GRAPH) {
    int w = 0;
    PMPI_Dist_graph_neighbors_count(comm, indeg, outdeg, &w);
  }
}

void pm_mpi_b_nbr_allgather(pm_mpi_ctx *X, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt, MPI_Comm comm) {
  if (!X->L) return;
  int in, out;
  degrees(comm, &in, &out);
  coll(X, (uint64_t)out * pm_mpi_type_bytes(scount, st), (uint64_t)in * pm_mpi_type_bytes(rcount, rt));
}
void pm_mpi_b_nbr_allgatherv(pm_mpi_ctx *X, int scount, MPI_Datatype st, const int *rcounts, MPI_Datatype rt,
                             MPI_Comm comm) {
  if (!X->L) return;
  int in, out;
  degrees(comm, &in, &out);
  coll(X, (uint64_t)out * pm_mpi_type_bytes(scount, st), sum_counts(rcounts, in, -1, type_size(rt)));
}
void pm_mpi_b_nbr_alltoall(pm_mpi_ctx *X, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt, MPI_Comm comm) {
  pm_mpi_b_nbr_allgather(X, scount, st, rcount, rt, comm);
}
void pm_mpi_b_nbr_alltoallv(pm_mpi_ctx *X, const int *scounts, MPI_Datatype st, const int *rcounts, MPI_Datatype rt,
                            MPI_Comm comm) {
  if (!X->L) return;
  int in, out;
  degrees(comm, &in, &out);
  coll(X, sum_counts(scounts, out, -1, type_size(st)), sum_counts(rcounts, in, -1, type_size(rt)));
}
void pm_mpi_b_nbr_alltoallw(pm_mpi_ctx *X, const int *scounts, const MPI_Datatype *sts, const int *rcounts,
                            const MPI_Datatype *rts, MPI_Comm comm) {
  if (!X->L) return;
  int in, out;
  degrees(comm, &in, &out);
  coll(X, sum_counts_w(scounts, sts, NULL, out, -1), sum_counts_w(rcounts, rts, NULL, in, -1));
}
void pm_mpi_b_nbr_alltoallw_f(pm_mpi_ctx *X, const int *scounts, const MPI_Fint *sts, const int *rcounts,
                              const MPI_Fint *rts, MPI_Comm comm) {
  if (!X->L) return;
  int in, out;
  degrees(comm, &in, &out);
  coll(X, sum_counts_w(scounts, NULL, sts, out, -1), sum_counts_w(rcounts, NULL, rts, in, -1));
}

void pm_mpi_pre_cpcoll(pm_mpi_ctx *X, MPI_Comm comm, pm_mpi_cpc *c, int call) {
  if (cp_on())
    pm_mpi_cp_coll_pre(X, comm, c, call);
  else
    c->sh = NULL;
}
void pm_mpi_b_newcomm(pm_mpi_ctx *X, MPI_Comm newcomm) {
  (void)X;
  pm_mpi_cp_newcomm(newcomm);
  if (pm_mpi_trace_on) pm_mpi_trace_newcomm(newcomm);
}

/* --------------------------------------------------------------------------------- I/O, RMA */
void pm_mpi_b_io_read(pm_mpi_ctx *X, const MPI_Status *st) {
  if (X->L) pm_add_io(X->L, pm_mpi_status_bytes(st), 0);
}
void pm_mpi_b_io_write(pm_mpi_ctx *X, const MPI_Status *st) {
  if (X->L) pm_add_io(X->L, 0, pm_mpi_status_bytes(st));
}
void pm_mpi_b_io_iread(pm_mpi_ctx *X, int count, MPI_Datatype t) {
  if (X->L) pm_add_io(X->L, pm_mpi_type_bytes(count, t), 0);
}
void pm_mpi_b_io_iwrite(pm_mpi_ctx *X, int count, MPI_Datatype t) {
  if (X->L) pm_add_io(X->L, 0, pm_mpi_type_bytes(count, t));
}

void pm_mpi_b_rma_put(pm_mpi_ctx *X, int count, MPI_Datatype t, int target) {
  if (X->L && target != MPI_PROC_NULL) pm_add_sent(X->L, pm_mpi_type_bytes(count, t), 1);
}
void pm_mpi_b_rma_get(pm_mpi_ctx *X, int count, MPI_Datatype t, int target) {
  if (X->L && target != MPI_PROC_NULL) pm_add_received(X->L, pm_mpi_type_bytes(count, t), 1);
}
void pm_mpi_b_rma_getacc(pm_mpi_ctx *X, int ocount, MPI_Datatype ot, int rcount, MPI_Datatype rt, int target) {
  if (!X->L || target == MPI_PROC_NULL) return;
  pm_add_sent(X->L, pm_mpi_type_bytes(ocount, ot), 1);
  pm_add_received(X->L, pm_mpi_type_bytes(rcount, rt), 1);
}
void pm_mpi_b_rma_atomic(pm_mpi_ctx *X, MPI_Datatype t, int target) {
  if (!X->L || target == MPI_PROC_NULL) return;
  pm_add_sent(X->L, type_size(t), 1);
  pm_add_received(X->L, type_size(t), 1);
}
