/* Text table of metric trees (end-of-run report, `popmeter show`, reports/).
 *
 * Layout (width W, default 100):
 *   <root name, padded to the name column>  <header 1>  <header 2> ...
 *   ----------------------------------------------------------------
 *   Parallel efficiency                          0.94        0.86
 *     Load balance                               0.99        0.97
 *     Serialization efficiency [s]             n/a[1]      n/a[1]
 *   * derived contribution: may exceed 1 (shown unclamped)
 *   [1] no critical path measured
 * A value cell is a number part right-aligned in its sub-column and a marker part ("*", "[k]")
 * left-aligned after it, so that the decimal points line up. n/a reasons and warnings are numbered
 * footnotes in order of first appearance (row by row, left to right), identical texts share one
 * number. Names get two spaces of indentation per level; a name too long for the name column is
 * cut to fit and ends in "...". The name column takes what the value columns leave, but never less
 * than PM_TEXT_MIN_NAME and never more than the longest name needs. No line has trailing blanks. */
#include "popmetrics.h"
#include "pm_util.h"
#include <stdlib.h>
#include <string.h>

#define MAX_HEADER 24 /* header cells longer than this are ellipsized */

typedef struct {
  char *path; /* ids below the root joined by '/'; "" for the root itself */
  int depth;
  const pm_metric *label; /* node giving name and unit */
} trow;

typedef struct {
  char num[40];
  char suf[24];
} tcell;

typedef struct {
  size_t nrows, caprows, ncols;
  trow *rows;
  tcell *cells; /* nrows * ncols */
  char **notes; /* footnote texts */
  size_t nnotes, capnotes;
  int any_star;
  size_t *numw, *sufw, *cw; /* per column */
  char **hdr;               /* per column, possibly ellipsized */
  int oom;
} table;

static void table_free(table *t) {
  size_t i;
  for (i = 0; i < t->nrows; i++) free(t->rows[i].path);
  free(t->rows);
  free(t->cells);
  for (i = 0; i < t->nnotes; i++) free(t->notes[i]);
  free(t->notes);
  free(t->numw);
  free(t->sufw);
  free(t->cw);
  for (i = 0; t->hdr && i < t->ncols; i++) free(t->hdr[i]);
  free(t->hdr);
}

static char *join_path(const char *parent, const char *id) {
  size_t a = strlen(parent), b = strlen(id);
  char *s = pm__malloc(a + b + 2);
  if (!s) return NULL;
  if (a) {
    memcpy(s, parent, a);
    s[a++] = '/';
  }
  memcpy(s + a, id, b + 1);
  return s;
}

static long find_row(const table *t, const char *path) {
  size_t i;
  for (i = 0; i < t->nrows; i++)
    if (strcmp(t->rows[i].path, path) == 0) return (long)i;
  return -1;
}

/* Inserts a row for path (owned by the table afterwards, or freed when the row exists) at the end
 * of its parent's subtree. Returns the path stored in the table, NULL on no memory. */
static const char *insert_row(table *t, char *path, const char *parent, int depth, const pm_metric *m) {
  size_t at = t->nrows, plen = strlen(parent);
  long have = find_row(t, path);
  if (have >= 0) {
    free(path);
    return t->rows[have].path;
  }
  if (plen) {
    long pi = find_row(t, parent);
    at = (size_t)pi + 1;
    while (at < t->nrows && strncmp(t->rows[at].path, parent, plen) == 0 && t->rows[at].path[plen] == '/') at++;
  }
  if (t->nrows == t->caprows) {
    size_t nc = t->caprows ? 2 * t->caprows : 32;
    trow *nr = pm__realloc(t->rows, nc * sizeof *nr);
    if (!nr) {
      t->oom = 1;
      free(path);
      return NULL;
    }
    t->rows = nr;
    t->caprows = nc;
  }
  memmove(&t->rows[at + 1], &t->rows[at], (t->nrows - at) * sizeof *t->rows);
  t->rows[at].path = path;
  t->rows[at].depth = depth;
  t->rows[at].label = m;
  t->nrows++;
  return path;
}

