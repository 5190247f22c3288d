/* StarPU adapter, StarPU-MPI: per-handle transfers (peer, bytes, post / completion) and the
 * critical-path edges they carry across processes.
 *
 * Hook points (all verified on Debian's StarPU 1.3.10, see README.md):
 *  - the leaf send / receive functions (isend_prio, issend_prio, isend_detached_prio,
 *    issend_detached_prio, irecv, irecv_detached, irecv_detached_sequential_consistency): every
 *    other variant, and starpu_mpi_task_insert, reaches one of them through the PLT. A record
 *    (sp_comm) is made there, on the submitting thread, and a detached request's callback is
 *    chained (its argument is untouched: ours gets the record, the application's gets its own);
 *  - starpu_data_acquire_on_node_cb_sequential_consistency_sync_jobids, called by the request
 *    while the record is current on this thread: its callback fires when the handle is ready for
 *    the transfer (every earlier access ended). There the record takes the handle's clock: for a
 *    send, the last writer's (the clock to send); for a receive, the local predecessors';
 *  - _starpu_mpi_isend_size_func / _starpu_mpi_irecv_size_func (the request's "post" function,
 *    called through a function pointer from the GOT on the progress thread): the send's clock is
 *    posted there, before StarPU-MPI posts the envelope and the data; a receive notes when its
 *    data receive is posted (transfer start);
 *  - starpu_data_release_on_node, by which StarPU-MPI releases a received handle before its
 *    callback: the sender's clock is merged there, before the handle's readers can start. */
#define _GNU_SOURCE
#include "sp_mpi.h"
#include "pm_lifecycle.h"
#include "pm_ptrmap.h"
#include "pm_slab.h"
#include "pm_task_comm.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct sp_comm {
  int dir; /* PM_TC_SEND / PM_TC_RECV */
  int peer;
  int64_t tag;
  int detached, released;
  MPI_Comm comm;
  starpu_data_handle_t h;
  pm_tg_handle *hh;
  void (*cb)(void *); /* the application's completion callback and argument */
  void *arg;
  void (*acq_cb)(void *); /* StarPU-MPI's data-ready callback and its argument (the request) */
  void *acq_arg;
  uint64_t t_post; /* data transfer posted (progress thread) */
  uint64_t bytes;
  pm_tg_clk clk;
} sp_comm;

static pm_slab comm_slab = {.size = (sizeof(struct sp_comm) + 15) & ~(size_t)15, .per_chunk = 64};
static pm_ptrmap req_map;         /* StarPU-MPI request -> record, from data ready to post */
static pm_ptrmap recv_map;        /* handle -> receive record holding it, until its release */
static int pending_recvs;         /* entries of recv_map: a zero makes every other release cheap */
static __thread sp_comm *tls_cur; /* record of the request being created on this thread */

static void comm_free(sp_comm *c) {
  pm_tg_handle_put(c->hh);
  pm_slab_free(&comm_slab, c);
}

static sp_comm *comm_begin(int dir, starpu_data_handle_t h, int peer, starpu_mpi_tag_t tag, MPI_Comm comm, int detached,
                           void (*cb)(void *), void *arg, pm_loc **Lp) {
  *Lp = NULL;
  if (!sp_on || !h) return NULL;
  pm_loc *L = pm_enter_tool();
  if (!L) return NULL;
  sp_comm *c = pm_slab_alloc(&comm_slab);
  if (c && !(c->hh = pm_tg_handle_get(h))) {
    pm_slab_free(&comm_slab, c);
    c = NULL;
  }
  if (!c) {
    pm_leave_tool(L);
    return NULL;
  }
  c->dir = dir;
  c->peer = peer;
  c->tag = tag;
  c->comm = comm;
  c->h = h;
  c->detached = detached;
  c->cb = cb;
  c->arg = arg;
  uint64_t t = pm_clock_now();
  pm_call_enter(L, sp_region[SP_R_MPI], PM_STATE_RUNTIME, t);
  sp_thread_clock(&c->clk, L, sp_self()); /* the request cannot start before it is posted */
  pm_leave_tool(L);
  *Lp = L;
  tls_cur = c;
  return c;
}

static void comm_end(sp_comm *c, pm_loc *L, int rc) {
  tls_cur = NULL;
  if (L && (L = pm_enter_tool()) != NULL) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  /* a request refused before StarPU-MPI took it (no acquire yet) is dropped */
  if (rc != 0 && c && !c->acq_cb) comm_free(c);
}

