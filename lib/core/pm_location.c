#define _GNU_SOURCE
/* Locations: lazy per-thread registration, the state machine and the per-location call-path tree.
 * Hot path rules: no locks, no syscalls, no malloc except when a call path is seen for the first
 * time (bounded by the number of call paths); one clock read per transition, done by the caller. */
#include "pm_location.h"
#include "pm_state_tables.h"
#include "pm_lifecycle.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <fcntl.h>

__thread pm_loc *pm_tls_loc __attribute__((tls_model("initial-exec")));
__thread int pm_tls_guard __attribute__((tls_model("initial-exec")));
static pm_loc *locations[PM_MAX_LOCATIONS];
static uint32_t nlocations;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int locations_exhausted;
static const pm_loc_observer *observers[PM_MAX_OBSERVERS];
static uint32_t nobservers;

uint32_t pm_loc_count(void) { return __atomic_load_n(&nlocations, __ATOMIC_ACQUIRE); }
pm_loc *pm_loc_at(uint32_t i) { return i < pm_loc_count() ? locations[i] : NULL; }
uint32_t pm_loc_id(const pm_loc *L) { return L->id; }
uint32_t pm_loc_node_count(const pm_loc *L) { return __atomic_load_n(&L->nnodes, __ATOMIC_ACQUIRE); }
pm_cpnode *pm_loc_node(const pm_loc *L, uint32_t idx) { return &L->chunks[idx / PM_NODE_CHUNK][idx % PM_NODE_CHUNK]; }

/* ------------------------------------------------------------------------------ call-path nodes */
static uint64_t slot_hash(uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 20; }

static int hash_grow(pm_loc *L) {
  uint32_t ncap = L->hash_cap ? L->hash_cap * 2 : 512;
  pm_cpslot *n = calloc(ncap, sizeof *n);
  if (!n) return -1;
  for (uint32_t i = 0; i < L->hash_cap; i++) {
    if (!L->hash[i].node) continue;
    uint64_t j = slot_hash(L->hash[i].key) & (ncap - 1);
    while (n[j].node) j = (j + 1) & (ncap - 1);
    n[j] = L->hash[i];
  }
  free(L->hash);
  L->hash = n;
  L->hash_cap = ncap;
  return 0;
}

/* Appends a node; returns its index or UINT32_MAX when the per-location bound is reached. */
static uint32_t node_new(pm_loc *L, uint32_t parent, pm_region_id region) {
  uint32_t idx = L->nnodes;
  if (idx >= PM_NODE_CHUNK * PM_MAX_NODE_CHUNKS) {
    L->nodes_exhausted = 1;
    return UINT32_MAX;
  }
  if (!L->chunks[idx / PM_NODE_CHUNK]) {
    L->chunks[idx / PM_NODE_CHUNK] = calloc(PM_NODE_CHUNK, sizeof(pm_cpnode));
    if (!L->chunks[idx / PM_NODE_CHUNK]) {
      L->nodes_exhausted = 1;
      return UINT32_MAX;
    }
  }
  pm_cpnode *n = pm_loc_node(L, idx);
  n->region = region;
  n->parent = parent;
  __atomic_store_n(&L->nnodes, idx + 1, __ATOMIC_RELEASE);
  return idx;
}

/* The child of 'parent' for 'region', created on first use. Falls back to the parent itself when
 * memory or the bound runs out, so accounting continues (coarser, never lost). */
static uint32_t node_child(pm_loc *L, uint32_t parent, pm_region_id region) {
  uint64_t key = ((uint64_t)parent << 32) | region;
  if (L->hash_cap) {
    for (uint64_t j = slot_hash(key) & (L->hash_cap - 1);; j = (j + 1) & (L->hash_cap - 1)) {
      if (!L->hash[j].node) break;
      if (L->hash[j].key == key) return L->hash[j].node - 1;
    }
  }
  if ((L->nnodes + 1) * 2 > L->hash_cap && hash_grow(L) != 0) return parent;
  uint32_t idx = node_new(L, parent, region);
  if (idx == UINT32_MAX) return parent;
  uint64_t j = slot_hash(key) & (L->hash_cap - 1);
  while (L->hash[j].node) j = (j + 1) & (L->hash_cap - 1);
  L->hash[j] = (pm_cpslot){key, idx + 1};
  return idx;
}

