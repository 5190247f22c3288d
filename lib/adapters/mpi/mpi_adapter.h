/* MPI adapter of popmeter: internal interface shared by the generated wrappers (pm_mpi_wrap_c.c,
 * pm_mpi_wrap_f.c, from mpi_calls.def by gen_wrappers.py) and the hand-written parts:
 *   mpi_lifecycle.c  MPI_Init*, MPI_Finalize, MPI_Abort (C and Fortran), the tool communicator
 *   mpi_reqtab.c     request / message table (what a request is, for completion-time accounting)
 *   mpi_actions.c    byte counting of point-to-point, collectives, I/O, RMA; completion helpers
 *   mpi_critpath.c   critical-path piggyback (shadow communicators, clock messages)
 *   mpi_cpslots.c    the collectives' clocks through shared memory when all ranks share a node
 * See README.md in this folder for the table format, the byte rules and the piggyback protocol.
 *
 * Preload hygiene: nothing here may create a hard reference to an MPI symbol. Every PMPI_* /
 * pmpi_*_ function and every Open MPI predefined object used is declared weak (mpi_weak.h and the
 * generated files), so libpopmeter.so has no DT_NEEDED on libmpi and stays inert in mpirun/orted. */
#ifndef PM_MPI_ADAPTER_H
#define PM_MPI_ADAPTER_H
#include <mpi.h>
#include <stdint.h>
#include "pm_core.h"
#include "mpi_weak.h"

#define PM_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------------------- adapter state */
/* Bit 0 (PM_MPI_ON): MPI is initialised through our wrappers and the regions are registered: the
 * wrappers measure. Bit 1 (PM_MPI_CP): the critical-path piggyback protocol runs. The protocol must
 * run on every wrapped communication while PM_MPI_CP is set, even when the calling thread has no
 * location (pm_enter_tool() == NULL: re-entered, thread table full, measurement finalized), since
 * the peer waits for the clock message. Both bits are set once after MPI_Init* and cleared in
 * MPI_Finalize: a plain load is enough. */
enum { PM_MPI_ON = 1, PM_MPI_CP = 2 };
PM_HIDDEN extern int pm_mpi_flags;

/* Region ids of the table entries, indexed by the generated enum pm_mpi_call (pm_mpi_calls.h). */
PM_HIDDEN extern pm_region_id pm_mpi_region[];
PM_HIDDEN void pm_mpi_register_regions(void); /* generated */

/* Lead-side hook, called by MPI_Finalize (C and Fortran) before PMPI_Finalize, on the thread that
 * finalizes, outside the wrapper's reentrancy guard. It reduces the profile to rank 0 through
 * pm_mpi_tool_comm(). A weak default that does nothing is in mpi_lifecycle.c. */
PM_HIDDEN void pm_mpi_finalize_hook(void);
/* popmeter's own communicator (a copy of MPI_COMM_WORLD made in MPI_Init*, pm_mpi_comm_copy);
 * MPI_COMM_NULL before MPI_Init* and after MPI_Finalize. Use only PMPI_* on it. Its traffic:
 * popmeter's collectives, and the StarPU adapter's clock messages (tag SP_CLOCK_TAG). */
PM_HIDDEN MPI_Comm pm_mpi_tool_comm(void);
/* 1 between the end of our MPI_Init* processing and the return of PMPI_Finalize. */
PM_HIDDEN int pm_mpi_is_initialized(void);
/* 1 when every rank of comm passes ok != 0 (a MIN-allreduce; 0 on error): the collective decisions
 * (critical path on, shadows made, shared memory usable) that must come out alike on every rank. */
PM_HIDDEN int pm_mpi_all_agree(MPI_Comm comm, int ok);

/* ----------------------------------------------------------------------------- wrapper context */
/* Per-call context on the wrapper's stack: the location (may be NULL when only the piggyback
 * protocol runs) and the incoming critical-path clock to merge after pm_call_exit. */
typedef struct {
  pm_loc *L;
  int have_in;
  pm_cp_clock in;
  uint32_t trace_comm; /* trace communicator + 1 of a matched message being received (0: none) */
} pm_mpi_ctx;

