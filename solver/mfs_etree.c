/*
 * mfs_etree.c — elimination tree (Liu's algorithm with path compression) and a non-recursive
 * postorder. Recursion is avoided on purpose: elimination trees of banded or natural-ordered
 * matrices are paths of length n and would overflow the stack.
 */
#include "mfs_internal.h"

#include <string.h>

mfs_status pattern__upper(int32_t n, const int64_t *colptr, const int32_t *rowind, int64_t **uptr, int32_t **uind) {
  int64_t *up = mem__calloc((size_t)n + 1, sizeof *up);
  if (!up) return MFS_ERR_NOMEM;
  for (int32_t j = 0; j < n; j++)
    for (int64_t p = colptr[j]; p < colptr[j + 1]; p++)
      if (rowind[p] > j) up[rowind[p] + 1]++;
  for (int32_t i = 0; i < n; i++) up[i + 1] += up[i];
  int32_t *ui = mem__alloc((size_t)(up[n] ? up[n] : 1) * sizeof *ui);
  int64_t *next = mem__alloc(((size_t)n + 1) * sizeof *next);
  if (!ui || !next) {
    mem__free(up);
    mem__free(ui);
    mem__free(next);
    return MFS_ERR_NOMEM;
  }
  memcpy(next, up, ((size_t)n + 1) * sizeof *next);
  for (int32_t j = 0; j < n; j++)
    for (int64_t p = colptr[j]; p < colptr[j + 1]; p++)
      if (rowind[p] > j) ui[next[rowind[p]]++] = j;
  mem__free(next);
  *uptr = up;
  *uind = ui;
  return MFS_OK;
}

mfs_status mfs_etree(int32_t n, const int64_t *colptr, const int32_t *rowind, int32_t *parent) {
  int64_t *up;
  int32_t *ui;
  if (pattern__upper(n, colptr, rowind, &up, &ui) != MFS_OK) return MFS_ERR_NOMEM;
  int32_t *anc = mem__alloc(((size_t)n + 1) * sizeof *anc);
  if (!anc) {
    mem__free(up);
    mem__free(ui);
    return MFS_ERR_NOMEM;
  }
  /* Row i of L: walk from every k < i with A(i,k) != 0 up the current forest to its root, which
     * becomes a child of i; anc[] short-cuts the walked paths to i. */
  for (int32_t i = 0; i < n; i++) {
    parent[i] = -1;
    anc[i] = -1;
    for (int64_t p = up[i]; p < up[i + 1]; p++) {
      int32_t r = ui[p];
      while (anc[r] != -1 && anc[r] != i) {
        int32_t nx = anc[r];
        anc[r] = i;
        r = nx;
      }
      if (anc[r] == -1) {
        anc[r] = i;
        parent[r] = i;
      }
    }
  }
  mem__free(anc);
  mem__free(up);
  mem__free(ui);
  return MFS_OK;
}

mfs_status mfs_postorder(int32_t n, const int32_t *parent, int32_t *post) {
  int32_t *head = mem__alloc(((size_t)n + 1) * sizeof *head);
  int32_t *next = mem__alloc(((size_t)n + 1) * sizeof *next);
  int32_t *stack = mem__alloc(((size_t)n + 1) * sizeof *stack);
  if (!head || !next || !stack) {
    mem__free(head);
    mem__free(next);
    mem__free(stack);
    return MFS_ERR_NOMEM;
  }
  for (int32_t j = 0; j < n; j++) head[j] = -1;
  /* insert in decreasing order so that each child list is increasing */
  for (int32_t j = n - 1; j >= 0; j--) {
    if (parent[j] < 0) continue;
    next[j] = head[parent[j]];
    head[parent[j]] = j;
  }
  int32_t k = 0;
  for (int32_t root = 0; root < n; root++) {
    if (parent[root] >= 0) continue;
    int32_t top = 0;
    stack[0] = root;
    while (top >= 0) {
      int32_t v = stack[top];
      int32_t c = head[v];
      if (c == -1) { /* all children done */
        post[k++] = v;
        top--;
      } else {
        head[v] = next[c]; /* pop the child off v's list and descend */
        stack[++top] = c;
      }
    }
  }
  mem__free(head);
  mem__free(next);
  mem__free(stack);
  return k == n ? MFS_OK : MFS_ERR_ARG; /* k < n: parent[] had a cycle */
}
