/* Critical-path piggyback of the MPI adapter (docs/metrics.md §0.3, §1, §4; OTF-CPT style).
 *
 * Every location carries Lamport clocks {cue, com, coo} (pm_cp_global). A completed message makes
 * the receiver merge the sender's clocks as of the send; a collective merges the maximum over the
 * communicator. The clocks travel in separate small messages on a *shadow communicator*: a private
 * communicator with the same group and ranks as the user communicator (MPI_Comm_split(comm, 0,
 * rank) -- not MPI_Comm_dup, which would run the application's attribute copy callbacks), created
 * collectively right after the user communicator is created and attached to it with an attribute
 * (its delete callback releases the shadow when the user frees the communicator). The shadows of
 * MPI_COMM_WORLD and MPI_COMM_SELF, made at MPI_Init, and the pair are copies made without a
 * nonblocking collective (pm_mpi_comm_copy: in a program that makes no communicator itself, one
 * made by popmeter would leave Open MPI's libnbc progress function in every poll of the run).
 *
 * Protocol (see README.md for the argument why it cannot deadlock nor change results):
 *  - sender, BEFORE posting the data message (any mode: standard, buffered, synchronous, ready,
 *    blocking or not, persistent at MPI_Start): PMPI_Isend of 3 uint64 to the same destination
 *    with the same tag on the shadow. Non-blocking, so the sender never waits for the receiver;
 *    the 24-byte buffer lives in a per-thread pool of slots that are recycled once PMPI_Test says
 *    the send completed (the pool grows when many clock messages are in flight).
 *  - receiver, when a receive completes (MPI_Recv, Sendrecv*, Mrecv, or Wait/Test of a tracked
 *    receive request): receives the clock message from status.MPI_SOURCE with status.MPI_TAG on the
 *    shadow (wildcards are resolved by the status) and merges it after pm_call_exit. Skipped for
 *    MPI_PROC_NULL, cancelled receives and empty statuses. Improbe + Mrecv, so two threads
 *    receiving from the same (source, tag) never steal each other's clock between probe and receive.
 *  - blocking collectives: every rank merges the maximum of the clocks as of the entry. On a
 *    communicator of 2 ranks the two exchange them on a second shadow (pair): Irecv + Isend posted
 *    before the user's collective, Waitall after it, so the exchange overlaps the collective; on
 *    larger ones, PMPI_Allreduce(MAX) of the clocks on the shadow after the collective; on one
 *    rank, nothing (its clock at the exit is not behind the one at the entry).
 * The protocol runs whenever PM_MPI_CP is set, also for threads without a location (zero clocks),
 * so both sides of every message always agree on whether a clock message exists. */
#include "mpi_adapter.h"
#include "mpi_comm_copy.h"
#include "pm_lifecycle.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PM_CP_CHUNK 64
#define PM_CP_TIMEOUT_NS (10ull * 1000000000ull)

static int keyval = MPI_KEYVAL_INVALID;
static pm_mpi_shadow *sh_world;
static int recv_disabled; /* set after a clock message did not arrive in time */
static uint64_t lost_clocks;

int pm_mpi_all_agree(MPI_Comm comm, int ok) {
  int all = 0;
  return PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all;
}

/* ------------------------------------------------------------------------- shadow communicators */
static int MPIAPI_delete_cb(MPI_Comm comm, int kv, void *attr, void *extra) {
  (void)comm;
  (void)kv;
  (void)extra;
  pm_mpi_shadow *sh = attr;
  if (sh == sh_world) sh_world = NULL;
  pm_mpi_shadow_unref(sh);
  return MPI_SUCCESS;
}

pm_mpi_shadow *pm_mpi_shadow_get(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return sh_world;
  if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return NULL;
  void *v = NULL;
  int flag = 0;
  if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag) return NULL;
  return v;
}

