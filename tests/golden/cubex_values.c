/* Values of a checked .cubex: CubeLib's row orders, the inclusive/exclusive views along the call
 * tree, and accessors. The row orders are written here independently of the writer's
 * (lib/cube/pm_cube_order.c), so that a wrong order in the writer shows up as wrong values. */
#include "cubex_internal.h"
#include <stdlib.h>
#include <string.h>

/* EXCLUSIVE (and anything else stored but INCLUSIVE/SIMPLE): depth-first pre-order, roots in
 * document order, children in nesting order. */
static int preorder(const cubex *c, int *out) {
  int *stack = malloc(sizeof(int) * (size_t)(c->ncn + 1)), k = 0;
  if (!stack) return -1;
  for (int r = c->cn_root; r >= 0; r = c->cn_next[r]) {
    int sp = 0;
    stack[sp++] = r;
    while (sp > 0) {
      int n = stack[--sp], nch = 0;
      out[k++] = n;
      for (int ch = c->cn_first[n]; ch >= 0; ch = c->cn_next[ch]) nch++;
      /* push the children so that the first one is on top */
      int j = sp + nch;
      for (int ch = c->cn_first[n]; ch >= 0; ch = c->cn_next[ch]) stack[--j] = ch;
      sp += nch;
    }
  }
  free(stack);
  return 0;
}

/* INCLUSIVE: CubeLib's WideSearchEnumerator, per root in document order: the root, then for each
 * node all its children as one block, recursing into each child after the block. For
 * A{B{D{G}},C{F}} that is A B C D G F (BFS would give A B C D F G). Written recursively like
 * CubeLib, with the depth bounded by the parser. */
static void wide_rec(const cubex *c, int n, int *out, int *k) {
  for (int ch = c->cn_first[n]; ch >= 0; ch = c->cn_next[ch]) out[(*k)++] = ch;
  for (int ch = c->cn_first[n]; ch >= 0; ch = c->cn_next[ch]) wide_rec(c, ch, out, k);
}

int cx_row_order(cubex *c, cx_metric *m, const uint32_t *sparse_pos, int npos) {
  int *order = malloc(sizeof(int) * (size_t)(c->ncn + 1));
  m->row_cnode = malloc(sizeof(int) * (size_t)(m->nrows + 1));
  m->cnode_row = malloc(sizeof(int) * (size_t)(c->ncn + 1));
  if (!order || !m->row_cnode || !m->cnode_row) {
    free(order);
    return -1;
  }
  if (!strcmp(m->type, "SIMPLE")) {
    for (int i = 0; i < c->ncn; i++) order[i] = i;
  } else if (!strcmp(m->type, "INCLUSIVE")) {
    int k = 0;
    for (int r = c->cn_root; r >= 0; r = c->cn_next[r]) {
      order[k++] = r;
      wide_rec(c, r, order, &k);
    }
  } else if (preorder(c, order) != 0) {
    free(order);
    return -1;
  }
  for (int i = 0; i < c->ncn; i++) m->cnode_row[i] = -1;
  for (int k = 0; k < m->nrows; k++) {
    int cn = order[sparse_pos ? (int)sparse_pos[k] : k];
    m->row_cnode[k] = cn;
    m->cnode_row[cn] = k;
  }
  (void)npos;
  free(order);
  return 0;
}

/* ------------------------------------------------------------------------------------- values */
static int stored(const cubex *c, const cx_metric *m, int cn, int loc, double *v) {
  int row = m->cnode_row[cn];
  if (row < 0) {
    *v = 0;
    return 0;
  } /* not in a sparse file: zero, as CubeLib reads it */
  const unsigned char *p =
      c->buf + c->mem[m->data_member].off + 10 + ((size_t)row * (size_t)c->nloc + (size_t)loc) * (size_t)m->dsize;
  uint64_t bits = 0;
  for (int i = m->dsize - 1; i >= 0; i--) bits = (bits << 8) | p[i];
  if (m->kind == 'f') {
    memcpy(v, &bits, sizeof *v);
    return 0;
  }
  if (m->kind == 'u') {
    *v = (double)bits;
    return 0;
  }
  int shift = 64 - 8 * m->dsize; /* sign-extend a narrower signed integer */
  *v = (double)((int64_t)(bits << shift) >> shift);
  return 0;
}