/* ------------------------------------------------------------------------------------ observers */
int pm_loc_observer_add(const pm_loc_observer *obs) {
  pthread_mutex_lock(&reg_lock);
  int slot = nobservers < PM_MAX_OBSERVERS ? (int)nobservers : -1;
  if (slot >= 0) {
    observers[slot] = obs;
    __atomic_store_n(&nobservers, slot + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&reg_lock);
  return slot;
}

/* Out of line: only locations with observers get here. */
static __attribute__((noinline)) void notify_charge(pm_loc *L, uint64_t now) {
  for (unsigned k = 0; k < L->nobs; k++)
    if (observers[k]->charge) observers[k]->charge(L, k, now);
}
static __attribute__((noinline)) void notify_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now) {
  for (unsigned k = 0; k < L->nobs; k++)
    if (observers[k]->enter) observers[k]->enter(L, k, r, s, L->depth, now);
}
static __attribute__((noinline)) void notify_leave(pm_loc *L, uint64_t now) {
  for (unsigned k = 0; k < L->nobs; k++)
    if (observers[k]->leave) observers[k]->leave(L, k, L->depth, now);
}
static __attribute__((noinline)) void notify_state(pm_loc *L, pm_state from, pm_state to, uint64_t now) {
  for (unsigned k = 0; k < L->nobs; k++)
    if (observers[k]->state) observers[k]->state(L, k, from, to, now);
}

/* ------------------------------------------------------------------------------ waits for a CPU */
/* The thread's run-queue wait so far, ns (second field of /proc/self/task/TID/schedstat);
 * UINT64_MAX when the kernel does not say. Raw system calls: popmeter's own I/O wrappers must not
 * count this as the application's I/O. */
static uint64_t runq_wait_now(int32_t tid) {
  char path[64], buf[128];
  snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return UINT64_MAX;
  long n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return UINT64_MAX;
  buf[n] = '\0';
  unsigned long long run, wait;
  return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (uint64_t)wait : UINT64_MAX;
}

static void runq_begin(pm_loc *L) {
  L->runq_final = UINT64_MAX;
  L->runq_base = L->is_virtual ? UINT64_MAX : runq_wait_now(L->tid);
}

/* The wait since the window began, read on the thread itself or on another thread of the process
 * (the finalizer reads the threads still running). */
static uint64_t runq_since_begin(const pm_loc *L) {
  if (L->runq_base == UINT64_MAX) return UINT64_MAX;
  uint64_t w = runq_wait_now(L->tid);
  return w == UINT64_MAX ? UINT64_MAX : w > L->runq_base ? w - L->runq_base : 0;
}

uint64_t pm_loc_cpu_wait(const pm_loc *L) { return L->closed ? L->runq_final : runq_since_begin(L); }

/* ---------------------------------------------------------------------------------- registration */
static void thread_exit(void *arg) {
  pm_loc *L = arg;
  if (L && !L->closed) {
    L->runq_final = runq_since_begin(L);
    uint64_t now = pm_clock_now();
    pm_state_set(L, PM_STATE_OFF, now);
    for (unsigned k = 0; k < L->nobs; k++)
      if (observers[k]->detach) observers[k]->detach(L, k, now);
    L->closed = 1;
  }
}
static void make_exit_key(void) { pthread_key_create(&exit_key, thread_exit); }