pm_mpi_shadow *pm_mpi_shadow_ref(MPI_Comm comm) {
  pm_mpi_shadow *sh = pm_mpi_shadow_get(comm);
  if (sh) __atomic_add_fetch(&sh->refs, 1, __ATOMIC_RELAXED);
  return sh;
}

void pm_mpi_shadow_unref(pm_mpi_shadow *sh) {
  if (!sh) return;
  if (__atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  pm_mpi_cpslots_free(sh->slots); /* local: unmaps the segment */
  int fin = 1;
  if (PMPI_Finalized(&fin) == MPI_SUCCESS && !fin) {
    if (sh->pair != MPI_COMM_NULL) PMPI_Comm_free(&sh->pair);
    if (sh->comm != MPI_COMM_NULL) PMPI_Comm_free(&sh->comm);
  }
  free(sh);
}

/* copy: a predefined communicator (no attributes of the application to skip): pm_mpi_comm_copy */
static pm_mpi_shadow *shadow_new(MPI_Comm base, int copy) {
  MPI_Comm c = MPI_COMM_NULL;
  int rc;
  if (copy) {
    rc = pm_mpi_comm_copy(base, &c);
  } else {
    int r = 0;
    PMPI_Comm_rank(base, &r);
    rc = PMPI_Comm_split(base, 0, r, &c);
  }
  if (rc != MPI_SUCCESS || c == MPI_COMM_NULL) return NULL;
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); /* a failing clock message never aborts */
  pm_mpi_shadow *sh = malloc(sizeof *sh);
  /* Every rank of the communicator has its shadow or none has: a rank without one sends no clock
   * messages (its peers would wait for them) and calls PMPI_Barrier where the others wait on its
   * slot (pm_mpi_cp_barrier). So a local failure is agreed on before the collective steps below,
   * and after the last local step. */
  if (!pm_mpi_all_agree(c, sh != NULL)) {
    free(sh);
    PMPI_Comm_free(&c);
    return NULL;
  }
  sh->comm = c;
  sh->refs = 1;
  sh->pair = MPI_COMM_NULL;
  sh->peer = MPI_PROC_NULL;
  int inter = 0, size = 0, rank = 0;
  PMPI_Comm_test_inter(c, &inter);
  sh->size = inter || PMPI_Comm_size(c, &size) != MPI_SUCCESS ? 0 : size;
  /* every rank of the communicator takes these branches alike (the same size, one answer of
   * pm_mpi_cpslots_new) */
  sh->slots = sh->size >= 2 ? pm_mpi_cpslots_new(c, sh->size) : NULL;
  if (!sh->slots && sh->size == 2 && PMPI_Comm_rank(c, &rank) == MPI_SUCCESS &&
      pm_mpi_comm_copy(c, &sh->pair) == MPI_SUCCESS) {
    PMPI_Comm_set_errhandler(sh->pair, MPI_ERRORS_RETURN);
    sh->peer = 1 - rank;
  } else {
    sh->pair = MPI_COMM_NULL;
  }
  int attached = PMPI_Comm_set_attr(base, keyval, sh) == MPI_SUCCESS;
  if (!pm_mpi_all_agree(c, attached)) {
    if (attached) { /* the attribute's delete callback releases the shadow */
      PMPI_Comm_delete_attr(base, keyval);
      return NULL;
    }
    pm_mpi_cpslots_free(sh->slots);
    if (sh->pair != MPI_COMM_NULL) PMPI_Comm_free(&sh->pair);
    PMPI_Comm_free(&sh->comm);
    free(sh);
    return NULL;
  }
  return sh;
}

void pm_mpi_cp_newcomm(MPI_Comm newcomm) {
  if (!(pm_mpi_flags & PM_MPI_CP) || newcomm == MPI_COMM_NULL) return;
  if (!shadow_new(newcomm, 0))
    pm_warn("could not create the critical-path shadow of a new communicator; its messages carry no clocks");
}

/* --------------------------------------------------------------------------- clock send pool */
typedef struct {
  MPI_Request req;
  uint64_t clk[3];
} cslot;