/* The handle is ready for the transfer (any thread). */
static void data_ready(void *p) {
  sp_comm *c = p;
  pm_tg_handle_pre(c->hh, c->dir == PM_TC_SEND ? PM_TG_ACC_READ : PM_TG_ACC_WRITE, &c->clk);
  /* StarPU-MPI sends from and receives into main memory */
  if (pm_tg_handle_place(c->hh, STARPU_MAIN_RAM, c->dir == PM_TC_SEND, c->dir == PM_TC_RECV))
    pm_tc_transfer(STARPU_MAIN_RAM, sp_fn.data_get_size(c->h));
  pm_ptrmap_put(&req_map, c->acq_arg, c);
  if (c->dir == PM_TC_RECV && pm_ptrmap_put(&recv_map, c->h, c) == 0)
    __atomic_add_fetch(&pending_recvs, 1, __ATOMIC_RELAXED);
  c->acq_cb(c->acq_arg); /* may post the request at once on the progress thread */
}

SP_EXPORT int starpu_data_acquire_on_node_cb_sequential_consistency_sync_jobids(
    starpu_data_handle_t h, int node, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg,
    int sequential_consistency, int quick, long *pre_sync_jobid, long *post_sync_jobid) {
  static int (*real)(starpu_data_handle_t, int, enum starpu_data_access_mode, void (*)(void *), void *, int, int,
                     long *, long *);
  SP_REAL(real, starpu_data_acquire_on_node_cb_sequential_consistency_sync_jobids);
  if (!real) return -ENOSYS;
  sp_comm *c = tls_cur;
  if (!c || c->h != h || !callback)
    return real(h, node, mode, callback, arg, sequential_consistency, quick, pre_sync_jobid, post_sync_jobid);
  tls_cur = NULL; /* only the request's own acquisition belongs to the record */
  c->acq_cb = callback;
  c->acq_arg = arg;
  return real(h, node, mode, data_ready, c, sequential_consistency, quick, pre_sync_jobid, post_sync_jobid);
}

/* Progress thread: StarPU-MPI posts a send (envelope, then data). The clock goes first. */
SP_EXPORT void _starpu_mpi_isend_size_func(void *req) {
  static void (*real)(void *);
  SP_REAL(real, _starpu_mpi_isend_size_func);
  sp_comm *c = sp_on ? pm_ptrmap_take(&req_map, req) : NULL;
  if (c) {
    c->t_post = pm_clock_now();
    c->bytes = sp_fn.data_get_size(c->h);
    sp_clock_learn_comm(c->comm);
    if (sp_clock_usable(c->comm)) sp_clock_send(c->peer, c->tag, &c->clk);
    if (!c->detached) { /* no completion callback to wait for */
      pm_tc_mpi(c->peer, PM_TC_SEND, c->tag, c->bytes, 0);
      comm_free(c);
    }
  }
  if (sp_on) sp_clock_drain();
  if (real) real(req);
}

/* Progress thread: the envelope of a receive arrived and its data receive is posted. */
SP_EXPORT void _starpu_mpi_irecv_size_func(void *req) {
  static void (*real)(void *);
  SP_REAL(real, _starpu_mpi_irecv_size_func);
  if (sp_on) {
    sp_comm *c = pm_ptrmap_take(&req_map, req);
    if (c) {
      c->t_post = pm_clock_now();
      sp_clock_learn_comm(c->comm);
    }
    sp_clock_drain();
  }
  if (real) real(req);
}

/* The received data is in the handle; StarPU-MPI releases it (usually on the progress thread). */
int sp_mpi_on_release(starpu_data_handle_t h) {
  if (__atomic_load_n(&pending_recvs, __ATOMIC_RELAXED) == 0) return 0;
  sp_comm *c = pm_ptrmap_take(&recv_map, h);
  if (!c) return 0;
  __atomic_sub_fetch(&pending_recvs, 1, __ATOMIC_RELAXED);
  pm_ptrmap_take_if(&req_map, c->acq_arg, c); /* early data: never posted through size_func */
  uint64_t t = pm_clock_now();
  pm_tg_clk in = c->clk, remote;
  /* decided here, like the sender at posting time: by then the progress thread learnt the comm */
  if (sp_clock_usable(c->comm) && sp_clock_receive(c->peer, c->tag, &remote)) pm_tg_clk_merge_global(&in, &remote);
  uint64_t transfer = c->t_post && t > c->t_post ? t - c->t_post : 0;
  pm_tg_clk_add_mpi(&in, transfer);
  pm_tg_handle_post(c->hh, PM_TG_ACC_WRITE, &in);
  c->bytes = sp_fn.data_get_size(h);
  pm_tc_mpi(c->peer, PM_TC_RECV, c->tag, c->bytes, transfer);
  c->released = 1;
  if (!c->detached) comm_free(c);
  return 1;
}