static pm_loc *loc_new(pm_loc_role role, const char *name, int is_virtual) {
  pm_loc *L = calloc(1, sizeof *L);
  if (!L) return NULL;
  if (role == PM_ROLE_THREAD && !is_virtual && (pid_t)syscall(SYS_gettid) == getpid()) role = PM_ROLE_MAIN;
  L->role = role;
  L->is_virtual = is_virtual;
  L->tid = is_virtual ? 0 : (int32_t)syscall(SYS_gettid);
  runq_begin(L);
  snprintf(L->name, sizeof L->name, "%s", name ? name : pm_loc_role_name(role));
  /* one root for every thread of the process (pm_loc_set_base, pm_call_enter_under) */
  pm_region_id root = pm_region_register("main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  if (hash_grow(L) != 0 || node_new(L, UINT32_MAX, root) != 0) {
    free(L->hash);
    free(L->chunks[0]);
    free(L);
    return NULL;
  }
  L->cur = 0;
  L->cur_node = L->byte_node = pm_loc_node(L, 0);
  L->cur_node->visits = 1;
  L->state = PM_STATE_USEFUL;
  /* One critical section takes the id and publishes the location, so two threads registering at
   * once can never get the same id. */
  pthread_mutex_lock(&reg_lock);
  if (nlocations >= PM_MAX_LOCATIONS) {
    pthread_mutex_unlock(&reg_lock);
    free(L->hash);
    free(L->chunks[0]);
    free(L);
    if (!__atomic_exchange_n(&locations_exhausted, 1, __ATOMIC_RELAXED))
      pm_warn("more than %d threads: further threads are not measured", PM_MAX_LOCATIONS);
    return NULL;
  }
  L->id = nlocations;
  L->t_last = L->t_registered = pm_clock_now();
  locations[L->id] = L;
  __atomic_store_n(&nlocations, L->id + 1, __ATOMIC_RELEASE);
  uint32_t nobs = nobservers;
  pthread_mutex_unlock(&reg_lock);
  /* attached before the location is returned to its thread, so no event is missed; nobs is set
   * last so that a failed attach (an observer leaving obs_data NULL) is the observer's business */
  for (unsigned k = 0; k < nobs; k++)
    if (observers[k]->attach) observers[k]->attach(L, k);
  L->nobs = nobs;
  return L;
}

/* Set by an adapter that can tell what a new thread is (a StarPU worker, the MPI progress
 * thread...); called once per thread right after its location is registered. */
static void (*thread_classifier)(pm_loc *);
void pm_loc_set_thread_classifier(void (*fn)(pm_loc *L)) { __atomic_store_n(&thread_classifier, fn, __ATOMIC_RELEASE); }

pm_loc *pm_loc_self(void) {
  pm_loc *L = pm_tls_loc;
  if (PM_LIKELY(L != NULL)) return pm_core_is_active() ? L : NULL;
  if (!pm_core_is_active()) return NULL;
  L = loc_new(PM_ROLE_THREAD, NULL, 0);
  if (!L) return NULL;
  pm_tls_loc = L;
  pthread_once(&exit_key_once, make_exit_key);
  pthread_setspecific(exit_key, L);
  void (*classify)(pm_loc *) = __atomic_load_n(&thread_classifier, __ATOMIC_ACQUIRE);
  if (classify) classify(L);
  return L;
}

/* pm_enter_tool when the thread has no location yet, or re-enters, or measurement stopped */
pm_loc *pm_enter_tool_slow(void) {
  if (pm_tls_guard) return NULL;
  pm_loc *L = pm_loc_self();
  if (L) pm_tls_guard = 1;
  return L;
}
int pm_in_tool(void) { return pm_tls_guard; }
void pm_set_in_tool(int v) { pm_tls_guard = v; }

pm_loc *pm_loc_create_virtual(pm_loc_role role, const char *name) { return loc_new(role, name, 1); }

void pm_loc_backdate(pm_loc *L, uint64_t t, pm_state s, uint64_t now) {
  if (L->t_last == L->t_registered && L->depth == 0 && t <= L->t_registered) {
    L->t_registered = L->t_last = t; /* nothing charged yet: the interval simply starts at t */
    L->state = s;
  } else {
    pm_state_set(L, s, now);
  }
}

void pm_loc_set_role(pm_loc *L, pm_loc_role role, const char *name) {
  L->role = role;
  if (name) snprintf(L->name, sizeof L->name, "%s", name);
}

/* The interval since the last transition is charged to the base node too: it is the same
 * activity, recognised a little late. */
void pm_loc_set_base(pm_loc *L, pm_region_id r) {
  if (L->depth != 0 || L->cur != 0 || r == PM_REGION_NONE) return;
  uint32_t c = node_child(L, 0, r);
  L->cur = c;
  L->cur_node = L->byte_node = pm_loc_node(L, c);
  L->cur_node->visits = 1;
}

/* -------------------------------------------------------------------------------- state machine */
/* Time never runs backwards for a location: an event stamped before the last transition (a caller
 * that read the clock before popmeter activated, or a skewed device timestamp) charges nothing. */
