/* Opening a .cubex: the tar layer (cubex_tar.c), the anchor's structure and ids, and the data
 * and index files of every stored metric. Every failed check names what CubeLib would do with it
 * (docs/cube-format.md §6), because most of these files would load in Cube without an error. */
#include "cubex_internal.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  cubex *c;
  char *err;
  size_t len;
  int failed;
} ctx;

static int fail(ctx *x, const cx_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(ctx *x, const cx_node *n, const char *fmt, ...) {
  if (x->failed++) return -1;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n)
    snprintf(x->err, x->len, "anchor.xml line %d: %s", n->line, msg);
  else
    snprintf(x->err, x->len, "%s", msg);
  return -1;
}

/* ------------------------------------------------------------------------------ element shapes */
/* Allowed children of an element: tag, rank (children must come in non-decreasing rank), and the
 * count bounds. This encodes the element order of the CubeLib grammar. */
typedef struct {
  const char *tag;
  int rank, min, max;
} spec;
#define MANY 1000000000

static const spec s_cube[] = {{"attr", 0, 0, MANY}, {"doc", 1, 0, 1},    {"metrics", 2, 1, 1},
                              {"program", 3, 1, 1}, {"system", 4, 1, 1}, {NULL, 0, 0, 0}};
static const spec s_doc[] = {{"mirrors", 0, 0, 1}, {NULL, 0, 0, 0}};
static const spec s_mirrors[] = {{"murl", 0, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_metrics[] = {{"metric", 0, 1, MANY}, {NULL, 0, 0, 0}};
static const spec s_metric[] = {{"disp_name", 0, 1, 1},  {"uniq_name", 1, 1, 1}, {"dtype", 2, 1, 1},
                                {"uom", 3, 1, 1},        {"val", 4, 0, 1},       {"url", 5, 0, 1},
                                {"descr", 6, 0, 1},      {"cubepl", 7, 0, 1},    {"cubeplinit", 8, 0, 1},
                                {"cubeplaggr", 9, 0, 3}, {"attr", 10, 0, MANY},  {"metric", 11, 0, MANY},
                                {NULL, 0, 0, 0}};
static const spec s_program[] = {{"attr", 0, 0, MANY}, {"region", 1, 1, MANY}, {"cnode", 2, 1, MANY}, {NULL, 0, 0, 0}};
static const spec s_region[] = {{"name", 0, 1, 1}, {"mangled_name", 1, 0, 1}, {"paradigm", 2, 0, 1}, {"role", 3, 0, 1},
                                {"url", 4, 0, 1},  {"descr", 5, 0, 1},        {"attr", 6, 0, MANY},  {NULL, 0, 0, 0}};
static const spec s_cnode[] = {{"parameter", 0, 0, MANY}, {"attr", 0, 0, MANY}, {"cnode", 1, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_system[] = {{"systemtreenode", 0, 1, MANY}, {"topologies", 1, 0, 1}, {NULL, 0, 0, 0}};
static const spec s_stn[] = {{"name", 0, 1, 1},
                             {"class", 1, 1, 1},
                             {"descr", 2, 0, 1},
                             {"attr", 3, 0, MANY},
                             {"systemtreenode", 4, 0, MANY},
                             {"locationgroup", 4, 0, MANY},
                             {NULL, 0, 0, 0}};
static const spec s_group[] = {{"name", 0, 1, 1},    {"rank", 1, 1, 1},        {"type", 2, 1, 1}, {"descr", 3, 0, 1},
                               {"attr", 4, 0, MANY}, {"location", 5, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_location[] = {{"name", 0, 1, 1},  {"rank", 1, 1, 1},    {"type", 2, 1, 1},
                                  {"descr", 3, 0, 1}, {"attr", 4, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_topologies[] = {{"cart", 0, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_cart[] = {{"dim", 0, 1, MANY}, {"coord", 1, 0, MANY}, {NULL, 0, 0, 0}};
static const spec s_leaf[] = {{NULL, 0, 0, 0}};

static int all_space(const char *s) {
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

/* Trims the text of a leaf in place and returns it. */
static const char *trimmed(cx_node *n) {
  char *s = n->text, *e = s + strlen(s);
  while (*s && isspace((unsigned char)*s)) s++;
  while (e > s && isspace((unsigned char)e[-1])) e--;
  memmove(n->text, s, (size_t)(e - s));
  n->text[e - s] = '\0';
  return n->text;
}

static int shape(ctx *x, cx_node *n, const spec *sp) {
  if (sp != s_leaf && !all_space(n->text)) return fail(x, n, "text inside <%s>, which holds only elements", n->tag);
  int count[16] = {0}, rank = -1;
  for (int i = 0; i < n->nchild; i++) {
    const cx_node *ch = n->child[i];
    int k = 0;
    while (sp[k].tag && strcmp(sp[k].tag, ch->tag)) k++;
    if (!sp[k].tag) return fail(x, ch, "<%s> is not allowed inside <%s>", ch->tag, n->tag);
    if (sp[k].rank < rank) return fail(x, ch, "<%s> is out of order inside <%s>", ch->tag, n->tag);
    rank = sp[k].rank;
    if (++count[k] > sp[k].max) return fail(x, ch, "too many <%s> inside <%s>", ch->tag, n->tag);
  }
  for (int k = 0; sp[k].tag; k++)
    if (count[k] < sp[k].min) return fail(x, n, "<%s> lacks a <%s>", n->tag, sp[k].tag);
  if (sp == s_leaf) trimmed(n);
  return 0;
}

static cx_node *child(const cx_node *n, const char *tag) {
  for (int i = 0; i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, tag)) return n->child[i];
  return NULL;
}

/* Text of a required leaf child (shape() has checked presence). */
static const char *leaf(ctx *x, cx_node *n, const char *tag) {
  cx_node *ch = child(n, tag);
  if (!ch) {
    fail(x, n, "<%s> lacks a <%s>", n->tag, tag);
    return NULL;
  }
  if (shape(x, ch, s_leaf) != 0) return NULL;
  return ch->text;
}

/* Attributes: only those listed; required ones flagged with a leading '!'. */
static int attrs(ctx *x, const cx_node *n, const char *const *allowed) {
  for (int a = 0; a < n->nattr; a++) {
    int ok = 0;
    for (int k = 0; allowed[k]; k++) ok |= !strcmp(n->key[a], allowed[k] + (allowed[k][0] == '!'));
    if (!ok) return fail(x, n, "unknown attribute %s in <%s>", n->key[a], n->tag);
  }
  for (int k = 0; allowed[k]; k++)
    if (allowed[k][0] == '!' && !cx_attr(n, allowed[k] + 1))
      return fail(x, n, "<%s> lacks the attribute %s", n->tag, allowed[k] + 1);
  return 0;
}

static int int_attr(ctx *x, const cx_node *n, const char *key, long *v) {
  const char *s = cx_attr(n, key);
  char *end;
  if (!s || !*s) return fail(x, n, "<%s> lacks the attribute %s", n->tag, key);
  *v = strtol(s, &end, 10);
  if (*end) return fail(x, n, "attribute %s=\"%s\" of <%s> is not an integer", key, s, n->tag);
  return 0;
}

/* Leaves that may appear anywhere (attr, parameter) and containers checked only for shape. */
static int check_attr_leaves(ctx *x, cx_node *n) {
  static const char *const a_attr[] = {"!key", "!value", NULL};
  static const char *const a_param[] = {"!partype", "!parkey", "!parvalue", NULL};
  for (int i = 0; i < n->nchild; i++) {
    cx_node *ch = n->child[i];
    if (!strcmp(ch->tag, "attr") && (attrs(x, ch, a_attr) || shape(x, ch, s_leaf))) return -1;
    if (!strcmp(ch->tag, "parameter") && (attrs(x, ch, a_param) || shape(x, ch, s_leaf))) return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- metrics */
typedef struct {
  const char *name;
  int size;
  char kind;
} dtype_info;

/* Bytes per value (docs/cube-format.md §2.2 table); kind 0 for types that are not one plain number. */
static int dtype_of(const char *s, dtype_info *d) {
  static const dtype_info known[] = {{"DOUBLE", 8, 'f'},    {"FLOAT", 8, 'f'},        {"MINDOUBLE", 8, 'f'},
                                     {"MAXDOUBLE", 8, 'f'}, {"UINT64", 8, 'u'},       {"UNSIGNED INTEGER", 8, 'u'},
                                     {"INT64", 8, 'i'},     {"INTEGER", 8, 'i'},      {"SIGNED INTEGER", 8, 'i'},
                                     {"UINT32", 4, 'u'},    {"UNSIGNED INT", 4, 'u'}, {"INT32", 4, 'i'},
                                     {"INT", 4, 'i'},       {"SIGNED INT", 4, 'i'},   {"UINT16", 2, 'u'},
                                     {"INT16", 2, 'i'},     {"SHORT INT", 2, 'i'},    {"UINT8", 1, 'u'},
                                     {"CHAR", 1, 'u'},      {"INT8", 1, 'i'},         {"COMPLEX", 16, 0},
                                     {"RATE", 16, 0},       {"TAU_ATOMIC", 36, 0},    {"SCALE_FUNC", 216, 0}};
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (!strcmp(s, known[k].name)) {
      *d = known[k];
      return 0;
    }
  int n;
  char end;
  if (sscanf(s, "HISTOGRAM(%d%c", &n, &end) == 2 && end == ')' && n > 0 && n < 100000) {
    *d = (dtype_info){s, (n + 2) * 8, 0};
    return 0;
  }
  if (sscanf(s, "NDOUBLES(%d%c", &n, &end) == 2 && end == ')' && n > 0 && n < 100000) {
    *d = (dtype_info){s, n * 8, 0};
    return 0;
  }
  return -1;
}

static int is_cubepl_tag(const char *tag) {
  return !strcmp(tag, "cubepl") || !strcmp(tag, "cubeplinit") || !strcmp(tag, "cubeplaggr");
}

static int is_derived(const char *type) {
  return !strcmp(type, "POSTDERIVED") || !strcmp(type, "PREDERIVED_INCLUSIVE") || !strcmp(type, "PREDERIVED_EXCLUSIVE");
}

static int metric(ctx *x, cx_node *n, int parent) {
  static const char *const a_metric[] = {"!id", "type", "viztype", "convertible", "cacheable", NULL};
  static const char *const types[] = {
      "EXCLUSIVE", "INCLUSIVE", "SIMPLE", "POSTDERIVED", "PREDERIVED_INCLUSIVE", "PREDERIVED_EXCLUSIVE", NULL};
  cubex *c = x->c;
  if (attrs(x, n, a_metric) || shape(x, n, s_metric) || check_attr_leaves(x, n)) return -1;
  long id;
  if (int_attr(x, n, "id", &id) != 0) return -1;
  cx_metric *q = realloc(c->met, sizeof *q * (size_t)(c->nmet + 1));
  if (!q) return fail(x, n, "out of memory");
  c->met = q;
  cx_metric *m = &c->met[c->nmet++];
  memset(m, 0, sizeof *m);
  m->node = n;
  m->parent = parent;
  m->index_member = m->data_member = -1;
  const char *t = cx_attr(n, "type");
  m->type = t ? t : "EXCLUSIVE"; /* CubeLib's default */
  int ok = 0;
  for (int k = 0; types[k]; k++) ok |= !strcmp(m->type, types[k]);
  if (!ok) return fail(x, n, "unknown metric type \"%s\"", m->type);
  const char *viz = cx_attr(n, "viztype");
  if (viz && strcmp(viz, "NORMAL") && strcmp(viz, "GHOST"))
    return fail(x, n, "viztype \"%s\" is neither NORMAL nor GHOST", viz);
  m->ghost = viz && !strcmp(viz, "GHOST");
  for (const char *const *b = (const char *const[]){"convertible", "cacheable", NULL}; *b; b++) {
    const char *v = cx_attr(n, *b);
    if (v && strcmp(v, "true") && strcmp(v, "false")) return fail(x, n, "%s=\"%s\" is not true or false", *b, v);
  }
  if (!leaf(x, n, "disp_name") || !(m->uniq = leaf(x, n, "uniq_name")) || !(m->dtype = leaf(x, n, "dtype")) ||
      !(m->uom = leaf(x, n, "uom")))
    return -1;
  for (int i = 0; i < n->nchild; i++)
    if (!is_cubepl_tag(n->child[i]->tag) && strcmp(n->child[i]->tag, "metric") && strcmp(n->child[i]->tag, "attr") &&
        shape(x, n->child[i], s_leaf))
      return -1;
  if (!*m->uniq) return fail(x, n, "empty uniq_name");
  for (const char *s = m->uniq; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != ':')
      return fail(x, n, "uniq_name \"%s\" has characters outside [A-Za-z0-9_:] (CubePL and the tools use it)", m->uniq);
  for (int j = 0; j < c->nmet - 1; j++)
    if (!strcmp(c->met[j].uniq, m->uniq)) return fail(x, n, "uniq_name \"%s\" used twice", m->uniq);
  dtype_info d;
  if (dtype_of(m->dtype, &d) != 0)
    return fail(x, n, "unknown dtype \"%s\" (CubeLib warns and reads it as DOUBLE)", m->dtype);
  m->dsize = d.size;
  m->kind = d.kind;
  m->derived = is_derived(m->type);
  cx_node *pl = child(n, "cubepl"), *aggr = NULL;
  if (m->derived) {
    if (strcmp(m->dtype, "DOUBLE")) return fail(x, n, "derived metric %s must have dtype DOUBLE", m->uniq);
    if (!pl || all_space(pl->text)) return fail(x, n, "derived metric %s has no <cubepl> expression", m->uniq);
  } else if (pl || child(n, "cubeplinit") || child(n, "cubeplaggr")) {
    return fail(x, n, "stored metric %s carries CubePL elements", m->uniq);
  }
  if (!strcmp(m->type, "INCLUSIVE") &&
      (!strcmp(m->dtype, "MINDOUBLE") || !strcmp(m->dtype, "MAXDOUBLE") || !strcmp(m->dtype, "TAU_ATOMIC")))
    return fail(x, n, "an INCLUSIVE metric may not have dtype %s", m->dtype);
  for (int i = 0; i < n->nchild; i++) {
    cx_node *ch = n->child[i];
    if (!is_cubepl_tag(ch->tag)) continue;
    /* CubeLib decodes entities in this text, but its CubePL parser then rejects a '<' ("syntax
     * error, unexpected <"); '&' is kept out with it so the text needs no decoding at all */
    if (strchr(ch->text, '&') || strchr(ch->text, '<'))
      return fail(x, ch, "<%s> contains '&' or '<': CubeLib's CubePL parser rejects '<', even as an entity", ch->tag);
    for (int a = 0; a < ch->nattr; a++) {
      int good = !strcmp(ch->tag, "cubepl") ? !strcmp(ch->key[a], "rowwise") && !strcmp(ch->val[a], "false")
                 : !strcmp(ch->tag, "cubeplaggr")
                     ? !strcmp(ch->key[a], "cubeplaggrtype") &&
                           (!strcmp(ch->val[a], "plus") || !strcmp(ch->val[a], "minus") || !strcmp(ch->val[a], "aggr"))
                     : 0;
      if (!good) return fail(x, ch, "attribute %s=%s is not understood in <%s>", ch->key[a], ch->val[a], ch->tag);
    }
    if (!strcmp(ch->tag, "cubeplaggr")) {
      const char *k = cx_attr(ch, "cubeplaggrtype");
      if (!k) return fail(x, ch, "<cubeplaggr> lacks cubeplaggrtype");
      if (!strcmp(k, "aggr")) aggr = ch;
    }
  }
  /* CubeLib compiles the plus/minus/aggr rules of PREDERIVED metrics only when it reads a file: a
   * POSTDERIVED metric's rule is parsed and silently dropped, and its maximum becomes a sum */
  if (m->derived && !strcmp(m->type, "POSTDERIVED") && child(n, "cubeplaggr"))
    return fail(x, n,
                "POSTDERIVED metric %s has a <cubeplaggr> rule, which CubeLib ignores when reading the file "
                "(use PREDERIVED_INCLUSIVE)",
                m->uniq);
  m->cubepl = pl ? trimmed(pl) : NULL;
  m->aggr = aggr ? trimmed(aggr) : NULL;
  m->id = (int)id;
  /* children last: the recursion reallocs c->met, so m is not used after this point */
  for (int i = 0; i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, "metric") && metric(x, n->child[i], (int)id) != 0) return -1;
  return 0;
}

/* Ids of a kind must be unique and exactly 0..n-1 (cubew writes them so; CubeLib indexes arrays
 * with them and crashes on gaps). ids[k] is the id of the k-th element in document order. */
static int ids_dense(ctx *x, const cx_node *const *where, const int *ids, int n, const char *what,
                     const char *consequence) {
  char *seen = calloc((size_t)n + 1, 1);
  if (!seen) return fail(x, NULL, "out of memory");
  int rc = 0;
  for (int k = 0; k < n && rc == 0; k++) {
    if (ids[k] < 0 || ids[k] >= n)
      rc = fail(x, where[k], "%s id %d: the %d %s ids must be exactly 0..%d (%s)", what, ids[k], n, what, n - 1,
                consequence);
    else if (seen[ids[k]]++)
      rc = fail(x, where[k], "duplicate %s id %d", what, ids[k]);
  }
  free(seen);
  return rc;
}

static int metrics(ctx *x, cx_node *n) {
  static const char *const a_metrics[] = {"title", NULL};
  cubex *c = x->c;
  if (attrs(x, n, a_metrics) || shape(x, n, s_metrics)) return -1;
  for (int i = 0; i < n->nchild; i++)
    if (metric(x, n->child[i], -1) != 0) return -1;
  const cx_node **where = malloc(sizeof *where * (size_t)c->nmet);
  int *ids = malloc(sizeof(int) * (size_t)c->nmet);
  cx_metric *byid = malloc(sizeof *byid * (size_t)c->nmet);
  int rc = -1;
  if (!where || !ids || !byid) {
    fail(x, n, "out of memory");
    goto out;
  }
  for (int k = 0; k < c->nmet; k++) {
    where[k] = c->met[k].node;
    ids[k] = c->met[k].id;
  }
  if (ids_dense(x, where, ids, c->nmet, "metric", "data files are named after them") != 0) goto out;
  for (int k = 0; k < c->nmet; k++) byid[c->met[k].id] = c->met[k];
  memcpy(c->met, byid, sizeof *byid * (size_t)c->nmet);
  rc = 0;
out:
  free(where);
  free(ids);
  free(byid);
  return rc;
}

/* ---------------------------------------------------------------------------------------- program */
typedef struct {
  const cx_node **node;
  int *id, *callee, *parent;
  int n, cap;
} cnode_list;

static int collect_cnodes(ctx *x, cx_node *n, int parent, cnode_list *l, int depth) {
  static const char *const a_cnode[] = {"!id", "!calleeId", "line", "mod", NULL};
  if (depth > 10000) return fail(x, n, "call tree deeper than 10000");
  if (attrs(x, n, a_cnode) || shape(x, n, s_cnode) || check_attr_leaves(x, n)) return -1;
  long id, callee;
  if (int_attr(x, n, "id", &id) || int_attr(x, n, "calleeId", &callee)) return -1;
  if (callee < 0 || callee >= x->c->nreg)
    return fail(x, n, "cnode %ld: calleeId %ld names no region (CubeLib: \"Undefined region in cnode definition!\")",
                id, callee);
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    const cx_node **a = realloc(l->node, sizeof *a * (size_t)l->cap);
    if (a) l->node = a;
    int *b = realloc(l->id, sizeof(int) * (size_t)l->cap);
    if (b) l->id = b;
    int *d = realloc(l->callee, sizeof(int) * (size_t)l->cap);
    if (d) l->callee = d;
    int *e = realloc(l->parent, sizeof(int) * (size_t)l->cap);
    if (e) l->parent = e;
    if (!a || !b || !d || !e) return fail(x, n, "out of memory");
  }
  l->node[l->n] = n;
  l->id[l->n] = (int)id;
  l->callee[l->n] = (int)callee;
  l->parent[l->n++] = parent;
  for (int i = 0; i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, "cnode") && collect_cnodes(x, n->child[i], (int)id, l, depth + 1) != 0) return -1;
  return 0;
}

static int program(ctx *x, cx_node *n) {
  static const char *const a_program[] = {"title", NULL};
  static const char *const a_region[] = {"!id", "mod", "begin", "end", NULL};
  cubex *c = x->c;
  if (attrs(x, n, a_program) || shape(x, n, s_program) || check_attr_leaves(x, n)) return -1;
  int nreg = 0, rc = -1;
  for (int i = 0; i < n->nchild; i++) nreg += !strcmp(n->child[i]->tag, "region");
  const cx_node **where = malloc(sizeof *where * (size_t)(nreg + 1));
  int *ids = malloc(sizeof(int) * (size_t)(nreg + 1));
  c->reg = calloc((size_t)nreg + 1, sizeof *c->reg);
  cnode_list l = {0};
  if (!where || !ids || !c->reg) {
    fail(x, n, "out of memory");
    goto out;
  }
  for (int i = 0, k = 0; i < n->nchild; i++) {
    cx_node *r = n->child[i];
    if (strcmp(r->tag, "region")) continue;
    long id;
    if (attrs(x, r, a_region) || shape(x, r, s_region) || check_attr_leaves(x, r) || int_attr(x, r, "id", &id))
      goto out;
    for (int j = 0; j < r->nchild; j++)
      if (strcmp(r->child[j]->tag, "attr") && shape(x, r->child[j], s_leaf)) goto out;
    where[k] = r;
    ids[k++] = (int)id;
  }
  if (ids_dense(x, where, ids, nreg, "region", "calleeIds index them") != 0) goto out;
  for (int k = 0; k < nreg; k++) c->reg[ids[k]] = where[k];
  c->nreg = nreg;
  for (int i = 0; i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, "cnode") && collect_cnodes(x, n->child[i], -1, &l, 1) != 0) goto out;
  if (ids_dense(x, l.node, l.id, l.n, "cnode", "with gaps cube_dump prints garbage and crashes") != 0) goto out;
  c->ncn = l.n;
  c->cn_region = malloc(sizeof(int) * (size_t)l.n);
  c->cn_parent = malloc(sizeof(int) * (size_t)l.n);
  c->cn_first = malloc(sizeof(int) * (size_t)l.n);
  c->cn_next = malloc(sizeof(int) * (size_t)l.n);
  int *last = malloc(sizeof(int) * (size_t)l.n);
  if (!c->cn_region || !c->cn_parent || !c->cn_first || !c->cn_next || !last) {
    free(last);
    fail(x, n, "out of memory");
    goto out;
  }
  for (int k = 0; k < l.n; k++) c->cn_first[k] = c->cn_next[k] = last[k] = -1;
  /* document order = pre-order, so appending gives children (and roots) in nesting order */
  int last_root = -1;
  c->cn_root = -1;
  for (int k = 0; k < l.n; k++) {
    int id = l.id[k], par = l.parent[k];
    c->cn_region[id] = l.callee[k];
    c->cn_parent[id] = par;
    int *head = par < 0 ? &c->cn_root : &c->cn_first[par], *tail = par < 0 ? &last_root : &last[par];
    if (*tail < 0)
      *head = id;
    else
      c->cn_next[*tail] = id;
    *tail = id;
  }
  free(last);
  rc = 0;
out:
  free(where);
  free(ids);
  free(l.node);
  free(l.id);
  free(l.callee);
  free(l.parent);
  return rc;
}

/* ----------------------------------------------------------------------------------------- system */
typedef struct {
  const cx_node **node;
  int *id, *extra, n, cap; /* extra: a location's group id / a group's rank */
} id_list;

static int push(id_list *l, const cx_node *n, int id, int extra) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    const cx_node **a = realloc(l->node, sizeof *a * (size_t)l->cap);
    if (a) l->node = a;
    int *b = realloc(l->id, sizeof(int) * (size_t)l->cap);
    if (b) l->id = b;
    int *d = realloc(l->extra, sizeof(int) * (size_t)l->cap);
    if (d) l->extra = d;
    if (!a || !b || !d) return -1;
  }
  l->node[l->n] = n;
  l->id[l->n] = id;
  l->extra[l->n++] = extra;
  return 0;
}

typedef struct {
  id_list stn, group, loc;
} sys_lists;

static int leaf_children(ctx *x, cx_node *n) {
  for (int j = 0; j < n->nchild; j++)
    if (strcmp(n->child[j]->tag, "attr") && strcmp(n->child[j]->tag, "systemtreenode") &&
        strcmp(n->child[j]->tag, "locationgroup") && strcmp(n->child[j]->tag, "location") &&
        shape(x, n->child[j], s_leaf))
      return -1;
  return 0;
}

static int one_of(const char *v, const char *const *set) {
  for (; *set; set++)
    if (!strcmp(v, *set)) return 1;
  return 0;
}

static int location(ctx *x, cx_node *n, int group, sys_lists *s) {
  static const char *const a_id[] = {"!Id", NULL};
  static const char *const types[] = {"thread", "gpu", "metric", NULL};
  long id;
  if (attrs(x, n, a_id) || shape(x, n, s_location) || check_attr_leaves(x, n) || leaf_children(x, n) ||
      int_attr(x, n, "Id", &id))
    return -1;
  const char *type = leaf(x, n, "type"), *rank = leaf(x, n, "rank");
  if (!type || !rank) return -1;
  if (!one_of(type, types)) return fail(x, n, "location type \"%s\" is not thread, gpu or metric", type);
  if (!strcmp(type, "gpu") && strcmp(x->c->version, "4.7"))
    return fail(x, n, "a gpu location needs <cube version=\"4.7\">, this file is %s", x->c->version);
  return push(&s->loc, n, (int)id, group) ? fail(x, n, "out of memory") : 0;
}

static int group(ctx *x, cx_node *n, sys_lists *s) {
  static const char *const a_id[] = {"!Id", NULL};
  static const char *const types[] = {"process", "metrics", "accelerator", NULL};
  long id;
  if (attrs(x, n, a_id) || shape(x, n, s_group) || check_attr_leaves(x, n) || leaf_children(x, n) ||
      int_attr(x, n, "Id", &id))
    return -1;
  const char *type = leaf(x, n, "type"), *rank = leaf(x, n, "rank");
  if (!type || !rank) return -1;
  char *end;
  long r = strtol(rank, &end, 10);
  if (!*rank || *end) return fail(x, n, "location group rank \"%s\" is not an integer", rank);
  if (!one_of(type, types))
    return fail(x, n, "location group type \"%s\" is not process, metrics or accelerator", type);
  if (!strcmp(type, "accelerator") && strcmp(x->c->version, "4.7"))
    return fail(x, n, "an accelerator location group needs <cube version=\"4.7\">");
  if (push(&s->group, n, (int)id, (int)r)) return fail(x, n, "out of memory");
  for (int i = 0; i < n->nchild; i++)
    if (!strcmp(n->child[i]->tag, "location") && location(x, n->child[i], (int)id, s) != 0) return -1;
  return 0;
}

static int stn(ctx *x, cx_node *n, sys_lists *s, int depth) {
  static const char *const a_id[] = {"!Id", NULL};
  long id;
  if (depth > 1000) return fail(x, n, "system tree deeper than 1000");
  if (attrs(x, n, a_id) || shape(x, n, s_stn) || check_attr_leaves(x, n) || leaf_children(x, n) ||
      int_attr(x, n, "Id", &id) || push(&s->stn, n, (int)id, 0))
    return -1;
  for (int i = 0; i < n->nchild; i++) {
    cx_node *ch = n->child[i];
    if (!strcmp(ch->tag, "systemtreenode") && stn(x, ch, s, depth + 1) != 0) return -1;
    if (!strcmp(ch->tag, "locationgroup") && group(x, ch, s) != 0) return -1;
  }
  return 0;
}

static int topologies(ctx *x, cx_node *n) {
  if (shape(x, n, s_topologies)) return -1;
  for (int i = 0; i < n->nchild; i++) {
    cx_node *cart = n->child[i];
    if (shape(x, cart, s_cart)) return -1;
    for (int j = 0; j < cart->nchild; j++)
      if (shape(x, cart->child[j], s_leaf)) return -1;
  }
  return 0;
}

static int system_tree(ctx *x, cx_node *n) {
  cubex *c = x->c;
  sys_lists s = {{0}, {0}, {0}};
  int rc = -1;
  if (shape(x, n, s_system)) goto out;
  for (int i = 0; i < n->nchild; i++) {
    cx_node *ch = n->child[i];
    if (!strcmp(ch->tag, "systemtreenode") && stn(x, ch, &s, 1) != 0) goto out;
    if (!strcmp(ch->tag, "topologies") && topologies(x, ch) != 0) goto out;
  }
  if (s.loc.n == 0) {
    fail(x, n, "the system tree has no <location> (CubeLib needs at least one)");
    goto out;
  }
  if (ids_dense(x, s.stn.node, s.stn.id, s.stn.n, "systemtreenode", "cubew numbers them so") ||
      ids_dense(x, s.group.node, s.group.id, s.group.n, "locationgroup", "cubew numbers them so") ||
      ids_dense(x, s.loc.node, s.loc.id, s.loc.n, "location", "location ids are the data columns"))
    goto out;
  c->nloc = s.loc.n;
  c->ngroup = s.group.n;
  c->loc = malloc(sizeof *c->loc * (size_t)c->nloc);
  c->loc_group = malloc(sizeof(int) * (size_t)c->nloc);
  c->group_rank = malloc(sizeof(int) * (size_t)(c->ngroup + 1));
  if (!c->loc || !c->loc_group || !c->group_rank) {
    fail(x, n, "out of memory");
    goto out;
  }
  for (int k = 0; k < s.loc.n; k++) {
    c->loc[s.loc.id[k]] = s.loc.node[k];
    c->loc_group[s.loc.id[k]] = s.loc.extra[k];
  }
  for (int k = 0; k < s.group.n; k++) c->group_rank[s.group.id[k]] = s.group.extra[k];
  rc = 0;
out:
  free(s.stn.node);
  free(s.stn.id);
  free(s.stn.extra);
  free(s.group.node);
  free(s.group.id);
  free(s.group.extra);
  free(s.loc.node);
  free(s.loc.id);
  free(s.loc.extra);
  return rc;
}

static int anchor(ctx *x, cx_node *root) {
  static const char *const a_cube[] = {"!version", NULL};
  if (attrs(x, root, a_cube) || shape(x, root, s_cube) || check_attr_leaves(x, root)) return -1;
  x->c->version = cx_attr(root, "version");
  cx_node *doc = child(root, "doc");
  if (doc) {
    if (shape(x, doc, s_doc)) return -1;
    cx_node *mir = child(doc, "mirrors");
    if (mir && shape(x, mir, s_mirrors)) return -1;
    for (int i = 0; mir && i < mir->nchild; i++)
      if (shape(x, mir->child[i], s_leaf)) return -1;
  }
  return metrics(x, child(root, "metrics")) || program(x, child(root, "program")) ||
         system_tree(x, child(root, "system"));
}

/* -------------------------------------------------------------------------------------- data files */
static uint64_t le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

/* "N.data", "ghost_N.index", ...: returns the metric id and sets *is_data / *ghost, or -1. */
static int member_metric(const char *name, int *is_data, int *ghost) {
  *ghost = !strncmp(name, "ghost_", 6);
  const char *s = name + (*ghost ? 6 : 0);
  if (!isdigit((unsigned char)*s)) return -1;
  char *end;
  long id = strtol(s, &end, 10);
  if (!strcmp(end, ".data"))
    *is_data = 1;
  else if (!strcmp(end, ".index"))
    *is_data = 0;
  else
    return -1;
  return id > 1000000000L ? -1 : (int)id;
}

static int check_index(ctx *x, cx_metric *m, uint32_t **pos, int *npos) {
  cubex *c = x->c;
  const cx_member *im = &c->mem[m->index_member];
  const unsigned char *b = c->buf + im->off;
  *pos = NULL;
  *npos = 0;
  if (im->size < 18 || memcmp(b, "CUBEX.INDEX", 11))
    return fail(x, NULL, "%s: bad index marker (CubeLib: \"IndexMarker::checkMarker\")", im->name);
  uint32_t endian = (uint32_t)le(b + 11, 4);
  if (endian != 1)
    return fail(x, NULL, "%s: endianness word is 0x%08x, not 1: CubeLib would byte-swap every value of %s", im->name,
                (unsigned)endian, m->uniq);
  if (le(b + 15, 2) != 0) return fail(x, NULL, "%s: index version %u, expected 0", im->name, (unsigned)le(b + 15, 2));
  if (b[17] == 3) {
    if (im->size != 18) return fail(x, NULL, "%s: a DENSE index is 18 bytes, this one %zu", im->name, im->size);
    m->nrows = c->ncn;
    return 0;
  }
  if (b[17] != 1) return fail(x, NULL, "%s: index format %u is neither DENSE (3) nor SPARSE (1)", im->name, b[17]);
  if (im->size < 22) return fail(x, NULL, "%s: SPARSE index without a row count", im->name);
  uint64_t n = le(b + 18, 4);
  if (n > (uint64_t)c->ncn || im->size != 22 + 4 * n)
    return fail(x, NULL, "%s: SPARSE index of %llu rows is %zu bytes (expected %llu, at most %d rows)", im->name,
                (unsigned long long)n, im->size, (unsigned long long)(22 + 4 * n), c->ncn);
  *pos = malloc(sizeof **pos * (size_t)(n + 1));
  if (!*pos) return fail(x, NULL, "out of memory");
  for (uint64_t k = 0; k < n; k++) {
    (*pos)[k] = (uint32_t)le(b + 22 + 4 * k, 4);
    if ((*pos)[k] >= (uint32_t)c->ncn || (k > 0 && (*pos)[k] <= (*pos)[k - 1]))
      return fail(x, NULL, "%s: SPARSE positions must increase strictly and stay below %d", im->name, c->ncn);
  }
  *npos = (int)n;
  m->nrows = (int)n;
  return 0;
}

static int check_data(ctx *x, cx_metric *m) {
  cubex *c = x->c;
  const cx_member *dm = &c->mem[m->data_member];
  const unsigned char *b = c->buf + dm->off;
  if (dm->size >= 11 && !memcmp(b, "ZCUBEX.DATA", 11))
    return fail(x, NULL, "%s: compressed rows (ZCUBEX.DATA): not read by this checker; popmeter writes CUBEX.DATA",
                dm->name);
  if (dm->size < 10 || memcmp(b, "CUBEX.DATA", 10))
    return fail(x, NULL, "%s: bad data marker (CubeLib: \"Selection of RowSupplier failed\")", dm->name);
  uint64_t expect = 10 + (uint64_t)m->nrows * (uint64_t)c->nloc * (uint64_t)m->dsize;
  if (dm->size != expect)
    return fail(x, NULL,
                "%s: %zu bytes, expected 10 + %d rows x %d locations x %d bytes = %llu (CubeLib would read %s)",
                dm->name, dm->size, m->nrows, c->nloc, m->dsize, (unsigned long long)expect,
                dm->size < expect ? "missing values as 0" : "past the values");
  return 0;
}

static int data_files(ctx *x) {
  cubex *c = x->c;
  for (int i = 0; i < c->nmem; i++) {
    const char *name = c->mem[i].name;
    if (!strcmp(name, "anchor.xml")) continue;
    int is_data, ghost, id = member_metric(name, &is_data, &ghost);
    if (id < 0) return fail(x, NULL, "unexpected archive member %s", name);
    if (id >= c->nmet) return fail(x, NULL, "member %s belongs to no metric (there are %d)", name, c->nmet);
    cx_metric *m = &c->met[id];
    if (ghost != m->ghost)
      return fail(x, NULL, "member %s: metric %s is %sa ghost metric", name, m->uniq, m->ghost ? "" : "not ");
    if (m->derived)
      return fail(x, NULL, "derived metric %s has the data file %s (derived metrics have none)", m->uniq, name);
    if (is_data)
      m->data_member = i;
    else
      m->index_member = i;
  }
  for (int id = 0; id < c->nmet; id++) {
    cx_metric *m = &c->met[id];
    if (m->derived) continue;
    if (m->data_member < 0 || m->index_member < 0)
      return fail(x, NULL, "stored metric %s has no %s%d.%s (CubeLib silently reads it as all zeros)", m->uniq,
                  m->ghost ? "ghost_" : "", id, m->data_member < 0 ? "data" : "index");
    uint32_t *pos;
    int npos;
    int rc = check_index(x, m, &pos, &npos);
    if (rc == 0) rc = check_data(x, m);
    if (rc == 0 && cx_row_order(c, m, pos, npos) != 0) rc = fail(x, NULL, "out of memory");
    free(pos);
    if (rc) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------- open */
cubex *cubex_open_buffer(const void *data, size_t size, char *err, size_t errlen) {
  cubex *c = calloc(1, sizeof *c);
  ctx x = {c, err, errlen, 0};
  if (err && errlen) err[0] = '\0';
  if (!c || !(c->buf = malloc(size + 1))) {
    free(c);
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  memcpy(c->buf, data, size);
  c->size = size;
  if (cx_tar_scan(c->buf, size, &c->mem, &c->nmem, err, errlen) != 0) {
    cubex_close(c);
    return NULL;
  }
  int a = -1;
  for (int i = 0; i < c->nmem; i++)
    if (!strcmp(c->mem[i].name, "anchor.xml")) a = i;
  if (a < 0)
    fail(&x, NULL, "no anchor.xml member (CubeLib: \"anchor.xml not found\")");
  else if (a != c->nmem - 1)
    fail(&x, NULL, "anchor.xml is member %d of %d, not the last one (cubew writes it last)", a + 1, c->nmem);
  else if (!(c->root = cx_parse((const char *)c->buf + c->mem[a].off, c->mem[a].size, err, errlen)))
    x.failed = 1;
  if (!x.failed) (void)(anchor(&x, c->root) || data_files(&x));
  if (x.failed) {
    cubex_close(c);
    return NULL;
  }
  return c;
}

cubex *cubex_open(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open", path);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0, k;
  unsigned char *buf = malloc(cap);
  while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      unsigned char *q = realloc(buf, cap *= 2);
      if (!q) {
        free(buf);
        buf = NULL;
      } else
        buf = q;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    snprintf(err, errlen, "%s: cannot read", path);
    return NULL;
  }
  char why[512];
  cubex *c = cubex_open_buffer(buf, n, why, sizeof why);
  free(buf);
  if (!c) snprintf(err, errlen, "%s: %s", path, why);
  return c;
}

void cubex_close(cubex *c) {
  if (!c) return;
  for (int i = 0; i < c->nmet; i++) {
    free(c->met[i].row_cnode);
    free(c->met[i].cnode_row);
  }
  free(c->met);
  free(c->reg);
  free(c->cn_region);
  free(c->cn_parent);
  free(c->cn_first);
  free(c->cn_next);
  free(c->loc);
  free(c->loc_group);
  free(c->group_rank);
  free(c->mem);
  free(c->buf);
  cx_free(c->root);
  free(c);
}
