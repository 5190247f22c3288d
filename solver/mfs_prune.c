/*
 * mfs_prune.c — grouping of small subtrees into sequential tasks, after qr_mumps (Buttari's
 * qrm_prune_tree, itself after Geist & Ng). One task per front would drown a task runtime in
 * overhead (an empty StarPU task costs 3-9 us; a 2D 500^2 problem has ~47k supernodes), so the tree
 * is cut at a layer of subtrees that balance over the workers, and each subtree below the layer
 * runs as one task.
 *
 * Descent: the layer starts at the roots heavier than a threshold (1 % of the flops). While the
 * layer is not balanced — greedy mapping, largest first onto the least-loaded worker, min/max load
 * <= 0.9 or fewer subtrees than workers — the heaviest expandable node is replaced by its children
 * heavier than the threshold; lighter children become sequential subtrees. The descent stops once
 * the layer has more than workers * max(2, log2(workers)^2) nodes; if no node can be expanded the
 * threshold is halved (down to 1e-4) and the descent restarts. Finally the children of the layer
 * nodes become sequential subtrees too: layer nodes and everything above them are tiled fronts.
 */
#include "mfs_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mfs_pruning_free(mfs_pruning *P) {
  if (!P) return;
  mem__free(P->layer);
  mem__free(P->subtree_roots);
  mem__free(P->subtree_first);
  mem__free(P->subtree_root);
  memset(P, 0, sizeof *P);
}

/* A layer node with its subtree weight, so that sorting needs no global context. */
typedef struct {
  double w;
  int32_t id;
} node;

static int cmp_weight_desc(const void *a, const void *b) {
  const node *x = a, *y = b;
  if (x->w != y->w) return x->w < y->w ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Greedy LPT mapping of the (sorted) layer; returns min/max load. */
static double balance_of(const node *layer, int32_t nl, int nworkers, double *load) {
  for (int w = 0; w < nworkers; w++) load[w] = 0;
  for (int32_t t = 0; t < nl; t++) {
    int best = 0;
    for (int w = 1; w < nworkers; w++)
      if (load[w] < load[best]) best = w;
    load[best] += layer[t].w;
  }
  double mn = load[0], mx = load[0];
  for (int w = 1; w < nworkers; w++) {
    if (load[w] < mn) mn = load[w];
    if (load[w] > mx) mx = load[w];
  }
  return mx > 0 ? mn / mx : 1.0;
}

mfs_status mfs_prune(const mfs_symbolic *S, int nworkers, mfs_pruning *P, mfs_error *err) {
  memset(P, 0, sizeof *P);
  if (nworkers < 1) return err__set(err, MFS_ERR_ARG, 0, -1, "number of workers must be positive");
  const int32_t nf = S->nfronts;
  uint8_t *small = mem__calloc((size_t)nf + 1, 1), *stuck = mem__calloc((size_t)nf + 1, 1);
  node *layer = mem__alloc(((size_t)nf + 1) * sizeof *layer);
  double *load = mem__alloc((size_t)nworkers * sizeof *load);
  P->subtree_root = mem__alloc(((size_t)nf + 1) * sizeof *P->subtree_root);
  if (!small || !stuck || !layer || !load || !P->subtree_root) {
    mem__free(small);
    mem__free(stuck);
    mem__free(layer);
    mem__free(load);
    mfs_pruning_free(P);
    return err__nomem(err);
  }
  double total = 0;
  for (int32_t f = 0; f < nf; f++)
    if (S->fronts[f].parent < 0) total += S->fronts[f].subtree_flops;
  double lw = log2((double)nworkers);
  double cap = nworkers * fmax(2.0, lw * lw);
  double th = 0.01, balance = 1.0;
  int32_t nl;
  for (;;) { /* one descent per threshold */
    memset(small, 0, (size_t)nf);
    memset(stuck, 0, (size_t)nf);
    nl = 0;
    for (int32_t f = 0; f < nf; f++)
      if (S->fronts[f].parent < 0) {
        if (S->fronts[f].subtree_flops > th * total)
          layer[nl++] = (node){S->fronts[f].subtree_flops, f};
        else
          small[f] = 1;
      }
    balance = 1.0;
    int restart = 0;
    while (nworkers > 1 && nl <= cap) {
      qsort(layer, (size_t)nl, sizeof *layer, cmp_weight_desc);
      balance = balance_of(layer, nl, nworkers, load);
      if (balance > 0.9 && nl >= nworkers) break;
      int found = 0;
      for (int32_t t = 0; t < nl && !found; t++) {
        int32_t v = layer[t].id;
        if (stuck[v]) continue;
        const mfs_front *F = &S->fronts[v];
        int32_t added = 0;
        for (int32_t q = 0; q < F->nchild; q++) {
          int32_t c = S->child[F->child0 + q];
          if (S->fronts[c].subtree_flops > th * total)
            layer[nl + added++] = (node){S->fronts[c].subtree_flops, c};
          else
            small[c] = 1;
        }
        if (added) { /* v leaves the layer, its heavy children join it */
          layer[t] = layer[nl + added - 1];
          nl += added - 1;
          found = 1;
        } else {
          stuck[v] = 1; /* only light children (now subtrees): v stays */
        }
      }
      if (!found) {
        if (nl >= cap || th / 2 < 1e-4) break;
        th /= 2;
        restart = 1;
        break;
      }
    }
    if (!restart) break;
  }
  if (nworkers > 1 && nl > 0) {
    qsort(layer, (size_t)nl, sizeof *layer, cmp_weight_desc);
    balance = balance_of(layer, nl, nworkers, load);
  }
  for (int32_t t = 0; t < nl; t++) {
    const mfs_front *F = &S->fronts[layer[t].id];
    for (int32_t q = 0; q < F->nchild; q++) small[S->child[F->child0 + q]] = 1;
  }
  int32_t ns = 0;
  double sflops = 0;
  for (int32_t f = nf - 1; f >= 0; f--) { /* parents first */
    int32_t p = S->fronts[f].parent;
    if (small[f]) {
      P->subtree_root[f] = f;
      ns++;
      sflops += S->fronts[f].subtree_flops;
    } else {
      P->subtree_root[f] = (p >= 0) ? P->subtree_root[p] : -1;
    }
  }
  P->subtree_roots = mem__alloc(((size_t)ns + 1) * sizeof *P->subtree_roots);
  P->subtree_first = mem__alloc(((size_t)ns + 1) * sizeof *P->subtree_first);
  int32_t *lay = mem__alloc(((size_t)nl + 1) * sizeof *lay);
  int32_t *first = mem__alloc(((size_t)nf + 1) * sizeof *first);
  if (!P->subtree_roots || !P->subtree_first || !lay || !first) {
    mem__free(first);
    mem__free(small);
    mem__free(stuck);
    mem__free(layer);
    mem__free(load);
    mem__free(lay);
    mfs_pruning_free(P);
    return err__nomem(err);
  }
  front__subtree_first(S, first);
  ns = 0;
  for (int32_t f = 0; f < nf; f++)
    if (small[f]) {
      P->subtree_first[ns] = first[f];
      P->subtree_roots[ns++] = f;
    }
  mem__free(first);
  for (int32_t t = 0; t < nl; t++) lay[t] = layer[t].id;
  P->nworkers = nworkers;
  P->layer = lay;
  P->nlayer = nl;
  P->nsubtrees = ns;
  P->threshold = th;
  P->balance = balance;
  P->subtree_flops = sflops;
  mem__free(small);
  mem__free(stuck);
  mem__free(layer);
  mem__free(load);
  return MFS_OK;
}