static inline void pm_mpi_ctx_merge_in(pm_mpi_ctx *X, pm_cp_clock c) {
  if (!X->have_in) {
    X->in = c;
    X->have_in = 1;
    return;
  }
  if (c.cue > X->in.cue) X->in.cue = c.cue;
  if (c.com > X->in.com) X->in.com = c.com;
  if (c.coo > X->in.coo) X->in.coo = c.coo;
}

/* --------------------------------------------------------------------------------- sizes / misc */
PM_HIDDEN uint64_t pm_mpi_type_bytes(int count, MPI_Datatype t); /* count * size, 0 on error */
PM_HIDDEN uint64_t pm_mpi_status_bytes(const MPI_Status *st);    /* received bytes in a status */
/* Fortran choice buffers: maps Fortran MPI_IN_PLACE / MPI_BOTTOM sentinels to the C ones. */
PM_HIDDEN const void *pm_mpi_f_buf(const void *p);
/* 1 when a Fortran status argument is MPI_STATUS_IGNORE (resp. MPI_STATUSES_IGNORE). */
PM_HIDDEN int pm_mpi_f_status_ignored(const MPI_Fint *st);
PM_HIDDEN int pm_mpi_f_statuses_ignored(const MPI_Fint *st);
#define PM_MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
/* Converts a Fortran status to C into *c; returns c. */
PM_HIDDEN MPI_Status *pm_mpi_fst2c(const MPI_Fint *f, MPI_Status *c);

/* ------------------------------------------------------------------------- request/message table */
/* What the adapter must remember about a live request between its post and its completion. */
enum {
  PM_REQ_RECV = 1,  /* receive (Irecv, Imrecv, Recv_init): bytes + clock at completion */
  PM_REQ_PSEND = 2, /* persistent send (Send_init...): bytes + clock at each Start */
  PM_REQ_MSG = 3,   /* matched message from Mprobe/Improbe (key: the MPI_Message) */
  PM_REQ_SEND = 4,  /* non-blocking send, tracked only while tracing (MpiIsendComplete) */
  PM_REQ_PERSISTENT = 0x100
};
struct pm_mpi_shadow;
typedef struct pm_mpi_psend { /* persistent send arguments (malloc'd at Send_init, rare) */
  uint64_t bytes;             /* taken at Send_init: the datatype may be freed before MPI_Start */
  int peer, tag;
  int active;         /* tracing: started and not completed yet */
  uint64_t trace_req; /* tracing: the trace's request id of the current start */
} pm_mpi_psend;
typedef struct {
  uint32_t kind;
  struct pm_mpi_shadow *sh; /* shadow communicator (holds a reference), or NULL */
  pm_mpi_psend *ps;         /* PM_REQ_PSEND; a persistent receive's state while tracing */
  uint32_t trace_comm;      /* tracing: trace communicator + 1 (0: not traced) */
  uint64_t trace_req;       /* tracing: the trace's request id (0: none; persistent: in ps) */
} pm_mpi_reqinfo;
/* Lock-free global table (requests may complete on another thread than the one that posted them).
 * Keys are MPI_Request / MPI_Message handles (pointers in Open MPI). */
PM_HIDDEN extern int pm_mpi_reqtab_live; /* number of entries (fast "empty" test) */
PM_HIDDEN void pm_mpi_reqtab_put(const void *key, const pm_mpi_reqinfo *info);
PM_HIDDEN int pm_mpi_reqtab_get(const void *key, pm_mpi_reqinfo *out);
PM_HIDDEN int pm_mpi_reqtab_take(const void *key, pm_mpi_reqinfo *out); /* get + remove */
PM_HIDDEN void pm_mpi_reqtab_reset(void);
static inline int pm_mpi_reqtab_empty(void) { return __atomic_load_n(&pm_mpi_reqtab_live, __ATOMIC_RELAXED) == 0; }

/* ----------------------------------------------------------------------------- critical path */
typedef struct pm_mpi_shadow {
  MPI_Comm comm; /* the shadow communicator: same group and ranks as the user communicator */
  int refs;      /* 1 for the user communicator + 1 per table entry that names it */
  int size;      /* ranks of an intracommunicator (0: an intercommunicator) */
  /* size 2: a second shadow for the collectives' clock exchange with the other rank, posted before
   * the user's collective and completed after it (MPI_COMM_NULL: none, the clock allreduce is used) */
  MPI_Comm pair;
  int peer;
  /* all ranks on one node: the collectives' clocks go through shared memory (mpi_cpslots.c) and
   * pair / the clock allreduce are not used; NULL otherwise */
  struct pm_mpi_cpslots *slots;
} pm_mpi_shadow;
/* Node-local clock slots (mpi_cpslots.c). new: collective over comm (size ranks); NULL, on every
 * rank alike, when the ranks are not all on one node or the shared memory could not be set up.
 * put: at a collective's entry, the rank's clocks; returns the collective's epoch. max: after it,
 * the maximum of out and the clocks of the other ranks that entered it; returns how many. */