/* dt nanoseconds in state s, on the location's totals and its three clocks (the call-path node is
 * the caller's). */
static inline void account(pm_loc *L, unsigned s, uint64_t dt) {
  L->time[L->ctx][s] += dt;
  L->cp_own.cue += dt & pm_cp_mask_cue[s];
  L->cp_own.com += dt & pm_cp_mask_com[s];
  L->cp_own.coo += dt & pm_cp_mask_coo[s];
}

static void settle_deferred_poll(pm_loc *L, uint64_t now);

/* Polls since the last transition (pm_poll) took part of [t_last, now): that part is MPI time (its
 * nodes were charged by pm_poll), the rest belongs to the current state. */
static __attribute__((noinline)) uint64_t take_polls(pm_loc *L, uint64_t dt, uint64_t now) {
  if (L->poll_deferred) settle_deferred_poll(L, now);
  uint64_t p = L->poll_pending < dt ? L->poll_pending : dt;
  L->poll_pending = 0;
  account(L, PM_STATE_MPI_SYNC, p);
  return dt - p;
}

static inline void charge(pm_loc *L, uint64_t now) {
  if (PM_UNLIKELY(L->nobs)) notify_charge(L, now);
  if (PM_UNLIKELY(now <= L->t_last)) return;
  uint64_t dt = now - L->t_last;
  unsigned s = L->state;
  L->t_last = now;
  if (PM_UNLIKELY(L->poll_pending | (uint64_t)L->poll_deferred)) dt = take_polls(L, dt, now);
  L->cur_node->time[s] += dt;
  account(L, s, dt);
}

pm_state pm_state_set(pm_loc *L, pm_state s, uint64_t now) {
  charge(L, now);
  pm_state old = (pm_state)L->state;
  L->state = s;
  if (PM_UNLIKELY(L->nobs) && old != s) notify_state(L, old, s, now);
  return old;
}
pm_state pm_state_get(const pm_loc *L) { return (pm_state)L->state; }

void pm_ctx_set(pm_loc *L, int ctx, uint64_t now) {
  charge(L, now);
  L->ctx = ctx ? PM_CTX_PARALLEL : PM_CTX_SERIAL;
}

/* The key of (parent, region r) in a child cache (never 0: 0 is an empty entry). */
static inline uint64_t child_key(uint32_t parent, pm_region_id r) { return (((uint64_t)parent << 32) | r) + 1; }

/* The child of node 'parent' (L's current node, or a remote parent) for region r, through the
 * cache: a failure (no room: the current node itself) is not cached, so it is tried again. */
static inline uint32_t child_cached(pm_loc *L, pm_child_cache *cc, uint32_t parent, pm_region_id r) {
  uint64_t key = child_key(parent, r);
  if (PM_LIKELY(cc->key == key)) return cc->child;
  uint32_t c = node_child(L, parent, r);
  if (c == parent) c = L->cur;
  if (c != L->cur) {
    cc->key = key;
    cc->child = c;
  }
  return c;
}

/* The child of L's current node for region r, through that node's last-child entry, else the
 * location's cache of children. */
static inline uint32_t child_local(pm_loc *L, pm_region_id r) {
  pm_cpnode *p = L->cur_node;
  uint32_t k = r + 1; /* 0 for PM_REGION_NONE: never remembered */
  if (PM_LIKELY(k && p->last_key == k)) return p->last_child;
  pm_child_cache *cc = &L->child_cache[(child_key(L->cur, r) * 0x9E3779B97F4A7C15ull) >> (64 - PM_CHILD_CACHE_BITS)];
  uint32_t c = child_cached(L, cc, L->cur, r);
  if (k && c != L->cur) { /* a failure (no room) is not remembered, so it is tried again */
    p->last_key = k;
    p->last_child = c;
  }
  return c;
}

