/* StarPU adapter: the critical-path clock of StarPU-MPI transfers, sent on a side channel.
 *
 * Protocol. The channel is the MPI adapter's copy of MPI_COMM_WORLD (or, without one, a duplicate
 * made on StarPU-MPI's progress thread right after StarPU-MPI initialised MPI there:
 * _starpu_mpi_do_initialize; collective, every rank does it).
 * For each send of a handle h (data tag T) to rank d, the sending progress thread posts, just
 * before StarPU-MPI posts the envelope and the data, a non-blocking message to d on that
 * communicator with tag SP_CLOCK_TAG carrying T and the clock of h's last writer as it was when h
 * became ready for the send. The receiving side files every such message it finds by (source, T)
 * in arrival order; when StarPU-MPI releases the received handle -- before the handle's readers
 * can start -- the oldest clock filed for (source, T) is merged into the handle (its last writer
 * becomes the receive: max(local, received) + the transfer time, in COO).
 *
 * Why a side channel and not the MPI adapter's per-message piggyback: the progress thread serves
 * every handle, so its location clock (what the piggyback carries) is the maximum over all the
 * handles it moved so far -- a send of a handle written early would carry the clock of one
 * written late, and the critical path would grow through edges that do not exist. Setting the
 * progress thread's clock to the handle's before each send cannot be done either: the clock can
 * only grow (merge), and the data MPI_Isend is posted by StarPU-MPI, not by us.
 *
 * Order and matching: StarPU-MPI matches the receives of one (source, tag) in posting order and
 * posts the sends of one (destination, tag) in order, so FIFO per (source, tag) pairs them. The
 * clock is posted before the envelope on the same pair of processes, so it has normally arrived
 * when the data is complete; the receiver still waits for it a bounded time (PROGRESS_WAIT_NS on
 * the progress thread, which drains the channel while waiting, also when it drives a worker;
 * OTHER_WAIT_NS on another thread --
 * StarPU-MPI copies early-arrived data on the thread that acquired the handle -- which can only
 * find what the progress thread filed). A clock that does not come is counted as lost, and after
 * a lost clock on the progress thread the receivers stop waiting (a peer without popmeter, or a
 * StarPU-MPI whose send path we do not see, would otherwise delay every receive).
 * Limits: communicators other than MPI_COMM_WORLD carry clocks only when congruent with it; the
 * channel carries the global clocks only (process-local scope ignores cross-process edges by
 * definition). MPI calls are made on the progress thread only (thread level SERIALIZED). */
#define _GNU_SOURCE
#include "sp_mpi.h"
#include "mpi_adapter.h" /* pm_mpi_tool_comm */
#include "pm_lifecycle.h"
#include "pm_task_comm.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#pragma weak PMPI_Comm_compare
#pragma weak PMPI_Type_size

#define PROGRESS_WAIT_NS (2ull * 1000000000ull)
#define OTHER_WAIT_NS (20ull * 1000000ull)
#define MSG_WORDS (1 + PM_TG_WIRE_WORDS) /* data tag, clock */
#define MAX_FILED 65536                  /* clocks filed and not yet asked for */

static MPI_Comm clock_comm = MPI_COMM_NULL;
static int waiting_disabled;
/* Set on the thread that runs StarPU-MPI's progression loop (it calls _starpu_mpi_do_initialize).
 * That thread may also be a worker (STARPU_MPI_DRIVER_CALL_FREQUENCY > 0: the loop drives worker 0),
 * classified as such: it must still drain the channel while it waits, being the only one that does. */
static __thread int on_progression_loop;