typedef struct cpool {
  struct cpool *next;
  cslot **chunks;
  int nchunks, head;
} cpool;

static __thread cpool *tl_pool;
static cpool *all_pools;
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static int pool_grow(cpool *p) {
  cslot **nc = realloc(p->chunks, (size_t)(p->nchunks + 1) * sizeof *nc);
  if (!nc) return -1;
  p->chunks = nc;
  cslot *c = malloc(PM_CP_CHUNK * sizeof *c);
  if (!c) return -1;
  for (int i = 0; i < PM_CP_CHUNK; i++) c[i].req = MPI_REQUEST_NULL;
  p->chunks[p->nchunks] = c;
  p->head = p->nchunks * PM_CP_CHUNK;
  p->nchunks++;
  return 0;
}

static cpool *pool_self(void) {
  cpool *p = tl_pool;
  if (PM_LIKELY(p != NULL)) return p;
  p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (pool_grow(p) != 0) {
    free(p->chunks);
    free(p);
    return NULL;
  }
  pthread_mutex_lock(&pools_lock);
  p->next = all_pools;
  all_pools = p;
  pthread_mutex_unlock(&pools_lock);
  tl_pool = p;
  return p;
}

static inline cslot *pool_at(cpool *p, int i) { return &p->chunks[i / PM_CP_CHUNK][i % PM_CP_CHUNK]; }