static inline void push(pm_loc *L, pm_region_id r, pm_state s, uint32_t parent, uint64_t now) {
  charge(L, now);
  uint32_t d = L->depth++;
  if (PM_UNLIKELY(d >= PM_MAX_DEPTH)) { /* folded into the deepest node, state kept (PM_MAX_DEPTH) */
    if (s != L->state && L->nfolded < PM_MAX_FOLDED_STATES) {
      L->folded_depth[L->nfolded] = d;
      L->folded_state[L->nfolded++] = (uint8_t)L->state;
    }
    if (PM_UNLIKELY(L->nobs) && s != L->state) notify_state(L, (pm_state)L->state, s, now);
    L->state = s;
    return;
  }
  L->stack_node[d] = L->cur;
  L->stack_state[d] = (uint8_t)L->state;
  uint32_t c = parent == L->cur ? child_local(L, r) : child_cached(L, &L->push_cache, parent, r);
  L->cur = c;
  L->cur_node = L->byte_node = pm_loc_node(L, c);
  L->cur_node->visits++;
  L->state = s;
  if (PM_UNLIKELY(L->nobs)) notify_enter(L, r, s, now);
}

static inline void pop(pm_loc *L, uint64_t now) {
  charge(L, now);
  if (PM_UNLIKELY(L->depth == 0)) return; /* unbalanced exit: ignored */
  if (PM_UNLIKELY(L->nobs) && L->depth <= PM_MAX_DEPTH) notify_leave(L, now);
  uint32_t d = --L->depth;
  if (PM_UNLIKELY(d >= PM_MAX_DEPTH)) {
    if (L->nfolded && L->folded_depth[L->nfolded - 1] == d) {
      pm_state back = (pm_state)L->folded_state[--L->nfolded];
      if (PM_UNLIKELY(L->nobs)) notify_state(L, (pm_state)L->state, back, now);
      L->state = back;
    }
    return;
  }
  L->cur = L->stack_node[d];
  L->cur_node = pm_loc_node(L, L->cur);
  L->state = L->stack_state[d];
}

int pm_call_pass(pm_loc *L, uint32_t keep, uint64_t t_leave, int out_ctx, pm_state out_state, int in_ctx,
                 pm_state in_state, uint64_t now) {
  if (L->nobs || L->poll_pending || L->poll_deferred || keep == 0 || L->depth < keep || L->depth > PM_MAX_DEPTH)
    return 0;
  /* the levels above the node get their time up to t_leave; popping them then would charge no more */
  charge(L, t_leave);
  const uint32_t d = keep - 1; /* the level that entered the node: stack_node[d] is its parent */
  if (L->depth > keep) {
    L->cur = L->stack_node[keep];
    L->cur_node = pm_loc_node(L, L->cur);
    L->depth = keep;
  }
  /* from the leave (or the last transition, if later) to now: the parent, in (out_ctx, out_state) */
  if (now > L->t_last) {
    uint64_t dt = now - L->t_last;
    L->t_last = now;
    pm_loc_node(L, L->stack_node[d])->time[out_state] += dt;
    L->ctx = out_ctx ? PM_CTX_PARALLEL : PM_CTX_SERIAL;
    account(L, out_state, dt);
  }
  /* entered again: what pm_call_enter_under records for the node */
  L->stack_state[d] = (uint8_t)out_state;
  L->byte_node = L->cur_node;
  L->cur_node->visits++;
  L->ctx = in_ctx ? PM_CTX_PARALLEL : PM_CTX_SERIAL;
  L->state = in_state;
  return 1;
}
void pm_call_unwind(pm_loc *L, uint32_t depth, int ctx, pm_state s, uint64_t now) {
  if (PM_UNLIKELY(L->nobs || L->depth > PM_MAX_DEPTH)) {
    while (L->depth > depth) pop(L, now);
    pm_ctx_set(L, ctx, now);
    pm_state_set(L, s, now);
    return;
  }
  charge(L, now);
  if (L->depth > depth) { /* what the pops leave: the node and stack entry below the lowest one */
    L->cur = L->stack_node[depth];
    L->cur_node = pm_loc_node(L, L->cur);
    L->depth = depth;
  }
  L->ctx = ctx ? PM_CTX_PARALLEL : PM_CTX_SERIAL;
  L->state = s;
}
void pm_call_enter(pm_loc *L, pm_region_id r, pm_state s, uint64_t now) { push(L, r, s, L->cur, now); }
void pm_call_exit(pm_loc *L, uint64_t now) { pop(L, now); }
void pm_region_enter(pm_loc *L, pm_region_id r, uint64_t now) { push(L, r, (pm_state)L->state, L->cur, now); }
uint32_t pm_loc_fork_point(const pm_loc *L) { return pm_node_remote(L->id, L->cur); }
void pm_call_enter_under(pm_loc *L, pm_region_id r, pm_state s, uint32_t fork_point, uint64_t now) {
  /* a reference to L itself is its own node (a thread can be member of a team it did not fork
   * only when its master is another location; this keeps a bad reference harmless) */
  if (!pm_node_is_remote(fork_point) || pm_node_remote_loc(fork_point) == L->id) fork_point = L->cur;
  push(L, r, s, fork_point, now);
}
void pm_region_exit(pm_loc *L, uint64_t now) { pop(L, now); }

