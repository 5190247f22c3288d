/*
 * mfs_rowsim.c — list-scheduling simulation of a task graph over processes (see mfs_rowsim.h).
 *
 * Event driven: three kinds of binary heaps of (time or priority, task) pairs — tasks whose inputs
 * arrive at their process at a given time, tasks running until a given time, and per process the
 * ready tasks by bottom level. O(n log n) per simulation, so that mfs_dist can try many row
 * assignments of every shared front when it builds the distribution.
 */
#include "mfs_rowsim.h"

#include <math.h>

typedef struct {
  double key;
  int32_t id;
} entry;

typedef struct {
  entry *e;
  int32_t n;
} heap;

struct rowsim {
  int32_t *succ_ptr, *succ, *remaining, *idle, *ready_base;
  double *bl, *avail;
  entry *arrive_e, *run_e, *ready_e;
  heap *ready;
};

/* (key, id) ascending: equal keys go to the lower task index, so every process computes the same. */
static int before(entry a, entry b) { return a.key < b.key || (a.key == b.key && a.id < b.id); }

static void heap_push(heap *h, double key, int32_t id) {
  int32_t i = h->n++;
  entry x = {key, id};
  while (i > 0) {
    int32_t up = (i - 1) / 2;
    if (!before(x, h->e[up])) break;
    h->e[i] = h->e[up];
    i = up;
  }
  h->e[i] = x;
}

static entry heap_pop(heap *h) {
  entry top = h->e[0], x = h->e[--h->n];
  int32_t i = 0;
  for (;;) {
    int32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && before(h->e[c + 1], h->e[c])) c++;
    if (!before(h->e[c], x)) break;
    h->e[i] = h->e[c];
    i = c;
  }
  if (h->n > 0) h->e[i] = x;
  return top;
}

static double heap_top_key(const heap *h) { return h->n ? h->e[0].key : INFINITY; }

rowsim *rowsim__create(int32_t cap, int nproc) {
  rowsim *W = mem__calloc(1, sizeof *W);
  if (!W) return NULL;
  const size_t c = (size_t)(cap > 0 ? cap : 1), p = (size_t)(nproc > 0 ? nproc : 1);
  W->succ_ptr = mem__alloc((c + 1) * sizeof *W->succ_ptr);
  W->succ = mem__alloc(3 * c * sizeof *W->succ);
  W->remaining = mem__alloc(c * sizeof *W->remaining);
  W->idle = mem__alloc(p * sizeof *W->idle);
  W->ready_base = mem__alloc((p + 1) * sizeof *W->ready_base);
  W->bl = mem__alloc(c * sizeof *W->bl);
  W->avail = mem__alloc(c * sizeof *W->avail);
  W->arrive_e = mem__alloc(c * sizeof *W->arrive_e);
  W->run_e = mem__alloc((c + p) * sizeof *W->run_e); /* running tasks, and each process's start */
  W->ready_e = mem__alloc(c * sizeof *W->ready_e);
  W->ready = mem__alloc(p * sizeof *W->ready);
  if (!W->succ_ptr || !W->succ || !W->remaining || !W->idle || !W->ready_base || !W->bl || !W->avail || !W->arrive_e ||
      !W->run_e || !W->ready_e || !W->ready) {
    rowsim__free(W);
    return NULL;
  }
  return W;
}

void rowsim__free(rowsim *W) {
  if (!W) return;
  mem__free(W->succ_ptr);
  mem__free(W->succ);
  mem__free(W->remaining);
  mem__free(W->idle);
  mem__free(W->ready_base);
  mem__free(W->bl);
  mem__free(W->avail);
  mem__free(W->arrive_e);
  mem__free(W->run_e);
  mem__free(W->ready_e);
  mem__free(W->ready);
  mem__free(W);
}

/* Successor lists (CSR) and bottom levels: the longest path from a task's start to the end of the
 * graph, a dependency between processes counting its latency. */
