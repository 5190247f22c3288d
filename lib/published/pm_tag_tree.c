/* pm_tag_publish (popmeter.h): the program's tree of task tags, kept per process up to
 * PM_TAG_TREE_MAX nodes in an array grown by doubling under a mutex. Publishing is the program's
 * set-up work (mfsolve publishes its elimination tree once, from its analysis), not a hot path. */
#include "popmeter.h"
#include "pm_published.h"
#include "pm_profile_published.h"
#include <pthread.h>
#include <stdlib.h>

#define PM_API __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pm_prof_tag_node *nodes;
static size_t nnodes, cap;
static uint64_t dropped;

PM_API void pm_tag_publish(unsigned long long tag, unsigned long long parent, long long order, double flops, int rank) {
  if (!pm_core_is_active()) return;
  pm_prof_tag_node n = {tag, parent, order, flops >= 0 && flops < 1e30 ? flops : 0, rank < -1 ? -1 : rank};
  pthread_mutex_lock(&lock);
  if (nnodes == cap && cap < PM_TAG_TREE_MAX) {
    size_t ncap = cap ? 2 * cap : 1024;
    if (ncap > PM_TAG_TREE_MAX) ncap = PM_TAG_TREE_MAX;
    pm_prof_tag_node *g = realloc(nodes, ncap * sizeof *g);
    if (g) {
      nodes = g;
      cap = ncap;
    }
  }
  if (nnodes < cap)
    nodes[nnodes++] = n;
  else
    dropped++; /* the bound, or out of memory: counted in the profile */
  pthread_mutex_unlock(&lock);
}

int pm_tag_tree_to_profile(pm_prof_published **out) {
  pthread_mutex_lock(&lock);
  int rc = 0;
  if (nnodes > 0 || dropped > 0) {
    rc = pm_prof_tag_nodes_add(out, nodes, (int)nnodes);
    if (rc == 0) (*out)->nodes_dropped += dropped;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

void pm_tag_tree_reset(void) {
  pthread_mutex_lock(&lock);
  free(nodes);
  nodes = NULL;
  nnodes = cap = 0;
  dropped = 0;
  pthread_mutex_unlock(&lock);
}