uint64_t pm_poll_start(pm_loc *L) { return L->poll_run && L->poll_last > L->t_last ? PM_POLL_UNTIMED : pm_clock_now(); }
uint64_t pm_poll_end(pm_loc *L, uint64_t t_start) {
  return t_start == PM_POLL_UNTIMED && !L->poll_deferred ? PM_POLL_UNTIMED : pm_clock_now();
}

/* Time the thread spent off the CPU since the reference of its run of polls, which moves to now: a
 * thread preempted inside a tight polling loop, in a poll or in the few nanoseconds of loop between
 * two, was waiting on MPI, not computing (a gap long enough to hold computation never starts a run).
 * Without it a loaded machine moved half of a polling loop's time to useful. A system call, once per
 * span or gap that does not fit a run; 0 without a reference (off_wall: taken once a run has lasted
 * PM_POLL_REF_NS, dropped when computation or a transition ends the run; a preemption in a run's first
 * PM_POLL_REF_NS stays unexplained) or off the location's own thread. */
static uint64_t off_cpu_since(pm_loc *L, uint64_t now) {
  if (!L->off_wall || now <= L->off_wall || pm_loc_self() != L) return 0;
  uint64_t cpu = pm_clock_thread_cpu(), wall = now - L->off_wall, ran = cpu - L->off_cpu;
  L->off_wall = now;
  L->off_cpu = cpu;
  return wall > ran ? wall - ran : 0;
}

/* Of `excess` ns that a run's polls do not explain, the part spent preempted: all of it when the
 * thread was off the CPU for at least half of it (the rest is the switches' own cost and the loop),
 * else none (computation, preempted or not, stays computation). */
static uint64_t preempted_part(pm_loc *L, uint64_t now, uint64_t excess) {
  uint64_t off = excess ? off_cpu_since(L, now) : 0;
  return off >= excess / 2 ? excess : 0;
}

/* The poll of the run that read no clock, when the run is left before the next poll: it is charged
 * what a poll of the run took with its loop (at most the time since the run's last read end), or
 * all of that time when the thread was preempted there. */
static void settle_deferred_poll(pm_loc *L, uint64_t now) {
  L->poll_deferred = 0; /* the run ends with the transition: poll_last stays before t_last */
  if (now <= L->poll_last) return;
  uint64_t span = now - L->poll_last, d = span < L->poll_iter ? span : L->poll_iter;
  d += preempted_part(L, now, span - d);
  L->off_wall = 0;
  L->poll_node->time[PM_STATE_MPI_SYNC] += d;
  L->poll_pending += d;
  L->poll_last += d;
}

/* A poll of a run, timed by its end only: [poll_last, t_end] holds the loop around it and the poll,
 * and the deferred poll before it with its loop when there is one (npolls 2). */
static uint64_t untimed_poll(pm_loc *L, uint64_t t_end, uint64_t npolls) {
  uint64_t span = t_end - L->poll_last, ref = L->poll_exact;
  if (span <= npolls * (ref + (ref > PM_POLL_GAP_NS ? ref : PM_POLL_GAP_NS))) {
    L->poll_iter = span / npolls;
    /* a run that lasts: the reference of its off-CPU time (a system call, once per run that lasts
     * PM_POLL_REF_NS, so that short runs between transitions pay nothing) */
    if (PM_UNLIKELY(!L->off_wall) && t_end - L->run_t0 >= PM_POLL_REF_NS) {
      L->off_wall = t_end;
      L->off_cpu = pm_clock_thread_cpu();
    }
    return span;
  }
  /* computation between the polls: it stays in its state; this poll costs what the last timed one
   * did, a deferred one what a poll of the run took with its loop. Unless the thread was preempted
   * there: then it is all polling */
  L->poll_run = 0;
  uint64_t d = ref + (npolls - 1) * L->poll_iter;
  if (d >= span) return span;
  return d + preempted_part(L, t_end, span - d);
}

