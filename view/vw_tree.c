/* The tree of task tags a program published (popmeter.json "tag_tree"; mfsolve: its assembly tree,
 * a node per front), measured per node from the tasks carrying its tag, and laid out as an icicle:
 * one row per depth, roots on top, each node as wide as its subtree's share of the whole -- its
 * flops, or its measured time -- its children side by side in the program's order, its own share
 * at their right. A subtree is then as wide as its work, and a front's place says where in the
 * tree the time went.
 *
 * A node whose parent is not in the tree, or whose ancestors loop, is drawn as a root. Beyond
 * max_drawn nodes the narrowest subtrees are folded into their nearest drawn ancestor (a parent is
 * never narrower than its child, so the drawn nodes keep their ancestors), and the page says how
 * many. */
#include "vw.h"
#include "pm_profile_published.h"
#include "pm_profile_tasks.h"
#include <stdlib.h>
#include <string.h>

static int node_index(const pm_prof_published *pub, uint64_t tag) {
  const pm_prof_tag_node *n = pm_prof_tag_node_find(pub, tag);
  return n ? (int)(n - pub->node) : -1;
}

/* Depths by walking to the root; a loop (a node met again on its own walk) is cut at the node that
 * closes it, which becomes a root. */
static int depths(vw_tree *tr) {
  int *state = calloc((size_t)tr->n, sizeof *state), *walk = malloc(sizeof *walk * (size_t)tr->n);
  if (!state || !walk) {
    free(state);
    free(walk);
    return -1;
  }
  for (int i = 0; i < tr->n; i++) tr->node[i].depth = -1;
  for (int i = 0; i < tr->n; i++) {
    int m = 0, v = i;
    while (v >= 0 && tr->node[v].depth < 0 && state[v] != i + 1) {
      state[v] = i + 1;
      walk[m++] = v;
      v = tr->node[v].parent;
    }
    if (v >= 0 && tr->node[v].depth < 0) { /* a loop closed at v: v becomes a root */
      tr->node[v].parent = -1;
      tr->node[v].depth = 0;
      while (m > 0 && walk[m - 1] != v) m--;
      m--; /* v itself is done */
    }
    int d = v >= 0 ? tr->node[v].depth : -1;
    while (m > 0) tr->node[walk[--m]].depth = ++d;
  }
  free(state);
  free(walk);
  return 0;
}

int vw_tree_build(const pm_profile *p, const vw_trace *t, const vw_codelet *c, int nc, vw_tree *tr) {
  memset(tr, 0, sizeof *tr);
  const pm_prof_published *pub = p->published;
  if (!pub || pub->nnodes == 0) return 0;
  tr->dropped = pub->nodes_dropped;
  if (!(tr->node = calloc((size_t)pub->nnodes, sizeof *tr->node))) return -1;
  tr->n = pub->nnodes;
  for (int i = 0; i < tr->n; i++) {
    const pm_prof_tag_node *x = &pub->node[i];
    vw_node *v = &tr->node[i];
    v->tag = x->tag;
    v->order = x->order;
    v->flops = x->flops;
    v->rank = x->rank;
    v->parent = x->parent == PM_PROF_TAG_NONE || x->parent == x->tag ? -1 : node_index(pub, x->parent);
  }
  for (int i = 0; p->tasks && i < p->tasks->ntags; i++) { /* measured, summed over processes */
    const pm_prof_tag *g = &p->tasks->tag[i];
    int k = node_index(pub, g->tag);
    if (k < 0) continue;
    tr->node[k].time += g->total;
    tr->node[k].tflops += g->flops;
  }
  for (size_t i = 0; t && i < t->ntasks; i++) { /* the trace: predictions, the critical path */
    const vw_task *k = &t->task[i];
    int j = k->tag == VW_NONE ? -1 : node_index(pub, k->tag);
    if (j < 0) continue;
    double pred = vw_codelet_predict(c, nc, t, k);
    if (pred > 0) {
      tr->node[j].predicted += pred;
      tr->node[j].timed += (double)(k->end - k->start) * 1e-9;
    }
    if (k->flags & VW_F_CP) tr->node[j].on_path = 1;
  }
  return depths(tr);
}