typedef struct pm_mpi_cpslots pm_mpi_cpslots;
PM_HIDDEN pm_mpi_cpslots *pm_mpi_cpslots_new(MPI_Comm comm, int size);
PM_HIDDEN void pm_mpi_cpslots_free(pm_mpi_cpslots *s);
/* call: the collective's index (PM_MPI_*), written beside the clocks: a peer's slot of the same
 * epoch that names another call means the ranks' collectives differ (warned once). */
PM_HIDDEN uint64_t pm_mpi_cpslots_put(pm_mpi_cpslots *s, const uint64_t clk[3], int call);
PM_HIDDEN int pm_mpi_cpslots_max(const pm_mpi_cpslots *s, uint64_t epoch, int call, uint64_t out[3]);
/* A barrier that is its own clock exchange: returns once every other rank has written its slot of
 * epoch (entered the collective of that epoch, which this rank entered with pm_mpi_cpslots_put),
 * their clocks merged into out (componentwise max). While it waits long it calls progress(arg) now
 * and then (MPI progress for the application's pending operations) and yields the CPU. */
PM_HIDDEN void pm_mpi_cpslots_barrier(const pm_mpi_cpslots *s, uint64_t epoch, int call, uint64_t out[3],
                                      void (*progress)(void *), void *arg);
/* Asks for the other ranks' slots of the epoch ahead of pm_mpi_cpslots_max (a hint). */
PM_HIDDEN void pm_mpi_cpslots_prefetch(const pm_mpi_cpslots *s, uint64_t epoch);
PM_HIDDEN uint64_t pm_mpi_cpslots_lost(void); /* slots reused before they were read */
/* Point-to-point clocks through the same segment (communicators of up to 16 ranks): p2p says
 * whether s carries them; send, before the data message is posted, writes the clocks of a message
 * to rank 'to' with 'tag'; recv, once a receive from 'from' with 'tag' completed, merges that
 * message's clocks into out (returns 0 when none was found). */
PM_HIDDEN int pm_mpi_cpslots_p2p(const pm_mpi_cpslots *s);
PM_HIDDEN void pm_mpi_cpslots_send(pm_mpi_cpslots *s, int to, int tag, const uint64_t clk[3]);
PM_HIDDEN int pm_mpi_cpslots_recv(pm_mpi_cpslots *s, int from, int tag, uint64_t out[3]);
PM_HIDDEN int pm_mpi_cp_setup(MPI_Comm tool_comm);         /* at init; returns 1 when enabled */
PM_HIDDEN void pm_mpi_cp_shutdown(void);                   /* at finalize, before PMPI_Finalize */
PM_HIDDEN pm_mpi_shadow *pm_mpi_shadow_get(MPI_Comm comm); /* borrowed, or NULL */
PM_HIDDEN pm_mpi_shadow *pm_mpi_shadow_ref(MPI_Comm comm); /* new reference, or NULL */
PM_HIDDEN void pm_mpi_shadow_unref(pm_mpi_shadow *sh);
/* Sender side: posts the clock message (non-blocking) to 'peer' with 'tag' on comm's shadow. */
PM_HIDDEN void pm_mpi_cp_send_sh(pm_mpi_ctx *X, pm_mpi_shadow *sh, int peer, int tag);
/* Receiver side: receives the clock message matching a completed receive's status. */
PM_HIDDEN void pm_mpi_cp_recv_sh(pm_mpi_ctx *X, pm_mpi_shadow *sh, const MPI_Status *st);
/* Collective: every rank merges the maximum of the communicator's clocks as of the call's entry.
 * On one node: pre writes the rank's clocks into its slot, early and late (below) merge the other
 * ranks' slots of this collective (mpi_cpslots.c). Otherwise pre, before the user's collective: on
 * a communicator of 2 ranks, posts the exchange of the clocks with the other rank (it overlaps the
 * collective); post, after it, whatever its result: completes the exchange, or makes a
 * MAX-allreduce of the clocks on the shadow (larger communicators), and merges when the collective
 * succeeded. One rank alone has nothing to merge (the clock at the exit is not behind the one at
 * the entry). */
