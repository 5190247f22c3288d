/*
 * mfs_publish.c — what mfsolve tells popmeter about its work, when popmeter measures the run
 * (preloaded or linked; popmeter.h): its assembly tree, whose fronts are the tags its tasks carry,
 * and the memory its allocator tracks over time. Without popmeter the weak references are NULL and
 * each call costs a test.
 */
#include "mfs_internal.h"
#include "popmeter.h"

#pragma weak pm_tag_publish
#pragma weak pm_quantity_set

void pub__tree(const mfs_symbolic *S, const int32_t *owner, int rank) {
  if (!pm_tag_publish) return;
  /* fronts are numbered in postorder: the number is the order; each process publishes the fronts
   * it owns (a shared front: its first process), so that the tree is published once */
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    int r = owner ? owner[f] : rank;
    if (r == rank)
      pm_tag_publish((unsigned long long)f, F->parent < 0 ? PM_TAG_NONE : (unsigned long long)F->parent, f, F->flops,
                     r);
  }
}

void pub__memory(int64_t bytes) {
  if (pm_quantity_set) pm_quantity_set("memory in use (bytes)", (double)bytes);
}