/* ------------------------------------------------------------------------------ communicator */
SP_EXPORT void _starpu_mpi_do_initialize(void *argc_argv) {
  static void (*real)(void *);
  SP_REAL(real, _starpu_mpi_do_initialize);
  if (real) real(argc_argv);
  on_progression_loop = 1;
  if (!pm_core_is_active() || !PMPI_Initialized || !PMPI_Comm_dup) return;
  int init = 0, fin = 0;
  if (PMPI_Initialized(&init) != MPI_SUCCESS || !init || PMPI_Finalized(&fin) != MPI_SUCCESS || fin) return;
  /* The MPI adapter's own copy of MPI_COMM_WORLD when it made one (popmeter's collectives run on it,
   * no other point-to-point traffic: the clock tag is alone there). Else a dup, not
   * pm_mpi_comm_copy: StarPU-MPI's progression thread may already have receives pending on
   * MPI_COMM_WORLD, and nothing here says none takes any tag (mpi_comm_copy.h). A dup registers
   * Open MPI's libnbc progress function for the rest of the run, a cost on every MPI_Test of the
   * progression thread (docs/runtime-facts.md §3), which the adapter's copy avoided. */
  if (pm_mpi_tool_comm() != MPI_COMM_NULL) {
    clock_comm = pm_mpi_tool_comm();
  } else if (PMPI_Comm_dup(MPI_COMM_WORLD, &clock_comm) == MPI_SUCCESS) {
    PMPI_Comm_set_errhandler(clock_comm, MPI_ERRORS_RETURN);
  } else {
    clock_comm = MPI_COMM_NULL;
    return;
  }
  if (pm_core_size() <= 1) { /* no MPI adapter told the core which process this is */
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    pm_core_set_process(rank, size);
  }
}

#define MAX_COMMS 16
static struct {
  MPI_Comm comm;
  int congruent;
} comms[MAX_COMMS];
static int ncomms;