/* Sum of the stored values over the subtree rooted at cn. */
static double subtree(const cubex *c, const cx_metric *m, int cn, int loc) {
  double v, sum = 0;
  stored(c, m, cn, loc, &v);
  sum += v;
  for (int ch = c->cn_first[cn]; ch >= 0; ch = c->cn_next[ch]) sum += subtree(c, m, ch, loc);
  return sum;
}

int cubex_value(const cubex *c, int mid, int cn, int loc, cubex_view view, double *v) {
  if (!c || mid < 0 || mid >= c->nmet || cn < 0 || cn >= c->ncn || loc < 0 || loc >= c->nloc) return -1;
  const cx_metric *m = &c->met[mid];
  if (m->derived || !m->kind) return -1;
  int incl_stored = !strcmp(m->type, "INCLUSIVE");
  if (view == CUBEX_STORED || (view == CUBEX_INCL && incl_stored) || (view == CUBEX_EXCL && !incl_stored))
    return stored(c, m, cn, loc, v);
  if (view == CUBEX_INCL) {
    *v = subtree(c, m, cn, loc);
    return 0;
  }
  /* exclusive from inclusive storage: the call path minus its children */
  stored(c, m, cn, loc, v);
  for (int ch = c->cn_first[cn]; ch >= 0; ch = c->cn_next[ch]) {
    double w;
    stored(c, m, ch, loc, &w);
    *v -= w;
  }
  return 0;
}

int cubex_dump(FILE *out, const cubex *c, const char *uniq, cubex_view view) {
  int mid = cubex_metric_find(c, uniq);
  if (mid < 0) {
    fprintf(out, "no metric named %s\n", uniq);
    return -1;
  }
  const cx_metric *m = &c->met[mid];
  if (m->derived) {
    fprintf(out, "%s is a derived metric (CubePL: %s): no stored values\n", uniq, m->cubepl);
    return -1;
  }
  if (!m->kind) {
    fprintf(out, "%s has dtype %s, which is not one number per value\n", uniq, m->dtype);
    return -1;
  }
  fprintf(out, "# %s (%s, %s, %s): rows in file order; cnode(id), location, value\n", uniq, m->type, m->dtype,
          view == CUBEX_STORED ? "as stored"
          : view == CUBEX_INCL ? "inclusive"
                               : "exclusive");
  for (int k = 0; k < m->nrows; k++) {
    int cn = m->row_cnode[k];
    for (int loc = 0; loc < c->nloc; loc++) {
      double v;
      cubex_value(c, mid, cn, loc, view, &v);
      if (m->kind == 'f')
        fprintf(out, "%s(id=%d)\t%d\t%.17g\n", cubex_cnode_name(c, cn), cn, loc, v);
      else
        fprintf(out, "%s(id=%d)\t%d\t%.0f\n", cubex_cnode_name(c, cn), cn, loc, v);
    }
  }
  return 0;
}

/* ----------------------------------------------------------------------------------- accessors */
static const char *leaf_text(const cx_node *n, const char *tag) {
  for (int i = 0; n && i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, tag)) return n->child[i]->text;
  return NULL;
}