typedef struct {
  pm_mpi_shadow *sh; /* NULL: nothing to do */
  MPI_Request rq[2];
  uint64_t out[3], in[3];
  uint64_t epoch; /* the collective's epoch in sh->slots */
  int call;       /* the collective (PM_MPI_*) */
} pm_mpi_cpc;
PM_HIDDEN void pm_mpi_cp_coll_pre(pm_mpi_ctx *X, MPI_Comm comm, pm_mpi_cpc *c, int call);
PM_HIDDEN void pm_mpi_cp_coll_post(pm_mpi_ctx *X, pm_mpi_cpc *c, int rc);
/* The one-node part of post, in two steps: early, right after the user's collective, requests the
 * other ranks' slots (a prefetch: their lines are in the writers' caches); late, after the call's
 * exit was charged, reads and merges them, by which time the lines have arrived. Only a location
 * reads them (without one nothing is merged). */
PM_HIDDEN void pm_mpi_cp_coll_early(const pm_mpi_cpc *c);
PM_HIDDEN void pm_mpi_cp_coll_late(pm_mpi_ctx *X, const pm_mpi_cpc *c, int rc);
/* MPI_Barrier(comm) after pm_mpi_pre_cpcoll: the clock exchange, which synchronises the ranks as
 * the barrier does, completed in place of PMPI_Barrier: waiting on the other ranks' shared-memory
 * slots (pm_mpi_cpslots_barrier), the pair's messages or the clock allreduce (on one rank or
 * without a shadow: PMPI_Barrier). Returns the MPI error code. */
PM_HIDDEN int pm_mpi_cp_barrier(pm_mpi_ctx *X, pm_mpi_cpc *c, MPI_Comm comm);
/* New user communicator: create its shadow (collective over newcomm). */
PM_HIDDEN void pm_mpi_cp_newcomm(MPI_Comm newcomm);
PM_HIDDEN uint64_t pm_mpi_cp_lost_clocks(void); /* clock messages given up (see README) */

/* ----------------------------------------------------------------------------- actions */
/* Called by the generated wrappers. "pre" actions run before the PMPI call, "b_" (post) actions
 * after it when it returned MPI_SUCCESS; the completion actions look at rc themselves. */
