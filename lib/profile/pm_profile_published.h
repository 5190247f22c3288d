/* What the program published about its own work through popmeter.h (lib/published): a tree of task
 * tags and quantities over time. A profile whose program published nothing has no such part
 * (pm_profile.published == NULL) and its JSON neither "tag_tree" nor "series" (docs/json.md). */
#ifndef PM_PROFILE_PUBLISHED_H
#define PM_PROFILE_PUBLISHED_H
#include <jansson.h>
#include "pm_profile.h"

#define PM_PROF_TAG_NONE UINT64_MAX /* the parent of a root (popmeter.h: PM_TAG_NONE) */

typedef struct {
  uint64_t tag, parent; /* parent PM_PROF_TAG_NONE: a root */
  int64_t order;        /* the node's position in the program's traversal */
  double flops;
  int rank; /* owning process, -1 none */
} pm_prof_tag_node;

/* One bin of a series: the smallest, largest and last value set during it. A bin in which nothing
 * was set holds the value then current (min = max = last), or NaN before the first value. */
typedef struct {
  double min, max, last;
} pm_prof_bin;

typedef struct {
  char name[64];
  int process;    /* index into processes */
  double start;   /* seconds from the process's window start to the first bin (negative: before it) */
  uint64_t clock; /* the first bin's start on the measurement clock (CLOCK_MONOTONIC ns, as the trace) */
  double bin;     /* bin width (s) */
  uint64_t samples;
  int nbins;
  pm_prof_bin *bins;
} pm_prof_series;

typedef struct pm_prof_published {
  int nnodes; /* sorted by tag, each tag once */
  pm_prof_tag_node *node;
  uint64_t nodes_dropped; /* published beyond the per-process bound */
  int nseries;
  pm_prof_series *series;
} pm_prof_published;

void pm_prof_published_free(pm_prof_published *p);
/* Adds n nodes (any order, duplicates allowed: the first of a tag wins), keeping node sorted by
 * tag. *p allocated when NULL. 0, or -1 out of memory. */
int pm_prof_tag_nodes_add(pm_prof_published **p, const pm_prof_tag_node *nodes, int n);
/* Appends a series (bins copied). 0, or -1 out of memory. */
int pm_prof_series_add(pm_prof_published **p, const pm_prof_series *s);
/* Appends src: its series' processes shifted by p0; its nodes merged (dst's records win). */
int pm_prof_published_merge(pm_prof_published **dst, const pm_prof_published *src, int p0);
/* The node of tag, or NULL (binary search). */
const pm_prof_tag_node *pm_prof_tag_node_find(const pm_prof_published *p, uint64_t tag);
/* Sets root's "tag_tree" and "series" (those not empty). */
void pm_prof_published_to_json(json_t *root, const pm_prof_published *p);
/* Validating reader of both keys of root: 0 with *out NULL when neither is present, 0 with *out
 * set, or -1 with err naming the field. */
int pm_prof_published_from_json(const json_t *root, int nprocesses, pm_prof_published **out, char *err, size_t errlen);
#endif