int sp_clock_usable(MPI_Comm comm) {
  if (clock_comm == MPI_COMM_NULL) return 0;
  if (comm == MPI_COMM_WORLD) return 1;
  int n = __atomic_load_n(&ncomms, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (comms[i].comm == comm) return comms[i].congruent;
  return 0;
}

void sp_clock_learn_comm(MPI_Comm comm) {
  if (clock_comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || ncomms >= MAX_COMMS || !PMPI_Comm_compare) return;
  for (int i = 0; i < ncomms; i++)
    if (comms[i].comm == comm) return;
  int r = MPI_UNEQUAL;
  if (PMPI_Comm_compare(comm, MPI_COMM_WORLD, &r) != MPI_SUCCESS) return;
  comms[ncomms].comm = comm;
  comms[ncomms].congruent = r == MPI_IDENT || r == MPI_CONGRUENT;
  __atomic_store_n(&ncomms, ncomms + 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------------ sending */
/* Buffers of clock messages in flight: chunks that never move (an MPI_Isend reads its buffer
 * until it completes), recycled once PMPI_Test says so. Progress thread only. */
#define CHUNK 64
#define MAX_CHUNKS 1024
typedef struct {
  MPI_Request req;
  uint64_t w[MSG_WORDS];
} slot;
static slot *chunks[MAX_CHUNKS];
static int nchunks, next_slot;

static slot *free_slot(void) {
  int n = nchunks * CHUNK;
  for (int k = 0; k < n; k++) { /* round robin from the last one used: oldest first */
    slot *s = &chunks[next_slot / CHUNK][next_slot % CHUNK];
    next_slot = (next_slot + 1) % n;
    if (s->req == MPI_REQUEST_NULL) return s;
    int done = 0;
    if (PMPI_Test(&s->req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done) return s;
    if (k >= 8) break; /* several busy in a row: grow rather than scan them all */
  }
  if (nchunks >= MAX_CHUNKS || !(chunks[nchunks] = malloc(CHUNK * sizeof(slot)))) return NULL;
  for (int i = 0; i < CHUNK; i++) chunks[nchunks][i].req = MPI_REQUEST_NULL;
  next_slot = nchunks * CHUNK + 1;
  return &chunks[nchunks++][0];
}

void sp_clock_send(int peer, int64_t data_tag, const pm_tg_clk *c) {
  if (clock_comm == MPI_COMM_NULL || peer < 0) return;
  slot *s = free_slot();
  if (!s) return;
  s->w[0] = (uint64_t)data_tag;
  pm_tg_clk_pack(c, s->w + 1);
  if (PMPI_Isend(s->w, MSG_WORDS, MPI_UINT64_T, peer, SP_CLOCK_TAG, clock_comm, &s->req) == MPI_SUCCESS)
    pm_tc_clock_event(PM_TC_CLOCK_SENT);
  else
    s->req = MPI_REQUEST_NULL;
}

/* ------------------------------------------------------------------------------ receiving */
typedef struct {
  int peer;
  int64_t tag;
  uint64_t w[PM_TG_WIRE_WORDS];
} filed;
static filed *box; /* clocks received, in arrival order */
static int nbox, capbox;
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;

static void file_clock(int peer, const uint64_t *msg) {
  pthread_mutex_lock(&box_lock);
  if (nbox == capbox && capbox < MAX_FILED) {
    int n = capbox ? 2 * capbox : 64;
    filed *b = realloc(box, (size_t)n * sizeof *b);
    if (b) {
      box = b;
      capbox = n;
    }
  }
  if (nbox < capbox) {
    box[nbox].peer = peer;
    box[nbox].tag = (int64_t)msg[0];
    memcpy(box[nbox].w, msg + 1, sizeof box[nbox].w);
    nbox++;
  }
  pthread_mutex_unlock(&box_lock);
}

static int take_clock(int peer, int64_t tag, pm_tg_clk *out) {
  int found = 0;
  pthread_mutex_lock(&box_lock);
  for (int i = 0; i < nbox; i++) {
    if (box[i].peer != peer || box[i].tag != tag) continue;
    pm_tg_clk_unpack(out, box[i].w);
    memmove(&box[i], &box[i + 1], (size_t)(nbox - i - 1) * sizeof *box);
    nbox--;
    found = 1;
    break;
  }
  pthread_mutex_unlock(&box_lock);
  return found;
}

void sp_clock_drain(void) {
  if (clock_comm == MPI_COMM_NULL) return;
  for (;;) {
    int flag = 0;
    MPI_Message m;
    MPI_Status st;
    if (PMPI_Improbe(MPI_ANY_SOURCE, SP_CLOCK_TAG, clock_comm, &flag, &m, &st) != MPI_SUCCESS || !flag) return;
    uint64_t msg[MSG_WORDS];
    if (PMPI_Mrecv(msg, MSG_WORDS, MPI_UINT64_T, &m, MPI_STATUS_IGNORE) == MPI_SUCCESS) file_clock(st.MPI_SOURCE, msg);
  }
}

int sp_clock_receive(int peer, int64_t data_tag, pm_tg_clk *out) {
  sp_thread *T = sp_self();
  int progress = on_progression_loop || (T && T->kind == SP_THREAD_PROGRESS);
  if (progress) sp_clock_drain();
  if (take_clock(peer, data_tag, out)) {
    pm_tc_clock_event(PM_TC_CLOCK_RECEIVED);
    return 1;
  }
  if (!__atomic_load_n(&waiting_disabled, __ATOMIC_RELAXED)) {
    uint64_t t0 = pm_clock_now(), limit = progress ? PROGRESS_WAIT_NS : OTHER_WAIT_NS;
    while (pm_clock_now() - t0 < limit) {
      if (progress)
        sp_clock_drain();
      else
        sched_yield();
      if (take_clock(peer, data_tag, out)) {
        pm_tc_clock_event(PM_TC_CLOCK_RECEIVED);
        return 1;
      }
    }
    if (progress && !__atomic_exchange_n(&waiting_disabled, 1, __ATOMIC_RELAXED))
      pm_warn("critical path: the clock of a StarPU-MPI transfer from rank %d (data tag %lld) did not arrive; "
              "transfers are no longer waited for (the critical path may miss cross-process edges)",
              peer, (long long)data_tag);
  }
  pm_tc_clock_event(PM_TC_CLOCK_LOST);
  return 0;
}
