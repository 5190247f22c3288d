/* Node-local clock slots of the critical-path piggyback: the clocks of a blocking collective on a
 * communicator whose ranks all share one node travel through shared memory, not through messages.
 *
 * Every rank owns a ring of PM_CPSLOT_RING slots in one POSIX shared-memory segment per shadow
 * communicator. At the collective's entry a rank writes its clocks into the slot of the
 * collective's epoch (the count of blocking collectives on the communicator: every rank calls them
 * in the same order, MPI's rule); after the collective it merges the slots of the other ranks that
 * hold this epoch. A rank this one depends on has written its slot before it entered, and this
 * rank cannot leave before that entry (the collective's data came from it), so the slot is there:
 * all-to-all collectives (allreduce, allgather, alltoall, barrier...) merge every rank, as the
 * message protocol does, and rooted ones merge at least the ranks the data came from -- without
 * the synchronisation the clock messages added. MPI_Barrier needs no more than the slots: a rank
 * leaves once every other rank's slot holds the barrier's epoch (pm_mpi_cpslots_barrier), and the
 * runtime's barrier is not called. A slot is a seqlock: a reader that finds another epoch or sees
 * it change while reading skips it; an older epoch (the owner has not entered yet, or enters while
 * it is read) is no dependency, a later one (the owner is PM_CPSLOT_RING collectives ahead and
 * reused the slot), or this one rewritten while read, a lost clock (mpi_cpslot_verdict.h).
 * Costs per collective: one slot write, one read per other rank (a cache line each), instead of
 * three MPI calls (2 ranks) or a clock allreduce (more); the written line is demoted to the shared
 * cache and the next one fetched for writing ahead of time (pm_cacheline.h); the lines to read are
 * requested when the collective returns and read after the call's exit (pm_mpi_cpslots_prefetch).
 *
 * Point-to-point messages on such a communicator (up to PM_CPP2P_MAX_RANKS ranks) carry their clock
 * the same way: one ring of entries per ordered pair of ranks (256 to 4096 of them: 4 MiB in all, so
 * 4096 on 2 or 4 ranks, 256 on 16). The sender writes
 * (send number + 1, tag, clocks) into the next entry of its ring to the destination before it
 * posts the data; the receiver, once a receive completed with (source, tag), takes the oldest entry
 * from that source with that tag it has not taken yet. MPI's non-overtaking rule (messages from one
 * sender that match one receive arrive in the order they were sent) makes it that message's entry.
 * Each entry is one cache line the receiver reads, instead of a clock message: an Isend and a Test
 * on the sender, an Improbe and an Mrecv on the receiver. What the receiver took is its own record
 * (taken[]), so the ring is written by the sender only. An entry overwritten before it was taken
 * (more messages in flight to one rank than its ring holds) is a lost clock, counted and reported at
 * MPI_Finalize. */
#include "mpi_adapter.h"
#include "mpi_cpslot_verdict.h"
#include "pm_mpi_calls.h" /* PM_MPI_NCALLS */
#include "pm_cacheline.h"
#include "pm_lifecycle.h"
#include "pm_slab.h" /* pm_spin */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#define BARRIER_YIELD_AFTER_NS 50000 /* a barrier's wait beyond which it yields the CPU at each turn */
#define PM_CPSLOT_RING 256           /* collectives a rank may run ahead of the others and still be read */
/* Reading one cache line per other rank costs ~0.1 us each: beyond this many ranks the clock
 * allreduce of the message protocol (logarithmic depth) is the cheaper one. */
#define PM_CPSLOT_MAX_RANKS 32
#define PM_CPP2P_BYTES (4u << 20) /* all the rings of a communicator */
#define PM_CPP2P_RING_MIN 256     /* messages in flight from one rank to another that keep their clock */
#define PM_CPP2P_RING_MAX 4096
#define PM_CPP2P_MAX_RANKS 16 /* 16 x 16 rings of 256 entries of 64 bytes: the 4 MiB */
#define PM_CPP2P_GAPS 4       /* entries not yet published that a scan passes (concurrent senders) */

/* One entry of a ring, a cache line, written by its owner only, as a seqlock: seq is BUSY while
 * the rest is written. seq: the collective's epoch (tag unused), or 1 + the send's number on its
 * pair (tag: the message's). */
typedef struct {
  uint64_t seq;
  int64_t tag;
  uint64_t clk[3];
  uint64_t pad[3];
} slot;

typedef struct {
  uint64_t low; /* every message from this source numbered below was taken, or lost */
  pm_spin lock; /* receiving threads take entries one at a time */
} p2pin;