/* children of each node in the program's order (then by tag), as index ranges into kid */
typedef struct {
  int *first, *kid;
  const vw_tree *tr;
} kids;
static const vw_tree *sort_tree;
static int by_order(const void *a, const void *b) {
  const vw_node *x = &sort_tree->node[*(const int *)a], *y = &sort_tree->node[*(const int *)b];
  if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
  if (x->order != y->order) return x->order < y->order ? -1 : 1;
  return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* One sizing (s: 0 flops, 1 time): subtree weights summed deepest first, then offsets given parents
 * first (bydepth: nodes by increasing depth), children side by side from their parent's offset. */
static void layout(vw_tree *tr, const kids *k, const int *bydepth, int s) {
  double *W = calloc((size_t)tr->n, sizeof *W), total = 0;
  if (!W) return;
  int anyw = 0;
  for (int i = 0; i < tr->n; i++) anyw |= (s ? tr->node[i].time : tr->node[i].flops) > 0;
  for (int i = 0; i < tr->n; i++) /* nothing measured that way: every node counts one */
    W[i] = !anyw ? 1 : s ? tr->node[i].time : tr->node[i].flops;
  for (int i = tr->n - 1; i >= 0; i--) {
    int v = bydepth[i];
    if (tr->node[v].parent >= 0) W[tr->node[v].parent] += W[v];
  }
  for (int j = k->first[0]; j < k->first[1]; j++) total += W[k->kid[j]];
  for (int i = 0; i < tr->n; i++) tr->node[i].w[s] = total > 0 ? W[i] / total : 0;
  double x = 0;
  for (int j = k->first[0]; j < k->first[1]; j++) { /* roots */
    tr->node[k->kid[j]].x[s] = x;
    x += tr->node[k->kid[j]].w[s];
  }
  for (int i = 0; i < tr->n; i++) {
    int v = bydepth[i];
    x = tr->node[v].x[s];
    for (int j = k->first[v + 1]; j < k->first[v + 2]; j++) {
      tr->node[k->kid[j]].x[s] = x;
      x += tr->node[k->kid[j]].w[s];
    }
  }
  free(W);
}

static const vw_tree *depth_tree;
static int by_depth(const void *a, const void *b) {
  int x = depth_tree->node[*(const int *)a].depth, y = depth_tree->node[*(const int *)b].depth;
  return x < y ? -1 : x > y;
}
static int by_width(const void *a, const void *b) {
  double x = depth_tree->node[*(const int *)a].w[0], y = depth_tree->node[*(const int *)b].w[0];
  return x > y ? -1 : x < y;
}

void vw_tree_layout(vw_tree *tr, int max_drawn) {
  if (tr->n == 0) return;
  int n = tr->n;
  kids k = {calloc((size_t)n + 2, sizeof(int)), malloc(sizeof(int) * (size_t)n), tr};
  int *order = malloc(sizeof(int) * (size_t)n), *bydepth = malloc(sizeof(int) * (size_t)n);
  if (!k.first || !k.kid || !order || !bydepth) goto out;
  /* kid lists: slot 0 holds the roots, slot v + 1 the children of v */
  for (int i = 0; i < n; i++) order[i] = i;
  sort_tree = tr;
  qsort(order, (size_t)n, sizeof *order, by_order);
  for (int i = 0; i < n; i++) k.first[tr->node[i].parent + 2]++;
  for (int i = 1; i < n + 2; i++) k.first[i] += k.first[i - 1];
  for (int i = 0; i < n; i++) k.kid[k.first[tr->node[order[i]].parent + 1]++] = order[i];
  for (int i = n + 1; i > 0; i--) k.first[i] = k.first[i - 1];
  k.first[0] = 0;
  for (int i = 0; i < n; i++) bydepth[i] = i;
  depth_tree = tr;
  qsort(bydepth, (size_t)n, sizeof *bydepth, by_depth);
  layout(tr, &k, bydepth, 0);
  layout(tr, &k, bydepth, 1);
  /* folding: the max_drawn widest (by flops), closed under ancestors */
  for (int i = 0; i < n; i++) tr->node[i].drawn = n <= max_drawn;
  if (n > max_drawn) {
    memcpy(order, bydepth, sizeof(int) * (size_t)n);
    qsort(order, (size_t)n, sizeof *order, by_width);
    for (int i = 0; i < max_drawn; i++)
      for (int v = order[i]; v >= 0 && !tr->node[v].drawn; v = tr->node[v].parent) tr->node[v].drawn = 1;
  }
  tr->maxdepth = 0;
  tr->hidden = 0;
  for (int i = 0; i < n; i++) {
    vw_node *v = &tr->node[i];
    v->folded = 0;
  }
  for (int i = 0; i < n; i++) {
    if (tr->node[i].drawn) {
      if (tr->node[i].depth > tr->maxdepth) tr->maxdepth = tr->node[i].depth;
      continue;
    }
    tr->hidden++;
    int a = tr->node[i].parent;
    while (a >= 0 && !tr->node[a].drawn) a = tr->node[a].parent;
    if (a >= 0) tr->node[a].folded++;
  }
out:
  free(k.first);
  free(k.kid);
  free(order);
  free(bydepth);
}

void vw_tree_free(vw_tree *tr) {
  free(tr->node);
  memset(tr, 0, sizeof *tr);
}