static void prepare(rowsim *W, const rowsim_task *t, int32_t n, double latency) {
  int32_t *ptr = W->succ_ptr;
  for (int32_t i = 0; i <= n; i++) ptr[i] = 0;
  for (int32_t i = 0; i < n; i++)
    for (int32_t d = 0; d < t[i].ndep; d++) ptr[t[i].dep[d] + 1]++;
  for (int32_t i = 0; i < n; i++) ptr[i + 1] += ptr[i];
  for (int32_t i = 0; i < n; i++) W->remaining[i] = 0; /* fill positions, then the counts below */
  for (int32_t i = 0; i < n; i++)
    for (int32_t d = 0; d < t[i].ndep; d++) {
      int32_t p = t[i].dep[d];
      W->succ[ptr[p] + W->remaining[p]++] = i;
    }
  for (int32_t i = n - 1; i >= 0; i--) {
    double tail = 0;
    for (int32_t s = ptr[i]; s < ptr[i + 1]; s++) {
      int32_t j = W->succ[s];
      double v = W->bl[j] + (t[j].proc != t[i].proc ? latency : 0);
      if (v > tail) tail = v;
    }
    W->bl[i] = t[i].dur + tail;
  }
  for (int32_t i = 0; i < n; i++) {
    W->remaining[i] = t[i].ndep;
    W->avail[i] = 0;
  }
}

double rowsim__makespan(rowsim *W, const rowsim_task *t, int32_t n, int nproc, int workers, double latency,
                        const double *start) {
  if (n <= 0) return 0;
  for (int32_t i = 0; i < n; i++) /* not a graph this simulates: no schedule ends */
    for (int32_t d = 0; d < t[i].ndep; d++)
      if (t[i].dep[d] < 0 || t[i].dep[d] >= i) return INFINITY;
  prepare(W, t, n, latency);
  /* per-process ready heaps carved out of one array, sized by the process's task count */
  for (int p = 0; p <= nproc; p++) W->ready_base[p] = 0;
  for (int32_t i = 0; i < n; i++) W->ready_base[t[i].proc + 1]++;
  for (int p = 0; p < nproc; p++) W->ready_base[p + 1] += W->ready_base[p];
  heap arrive = {W->arrive_e, 0}, run = {W->run_e, 0};
  for (int p = 0; p < nproc; p++) {
    W->ready[p] = (heap){W->ready_e + W->ready_base[p], 0};
    /* a process that starts later: its workers join when an event of id -1 - p ends */
    int late = start && start[p] > 0;
    W->idle[p] = late ? 0 : workers;
    if (late) heap_push(&run, start[p], -1 - p);
  }
  for (int32_t i = 0; i < n; i++)
    if (t[i].ndep == 0) heap_push(&arrive, 0, i);
  int32_t done = 0;
  double end = 0;
  while (done < n) {
    double now = fmin(heap_top_key(&arrive), heap_top_key(&run));
    while (run.n && run.e[0].key <= now) {
      entry e = heap_pop(&run);
      if (e.id < 0) {
        W->idle[-1 - e.id] = workers;
        continue;
      }
      const int32_t i = e.id;
      done++;
      W->idle[t[i].proc]++;
      if (e.key > end) end = e.key;
      for (int32_t s = W->succ_ptr[i]; s < W->succ_ptr[i + 1]; s++) {
        int32_t j = W->succ[s];
        double at = e.key + (t[j].proc != t[i].proc ? latency : 0);
        if (at > W->avail[j]) W->avail[j] = at;
        if (--W->remaining[j] == 0) heap_push(&arrive, W->avail[j], j);
      }
    }
    while (arrive.n && arrive.e[0].key <= now) {
      entry e = heap_pop(&arrive);
      heap_push(&W->ready[t[e.id].proc], -W->bl[e.id], e.id);
    }
    for (int p = 0; p < nproc; p++)
      while (W->idle[p] > 0 && W->ready[p].n) {
        entry e = heap_pop(&W->ready[p]);
        W->idle[p]--;
        heap_push(&run, now + t[e.id].dur, e.id);
      }
  }
  return end;
}