/* Completion callbacks of detached requests (progress thread): account, then the application's. */
static void send_done(void *p) {
  sp_comm *c = p;
  void (*cb)(void *) = c->cb;
  void *arg = c->arg;
  uint64_t t = pm_clock_now();
  pm_tc_mpi(c->peer, PM_TC_SEND, c->tag, c->bytes, c->t_post && t > c->t_post ? t - c->t_post : 0);
  pm_ptrmap_take_if(&req_map, c->acq_arg, c);
  comm_free(c);
  if (cb) cb(arg);
}

static void recv_done(void *p) {
  sp_comm *c = p;
  void (*cb)(void *) = c->cb;
  void *arg = c->arg;
  if (!c->released) sp_mpi_on_release(c->h); /* completed without a release we saw */
  if (pm_ptrmap_take_if(&recv_map, c->h, c)) __atomic_sub_fetch(&pending_recvs, 1, __ATOMIC_RELAXED);
  comm_free(c);
  if (cb) cb(arg);
}

/* ------------------------------------------------------------------------------- wrappers */
#define SEND_DETACHED(name)                                                                                   \
  SP_EXPORT int name(starpu_data_handle_t h, int dest, starpu_mpi_tag_t tag, int prio, MPI_Comm comm,         \
                     void (*callback)(void *), void *arg) {                                                   \
    static int (*real)(starpu_data_handle_t, int, starpu_mpi_tag_t, int, MPI_Comm, void (*)(void *), void *); \
    SP_REAL(real, name);                                                                                      \
    if (!real) return -ENOSYS;                                                                                \
    pm_loc *L;                                                                                                \
    sp_comm *c = comm_begin(PM_TC_SEND, h, dest, tag, comm, 1, callback, arg, &L);                            \
    if (!c) return real(h, dest, tag, prio, comm, callback, arg);                                             \
    int rc = real(h, dest, tag, prio, comm, send_done, c);                                                    \
    comm_end(c, L, rc);                                                                                       \
    return rc;                                                                                                \
  }
SEND_DETACHED(starpu_mpi_isend_detached_prio)
SEND_DETACHED(starpu_mpi_issend_detached_prio)

#define SEND_REQ(name)                                                                                      \
  SP_EXPORT int name(starpu_data_handle_t h, starpu_mpi_req *req, int dest, starpu_mpi_tag_t tag, int prio, \
                     MPI_Comm comm) {                                                                       \
    static int (*real)(starpu_data_handle_t, starpu_mpi_req *, int, starpu_mpi_tag_t, int, MPI_Comm);       \
    SP_REAL(real, name);                                                                                    \
    if (!real) return -ENOSYS;                                                                              \
    pm_loc *L;                                                                                              \
    sp_comm *c = comm_begin(PM_TC_SEND, h, dest, tag, comm, 0, NULL, NULL, &L);                             \
    if (!c) return real(h, req, dest, tag, prio, comm);                                                     \
    int rc = real(h, req, dest, tag, prio, comm);                                                           \
    comm_end(c, L, rc);                                                                                     \
    return rc;                                                                                              \
  }
SEND_REQ(starpu_mpi_isend_prio)
SEND_REQ(starpu_mpi_issend_prio)

SP_EXPORT int starpu_mpi_irecv(starpu_data_handle_t h, starpu_mpi_req *req, int source, starpu_mpi_tag_t tag,
                               MPI_Comm comm) {
  static int (*real)(starpu_data_handle_t, starpu_mpi_req *, int, starpu_mpi_tag_t, MPI_Comm);
  SP_REAL(real, starpu_mpi_irecv);
  if (!real) return -ENOSYS;
  pm_loc *L;
  sp_comm *c = comm_begin(PM_TC_RECV, h, source, tag, comm, 0, NULL, NULL, &L);
  if (!c) return real(h, req, source, tag, comm);
  int rc = real(h, req, source, tag, comm);
  comm_end(c, L, rc);
  return rc;
}

