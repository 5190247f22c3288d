/* Strict anchor.xml reader (see cubex_xml.h for the rules and why they are stricter than XML). */
#include "cubex_xml.h"
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 10000 /* call trees nest deeply, but a runaway file must not exhaust the stack */

typedef struct {
  const char *s;
  size_t n, i;
  int line;
  char *err;
  size_t errlen;
  int failed;
} P;

static void *fail(P *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *fail(P *p, const char *fmt, ...) {
  if (p->failed++) return NULL;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(p->err, p->errlen, "anchor.xml line %d: %s", p->line, msg);
  return NULL;
}

static int at(const P *p, const char *lit) {
  size_t k = strlen(lit);
  return p->i + k <= p->n && memcmp(p->s + p->i, lit, k) == 0;
}
static void advance(P *p, size_t k) {
  for (size_t j = 0; j < k && p->i < p->n; j++)
    if (p->s[p->i++] == '\n') p->line++;
}
static void skip_ws(P *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    advance(p, 1);
}

/* ------------------------------------------------------------------------------- string building */
typedef struct {
  char *s;
  size_t len, cap;
} str;
static int str_add(str *b, const char *s, size_t k) {
  if (b->len + k + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 32;
    while (cap < b->len + k + 1) cap *= 2;
    char *q = realloc(b->s, cap);
    if (!q) return -1;
    b->s = q;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, k);
  b->len += k;
  b->s[b->len] = '\0';
  return 0;
}

/* Decodes one "&...;" at p->i into b. */
static int entity(P *p, str *b) {
  static const struct {
    const char *name;
    char c;
  } ents[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
  for (size_t k = 0; k < sizeof ents / sizeof ents[0]; k++)
    if (at(p, ents[k].name)) {
      advance(p, strlen(ents[k].name));
      return str_add(b, &ents[k].c, 1);
    }
  fail(p, "'&' that does not start one of &lt; &gt; &amp; &quot; &apos; (CubeLib knows no other entity)");
  return -1;
}

/* ----------------------------------------------------------------------------------------- nodes */
static cx_node *node_new(P *p, const char *tag, size_t k, cx_node *parent) {
  cx_node *n = calloc(1, sizeof *n);
  if (!n || !(n->tag = strndup(tag, k)) || !(n->text = strdup(""))) {
    if (n) {
      free(n->tag);
      free(n);
    }
    return fail(p, "out of memory");
  }
  n->line = p->line;
  n->parent = parent;
  if (parent) {
    if (parent->nchild == parent->cap) {
      int cap = parent->cap ? 2 * parent->cap : 8;
      cx_node **c = realloc(parent->child, sizeof *c * (size_t)cap);
      if (!c) {
        cx_free(n);
        return fail(p, "out of memory");
      }
      parent->child = c;
      parent->cap = cap;
    }
    parent->child[parent->nchild++] = n;
  }
  return n;
}

static int add_attr(P *p, cx_node *n, const char *k, size_t klen, char *v) {
  for (int a = 0; a < n->nattr; a++)
    if (strlen(n->key[a]) == klen && memcmp(n->key[a], k, klen) == 0) {
      free(v);
      fail(p, "attribute %.*s given twice in <%s>", (int)klen, k, n->tag);
      return -1;
    }
  char **nk = realloc(n->key, sizeof *nk * (size_t)(n->nattr + 1));
  if (nk) n->key = nk;
  char **nv = realloc(n->val, sizeof *nv * (size_t)(n->nattr + 1));
  if (nv) n->val = nv;
  char *kk = strndup(k, klen);
  if (!nk || !nv || !kk) {
    free(v);
    free(kk);
    fail(p, "out of memory");
    return -1;
  }
  n->key[n->nattr] = kk;
  n->val[n->nattr++] = v;
  return 0;
}

static int is_cubepl(const char *tag) {
  return !strcmp(tag, "cubepl") || !strcmp(tag, "cubeplinit") || !strcmp(tag, "cubeplaggr");
}

static size_t name_len(const P *p) {
  size_t k = 0;
  while (p->i + k < p->n) {
    char c = p->s[p->i + k];
    if (isalnum((unsigned char)c) || c == '_' || c == ':' || c == '-' || (k > 0 && c == '.'))
      k++;
    else
      break;
  }
  return k;
}

/* Attributes up to '>' or '/>' (or '?>' for the declaration). Returns 1 self-closed, 0 open, -1 error. */
static int attributes(P *p, cx_node *n, int decl) {
  for (;;) {
    skip_ws(p);
    if (decl && at(p, "?>")) {
      advance(p, 2);
      return 1;
    }
    if (!decl && at(p, "/>")) {
      advance(p, 2);
      return 1;
    }
    if (!decl && at(p, ">")) {
      advance(p, 1);
      return 0;
    }
    size_t k = name_len(p);
    if (k == 0) {
      fail(p, "unexpected character '%c' in <%s>", p->i < p->n ? p->s[p->i] : '?', n->tag);
      return -1;
    }
    const char *key = p->s + p->i;
    advance(p, k);
    if (!at(p, "=")) {
      fail(p, "attribute %.*s of <%s> has no value", (int)k, key, n->tag);
      return -1;
    }
    advance(p, 1);
    str v = {0};
    if (str_add(&v, "", 0) != 0) {
      fail(p, "out of memory");
      return -1;
    }
    if (at(p, "'")) {
      free(v.s);
      fail(p, "single-quoted attribute %.*s in <%s>: CubeLib accepts double quotes only", (int)k, key, n->tag);
      return -1;
    } else if (at(p, "\"")) {
      if (is_cubepl(n->tag)) {
        free(v.s);
        fail(p, "quoted attribute %.*s in <%s>: CubeLib's grammar has it unquoted (cubeplaggrtype=aggr)", (int)k, key,
             n->tag);
        return -1;
      }
      advance(p, 1);
      while (p->i < p->n && p->s[p->i] != '"') {
        char c = p->s[p->i];
        if (c == '<') {
          free(v.s);
          fail(p, "raw '<' in attribute %.*s", (int)k, key);
          return -1;
        }
        if (c == '&') {
          if (entity(p, &v) != 0) {
            free(v.s);
            return -1;
          }
          continue;
        }
        if (str_add(&v, c == '\n' ? " " : &c, 1) != 0) {
          free(v.s);
          fail(p, "out of memory");
          return -1;
        }
        advance(p, 1);
      }
      if (p->i >= p->n) {
        free(v.s);
        fail(p, "unterminated attribute value in <%s>", n->tag);
        return -1;
      }
      advance(p, 1);
    } else if (is_cubepl(n->tag)) {
      /* CubeLib's grammar for these two attributes: rowwise=false, cubeplaggrtype=aggr (no quotes) */
      size_t w = 0;
      while (p->i + w < p->n && isalpha((unsigned char)p->s[p->i + w])) w++;
      if (w == 0 || str_add(&v, p->s + p->i, w) != 0) {
        free(v.s);
        fail(p, "bad value of %.*s", (int)k, key);
        return -1;
      }
      advance(p, w);
    } else {
      free(v.s);
      fail(p, "unquoted attribute %.*s in <%s>", (int)k, key, n->tag);
      return -1;
    }
    if (add_attr(p, n, key, k, v.s) != 0) return -1;
  }
}

static int append_text(P *p, cx_node *n, str *t) {
  if (t->len == 0) return 0;
  size_t old = strlen(n->text);
  char *q = realloc(n->text, old + t->len + 1);
  if (!q) {
    fail(p, "out of memory");
    return -1;
  }
  memcpy(q + old, t->s, t->len + 1);
  n->text = q;
  t->len = 0;
  return 0;
}

/* "<cube version=\"N.M\">" exactly: CubeLib matches these bytes literally. */
static cx_node *cube_open(P *p) {
  static const char *const ok[] = {"3.0", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "4.7"};
  if (!at(p, "<cube version=\""))
    return fail(p, "expected the literal <cube version=\"4.x\"> after the XML declaration");
  advance(p, 15);
  size_t k = 0;
  while (p->i + k < p->n && (isdigit((unsigned char)p->s[p->i + k]) || p->s[p->i + k] == '.')) k++;
  char version[16];
  snprintf(version, sizeof version, "%.*s", (int)(k < 15 ? k : 15), p->s + p->i);
  advance(p, k);
  if (!at(p, "\">"))
    return fail(p, "the <cube> tag must be exactly <cube version=\"N.M\"> (CubeLib matches it literally)");
  advance(p, 2);
  int known = 0;
  for (size_t j = 0; j < sizeof ok / sizeof ok[0]; j++) known |= strcmp(version, ok[j]) == 0;
  if (!known) return fail(p, "cube version \"%s\" is not read by CubeLib (3.0, 4.0-4.5 and 4.7 are)", version);
  cx_node *root = node_new(p, "cube", 4, NULL);
  if (!root) return NULL;
  char *v = strdup(version);
  if (!v || add_attr(p, root, "version", 7, v) != 0) {
    cx_free(root);
    return NULL;
  }
  return root;
}

static int declaration(P *p) {
  skip_ws(p);
  if (!at(p, "<?xml")) {
    fail(p, "the anchor must start with an XML declaration <?xml ...?>");
    return -1;
  }
  advance(p, 5);
  cx_node *d = node_new(p, "?xml", 4, NULL);
  if (!d) return -1;
  int rc = attributes(p, d, 1);
  cx_free(d);
  return rc < 0 ? -1 : 0;
}

cx_node *cx_parse(const char *buf, size_t len, char *err, size_t errlen) {
  P p = {buf, len, 0, 1, err, errlen, 0};
  if (err && errlen) err[0] = '\0';
  if (declaration(&p) != 0) return NULL;
  skip_ws(&p);
  cx_node *root = cube_open(&p), *cur = root;
  int depth = 1;
  str t = {0};
  while (cur && !p.failed) {
    if (p.i >= p.n) {
      fail(&p, "unexpected end of the anchor inside <%s> (truncated?)", cur->tag);
      break;
    }
    char c = p.s[p.i];
    if (c == '&') {
      entity(&p, &t);
      continue;
    }
    if (c != '<') {
      if (str_add(&t, &c, 1) != 0) fail(&p, "out of memory");
      advance(&p, 1);
      continue;
    }
    if (append_text(&p, cur, &t) != 0) break;
    if (at(&p, "<!--")) {
      fail(&p, "XML comment: CubeLib's scanner rejects comments (\"unexpected character <\")");
      break;
    }
    if (at(&p, "<![CDATA[")) {
      advance(&p, 9);
      const char *end = NULL;
      for (size_t j = p.i; j + 3 <= p.n && !end; j++)
        if (!memcmp(p.s + j, "]]>", 3)) end = p.s + j;
      if (!end) {
        fail(&p, "unterminated CDATA section");
        break;
      }
      if (str_add(&t, p.s + p.i, (size_t)(end - (p.s + p.i))) != 0) {
        fail(&p, "out of memory");
        break;
      }
      advance(&p, (size_t)(end - (p.s + p.i)) + 3);
      continue;
    }
    if (at(&p, "<!") || at(&p, "<?")) {
      fail(&p, "markup declaration or processing instruction inside <cube>");
      break;
    }
    if (at(&p, "</")) {
      advance(&p, 2);
      size_t k = name_len(&p);
      if (k != strlen(cur->tag) || memcmp(p.s + p.i, cur->tag, k) != 0) {
        fail(&p, "</%.*s> closes <%s> (opened on line %d)", (int)k, p.s + p.i, cur->tag, cur->line);
        break;
      }
      advance(&p, k);
      skip_ws(&p);
      if (!at(&p, ">")) {
        fail(&p, "malformed closing tag </%s", cur->tag);
        break;
      }
      advance(&p, 1);
      cur = cur->parent;
      depth--;
      continue;
    }
    advance(&p, 1);
    size_t k = name_len(&p);
    if (k == 0) {
      fail(&p, "'<' that starts no tag (unescaped '<' in text?)");
      break;
    }
    cx_node *n = node_new(&p, p.s + p.i, k, cur);
    if (!n) break;
    advance(&p, k);
    int self = attributes(&p, n, 0);
    if (self < 0) break;
    if (self) continue;
    if (is_cubepl(n->tag)) { /* verbatim up to the closing tag, as CubeLib reads CubePL */
      char close[32];
      snprintf(close, sizeof close, "</%s>", n->tag);
      const char *end = NULL;
      for (size_t j = p.i; j + strlen(close) <= p.n && !end; j++)
        if (!memcmp(p.s + j, close, strlen(close))) end = p.s + j;
      if (!end) {
        fail(&p, "unterminated <%s>", n->tag);
        break;
      }
      free(n->text);
      n->text = strndup(p.s + p.i, (size_t)(end - (p.s + p.i)));
      if (!n->text) {
        fail(&p, "out of memory");
        break;
      }
      advance(&p, (size_t)(end - (p.s + p.i)) + strlen(close));
      continue;
    }
    if (++depth > MAX_DEPTH) {
      fail(&p, "elements nested deeper than %d", MAX_DEPTH);
      break;
    }
    cur = n;
  }
  free(t.s);
  if (!p.failed) {
    skip_ws(&p);
    if (p.i < p.n) fail(&p, "content after </cube>");
  }
  if (p.failed) {
    cx_free(root);
    return NULL;
  }
  return root;
}

void cx_free(cx_node *n) {
  if (!n) return;
  for (int i = 0; i < n->nchild; i++) cx_free(n->child[i]);
  for (int a = 0; a < n->nattr; a++) {
    free(n->key[a]);
    free(n->val[a]);
  }
  free(n->key);
  free(n->val);
  free(n->child);
  free(n->tag);
  free(n->text);
  free(n);
}

const char *cx_attr(const cx_node *n, const char *key) {
  for (int a = 0; a < n->nattr; a++)
    if (!strcmp(n->key[a], key)) return n->val[a];
  return NULL;
}
