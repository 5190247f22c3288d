/*
 * mfs_supernode.c — fundamental supernodes and relaxed amalgamation.
 *
 * A fundamental supernode is a chain j, j+1, ... where each column is the only child of the next
 * and L's structure just shrinks by the diagonal: those columns share one front exactly.
 * Amalgamation then merges a child front into its parent when the explicit zeros this adds stay
 * small: fewer, larger fronts mean bigger BLAS-3 calls and fewer tasks, at the price of some extra
 * flops and factor entries (the papers accept 1.4-1.5x flops when it cuts run time).
 */
#include "mfs_internal.h"

int32_t mfs_fundamental_supernodes(int32_t n, const int32_t *parent, const int32_t *cc, int32_t *first) {
  int32_t *nchild = mem__calloc((size_t)n + 1, sizeof *nchild);
  if (!nchild) return -1;
  for (int32_t j = 0; j < n; j++)
    if (parent[j] >= 0) nchild[parent[j]]++;
  int32_t ns = 0;
  for (int32_t j = 0; j < n; j++) {
    int extends = j > 0 && parent[j - 1] == j && nchild[j] == 1 && cc[j - 1] == cc[j] + 1;
    if (!extends) first[ns++] = j;
  }
  first[ns] = n;
  mem__free(nchild);
  return ns;
}

/* Entries of the lower trapezoid of a front's factor columns (nc columns, m rows). */
static int64_t trapezoid(int64_t nc, int64_t m) { return nc * m - nc * (nc - 1) / 2; }

static int accept_merge(int64_t ncol, double zfrac, double threshold) {
  if (zfrac <= threshold) return 1;
  /* small-front relaxation (CHOLMOD's nrelax/zrelax defaults) */
  if (ncol <= 4) return 1;
  if (ncol <= 16 && zfrac <= 0.8) return 1;
  if (ncol <= 48 && zfrac <= 0.1) return 1;
  return 0;
}

void mfs_amalgamate(int32_t ns, const int32_t *sparent, const int32_t *ncol0, const int32_t *nstruct, double threshold,
                    int32_t *rep, int64_t *zeros_out) {
  for (int32_t s = 0; s < ns; s++) {
    rep[s] = s;
    if (zeros_out) zeros_out[s] = 0;
  }
  if (threshold <= 0 || ns < 2) return;
  int64_t *ncol = mem__alloc((size_t)ns * sizeof *ncol);
  int64_t *zeros = mem__calloc((size_t)ns, sizeof *zeros);
  int32_t *head = mem__alloc((size_t)ns * sizeof *head);
  int32_t *next = mem__alloc((size_t)ns * sizeof *next);
  if (!ncol || !zeros || !head || !next) {
    /* no memory for the heuristic: keep the fundamental supernodes (always correct) */
    mem__free(ncol);
    mem__free(zeros);
    mem__free(head);
    mem__free(next);
    return;
  }
  for (int32_t s = 0; s < ns; s++) {
    ncol[s] = ncol0[s];
    head[s] = -1;
  }
  for (int32_t s = ns - 1; s >= 0; s--)
    if (sparent[s] >= 0) {
      next[s] = head[sparent[s]];
      head[sparent[s]] = s;
    }
  /* Bottom-up: when p is visited its children are final fronts. A merged child's rows are its own
     * columns plus p's rows (its structure lies inside p's front), so the merged front has
     * ncol(c)+ncol(p) columns and ncol(c)+nrow(p) rows. */
  for (int32_t p = 0; p < ns; p++) {
    for (int32_t c = head[p]; c != -1; c = next[c]) {
      int64_t nc = ncol[c] + ncol[p];
      int64_t m = nc + nstruct[p];
      int64_t tot = trapezoid(nc, m);
      int64_t z = zeros[c] + zeros[p] + tot - trapezoid(ncol[c], ncol[c] + nstruct[c]) -
                  trapezoid(ncol[p], ncol[p] + nstruct[p]);
      if (accept_merge(nc, (double)z / (double)tot, threshold)) {
        rep[c] = p;
        ncol[p] = nc;
        zeros[p] = z;
      }
    }
  }
  /* resolve chains (a child merged into a parent that merged further up); parents first */
  for (int32_t s = ns - 1; s >= 0; s--)
    if (rep[s] != s) rep[s] = rep[rep[s]];
  if (zeros_out)
    for (int32_t s = 0; s < ns; s++) zeros_out[s] = rep[s] == s ? zeros[s] : 0;
  mem__free(ncol);
  mem__free(zeros);
  mem__free(head);
  mem__free(next);
}