/* Adds rows for the children of m (whose path is path) in preorder. */
static void add_rows(table *t, const pm_metric *m, const char *path, int depth) {
  size_t i;
  for (i = 0; i < m->nchildren && !t->oom; i++) {
    const pm_metric *c = m->children[i];
    char *cp = join_path(path, c->id);
    if (!cp) {
      t->oom = 1;
      return;
    }
    {
      /* copy: the stored path may move when later rows are inserted (realloc) */
      const char *stored = insert_row(t, cp, path, depth, c);
      char *mine = stored ? pm__strdup(stored) : NULL;
      if (!mine) {
        t->oom = 1;
        return;
      }
      add_rows(t, c, mine, depth + 1);
      free(mine);
    }
  }
}

/* Number of the footnote with this text (1-based), adding it when new; 0 on no memory. */
static size_t note_number(table *t, const char *text) {
  size_t i;
  for (i = 0; i < t->nnotes; i++)
    if (strcmp(t->notes[i], text) == 0) return i + 1;
  if (t->nnotes == t->capnotes) {
    size_t nc = t->capnotes ? 2 * t->capnotes : 8;
    char **nn = pm__realloc(t->notes, nc * sizeof *nn);
    if (!nn) {
      t->oom = 1;
      return 0;
    }
    t->notes = nn;
    t->capnotes = nc;
  }
  t->notes[t->nnotes] = pm__strdup(text);
  if (!t->notes[t->nnotes]) {
    t->oom = 1;
    return 0;
  }
  return ++t->nnotes;
}

static void fill_cell(table *t, tcell *c, const pm_metric *m) {
  size_t k;
  c->num[0] = c->suf[0] = '\0';
  if (!m) {
    strcpy(c->num, "-");
    return;
  }
  if (m->state == PM_METRIC_NA) {
    strcpy(c->num, "n/a");
    k = note_number(t, m->na_reason ? m->na_reason : "not available");
    snprintf(c->suf, sizeof c->suf, "[%zu]", k);
  } else if (m->state == PM_METRIC_VALUE) {
    pm_format_2f(m->value, c->num, sizeof c->num);
    if (m->may_exceed_one) {
      strcat(c->suf, "*");
      t->any_star = 1;
    }
    if (m->warning) {
      k = note_number(t, m->warning);
      snprintf(c->suf + strlen(c->suf), sizeof c->suf - strlen(c->suf), "[%zu]", k);
    }
  }
}

/* s cut to w columns with a trailing "..." when longer (callers pass w >= PM_TEXT_MIN_NAME, or
 * MAX_HEADER, or a width the string already fits in). */
static char *ellipsize(const char *s, size_t w) {
  pm_sb b;
  pm_sb_init(&b);
  if (pm_utf8_width(s) <= w) {
    pm_sb_puts(&b, s);
  } else {
    pm_sb_putn(&b, s, pm_utf8_prefix(s, w - 3));
    pm_sb_puts(&b, "...");
  }
  return pm_sb_take(&b);
}