const char *cubex_version(const cubex *c) { return c->version; }
const char *cubex_attr(const cubex *c, const char *key) {
  for (int i = 0; i < c->root->nchild; i++) {
    const cx_node *a = c->root->child[i];
    if (!strcmp(a->tag, "attr") && !strcmp(cx_attr(a, "key"), key)) return cx_attr(a, "value");
  }
  return NULL;
}
int cubex_nmetrics(const cubex *c) { return c->nmet; }
int cubex_ncnodes(const cubex *c) { return c->ncn; }
int cubex_nregions(const cubex *c) { return c->nreg; }
int cubex_nlocations(const cubex *c) { return c->nloc; }
int cubex_nmembers(const cubex *c) { return c->nmem; }
const char *cubex_member_name(const cubex *c, int i) { return i >= 0 && i < c->nmem ? c->mem[i].name : NULL; }
size_t cubex_member_size(const cubex *c, int i) { return i >= 0 && i < c->nmem ? c->mem[i].size : 0; }
size_t cubex_member_offset(const cubex *c, int i) { return i >= 0 && i < c->nmem ? c->mem[i].off : 0; }

int cubex_metric_find(const cubex *c, const char *uniq) {
  for (int i = 0; i < c->nmet; i++)
    if (!strcmp(c->met[i].uniq, uniq)) return i;
  return -1;
}
#define METRIC_FIELD(fn, expr) \
  const char *fn(const cubex *c, int m) { return m >= 0 && m < c->nmet ? (expr) : NULL; }
METRIC_FIELD(cubex_metric_uniq, c->met[m].uniq)
METRIC_FIELD(cubex_metric_type, c->met[m].type)
METRIC_FIELD(cubex_metric_dtype, c->met[m].dtype)
METRIC_FIELD(cubex_metric_uom, c->met[m].uom)
METRIC_FIELD(cubex_metric_cubepl, c->met[m].cubepl)
METRIC_FIELD(cubex_metric_aggr, c->met[m].aggr)
int cubex_metric_parent(const cubex *c, int m) { return m >= 0 && m < c->nmet ? c->met[m].parent : -1; }
int cubex_metric_stored(const cubex *c, int m) { return m >= 0 && m < c->nmet && !c->met[m].derived; }

const char *cubex_region_name(const cubex *c, int r) {
  return r >= 0 && r < c->nreg ? leaf_text(c->reg[r], "name") : NULL;
}
const char *cubex_region_child_text(const cubex *c, int r, const char *tag) {
  return r >= 0 && r < c->nreg ? leaf_text(c->reg[r], tag) : NULL;
}
int cubex_cnode_region(const cubex *c, int cn) { return cn >= 0 && cn < c->ncn ? c->cn_region[cn] : -1; }
int cubex_cnode_parent(const cubex *c, int cn) { return cn >= 0 && cn < c->ncn ? c->cn_parent[cn] : -1; }
const char *cubex_cnode_name(const cubex *c, int cn) { return cubex_region_name(c, cubex_cnode_region(c, cn)); }

int cubex_cnode_find(const cubex *c, const char *path) {
  int cur = -1;
  const char *s = path;
  while (*s) {
    const char *slash = strchr(s, '/');
    size_t len = slash ? (size_t)(slash - s) : strlen(s);
    int found = -1;
    for (int ch = cur < 0 ? c->cn_root : c->cn_first[cur]; ch >= 0 && found < 0; ch = c->cn_next[ch]) {
      const char *name = cubex_cnode_name(c, ch);
      if (strlen(name) == len && !strncmp(name, s, len)) found = ch;
    }
    if (found < 0) return -1;
    cur = found;
    s += len + (slash != NULL);
  }
  return cur;
}

int cubex_row_cnode(const cubex *c, int m, int k) {
  if (m < 0 || m >= c->nmet || c->met[m].derived || k < 0 || k >= c->met[m].nrows) return -1;
  return c->met[m].row_cnode[k];
}

const char *cubex_location_name(const cubex *c, int l) {
  return l >= 0 && l < c->nloc ? leaf_text(c->loc[l], "name") : NULL;
}
const char *cubex_location_type(const cubex *c, int l) {
  return l >= 0 && l < c->nloc ? leaf_text(c->loc[l], "type") : NULL;
}
int cubex_location_group(const cubex *c, int l) { return l >= 0 && l < c->nloc ? c->loc_group[l] : -1; }
int cubex_group_rank(const cubex *c, int g) { return g >= 0 && g < c->ngroup ? c->group_rank[g] : -1; }
