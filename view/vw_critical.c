/* The task DAG's critical path, rebuilt from the trace. Every task body carries the DAG's global
 * CUE clock before (cp_in: its inputs merged) and after (cp_out) its body (docs/trace.md): the
 * predecessor that made a task start late is the task whose cp_out is the task's cp_in -- exactly,
 * since the clock of a task is the maximum of its inputs, copied along data handles, tags and
 * StarPU-MPI transfers. Walking back from the largest cp_out gives the path; where no task's cp_out
 * matches, the path came from an application thread (its own useful time before a submission,
 * lib/tasks/pm_taskgraph.h), and that time is the path's `before`. */
#include "vw.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint64_t out;
  size_t task;
} entry;

static int by_out(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->out != y->out) return x->out < y->out ? -1 : 1;
  return x->task < y->task ? -1 : x->task > y->task;
}

/* Among the tasks whose cp_out is v (not self, not yet on the path), the one ending last: ties are
 * equally critical, and the latest end is the one the successor waited for in time. */
static size_t find(const entry *e, size_t n, uint64_t v, size_t self, const vw_trace *t, const unsigned char *seen) {
  size_t lo = 0, hi = n, best = SIZE_MAX;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e[mid].out < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < n && e[i].out == v; i++) {
    size_t k = e[i].task;
    if (k == self || seen[k]) continue;
    if (best == SIZE_MAX || t->task[k].end > t->task[best].end) best = k;
  }
  return best;
}

int vw_path_build(vw_trace *t, vw_path *p) {
  memset(p, 0, sizeof *p);
  size_t n = 0;
  for (size_t i = 0; i < t->ntasks; i++) n += t->task[i].cp_out != VW_NONE;
  if (n == 0) return 0;
  entry *e = malloc(n * sizeof *e);
  unsigned char *seen = calloc(t->ntasks, 1);
  size_t *path = malloc(n * sizeof *path);
  if (!e || !seen || !path) {
    free(e);
    free(seen);
    free(path);
    return -1;
  }
  size_t k = 0, last = SIZE_MAX;
  for (size_t i = 0; i < t->ntasks; i++) {
    if (t->task[i].cp_out == VW_NONE) continue;
    e[k++] = (entry){t->task[i].cp_out, i};
    if (last == SIZE_MAX || t->task[i].cp_out > t->task[last].cp_out ||
        (t->task[i].cp_out == t->task[last].cp_out && t->task[i].end > t->task[last].end))
      last = i;
  }
  qsort(e, n, sizeof *e, by_out);
  p->length = t->task[last].cp_out;
  for (size_t cur = last; cur != SIZE_MAX;) {
    seen[cur] = 1;
    path[p->n++] = cur;
    t->task[cur].flags |= VW_F_CP;
    size_t prev = t->task[cur].cp_in > 0 ? find(e, n, t->task[cur].cp_in, cur, t, seen) : SIZE_MAX;
    if (prev == SIZE_MAX) p->before = t->task[cur].cp_in;
    cur = prev;
  }
  for (size_t i = 0; i < p->n / 2; i++) { /* first to last */
    size_t x = path[i];
    path[i] = path[p->n - 1 - i];
    path[p->n - 1 - i] = x;
  }
  p->task = path;
  free(e);
  free(seen);
  return 0;
}

void vw_path_free(vw_path *p) {
  free(p->task);
  memset(p, 0, sizeof *p);
}