/* Builds rows, cells, footnotes and column widths. Returns 0 on error. */
static int build(table *t, const pm_metric *const *trees, size_t ntrees, const char *const *headers) {
  size_t i, c;
  int root_row = 0;
  memset(t, 0, sizeof *t);
  if (!trees || ntrees == 0) return 0;
  for (c = 0; c < ntrees; c++) {
    if (!trees[c]) return 0;
    if (trees[c]->state != PM_METRIC_HEADING) root_row = 1;
  }
  t->ncols = ntrees;
  if (root_row) {
    char *p = pm__strdup("");
    if (!p || !insert_row(t, p, "", 0, trees[0])) t->oom = 1;
  }
  for (c = 0; c < ntrees && !t->oom; c++) add_rows(t, trees[c], "", root_row);
  t->cells = pm__calloc(t->nrows * ntrees, sizeof *t->cells);
  t->numw = pm__calloc(ntrees, sizeof *t->numw);
  t->sufw = pm__calloc(ntrees, sizeof *t->sufw);
  t->cw = pm__calloc(ntrees, sizeof *t->cw);
  t->hdr = pm__calloc(ntrees, sizeof *t->hdr);
  if (t->oom || !t->cells || !t->numw || !t->sufw || !t->cw || !t->hdr) return 0;
  for (i = 0; i < t->nrows; i++)
    for (c = 0; c < ntrees; c++) {
      tcell *cell = &t->cells[i * ntrees + c];
      fill_cell(t, cell, pm_metric_find(trees[c], t->rows[i].path));
      if (strlen(cell->num) > t->numw[c]) t->numw[c] = strlen(cell->num);
      if (strlen(cell->suf) > t->sufw[c]) t->sufw[c] = strlen(cell->suf);
    }
  for (c = 0; c < ntrees; c++) {
    char dflt[32];
    const char *h = headers && headers[c] ? headers[c] : NULL;
    if (!h) {
      if (ntrees == 1)
        snprintf(dflt, sizeof dflt, "value");
      else
        snprintf(dflt, sizeof dflt, "#%zu", c + 1);
      h = dflt;
    }
    t->hdr[c] = ellipsize(h, MAX_HEADER);
    if (!t->hdr[c]) return 0;
    t->cw[c] = t->numw[c] + t->sufw[c];
    if (pm_utf8_width(t->hdr[c]) > t->cw[c]) t->cw[c] = pm_utf8_width(t->hdr[c]);
  }
  return !t->oom;
}

static void put_label(pm_sb *b, const trow *r) {
  pm_sb_pad(b, ' ', 2 * (size_t)r->depth);
  pm_sb_puts(b, r->label->name);
  if (r->label->unit[0]) {
    pm_sb_puts(b, " [");
    pm_sb_puts(b, r->label->unit);
    pm_sb_putc(b, ']');
  }
}

/* Appends s cut or padded to exactly w display columns. */
static void put_fit(pm_sb *b, const char *s, size_t w) {
  char *e = ellipsize(s, w);
  if (!e) {
    b->oom = 1;
    return;
  }
  pm_sb_puts(b, e);
  pm_sb_pad(b, ' ', w - pm_utf8_width(e));
  free(e);
}

/* Ends the current line: removes trailing blanks, appends '\n'. */
static void end_line(pm_sb *b) {
  while (!b->oom && b->len > 0 && b->s[b->len - 1] == ' ') b->s[--b->len] = '\0';
  pm_sb_putc(b, '\n');
}