void pm_poll(pm_loc *L, pm_region_id r, uint64_t t_start, uint64_t t_end) {
  pm_cpnode *n = pm_loc_node(L, child_cached(L, &L->poll_cache, L->cur, r));
  n->polls++;
  L->polls++;
  uint64_t d;
  if (t_start == PM_POLL_UNTIMED) {
    /* pm_poll_start saw no transition since the last poll; poll_last <= t_last: the window reset */
    if (PM_UNLIKELY(L->poll_last <= L->t_last)) return;
    if (t_end == PM_POLL_UNTIMED) { /* pm_poll_end deferred it: the next span holds it */
      L->poll_deferred = 1;
      L->poll_node = n;
      return;
    }
    if (PM_UNLIKELY(t_end <= L->poll_last)) return;
    uint64_t npolls = 1 + (uint64_t)L->poll_deferred;
    d = untimed_poll(L, t_end, npolls);
    if (L->poll_deferred && L->poll_node != n) { /* the deferred poll was another call: half of it */
      L->poll_node->time[PM_STATE_MPI_SYNC] += d / 2;
      L->poll_pending += d / 2;
      d -= d / 2;
    }
    L->poll_deferred = 0;
  } else {
    if (PM_UNLIKELY(t_end <= t_start || t_start < L->t_last)) return; /* before the window: not ours */
    d = t_end - t_start;
    L->poll_exact = d;
    L->poll_run = 0;
    if (L->poll_last > L->t_last) { /* a run of polls: a short gap is the loop around them */
      uint64_t gap = t_start - L->poll_last, off = 0;
      if (gap > d && gap > PM_POLL_GAP_NS) off = preempted_part(L, t_start, gap); /* preempted there? */
      if (gap - off <= d || gap - off <= PM_POLL_GAP_NS) {
        d += gap;
        L->poll_run = 1;
        L->poll_iter = d - off;
        if (!L->off_wall) L->run_t0 = t_end; /* a run starts (its off-CPU reference comes later) */
      } else {
        L->off_wall = 0; /* computation between the polls: no run, no reference */
      }
    } else {
      L->off_wall = 0;
    }
  }
  L->poll_last = t_end;
  L->poll_node = n;
  n->time[PM_STATE_MPI_SYNC] += d;
  L->poll_pending += d;
}

void pm_add_sent(pm_loc *L, uint64_t bytes, uint64_t messages) {
  L->bytes_sent += bytes;
  L->msgs_sent += messages;
  L->byte_node->bytes_sent += bytes;
  L->byte_node->msgs_sent += messages;
}
void pm_add_received(pm_loc *L, uint64_t bytes, uint64_t messages) {
  L->bytes_received += bytes;
  L->msgs_received += messages;
  L->byte_node->bytes_received += bytes;
  L->byte_node->msgs_received += messages;
}
void pm_add_collective(pm_loc *L, uint64_t bytes_out, uint64_t bytes_in) {
  L->coll_bytes_out += bytes_out;
  L->coll_bytes_in += bytes_in;
  L->coll_calls++;
  L->byte_node->coll_bytes_out += bytes_out;
  L->byte_node->coll_bytes_in += bytes_in;
}
void pm_add_io(pm_loc *L, uint64_t bytes_read, uint64_t bytes_written) {
  L->io_bytes_read += bytes_read;
  L->io_bytes_written += bytes_written;
  L->byte_node->io_bytes_read += bytes_read;
  L->byte_node->io_bytes_written += bytes_written;
}

/* ------------------------------------------------------------------------------- critical path */
pm_cp_clock pm_cp_global(const pm_loc *L) { return pm_loc_cp_global(L); }
pm_cp_clock pm_cp_process(const pm_loc *L) { return pm_loc_cp_process(L); }
void pm_cp_merge_global(pm_loc *L, pm_cp_clock in) { pm_loc_cp_merge(&L->cp_own, &L->cp_goff, &in); }
void pm_cp_merge_process(pm_loc *L, pm_cp_clock in) { pm_loc_cp_merge(&L->cp_own, &L->cp_poff, &in); }