struct pm_mpi_cpslots {
  slot *base; /* size rings of PM_CPSLOT_RING slots for the collectives */
  size_t len;
  int rank, size;
  uint64_t epoch; /* collectives on this communicator so far (MPI serialises them) */
  /* point-to-point (NULL: clock messages): rings [from][to] in the segment, after the collectives' */
  slot *p2p;
  uint64_t *sent;  /* [size]: messages sent to each rank so far */
  p2pin *in;       /* [size]: per source */
  uint64_t *taken; /* [size][ring]: the seq taken at each position of each incoming ring */
  uint64_t ring;   /* entries per ring, a power of two */
};

static uint64_t lost;

/* the private parts of s (not the mapping), and s */
static void free_parts(pm_mpi_cpslots *s) {
  if (!s) return;
  free(s->sent);
  free(s->in);
  free(s->taken);
  free(s);
}

static slot *slot_of(const pm_mpi_cpslots *s, int rank, uint64_t epoch) {
  return &s->base[(size_t)rank * PM_CPSLOT_RING + epoch % PM_CPSLOT_RING];
}

static void slot_write(slot *x, uint64_t seq, int64_t tag, const uint64_t clk[3]) {
  __atomic_store_n(&x->seq, PM_CPSLOT_BUSY, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(&x->tag, tag, __ATOMIC_RELAXED);
  for (int k = 0; k < 3; k++) __atomic_store_n(&x->clk[k], clk[k], __ATOMIC_RELAXED);
  __atomic_store_n(&x->seq, seq, __ATOMIC_RELEASE);
  pm_line_demote(x); /* another rank reads it next */
}

/* The entry's seq as first read; tag and clk as read after it, *torn when the owner rewrote the
 * entry meanwhile (they are then not the ones of that seq). */
static uint64_t slot_read(const slot *x, int64_t *tag, uint64_t clk[3], int *torn) {
  uint64_t seq = __atomic_load_n(&x->seq, __ATOMIC_ACQUIRE);
  *tag = __atomic_load_n(&x->tag, __ATOMIC_RELAXED);
  for (int k = 0; k < 3; k++) clk[k] = __atomic_load_n(&x->clk[k], __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  *torn = __atomic_load_n(&x->seq, __ATOMIC_RELAXED) != seq;
  return seq;
}

static void clock_max(uint64_t out[3], const uint64_t c[3]) {
  for (int k = 0; k < 3; k++)
    if (c[k] > out[k]) out[k] = c[k];
}

/* A value no other segment holds: the proof that a rank mapped the creator's segment. Never 0,
 * what a fresh segment holds there. */
static uint64_t segment_nonce(void) {
  uint64_t n = 0;
  if (getrandom(&n, sizeof n, 0) != (ssize_t)sizeof n) n = 0;
  n ^= pm_clock_monotonic() ^ ((uint64_t)getpid() << 32);
  return n ? n : 1;
}

/* What rank 0 tells the others: the segment's name ("" when it has none) and its nonce. */
typedef struct {
  char name[64];
  uint64_t nonce;
} segment_id;

pm_mpi_cpslots *pm_mpi_cpslots_new(MPI_Comm comm, int size) {
  if (size < 2 || size > PM_CPSLOT_MAX_RANKS) return NULL; /* the same answer on every rank */
  int rank = 0;
  if (!pm_mpi_all_agree(comm, pm_config_get()->i[PM_CFG_CP_SHARED_MEMORY]) ||
      PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
    return NULL;

  size_t len_coll = (size_t)size * PM_CPSLOT_RING * sizeof(slot);
  int p2p = size <= PM_CPP2P_MAX_RANKS; /* the same answer on every rank */
  uint64_t ring = PM_CPP2P_RING_MAX;
  while (ring > PM_CPP2P_RING_MIN && (uint64_t)size * (uint64_t)size * ring * sizeof(slot) > PM_CPP2P_BYTES) ring /= 2;
  size_t len_rings = len_coll + (p2p ? (size_t)size * (size_t)size * ring * sizeof(slot) : 0);
  size_t len = len_rings + sizeof(slot); /* the last line holds the nonce */
  /* On one node? Rank 0 creates the segment and writes a nonce into it; a rank that can open the
   * segment by its name and finds the nonce there shares memory with rank 0 (a rank of another
   * node cannot open it, or opens another one). No communicator is made for the question: one made
   * by MPI_Comm_split_type would register Open MPI's libnbc progress (mpi_comm_copy.c). */
  segment_id id = {"", 0};
  static unsigned serial;
  int fd = -1;
  if (rank == 0) { /* the creator names it; a name taken by a stale segment is tried again */
    for (int k = 0; k < 8 && fd < 0; k++) {
      snprintf(id.name, sizeof id.name, "/popmeter-cp.%ld.%u", (long)getpid(),
               __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
      fd = shm_open(id.name, O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd >= 0 && ftruncate(fd, (off_t)len) != 0) {
      close(fd);
      shm_unlink(id.name);
      fd = -1;
    }
    if (fd < 0) id.name[0] = '\0';
    id.nonce = segment_nonce();
  }
  if (PMPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm) != MPI_SUCCESS) id.name[0] = '\0';
  if (rank != 0 && id.name[0]) fd = shm_open(id.name, O_RDWR, 0600);
  void *map = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);
  uint64_t *nonce = map != MAP_FAILED ? (uint64_t *)((char *)map + len_rings) : NULL;
  if (nonce && rank == 0) __atomic_store_n(nonce, id.nonce, __ATOMIC_RELAXED);
  /* every rank has mapped it or given up before anyone checks: the nonce is written by then */
  int mapped = pm_mpi_all_agree(comm, map != MAP_FAILED);
  pm_mpi_cpslots *s = mapped && __atomic_load_n(nonce, __ATOMIC_RELAXED) == id.nonce ? calloc(1, sizeof *s) : NULL;
  if (s && p2p) {
    s->sent = calloc((size_t)size, sizeof *s->sent);
    s->in = calloc((size_t)size, sizeof *s->in);
    s->taken = calloc((size_t)size * ring, sizeof *s->taken);
    if (!s->sent || !s->in || !s->taken) {
      free_parts(s);
      s = NULL;
    }
  }
  int ok = mapped && pm_mpi_all_agree(comm, s != NULL);
  if (rank == 0 && id.name[0]) shm_unlink(id.name); /* everyone has it mapped, or gives up */
  if (!ok) {
    if (map != MAP_FAILED) munmap(map, len);
    free_parts(s);
    return NULL;
  }
  s->base = map;
  s->len = len;
  s->rank = rank;
  s->size = size;
  if (p2p) s->p2p = (slot *)((char *)map + len_coll);
  s->ring = ring;
  return s;
}

void pm_mpi_cpslots_free(pm_mpi_cpslots *s) {
  if (!s) return;
  munmap(s->base, s->len);
  free_parts(s);
}

uint64_t pm_mpi_cpslots_put(pm_mpi_cpslots *s, const uint64_t clk[3], int call) {
  uint64_t e = ++s->epoch; /* starts at 1: a fresh (zero) slot holds no epoch */
  slot_write(slot_of(s, s->rank, e), e, call, clk);
  return e;
}

static const char *call_name(int64_t call) {
  return call >= 0 && call < PM_MPI_NCALLS ? pm_region_name(pm_mpi_region[call]) : "?";
}

/* A peer's slot of this epoch names another collective than this rank's: the ranks do not count
 * the same collectives on the communicator (one reached popmeter's wrappers on some ranks only),
 * so the epochs no longer pair the same calls. Said once; nothing can be repaired from one side. */
static void collectives_differ(const pm_mpi_cpslots *s, int peer, int64_t theirs, int ours, uint64_t epoch) {
  static int said;
  if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
  pm_warn("critical path: on a communicator of %d ranks, collective number %llu was %s on rank %d and %s on "
          "rank %d: the ranks' collectives differ (one called outside popmeter's MPI wrappers on some "
          "ranks?); critical-path clocks through that communicator are unreliable, and its MPI_Barrier "
          "may let a rank through before the others entered",
          s->size, (unsigned long long)epoch, call_name(theirs), peer, call_name(ours), s->rank);
}

/* Reads rank r's slot of the collective of epoch (this rank's: call) and acts on the verdict:
 * merges its clocks into out, or counts a lost clock; absent, nothing. */
static pm_cpslot_verdict take_slot(const pm_mpi_cpslots *s, int r, uint64_t epoch, int call, uint64_t out[3]) {
  int64_t tag;
  uint64_t c[3];
  int torn;
  uint64_t seq = slot_read(slot_of(s, r, epoch), &tag, c, &torn); /* sets torn: read before the verdict */
  pm_cpslot_verdict v = pm_cpslot_verdict_of(seq, torn, epoch);
  if (v == PM_CPSLOT_LOST) __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
  if (v != PM_CPSLOT_MERGE) return v;
  if (tag != call) collectives_differ(s, r, tag, call, epoch);
  clock_max(out, c);
  return v;
}

int pm_mpi_cpslots_max(const pm_mpi_cpslots *s, uint64_t epoch, int call, uint64_t out[3]) {
  int merged = 0;
  for (int r = 0; r < s->size; r++)
    if (r != s->rank && take_slot(s, r, epoch, call, out) == PM_CPSLOT_MERGE) merged++;
  pm_line_prefetch_write(slot_of(s, s->rank, epoch + 1)); /* this rank's next collective writes it */
  return merged;
}

void pm_mpi_cpslots_barrier(const pm_mpi_cpslots *s, uint64_t epoch, int call, uint64_t out[3],
                            void (*progress)(void *), void *arg) {
  uint64_t left = 0, t0 = 0; /* left: the other ranks not yet seen in the collective of epoch */
  for (int r = 0; r < s->size; r++)
    if (r != s->rank) left |= (uint64_t)1 << r;
  for (unsigned spins = 1; left; spins++) {
    /* absent: not entered yet (wait); lost, a later epoch: it entered, saw this rank's slot, left
     * and went a ring of (rooted) collectives further before this rank looked */
    for (uint64_t m = left; m; m &= m - 1) {
      int r = __builtin_ctzll(m);
      if (take_slot(s, r, epoch, call, out) != PM_CPSLOT_ABSENT) left &= ~((uint64_t)1 << r);
    }
    if (!left) break;
    if (spins % 16) {
      __builtin_ia32_pause();
      continue;
    }
    /* a longer wait: MPI progress for the application's pending operations (a barrier is a
     * progress point); after 50 us, the CPU for another process at each turn (more ranks than
     * cores: the one awaited may be waiting for it) */
    uint64_t now = pm_clock_now();
    if (!t0) t0 = now;
    if (progress) progress(arg);
    if (now - t0 > BARRIER_YIELD_AFTER_NS) sched_yield();
  }
  pm_line_prefetch_write(slot_of(s, s->rank, epoch + 1)); /* this rank's next collective writes it */
}

void pm_mpi_cpslots_prefetch(const pm_mpi_cpslots *s, uint64_t epoch) {
  for (int r = 0; r < s->size; r++)
    if (r != s->rank) __builtin_prefetch(slot_of(s, r, epoch), 0, 3);
}

uint64_t pm_mpi_cpslots_lost(void) { return __atomic_load_n(&lost, __ATOMIC_RELAXED); }

/* ------------------------------------------------------------------------------ point-to-point */
int pm_mpi_cpslots_p2p(const pm_mpi_cpslots *s) { return s && s->p2p; }

static slot *p2p_slot(const pm_mpi_cpslots *s, int from, int to, uint64_t n) {
  return &s->p2p[((size_t)from * (size_t)s->size + (size_t)to) * s->ring + (n & (s->ring - 1))];
}

void pm_mpi_cpslots_send(pm_mpi_cpslots *s, int to, int tag, const uint64_t clk[3]) {
  if (to < 0 || to >= s->size) return;
  uint64_t n = __atomic_fetch_add(&s->sent[to], 1, __ATOMIC_RELAXED);
  slot_write(p2p_slot(s, s->rank, to, n), n + 1, tag, clk);
  pm_line_prefetch_write(p2p_slot(s, s->rank, to, n + 1)); /* the next message to 'to' */
}

int pm_mpi_cpslots_recv(pm_mpi_cpslots *s, int from, int tag, uint64_t out[3]) {
  if (from < 0 || from >= s->size) return 0;
  p2pin *in = &s->in[from];
  uint64_t *taken = &s->taken[(size_t)from * s->ring], mask = s->ring - 1;
  pm_spin_lock(&in->lock);
  int found = 0, gaps = 0;
  for (uint64_t n = in->low; n < in->low + s->ring && gaps < PM_CPP2P_GAPS; n++) {
    int64_t t;
    uint64_t c[3];
    int torn;
    uint64_t seq = slot_read(p2p_slot(s, from, s->rank, n), &t, c, &torn);
    if (seq == PM_CPSLOT_BUSY || seq < n + 1) { /* not sent yet (or being written by another thread) */
      gaps++;
      continue;
    }
    gaps = 0;
    if (seq > n + 1) { /* overwritten: a ring of messages later than this one was sent first */
      if (taken[n & mask] != n + 1) __atomic_add_fetch(&lost, 1, __ATOMIC_RELAXED);
      taken[n & mask] = n + 1;
      continue;
    }
    if (taken[n & mask] == seq || torn || t != (int64_t)tag) continue;
    taken[n & mask] = seq;
    clock_max(out, c);
    found = 1;
    break;
  }
  while (taken[in->low & mask] == in->low + 1) in->low++; /* the taken prefix */
  pm_spin_unlock(&in->lock);
  return found;
}