/* A free slot: the oldest ones are tried first (clock sends are eager and complete quickly). */
static cslot *slot_get(cpool *p) {
  int n = p->nchunks * PM_CP_CHUNK;
  for (int tries = 0; tries < 2; tries++) {
    cslot *s = pool_at(p, p->head);
    p->head = (p->head + 1) % n;
    if (s->req == MPI_REQUEST_NULL) return s;
    int flag = 0;
    if (PMPI_Test(&s->req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag) return s;
  }
  if (pool_grow(p) == 0) {
    cslot *s = pool_at(p, p->head);
    p->head = (p->head + 1) % (p->nchunks * PM_CP_CHUNK);
    return s;
  }
  return NULL;
}

/* The clocks a message or a collective carries: the location's global clock, zeros without one. */
static void clock_out(const pm_mpi_ctx *X, uint64_t out[3]) {
  pm_cp_clock c = X->L ? pm_cp_global(X->L) : (pm_cp_clock){0, 0, 0};
  out[0] = c.cue;
  out[1] = c.com;
  out[2] = c.coo;
}

/* The other way: clocks as they travelled (clock_out's three words) merged into the call's input. */
static void merge_in(pm_mpi_ctx *X, const uint64_t in[3]) {
  pm_mpi_ctx_merge_in(X, (pm_cp_clock){in[0], in[1], in[2]});
}

void pm_mpi_cp_send_sh(pm_mpi_ctx *X, pm_mpi_shadow *sh, int peer, int tag) {
  if (!sh || peer < 0) return;         /* MPI_PROC_NULL (and invalid ranks) carry no message */
  if (pm_mpi_cpslots_p2p(sh->slots)) { /* one node: through shared memory */
    uint64_t clk[3];
    clock_out(X, clk);
    pm_mpi_cpslots_send(sh->slots, peer, tag, clk);
    return;
  }
  cpool *p = pool_self();
  cslot *s = p ? slot_get(p) : NULL;
  if (!s) {
    /* Out of memory: a clock message must still be sent (the receiver waits for it). */
    static uint64_t zero[3];
    uint64_t *buf = malloc(sizeof zero);
    MPI_Request r;
    if (buf) clock_out(X, buf);
    if (PMPI_Isend(buf ? buf : zero, 3, MPI_UINT64_T, peer, tag, sh->comm, &r) == MPI_SUCCESS) PMPI_Request_free(&r);
    return; /* 'buf' is leaked on purpose: it may be in flight */
  }
  clock_out(X, s->clk);
  if (PMPI_Isend(s->clk, 3, MPI_UINT64_T, peer, tag, sh->comm, &s->req) != MPI_SUCCESS) s->req = MPI_REQUEST_NULL;
}

void pm_mpi_cp_recv_sh(pm_mpi_ctx *X, pm_mpi_shadow *sh, const MPI_Status *st) {
  if (!sh || !st) return;
  int src = st->MPI_SOURCE, tag = st->MPI_TAG;
  if (src < 0 || tag < 0) return;      /* MPI_PROC_NULL, or an empty status (inactive request) */
  if (pm_mpi_cpslots_p2p(sh->slots)) { /* one node: through shared memory */
    uint64_t in[3] = {0, 0, 0};
    if (pm_mpi_cpslots_recv(sh->slots, src, tag, in)) merge_in(X, in);
    return;
  }
  if (recv_disabled) return;
  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Status s2;
  int flag = 0;
  if (PMPI_Improbe(src, tag, sh->comm, &flag, &m, &s2) != MPI_SUCCESS) return;
  if (!flag) {
    /* The clock was posted before the data, so it is normally here already; wait for it, but never
     * forever (a sender outside popmeter's wrappers would otherwise hang the application). */
    uint64_t t0 = pm_clock_now();
    for (unsigned i = 1; !flag; i++) {
      if (PMPI_Improbe(src, tag, sh->comm, &flag, &m, &s2) != MPI_SUCCESS) return;
      if (!flag && (i & 255) == 0 && pm_clock_now() - t0 > PM_CP_TIMEOUT_NS) {
        __atomic_add_fetch(&lost_clocks, 1, __ATOMIC_RELAXED);
        if (!__atomic_exchange_n(&recv_disabled, 1, __ATOMIC_RELAXED))
          pm_warn("critical path: the clock of a message from rank %d (tag %d) did not arrive within 10 s "
                  "(was it sent by code outside popmeter's MPI wrappers?); this rank stops receiving "
                  "clocks, critical-path metrics are unreliable",
                  src, tag);
        return;
      }
    }
  }
  uint64_t buf[3];
  if (PMPI_Mrecv(buf, 3, MPI_UINT64_T, &m, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
  merge_in(X, buf);
}

void pm_mpi_cp_coll_pre(pm_mpi_ctx *X, MPI_Comm comm, pm_mpi_cpc *c, int call) {
  pm_mpi_shadow *sh = pm_mpi_shadow_get(comm);
  c->sh = sh && sh->size != 1 ? sh : NULL;
  if (!c->sh) return;
  clock_out(X, c->out);
  if (sh->slots) { /* one node: through shared memory */
    c->call = call;
    c->epoch = pm_mpi_cpslots_put(sh->slots, c->out, call);
    return;
  }
  if (sh->pair == MPI_COMM_NULL) return;
  /* both posted now, completed after the user's collective: the exchange costs no round trip */
  if (PMPI_Irecv(c->in, 3, MPI_UINT64_T, sh->peer, 0, sh->pair, &c->rq[0]) != MPI_SUCCESS) c->rq[0] = MPI_REQUEST_NULL;
  if (PMPI_Isend(c->out, 3, MPI_UINT64_T, sh->peer, 0, sh->pair, &c->rq[1]) != MPI_SUCCESS) c->rq[1] = MPI_REQUEST_NULL;
}

void pm_mpi_cp_coll_early(const pm_mpi_cpc *c) {
  if (c->sh && c->sh->slots) pm_mpi_cpslots_prefetch(c->sh->slots, c->epoch);
}

void pm_mpi_cp_coll_late(pm_mpi_ctx *X, const pm_mpi_cpc *c, int rc) {
  uint64_t in[3] = {0, 0, 0};
  if (c->sh && c->sh->slots && rc == MPI_SUCCESS && pm_mpi_cpslots_max(c->sh->slots, c->epoch, c->call, in))
    merge_in(X, in);
}

/* Completes the 2-rank clock exchange posted at the collective's entry; 1 when the other rank's clock
 * arrived. The other rank waits for this one's clock whatever happened here (a missing message
 * would hang it), and a barrier made of the exchange holds this rank only by the other's: a post
 * that failed is done again as a blocking call, in an order that needs no buffering of the message
 * whichever posts failed on either rank (both: one Sendrecv; the receive alone: it is done before
 * this rank's send completes; the send alone: the other rank's receive is posted or comes first).
 * A request MPI left pending is waited for: it points into this call's frame. A clock that still
 * did not travel counts as lost; one this rank could not send is said (the other rank waits for it). */
static int pair_complete(const pm_mpi_shadow *sh, pm_mpi_cpc *c) {
  const int posted_recv = c->rq[0] != MPI_REQUEST_NULL, posted_send = c->rq[1] != MPI_REQUEST_NULL;
  int got = 1, sent = 1;
  if (!posted_recv && !posted_send) {
    got = sent = PMPI_Sendrecv(c->out, 3, MPI_UINT64_T, sh->peer, 0, c->in, 3, MPI_UINT64_T, sh->peer, 0, sh->pair,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS;
  } else if (!posted_recv) {
    got = PMPI_Recv(c->in, 3, MPI_UINT64_T, sh->peer, 0, sh->pair, MPI_STATUS_IGNORE) == MPI_SUCCESS;
  } else if (!posted_send) {
    sent = PMPI_Send(c->out, 3, MPI_UINT64_T, sh->peer, 0, sh->pair) == MPI_SUCCESS;
  }
  MPI_Status st[2];
  st[0].MPI_ERROR = st[1].MPI_ERROR = MPI_SUCCESS;
  int rc = PMPI_Waitall(2, c->rq, st);
  if (rc != MPI_SUCCESS)
    for (int i = 0; i < 2; i++) {
      int ok = rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR == MPI_SUCCESS;
      if (rc == MPI_ERR_IN_STATUS && st[i].MPI_ERROR == MPI_ERR_PENDING)
        ok = PMPI_Wait(&c->rq[i], MPI_STATUS_IGNORE) == MPI_SUCCESS;
      if (i == 0 && posted_recv) got = ok;
      if (i == 1 && posted_send) sent = ok;
    }
  __atomic_add_fetch(&lost_clocks, (uint64_t)!got + (uint64_t)!sent, __ATOMIC_RELAXED);
  if (!sent)
    pm_warn("critical path: MPI failed to send this rank's clock to rank %d of a 2-rank communicator, which "
            "waits for it",
            sh->peer);
  return got;
}

void pm_mpi_cp_coll_post(pm_mpi_ctx *X, pm_mpi_cpc *c, int rc) {
  pm_mpi_shadow *sh = c->sh;
  if (!sh || sh->slots) return; /* one node: the slots are read by pm_mpi_cp_coll_late */
  if (sh->pair != MPI_COMM_NULL) {
    /* the other rank's clock; the own one is not ahead of the clock at the exit */
    if (pair_complete(sh, c) && rc == MPI_SUCCESS) merge_in(X, c->in);
    return;
  }
  if (rc != MPI_SUCCESS) return;
  if (PMPI_Allreduce(c->out, c->in, 3, MPI_UINT64_T, MPI_MAX, sh->comm) != MPI_SUCCESS) return;
  merge_in(X, c->in);
}

/* MPI progress while a barrier on the slots waits long (the shadow carries no messages: this only
 * drives the progress engine for the application's pending operations). */
static void shadow_progress(void *arg) {
  int flag = 0;
  PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ((pm_mpi_shadow *)arg)->comm, &flag, MPI_STATUS_IGNORE);
}

int pm_mpi_cp_barrier(pm_mpi_ctx *X, pm_mpi_cpc *c, MPI_Comm comm) {
  pm_mpi_shadow *sh = c->sh;
  /* one rank, an intercommunicator, no shadow */
  if (!sh || sh->size < 2) return PMPI_Barrier(comm);
  /* no rank leaves before every rank has entered: on one node, every other rank's slot of this
   * collective written (each rank wrote its own at its entry, pm_mpi_cp_coll_pre) -- one transfer
   * between cores per rank, where the barrier and then the reading of the slots took two; else
   * the receive of the other rank's clock (posted at its entry), or the allreduce, which needs
   * every rank's contribution */
  if (sh->slots) {
    uint64_t in[3] = {0, 0, 0};
    pm_mpi_cpslots_barrier(sh->slots, c->epoch, c->call, in, shadow_progress, sh);
    merge_in(X, in);
    c->sh = NULL; /* done: nothing left for pm_mpi_cp_coll_post and _late */
    return MPI_SUCCESS;
  }
  int rc;
  if (sh->pair != MPI_COMM_NULL) {
    rc = MPI_SUCCESS;
    if (!pair_complete(sh, c)) {
      /* not a PMPI_Barrier now: the other rank may have left already, and would never join it */
      pm_warn("critical path: MPI failed the clock exchange that stands for an MPI_Barrier of 2 ranks: "
              "that barrier may not have held this rank");
      rc = MPI_ERR_OTHER;
    }
  } else {
    rc = PMPI_Allreduce(c->out, c->in, 3, MPI_UINT64_T, MPI_MAX, sh->comm);
  }
  if (rc == MPI_SUCCESS) merge_in(X, c->in);
  c->sh = NULL; /* done: nothing left for pm_mpi_cp_coll_post */
  return rc;
}

uint64_t pm_mpi_cp_lost_clocks(void) { return __atomic_load_n(&lost_clocks, __ATOMIC_RELAXED) + pm_mpi_cpslots_lost(); }

/* --------------------------------------------------------------------------------- lifecycle */
int pm_mpi_cp_setup(MPI_Comm tool_comm) {
  /* Every rank must agree, or a receiver would wait for clocks that are never sent. */
  if (!pm_mpi_all_agree(tool_comm, pm_config_get()->i[PM_CFG_CRITICAL_PATH] != 0)) return 0;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPIAPI_delete_cb, &keyval, NULL) != MPI_SUCCESS) {
    keyval = MPI_KEYVAL_INVALID;
    return 0;
  }
  sh_world = shadow_new(MPI_COMM_WORLD, 1);
  pm_mpi_shadow *self = shadow_new(MPI_COMM_SELF, 1);
  if (!pm_mpi_all_agree(tool_comm, sh_world != NULL && self != NULL)) {
    if (sh_world) PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    if (self) PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
    PMPI_Comm_free_keyval(&keyval);
    keyval = MPI_KEYVAL_INVALID;
    sh_world = NULL;
    pm_warn("critical path: could not create the shadow communicators; no clocks along MPI messages");
    return 0;
  }
  recv_disabled = 0;
  return 1;
}

void pm_mpi_cp_shutdown(void) {
  uint64_t lost = pm_mpi_cp_lost_clocks();
  if (lost)
    pm_warn("critical path: %llu clock(s) of MPI messages or collectives were lost (a sender far ahead of its "
            "receiver, or a message from outside popmeter's wrappers); the critical path may be short by the "
            "waits they carried",
            (unsigned long long)lost);
  /* Clock sends still in flight (receives the application never completed): release them so that
   * MPI_Finalize does not wait for them. Other threads are out of MPI by now (MPI's rule). */
  pthread_mutex_lock(&pools_lock);
  for (cpool *p = all_pools; p; p = p->next) {
    for (int i = 0; i < p->nchunks * PM_CP_CHUNK; i++) {
      cslot *s = pool_at(p, i);
      if (s->req == MPI_REQUEST_NULL) continue;
      int flag = 0;
      if (PMPI_Test(&s->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag) {
        if (s->req != MPI_REQUEST_NULL) PMPI_Request_free(&s->req);
      }
      s->req = MPI_REQUEST_NULL;
    }
  }
  pthread_mutex_unlock(&pools_lock);
}
