/* System-tree layout: CUBE location ids are the data columns and, to keep CubeLib's reader and every
 * tool agreeing on them, they follow the document order of the system tree (node, then process,
 * then thread). The profile's own location order (merge order) need not match it. */
#include "pm_cube_internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  int node, proc, thread, idx;
} key;

static int cmp_key(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  if (x->proc != y->proc) return x->proc < y->proc ? -1 : 1;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int pm_cube_layout_build(const pm_profile *p, pm_cube_layout *lay) {
  memset(lay, 0, sizeof *lay);
  int L = p->nlocations, P = p->nprocesses;
  key *k = malloc(sizeof *k * (size_t)(L > P ? L + 1 : P + 1));
  lay->col = malloc(sizeof(int) * (size_t)(L + 1));
  lay->loc_of_col = malloc(sizeof(int) * (size_t)(L + 1));
  lay->group_of_proc = malloc(sizeof(int) * (size_t)(P + 1));
  lay->proc_of_group = malloc(sizeof(int) * (size_t)(P + 1));
  if (!k || !lay->col || !lay->loc_of_col || !lay->group_of_proc || !lay->proc_of_group) {
    free(k);
    pm_cube_layout_free(lay);
    return -1;
  }
  for (int i = 0; i < P; i++) k[i] = (key){p->proc[i].node, i, 0, i};
  qsort(k, (size_t)P, sizeof *k, cmp_key);
  for (int g = 0; g < P; g++) {
    lay->proc_of_group[g] = k[g].idx;
    lay->group_of_proc[k[g].idx] = g;
  }
  for (int i = 0; i < L; i++) {
    const pm_prof_location *l = &p->loc[i];
    /* order locations by their process's position in the tree, so processes that share a node
     * but are not adjacent in the profile still get contiguous columns */
    k[i] = (key){p->proc[l->process].node, lay->group_of_proc[l->process], l->thread, i};
    lay->ncompute += pm_prof_loc_computes(l);
    lay->has_gpu |= l->role == PM_ROLE_DEVICE;
  }
  qsort(k, (size_t)L, sizeof *k, cmp_key);
  for (int c = 0; c < L; c++) {
    lay->loc_of_col[c] = k[c].idx;
    lay->col[k[c].idx] = c;
  }
  free(k);
  return 0;
}

void pm_cube_layout_free(pm_cube_layout *lay) {
  free(lay->col);
  free(lay->loc_of_col);
  free(lay->group_of_proc);
  free(lay->proc_of_group);
  memset(lay, 0, sizeof *lay);
}
