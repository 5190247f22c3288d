/* Data-movement aggregates of the task runtime (see pm_task_comm.h). */
#include "pm_task_comm.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLE_SLOTS 4096 /* distinct (data tag, peer, direction) kept; power of two */

static pm_tc_node nodes[PM_TC_MAX_NODES];
static int max_node = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pm_tc_peer *peers; /* [2 * npeer_slots]: index 2 * peer + dir */
static int npeer_slots;
static pm_tc_handle *handles; /* open addressing on (tag, peer, dir); count == 0: empty */
static uint64_t untracked;
static uint64_t clock_events[PM_TC_CLOCK_COUNT];

void pm_tc_node_kind(int node, const char *kind) {
  if (node < 0 || node >= PM_TC_MAX_NODES) return;
  pthread_mutex_lock(&lock);
  snprintf(nodes[node].kind, sizeof nodes[node].kind, "%s", kind ? kind : "?");
  if (node > max_node) max_node = node;
  pthread_mutex_unlock(&lock);
}

void pm_tc_transfer(int node, uint64_t bytes) {
  if (node < 0 || node >= PM_TC_MAX_NODES) return;
  __atomic_add_fetch(&nodes[node].count, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&nodes[node].bytes, bytes, __ATOMIC_RELAXED);
  if (node > __atomic_load_n(&max_node, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&lock);
    if (node > max_node) max_node = node;
    pthread_mutex_unlock(&lock);
  }
}

static uint32_t hkey(int64_t tag, int peer, int dir) {
  uint64_t x = (uint64_t)tag * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(uint32_t)peer << 1 | (uint64_t)dir);
  x ^= x >> 29;
  return (uint32_t)(x * 0xBF58476D1CE4E5B9ull >> 40);
}

void pm_tc_mpi(int peer, int dir, int64_t data_tag, uint64_t bytes, uint64_t latency_ns) {
  if (peer < 0 || peer >= PM_TC_MAX_PEERS || (dir != PM_TC_SEND && dir != PM_TC_RECV)) return;
  pthread_mutex_lock(&lock);
  if (peer >= npeer_slots) {
    int n = npeer_slots ? npeer_slots : 4;
    while (n <= peer) n *= 2;
    pm_tc_peer *p = realloc(peers, 2 * (size_t)n * sizeof *p);
    if (!p) goto out;
    memset(p + 2 * npeer_slots, 0, 2 * (size_t)(n - npeer_slots) * sizeof *p);
    peers = p;
    npeer_slots = n;
  }
  pm_tc_peer *e = &peers[2 * peer + dir];
  e->peer = peer;
  e->dir = dir;
  e->count++;
  e->bytes += bytes;
  e->time += (double)latency_ns * 1e-9;
  if (!handles && !(handles = calloc(HANDLE_SLOTS, sizeof *handles))) {
    untracked++;
    goto out;
  }
  uint32_t j = hkey(data_tag, peer, dir) & (HANDLE_SLOTS - 1);
  for (uint32_t probes = 0; probes < HANDLE_SLOTS / 2; probes++, j = (j + 1) & (HANDLE_SLOTS - 1)) {
    pm_tc_handle *h = &handles[j];
    if (h->count == 0) *h = (pm_tc_handle){data_tag, peer, dir, 0, 0};
    if (h->data_tag == data_tag && h->peer == peer && h->dir == dir) {
      h->count++;
      h->bytes += bytes;
      goto out;
    }
  }
  untracked++;
out:
  pthread_mutex_unlock(&lock);
}

void pm_tc_clock_event(int what) {
  if (what >= 0 && what < PM_TC_CLOCK_COUNT) __atomic_add_fetch(&clock_events[what], 1, __ATOMIC_RELAXED);
}
uint64_t pm_tc_clock_count(int what) {
  return what >= 0 && what < PM_TC_CLOCK_COUNT ? __atomic_load_n(&clock_events[what], __ATOMIC_RELAXED) : 0;
}

static int by_bytes_desc(const void *a, const void *b) {
  uint64_t x = ((const pm_tc_handle *)a)->bytes, y = ((const pm_tc_handle *)b)->bytes;
  return (x < y) - (x > y);
}

int pm_tc_snapshot_get(pm_tc_snapshot *s) {
  memset(s, 0, sizeof *s);
  pthread_mutex_lock(&lock);
  s->nnodes = max_node + 1;
  memcpy(s->node, nodes, sizeof s->node);
  s->peer = calloc(2 * (size_t)npeer_slots + 1, sizeof *s->peer);
  pm_tc_handle *all = handles ? malloc(HANDLE_SLOTS * sizeof *all) : NULL;
  int rc = s->peer && (all || !handles) ? 0 : -1;
  if (rc == 0) {
    for (int i = 0; i < 2 * npeer_slots; i++)
      if (peers[i].count) s->peer[s->npeers++] = peers[i];
    int n = 0;
    for (int i = 0; handles && i < HANDLE_SLOTS; i++)
      if (handles[i].count) all[n++] = handles[i];
    if (n > 1) qsort(all, (size_t)n, sizeof *all, by_bytes_desc); /* qsort(NULL, 0): undefined */
    s->nhandles = n < PM_TC_TOP_HANDLES ? n : PM_TC_TOP_HANDLES;
    s->handle = all;
    s->handles_untracked = untracked;
  } else {
    free(all);
  }
  pthread_mutex_unlock(&lock);
  if (rc) pm_tc_snapshot_free(s);
  return rc;
}

void pm_tc_snapshot_free(pm_tc_snapshot *s) {
  free(s->peer);
  free(s->handle);
  memset(s, 0, sizeof *s);
}

void pm_tc_reset(void) {
  pthread_mutex_lock(&lock);
  memset(nodes, 0, sizeof nodes);
  max_node = -1;
  free(peers);
  peers = NULL;
  npeer_slots = 0;
  free(handles);
  handles = NULL;
  untracked = 0;
  memset(clock_events, 0, sizeof clock_events);
  pthread_mutex_unlock(&lock);
}