SP_EXPORT int starpu_mpi_irecv_detached(starpu_data_handle_t h, int source, starpu_mpi_tag_t tag, MPI_Comm comm,
                                        void (*callback)(void *), void *arg) {
  static int (*real)(starpu_data_handle_t, int, starpu_mpi_tag_t, MPI_Comm, void (*)(void *), void *);
  SP_REAL(real, starpu_mpi_irecv_detached);
  if (!real) return -ENOSYS;
  pm_loc *L;
  sp_comm *c = comm_begin(PM_TC_RECV, h, source, tag, comm, 1, callback, arg, &L);
  if (!c) return real(h, source, tag, comm, callback, arg);
  int rc = real(h, source, tag, comm, recv_done, c);
  comm_end(c, L, rc);
  return rc;
}

SP_EXPORT int starpu_mpi_irecv_detached_sequential_consistency(starpu_data_handle_t h, int source, starpu_mpi_tag_t tag,
                                                               MPI_Comm comm, void (*callback)(void *), void *arg,
                                                               int seq) {
  static int (*real)(starpu_data_handle_t, int, starpu_mpi_tag_t, MPI_Comm, void (*)(void *), void *, int);
  SP_REAL(real, starpu_mpi_irecv_detached_sequential_consistency);
  if (!real) return -ENOSYS;
  pm_loc *L;
  sp_comm *c = comm_begin(PM_TC_RECV, h, source, tag, comm, 1, callback, arg, &L);
  if (!c) return real(h, source, tag, comm, callback, arg, seq);
  int rc = real(h, source, tag, comm, recv_done, c, seq);
  comm_end(c, L, rc);
  return rc;
}

/* ------------------------------------------------------------------------------- lifecycle */
/* StarPU-MPI's initialisation waits for its progress thread to start MPI (hundreds of ms): the
 * calling thread is in the runtime, not in application code. Nested variants count once. */
static __thread int tls_mpi_depth;

static pm_loc *mpi_call_begin(pm_state s) {
  if (tls_mpi_depth++ || !pm_core_activate()) return NULL;
  sp_regions_init();
  pm_loc *L = pm_enter_tool();
  if (L) {
    pm_call_enter(L, sp_region[SP_R_MPI], s, pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}
static void mpi_call_end(pm_loc *L, int merge) {
  tls_mpi_depth--;
  if (!L || !(L = pm_enter_tool())) return;
  pm_call_exit(L, pm_clock_now());
  if (merge && sp_on) sp_thread_merge_all(L, sp_self());
  pm_leave_tool(L);
}

SP_EXPORT int starpu_mpi_init_conf(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm,
                                   struct starpu_conf *conf) {
  static int (*real)(int *, char ***, int, MPI_Comm, struct starpu_conf *);
  SP_REAL(real, starpu_mpi_init_conf);
  if (!real) return -ENOSYS;
  pm_loc *L = mpi_call_begin(PM_STATE_RUNTIME);
  int rc = real(argc, argv, initialize_mpi, comm, conf);
  mpi_call_end(L, 0);
  return rc;
}

SP_EXPORT int starpu_mpi_init_comm(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm) {
  static int (*real)(int *, char ***, int, MPI_Comm);
  SP_REAL(real, starpu_mpi_init_comm);
  if (!real) return -ENOSYS;
  pm_loc *L = mpi_call_begin(PM_STATE_RUNTIME);
  int rc = real(argc, argv, initialize_mpi, comm);
  mpi_call_end(L, 0);
  return rc;
}

SP_EXPORT int starpu_mpi_shutdown(void) {
  static int (*real)(void);
  SP_REAL(real, starpu_mpi_shutdown);
  if (!real) return -ENOSYS;
  pm_loc *L = sp_on ? mpi_call_begin(PM_STATE_RUNTIME) : (tls_mpi_depth++, NULL);
  int rc = real();
  mpi_call_end(L, 1);
  return rc;
}

#define MPI_WAIT(name)                                                                \
  SP_EXPORT int name(MPI_Comm comm) {                                                 \
    static int (*real)(MPI_Comm);                                                     \
    SP_REAL(real, name);                                                              \
    if (!real) return -ENOSYS;                                                        \
    pm_loc *L = sp_on ? mpi_call_begin(PM_STATE_SYNC_WAIT) : (tls_mpi_depth++, NULL); \
    int rc = real(comm);                                                              \
    mpi_call_end(L, 1);                                                               \
    return rc;                                                                        \
  }
MPI_WAIT(starpu_mpi_wait_for_all)
MPI_WAIT(starpu_mpi_barrier)
