/* Row order of CUBE data files. CubeLib does not store rows by cnode id: it enumerates the call tree
 * (children in XML nesting order, roots in document order), depth-first pre-order for EXCLUSIVE
 * metrics (docs/cube-format.md §5). Getting this wrong still gives a file that loads, with every value
 * shown under the wrong call path, so the order lives here, in one place, and is unit-tested against
 * the example verified with cube_dump. */
#include "pm_cube_internal.h"
#include <stdlib.h>

int pm_cube_preorder(const pm_prof_cnode *cn, int n, int *order) {
  if (n <= 0) return 0;
  /* children lists in id order (first child, next sibling); roots chained from `root` */
  int *first = malloc(sizeof(int) * (size_t)n), *next = malloc(sizeof(int) * (size_t)n);
  int *last = malloc(sizeof(int) * (size_t)n), *stack = malloc(sizeof(int) * (size_t)n);
  int rc = -1;
  if (!first || !next || !last || !stack) goto out;
  int root = -1, last_root = -1;
  for (int i = 0; i < n; i++) first[i] = next[i] = last[i] = -1;
  for (int i = 0; i < n; i++) {
    int par = cn[i].parent;
    int *head = par < 0 ? &root : &first[par], *tail = par < 0 ? &last_root : &last[par];
    if (*tail < 0)
      *head = i;
    else
      next[*tail] = i;
    *tail = i;
  }
  /* an explicit stack: call trees can be deeper than the C stack likes; each node is pushed once */
  int k = 0;
  for (int r = root; r >= 0; r = next[r]) {
    int sp = 0;
    stack[sp++] = r;
    while (sp > 0) {
      int c = stack[--sp];
      order[k++] = c;
      int nchild = 0;
      for (int ch = first[c]; ch >= 0; ch = next[ch]) stack[sp + nchild++] = ch;
      /* reversed, so that the first child is popped first */
      for (int a = sp, b = sp + nchild - 1; a < b; a++, b--) {
        int t = stack[a];
        stack[a] = stack[b];
        stack[b] = t;
      }
      sp += nchild;
    }
  }
  rc = 0;
out:
  free(first);
  free(next);
  free(last);
  free(stack);
  return rc;
}