/* The com clock does not advance in MPI, so the clock at the call's end is the one at its start:
 * the jump is how far the partner's non-MPI progress was ahead, the wait an ideal network keeps. */
static inline void credit_wait(pm_loc *L, pm_cpnode *n, const pm_cp_clock *in, uint64_t call_ns) {
  pm_loc_cp_settle(L);
  uint64_t com = L->cp_own.com + L->cp_goff.com;
  if (in->com <= com) return;
  uint64_t jump = in->com - com;
  n->mpi_wait += jump < call_ns ? jump : call_ns;
}
void pm_cp_merge_global_call(pm_loc *L, pm_cp_clock in, uint64_t call_ns) {
  credit_wait(L, L->byte_node, &in, call_ns); /* the node pm_call_enter pushed (or the deepest one) */
  pm_loc_cp_merge(&L->cp_own, &L->cp_goff, &in);
}
void pm_cp_merge_global_poll(pm_loc *L, pm_cp_clock in, uint64_t t_end) {
  uint64_t run = L->poll_pending;             /* the polls since the last transition, this one included */
  pm_state_set(L, (pm_state)L->state, t_end); /* the polls' time enters the clocks before the merge */
  if (L->poll_node) credit_wait(L, L->poll_node, &in, run);
  pm_loc_cp_merge(&L->cp_own, &L->cp_goff, &in);
}

/* ------------------------------------------------------------------------------------ finalize */
void pm_loc_flush(pm_loc *L, uint64_t now) {
  if (!L->closed) charge(L, now);
}

void pm_loc_restart(pm_loc *L, uint64_t now) {
  memset(L->time, 0, sizeof L->time);
  memset(&L->cp_own, 0, sizeof L->cp_own);
  memset(&L->cp_poff, 0, sizeof L->cp_poff);
  memset(&L->cp_goff, 0, sizeof L->cp_goff);
  L->cp_pending = NULL;
  L->bytes_sent = L->bytes_received = L->msgs_sent = L->msgs_received = 0;
  L->coll_bytes_out = L->coll_bytes_in = L->coll_calls = 0;
  L->io_bytes_read = L->io_bytes_written = L->polls = L->poll_pending = L->poll_last = L->poll_exact = 0;
  L->poll_iter = 0;
  L->poll_deferred = 0;
  L->poll_run = 0;
  L->off_wall = L->off_cpu = L->run_t0 = 0;
  uint32_t n = pm_loc_node_count(L);
  for (uint32_t i = 0; i < n; i++) {
    pm_cpnode *c = pm_loc_node(L, i);
    pm_region_id r = c->region;
    uint32_t parent = c->parent;
    memset(c, 0, sizeof *c);
    c->region = r;
    c->parent = parent;
  }
  /* the nodes on the current stack are being visited now */
  pm_loc_node(L, 0)->visits = 1;
  for (uint32_t d = 0; d < L->depth && d < PM_MAX_DEPTH; d++) pm_loc_node(L, L->stack_node[d])->visits = 1;
  if (L->depth <= PM_MAX_DEPTH) L->cur_node->visits = 1; /* at depth 0: the root or the base node */
  L->t_last = L->t_registered = now;
  if (L->closed)
    L->runq_final = 0; /* exited before the window began */
  else
    runq_begin(L);
  for (unsigned k = 0; k < L->nobs; k++)
    if (observers[k]->restart) observers[k]->restart(L, k, now);
}

void pm_locations_reset(void) {
  uint32_t n = pm_loc_count();
  for (uint32_t i = 0; i < n; i++) {
    pm_loc *L = locations[i];
    for (uint32_t c = 0; c < PM_MAX_NODE_CHUNKS && L->chunks[c]; c++) free(L->chunks[c]);
    free(L->hash);
    free(L);
    locations[i] = NULL;
  }
  __atomic_store_n(&nlocations, 0, __ATOMIC_RELEASE);
  pm_tls_loc = NULL;
  pm_tls_guard = 0;
  locations_exhausted = 0;
  thread_classifier = NULL;
  nobservers = 0;
}