PM_HIDDEN void pm_mpi_pre_send(pm_mpi_ctx *X, int peer, int tag, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_send(pm_mpi_ctx *X, int count, MPI_Datatype type, int peer);
PM_HIDDEN void pm_mpi_b_recv(pm_mpi_ctx *X, const MPI_Status *st, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_irecv(pm_mpi_ctx *X, MPI_Request req, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_recv_init(pm_mpi_ctx *X, MPI_Request req, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_send_init(pm_mpi_ctx *X, MPI_Request req, int count, MPI_Datatype type, int peer, int tag,
                                  MPI_Comm comm);
PM_HIDDEN void pm_mpi_pre_start(pm_mpi_ctx *X, MPI_Request req);
PM_HIDDEN void pm_mpi_b_start(pm_mpi_ctx *X, MPI_Request req);
PM_HIDDEN void pm_mpi_pre_startall(pm_mpi_ctx *X, int count, const MPI_Request *reqs);
PM_HIDDEN void pm_mpi_b_startall(pm_mpi_ctx *X, int count, const MPI_Request *reqs);
PM_HIDDEN void pm_mpi_pre_startall_f(pm_mpi_ctx *X, int count, const MPI_Fint *reqs);
PM_HIDDEN void pm_mpi_b_startall_f(pm_mpi_ctx *X, int count, const MPI_Fint *reqs);
PM_HIDDEN void pm_mpi_b_mprobe(pm_mpi_ctx *X, MPI_Message msg, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_improbe(pm_mpi_ctx *X, int flag, MPI_Message msg, MPI_Comm comm);
PM_HIDDEN pm_mpi_shadow *pm_mpi_pre_mrecv(pm_mpi_ctx *X, MPI_Message msg); /* takes the MSG entry */
PM_HIDDEN void pm_mpi_post_mrecv(pm_mpi_ctx *X, int rc, pm_mpi_shadow *sh, const MPI_Status *st);
PM_HIDDEN void pm_mpi_post_imrecv(pm_mpi_ctx *X, int rc, pm_mpi_shadow *sh, MPI_Request req);
PM_HIDDEN void pm_mpi_pre_request_free(pm_mpi_ctx *X, MPI_Request req);

/* Completion (Wait/Test family). A snapshot taken before the PMPI call remembers which of the
 * requests are tracked receives (their handles are overwritten by the call) and provides the
 * statuses array to pass when the user passed MPI_STATUS(ES)_IGNORE but a receive needs one. */
#define PM_MPI_SNAP_STACK 64
typedef struct {
  int idx;
  pm_mpi_reqinfo info;
  MPI_Request req;
} pm_mpi_tracked;
typedef struct {
  int n;             /* tracked requests */
  int nrecv;         /* ... of which receives */
  int have_st;       /* statuses passed to PMPI are readable */
  pm_mpi_tracked *t; /* sorted by idx */
  pm_mpi_tracked tbuf[PM_MPI_SNAP_STACK];
  MPI_Status *st; /* statuses passed to PMPI (user's or local) */
  MPI_Status stbuf[PM_MPI_SNAP_STACK];
  void *heap_t, *heap_st;
  MPI_Fint *fst; /* Fortran statuses passed to pmpi_*_ */
  void *heap_fst;
  MPI_Fint fstbuf[PM_MPI_SNAP_STACK * PM_MPI_F_STATUS_SIZE];
} pm_mpi_snap;

/* Single request (Wait, Test). */
PM_HIDDEN void pm_mpi_complete1(pm_mpi_ctx *X, MPI_Request before, MPI_Request after, const MPI_Status *st);
/* Arrays: 'pre' fills S and returns the statuses pointer to pass to PMPI; 'post' accounts the
 * completed tracked requests; 'end' frees what pre allocated. 'which' (post): */
enum { PM_MPI_DONE_ALL = 0, PM_MPI_DONE_ONE, PM_MPI_DONE_SOME };
PM_HIDDEN MPI_Status *pm_mpi_snap_pre(pm_mpi_snap *S, int count, const MPI_Request *reqs, MPI_Status *user_st,
                                      int single_status);
PM_HIDDEN void pm_mpi_snap_post(pm_mpi_ctx *X, pm_mpi_snap *S, int rc, int which, int done_flag, int one_index,
                                int outcount, const int *indices, const MPI_Request *reqs_after);
PM_HIDDEN void pm_mpi_snap_end(pm_mpi_snap *S);
/* Fortran: requests are MPI_Fint handles, statuses Fortran statuses (converted on use). */
PM_HIDDEN MPI_Fint *pm_mpi_fsnap_pre(pm_mpi_snap *S, int count, const MPI_Fint *reqs, MPI_Fint *user_st,
                                     int single_status);
PM_HIDDEN void pm_mpi_fsnap_post(pm_mpi_ctx *X, pm_mpi_snap *S, int rc, int which, int done_flag, int one_index,
                                 int outcount, const MPI_Fint *indices, const MPI_Fint *reqs_after);

/* Collectives: bytes out/in by the rules of README.md (per root, intercommunicators, IN_PLACE). */
PM_HIDDEN void pm_mpi_b_barrier(pm_mpi_ctx *X, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_bcast(pm_mpi_ctx *X, const void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_gather(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf,
                               int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_gatherv(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf,
                                const int *rcounts, MPI_Datatype rt, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_scatter(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const void *rbuf,
                                int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_scatterv(pm_mpi_ctx *X, const void *sbuf, const int *scounts, MPI_Datatype st, const void *rbuf,
                                 int rcount, MPI_Datatype rt, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_allgather(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, int rcount,
                                  MPI_Datatype rt, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_allgatherv(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, const int *rcounts,
                                   MPI_Datatype rt, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_alltoall(pm_mpi_ctx *X, const void *sbuf, int scount, MPI_Datatype st, int rcount,
                                 MPI_Datatype rt, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_alltoallv(pm_mpi_ctx *X, const void *sbuf, const int *scounts, MPI_Datatype st,
                                  const int *rcounts, MPI_Datatype rt, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_alltoallw(pm_mpi_ctx *X, const void *sbuf, const int *scounts, const MPI_Datatype *sts,
                                  const int *rcounts, const MPI_Datatype *rts, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_alltoallw_f(pm_mpi_ctx *X, const void *sbuf, const int *scounts, const MPI_Fint *sts,
                                    const int *rcounts, const MPI_Fint *rts, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_reduce(pm_mpi_ctx *X, const void *sbuf, int count, MPI_Datatype t, int root, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_allreduce(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_reduce_scatter(pm_mpi_ctx *X, const int *rcounts, MPI_Datatype t, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_reduce_scatter_block(pm_mpi_ctx *X, int rcount, MPI_Datatype t, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_scan(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_exscan(pm_mpi_ctx *X, int count, MPI_Datatype t, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_allgather(pm_mpi_ctx *X, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                                      MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_allgatherv(pm_mpi_ctx *X, int scount, MPI_Datatype st, const int *rcounts, MPI_Datatype rt,
                                       MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_alltoall(pm_mpi_ctx *X, int scount, MPI_Datatype st, int rcount, MPI_Datatype rt,
                                     MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_alltoallv(pm_mpi_ctx *X, const int *scounts, MPI_Datatype st, const int *rcounts,
                                      MPI_Datatype rt, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_alltoallw(pm_mpi_ctx *X, const int *scounts, const MPI_Datatype *sts, const int *rcounts,
                                      const MPI_Datatype *rts, MPI_Comm comm);
PM_HIDDEN void pm_mpi_b_nbr_alltoallw_f(pm_mpi_ctx *X, const int *scounts, const MPI_Fint *sts, const int *rcounts,
                                        const MPI_Fint *rts, MPI_Comm comm);
/* call: the collective (PM_MPI_*); then pm_mpi_cp_coll_post */
PM_HIDDEN void pm_mpi_pre_cpcoll(pm_mpi_ctx *X, MPI_Comm comm, pm_mpi_cpc *c, int call);
PM_HIDDEN void pm_mpi_b_newcomm(pm_mpi_ctx *X, MPI_Comm newcomm);

/* MPI-IO and one-sided. */
PM_HIDDEN void pm_mpi_b_io_read(pm_mpi_ctx *X, const MPI_Status *st);
PM_HIDDEN void pm_mpi_b_io_write(pm_mpi_ctx *X, const MPI_Status *st);
PM_HIDDEN void pm_mpi_b_io_iread(pm_mpi_ctx *X, int count, MPI_Datatype t);
PM_HIDDEN void pm_mpi_b_io_iwrite(pm_mpi_ctx *X, int count, MPI_Datatype t);
PM_HIDDEN void pm_mpi_b_rma_put(pm_mpi_ctx *X, int count, MPI_Datatype t, int target);
PM_HIDDEN void pm_mpi_b_rma_get(pm_mpi_ctx *X, int count, MPI_Datatype t, int target);
PM_HIDDEN void pm_mpi_b_rma_getacc(pm_mpi_ctx *X, int ocount, MPI_Datatype ot, int rcount, MPI_Datatype rt, int target);
PM_HIDDEN void pm_mpi_b_rma_atomic(pm_mpi_ctx *X, MPI_Datatype t, int target);

/* OTF2 trace (mpi_trace.c): on once every rank agreed to trace at MPI_Init. */
PM_HIDDEN extern int pm_mpi_trace_on;
PM_HIDDEN void pm_mpi_trace_init(void);
PM_HIDDEN uint32_t pm_mpi_trace_comm(MPI_Comm c); /* trace id of a communicator, UINT32_MAX: none */
PM_HIDDEN void pm_mpi_trace_newcomm(MPI_Comm c);
PM_HIDDEN void pm_mpi_t_send(pm_mpi_ctx *X, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                             MPI_Request req);
PM_HIDDEN void pm_mpi_t_coll(pm_mpi_ctx *X, MPI_Comm comm, int root);
struct pm_ipc;
PM_HIDDEN void pm_mpi_make_ipc(struct pm_ipc *ipc); /* mpi_report.c */

/* Lifecycle helpers (mpi_lifecycle.c). */
PM_HIDDEN void pm_mpi_after_init(uint64_t t0, int region_index);
PM_HIDDEN void pm_mpi_before_finalize(int region_index);
PM_HIDDEN void pm_mpi_after_finalize(void);
#endif