/* Display width of the n bytes at s. */
static size_t width_n(const char *s, size_t n) {
  size_t i, w = 0;
  for (i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* Appends "<prefix><text>" word-wrapped to width; continuation lines are indented like the text.
 * A word longer than a whole line is cut at the line end. */
static void put_wrapped(pm_sb *b, const char *prefix, const char *text, size_t width) {
  size_t ind = pm_utf8_width(prefix), col = 0; /* col: columns used after the indentation */
  size_t avail = width > ind + 10 ? width - ind : 10;
  const char *w = text;
  pm_sb_puts(b, prefix);
  for (;;) {
    size_t len, ww;
    while (*w == ' ') w++;
    if (!*w) break;
    len = strcspn(w, " ");
    ww = width_n(w, len);
    if (col > 0 && col + 1 + ww > avail) {
      end_line(b);
      pm_sb_pad(b, ' ', ind);
      col = 0;
    }
    if (col > 0) {
      pm_sb_putc(b, ' ');
      col++;
    }
    while (ww > avail) { /* col == 0 here */
      size_t cut = pm_utf8_prefix(w, avail);
      pm_sb_putn(b, w, cut);
      end_line(b);
      pm_sb_pad(b, ' ', ind);
      w += cut;
      len -= cut;
      ww -= avail;
    }
    pm_sb_putn(b, w, len);
    col += ww;
    w += len;
  }
  end_line(b);
}

static size_t name_width(const table *t, const pm_metric *root, size_t width) {
  size_t i, c, need = pm_utf8_width(root->name), used = 0, avail;
  for (i = 0; i < t->nrows; i++) {
    const trow *r = &t->rows[i];
    size_t w = 2 * (size_t)r->depth + pm_utf8_width(r->label->name);
    if (r->label->unit[0]) w += 3 + pm_utf8_width(r->label->unit);
    if (w > need) need = w;
  }
  for (c = 0; c < t->ncols; c++) used += 2 + t->cw[c];
  avail = width > used ? width - used : 0;
  if (avail < PM_TEXT_MIN_NAME) avail = PM_TEXT_MIN_NAME;
  return need < avail ? need : avail;
}

char *pm_render_text_string(const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width) {
  table t;
  pm_sb b;
  size_t i, c, namew, total, w = width > 0 ? (size_t)width : PM_TEXT_WIDTH;
  pm_sb_init(&b);
  if (!build(&t, trees, ntrees, headers)) {
    table_free(&t);
    return NULL;
  }
  namew = name_width(&t, trees[0], w);
  total = namew;
  for (c = 0; c < t.ncols; c++) total += 2 + t.cw[c];
  /* header and rule */
  put_fit(&b, trees[0]->name, namew);
  for (c = 0; c < t.ncols; c++) {
    pm_sb_pad(&b, ' ', 2 + t.cw[c] - pm_utf8_width(t.hdr[c]));
    pm_sb_puts(&b, t.hdr[c]);
  }
  end_line(&b);
  pm_sb_pad(&b, '-', total);
  end_line(&b);
  /* rows */
  for (i = 0; i < t.nrows; i++) {
    pm_sb lab;
    pm_sb_init(&lab);
    put_label(&lab, &t.rows[i]);
    if (lab.oom) {
      b.oom = 1;
      break;
    }
    put_fit(&b, lab.s, namew);
    pm_sb_free(&lab);
    for (c = 0; c < t.ncols; c++) {
      const tcell *cell = &t.cells[i * t.ncols + c];
      pm_sb_pad(&b, ' ', 2 + t.cw[c] - t.numw[c] - t.sufw[c]);
      pm_sb_pad(&b, ' ', t.numw[c] - strlen(cell->num));
      pm_sb_puts(&b, cell->num);
      pm_sb_puts(&b, cell->suf);
      pm_sb_pad(&b, ' ', t.sufw[c] - strlen(cell->suf));
    }
    end_line(&b);
  }
  /* footnotes */
  if (t.any_star) put_wrapped(&b, "* ", "derived contribution: may exceed 1 (shown unclamped)", w);
  for (i = 0; i < t.nnotes; i++) {
    char pre[32];
    snprintf(pre, sizeof pre, "[%zu] ", i + 1);
    put_wrapped(&b, pre, t.notes[i], w);
  }
  table_free(&t);
  return pm_sb_take(&b);
}

int pm_render_text(FILE *out, const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width) {
  if (!out) return -1;
  return pm__put_taken(out, pm_render_text_string(trees, ntrees, headers, width));
}

size_t pm_render_text_columns_fit(const pm_metric *const *trees, size_t ntrees, const char *const *headers, int width) {
  table t;
  size_t c, used = PM_TEXT_MIN_NAME, fit = 0, w = width > 0 ? (size_t)width : PM_TEXT_WIDTH;
  if (!build(&t, trees, ntrees, headers)) {
    table_free(&t);
    return ntrees > 0 ? 1 : 0;
  }
  for (c = 0; c < t.ncols; c++) {
    used += 2 + t.cw[c];
    if (used > w) break;
    fit++;
  }
  table_free(&t);
  return fit > 0 ? fit : 1;
}
