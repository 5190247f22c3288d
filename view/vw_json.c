/* The page's data, as one JSON object that view.js reads (its keys are listed there, at the top).
 * Written as a stream, not built as a tree: a page holds up to PM_VIEW_BUDGET tasks and states in
 * columns of numbers. Tasks are written lane by lane in start order, their starts as the difference
 * with the previous start of the lane: shorter numbers, the same values. The text goes inside a
 * <script> element: "</" is written "<\/" so that no name can end it. */
#include "vw.h"
#include "pm_profile_published.h"
#include "pm_profile_tasks.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
    if (*c == '"' || *c == '\\')
      fprintf(f, "\\%c", *c);
    else if (*c == '/' && c > (const unsigned char *)s && c[-1] == '<')
      fputs("\\/", f);
    else if (*c < 0x20)
      fprintf(f, "\\u%04x", *c);
    else
      fputc(*c, f);
  }
  fputc('"', f);
}
static void num(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.6g", x);
  else
    fputs("null", f);
}
static void num4(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.4g", x);
  else
    fputs("null", f);
}
static void key(FILE *f, const char *k, int first) {
  if (!first) fputc(',', f);
  str(f, k);
  fputc(':', f);
}
static void sep(FILE *f, size_t i) {
  if (i) fputc(',', f);
}
/* A tag as a JSON number when JavaScript holds it exactly, else as a string; -1 without a tag. */
static void tagval(FILE *f, uint64_t tag) {
  if (tag == VW_NONE)
    fputs("-1", f);
  else if (tag < (1ull << 53))
    fprintf(f, "%llu", (unsigned long long)tag);
  else
    fprintf(f, "\"%llu\"", (unsigned long long)tag);
}

/* ------------------------------------------------------------------------------------ run */
static void header(FILE *f, const vw_page *pg) {
  const pm_profile *p = pg->p;
  fputc('{', f);
  key(f, "app", 1), str(f, p->app);
  key(f, "command", 0), str(f, p->command);
  key(f, "start_time", 0), str(f, p->start_time);
  key(f, "runtime", 0), num(f, p->runtime);
  key(f, "nprocesses", 0), fprintf(f, "%d", p->nprocesses);
  key(f, "summary", 0), str(f, pg->summary ? pg->summary : "");
  key(f, "trace", 0), fputs(pg->t ? "true" : "false", f);
  key(f, "no_trace", 0);
  if (pg->t)
    fputs("null", f);
  else
    str(f, pg->no_trace ? pg->no_trace : "no trace");
  key(f, "span", 0),
      fprintf(f, "%llu", (unsigned long long)(pg->t ? pg->t->span : (uint64_t)llround(p->runtime * 1e9)));
}

static void lanes(FILE *f, const vw_page *pg) {
  const vw_trace *t = pg->t;
  const pm_profile *p = pg->p;
  key(f, "lanes", 0), fputc('[', f);
  for (int i = 0; t && i < t->nlanes; i++) {
    const vw_lane *l = &t->lane[i];
    sep(f, (size_t)i);
    fputc('{', f);
    key(f, "name", 1), str(f, l->name);
    key(f, "process", 0), fprintf(f, "%d", l->process);
    key(f, "role", 0), str(f, pm_loc_role_name((pm_loc_role)l->role));
    key(f, "wtype", 0), fprintf(f, "%d", l->wtype);
    if (l->loc >= 0) { /* the location's times over the whole run (popmeter.json) */
      static const char *const cls[PM_CLASS_COUNT] = {"useful", "mpi", "io", "runtime", "idle", "device", "other"};
      for (int c = 0; c < PM_CLASS_COUNT; c++)
        key(f, cls[c], 0), num(f, pm_prof_loc_class(&p->loc[l->loc], (pm_state_class)c));
    }
    fputc('}', f);
  }
  fputc(']', f);
  key(f, "codelets", 0), fputc('[', f);
  for (int i = 0; t && i < t->ncodelets; i++) sep(f, (size_t)i), str(f, t->codelet[i]);
  fputc(']', f);
  key(f, "kinds", 0), fputc('[', f);
  for (int i = 0; i < VW_NKINDS; i++) sep(f, (size_t)i), str(f, vw_kind_name(i));
  fputc(']', f);
}

/* ---------------------------------------------------------------------------- tasks, states */
static void tasks(FILE *f, const vw_trace *t) {
  static const char *const col[6] = {"cl", "s", "d", "tag", "fl", "f"};
  key(f, "tasks", 0), fputc('{', f);
  key(f, "n", 1), fputc('[', f);
  size_t i = 0;
  for (int lane = 0; lane < t->nlanes; lane++) {
    size_t n = 0;
    for (; i < t->ntasks && t->task[i].lane == lane; i++) n += (t->task[i].flags & VW_F_KEEP) != 0;
    sep(f, (size_t)lane), fprintf(f, "%zu", n);
  }
  fputc(']', f);
  for (int c = 0; c < 6; c++) {
    key(f, col[c], 0), fputc('[', f);
    size_t m = 0;
    uint64_t prev = 0;
    int lane = -1;
    for (size_t j = 0; j < t->ntasks; j++) {
      const vw_task *k = &t->task[j];
      if (!(k->flags & VW_F_KEEP)) continue;
      sep(f, m++);
      if (k->lane != lane) prev = 0, lane = k->lane;
      switch (c) {
      case 0: fprintf(f, "%d", k->codelet); break;
      case 1: fprintf(f, "%llu", (unsigned long long)(k->start - prev)), prev = k->start; break;
      case 2: fprintf(f, "%llu", (unsigned long long)(k->end - k->start)); break;
      case 3: tagval(f, k->tag); break;
      case 4: fprintf(f, k->flops > 0 ? "%.4g" : "0", k->flops); break;
      default: fprintf(f, "%u", k->flags & (VW_F_CP | VW_F_IQR | VW_F_REG)); break;
      }
    }
    fputc(']', f);
  }
  fputc('}', f);
}

static void states(FILE *f, const vw_trace *t, uint64_t beta) {
  key(f, "states", 0), fputc('{', f);
  key(f, "n", 1), fputc('[', f);
  size_t i = 0;
  for (int lane = 0; lane < t->nlanes; lane++) {
    size_t n = 0;
    for (; i < t->nstates && t->state[i].lane == lane; i++)
      n += beta == 0 || t->state[i].end - t->state[i].start >= beta;
    sep(f, (size_t)lane), fprintf(f, "%zu", n);
  }
  fputc(']', f);
  for (int c = 0; c < 3; c++) {
    key(f, c == 0 ? "k" : c == 1 ? "s" : "d", 0), fputc('[', f);
    size_t m = 0;
    uint64_t prev = 0;
    int lane = -1;
    for (size_t j = 0; j < t->nstates; j++) {
      const vw_state *x = &t->state[j];
      if (beta && x->end - x->start < beta) continue;
      sep(f, m++);
      if (x->lane != lane) prev = 0, lane = x->lane;
      if (c == 0)
        fprintf(f, "%d", x->kind);
      else if (c == 1)
        fprintf(f, "%llu", (unsigned long long)(x->start - prev)), prev = x->start;
      else
        fprintf(f, "%llu", (unsigned long long)(x->end - x->start));
    }
    fputc(']', f);
  }
  fputc('}', f);
}

/* Columns of integers: "name": [get(ctx, 0, c), get(ctx, 1, c)...] for the n rows kept by keep
 * (NULL: every row), at most max of them. */
typedef int64_t (*column_fn)(const void *ctx, size_t row, int col);
static void columns(FILE *f, const char *const *names, int ncol, size_t n, size_t max, column_fn get,
                    int (*keep)(const void *ctx, size_t row), const void *ctx) {
  for (int c = 0; c < ncol; c++) {
    key(f, names[c], 0), fputc('[', f);
    size_t m = 0;
    for (size_t i = 0; i < n && m < max; i++) {
      if (keep && !keep(ctx, i)) continue;
      sep(f, m++);
      fprintf(f, "%lld", (long long)get(ctx, i, c));
    }
    fputc(']', f);
  }
}

/* A bin: its class, its interval as the difference with the previous bin's of the lane (bins come
 * lane by lane), its count, and how busy it is in thousandths of beta. */
static int64_t bin_col(const void *ctx, size_t i, int c) {
  const vw_agg *a = ctx;
  const vw_bin *b = &a->bin[i];
  if (c == 0) return b->cls;
  if (c == 1) return (int64_t)b->idx - (i > 0 && a->bin[i - 1].lane == b->lane ? (int64_t)a->bin[i - 1].idx : 0);
  if (c == 2) return b->count;
  return llround((double)b->busy * 1000 / (double)a->beta);
}

static void bins(FILE *f, const vw_page *pg) {
  const vw_agg *a = pg->agg;
  const vw_trace *t = pg->t;
  key(f, "bins", 0), fputc('{', f);
  key(f, "beta", 1), fprintf(f, "%llu", (unsigned long long)a->beta);
  key(f, "n", 0), fputc('[', f);
  size_t i = 0;
  for (int lane = 0; lane < t->nlanes; lane++) {
    size_t n = 0;
    for (; i < a->nbins && a->bin[i].lane == lane; i++) n++;
    sep(f, (size_t)lane), fprintf(f, "%zu", n);
  }
  fputc(']', f);
  static const char *const col[4] = {"cls", "di", "count", "busy"};
  columns(f, col, 4, a->nbins, SIZE_MAX, bin_col, NULL, a);
  fputc('}', f);
  key(f, "agg", 0);
  fprintf(f,
          "{\"tasks\":%zu,\"kept_tasks\":%zu,\"merged_tasks\":%zu,\"states\":%zu,\"kept_states\":%zu,"
          "\"merged_states\":%zu,\"budget\":%zu}",
          t->ntasks, a->kept_tasks, a->merged_tasks, t->nstates, a->kept_states, a->merged_states, a->budget);
}

#define VW_MSGS_MAX 20000
typedef struct {
  const vw_trace *t;
  uint64_t min_bytes;
} msg_ctx;
/* a message: its lanes, when it was sent, how long after it was received, its size */
static int64_t msg_col(const void *ctx, size_t i, int c) {
  const vw_msg *x = &((const msg_ctx *)ctx)->t->msg[i];
  return c == 0   ? x->from
         : c == 1 ? x->to
         : c == 2 ? (int64_t)x->t_send
         : c == 3 ? (int64_t)(x->t_recv - x->t_send)
                  : (int64_t)x->bytes;
}
static int msg_keep(const void *ctx, size_t i) {
  const msg_ctx *m = ctx;
  return m->t->msg[i].bytes >= m->min_bytes;
}

static void msgs(FILE *f, const vw_trace *t) {
  /* every message when they are few, else the largest ones (the page says how many are drawn) */
  msg_ctx m = {t, 0};
  if (t->nmsgs > VW_MSGS_MAX) {
    uint64_t lo = 0, hi = UINT64_MAX / 2;
    while (lo < hi) { /* the smallest size threshold keeping at most VW_MSGS_MAX messages */
      uint64_t mid = lo + (hi - lo) / 2;
      size_t c = 0;
      for (size_t i = 0; i < t->nmsgs; i++) c += t->msg[i].bytes >= mid;
      if (c <= VW_MSGS_MAX)
        hi = mid;
      else
        lo = mid + 1;
    }
    m.min_bytes = lo;
  }
  static const char *const col[5] = {"from", "to", "s", "dr", "b"};
  key(f, "msgs", 0), fputc('{', f);
  key(f, "total", 1), fprintf(f, "%zu", t->nmsgs);
  key(f, "unmatched", 0), fprintf(f, "%llu", (unsigned long long)t->msgs_unmatched);
  key(f, "min_bytes", 0), fprintf(f, "%llu", (unsigned long long)m.min_bytes);
  columns(f, col, 5, t->nmsgs, VW_MSGS_MAX, msg_col, msg_keep, &m);
  fputc('}', f);
}

/* -------------------------------------------------------------------------- critical path */
/* kept[i]: the index of trace task i among the kept ones (SIZE_MAX when merged) */
static size_t *kept_index(const vw_trace *t) {
  size_t *k = malloc(sizeof *k * (t->ntasks ? t->ntasks : 1)), n = 0;
  for (size_t i = 0; k && i < t->ntasks; i++) k[i] = t->task[i].flags & VW_F_KEEP ? n++ : SIZE_MAX;
  return k;
}

/* The rank of the largest part of application-thread time on the run's critical path (popmeter.json's
 * composition, which follows it across processes), -1 when it has none. The trace alone cannot tell:
 * the first task's input may have come from another process's thread through a transfer. */
static int app_rank(const pm_profile *p) {
  pm_prof_task_cp cp;
  int rank = -1;
  double best = 0;
  if (!pm_prof_tasks_cp(p, &cp) || !cp.valid) return -1;
  for (int i = 0; i < cp.nparts; i++)
    if (!strcmp(cp.part[i].name, "(application threads)") && cp.part[i].time > best) {
      best = cp.part[i].time;
      rank = cp.part[i].rank;
    }
  return rank;
}

static void path_trace(FILE *f, const vw_page *pg, const size_t *kept) {
  const vw_trace *t = pg->t;
  const vw_path *p = pg->path;
  key(f, "tasks", 1), fputc('[', f);
  size_t m = 0;
  for (size_t i = 0; i < p->n; i++)
    if (kept[p->task[i]] != SIZE_MAX) sep(f, m++), fprintf(f, "%zu", kept[p->task[i]]);
  fputc(']', f);
  key(f, "length", 0), num(f, (double)p->length * 1e-9);
  key(f, "before", 0), num(f, (double)p->before * 1e-9);
  key(f, "source", 0), str(f, "trace");
  /* what lies on it: per (codelet, process), plus the application threads before the first task */
  int maxp = 0;
  for (int i = 0; i < t->nlanes; i++) maxp = t->lane[i].process > maxp ? t->lane[i].process : maxp;
  size_t nc = (size_t)t->ncodelets;
  double *by = calloc(nc * (size_t)(maxp + 1) + 1, sizeof *by);
  for (size_t i = 0; by && i < p->n; i++) {
    const vw_task *k = &t->task[p->task[i]];
    by[(size_t)t->lane[k->lane].process * nc + (size_t)k->codelet] += (double)(k->end - k->start) * 1e-9;
  }
  key(f, "by", 0), fputc('[', f);
  m = 0;
  if (p->before) /* application threads' time before the first task: which process, the run's composition says */
    sep(f, m++),
        fprintf(f, "{\"name\":\"(application threads)\",\"rank\":%d,\"time\":%.6g}", app_rank(pg->p), p->before * 1e-9);
  for (int r = 0; by && r <= maxp; r++)
    for (size_t c = 0; c < nc; c++) {
      double x = by[(size_t)r * nc + c];
      if (x <= 0) continue;
      sep(f, m++);
      fputs("{\"name\":", f), str(f, t->codelet[c]), fprintf(f, ",\"rank\":%d,\"time\":%.6g}", r, x);
    }
  fputc(']', f);
  free(by);
}

/* Without a trace: the composition popmeter.json holds (tasks.processes[].composition). */
static void path_profile(FILE *f, const pm_profile *p) {
  pm_prof_task_cp cp;
  int ok = pm_prof_tasks_cp(p, &cp) && cp.valid;
  key(f, "tasks", 1), fputs("[]", f);
  key(f, "length", 0), num(f, ok ? cp.len.cue : NAN);
  key(f, "before", 0), fputs("0", f);
  key(f, "source", 0), str(f, "profile");
  key(f, "by", 0), fputc('[', f);
  for (int i = 0; ok && i < cp.nparts; i++) {
    sep(f, (size_t)i);
    fputs("{\"name\":", f), str(f, cp.part[i].name),
        fprintf(f, ",\"rank\":%d,\"time\":%.6g}", cp.part[i].rank, cp.part[i].time);
  }
  fputc(']', f);
}

/* ---------------------------------------------------------------------------------- series */
static void series(FILE *f, const vw_page *pg) {
  key(f, "series", 0), fputc('[', f);
  for (int i = 0; i < pg->nseries; i++) {
    const vw_series *s = &pg->series[i];
    sep(f, (size_t)i);
    fputc('{', f);
    key(f, "name", 1), str(f, s->name);
    key(f, "process", 0), fprintf(f, "%d", s->process);
    key(f, "bytes", 0), fputs(s->unit_bytes ? "true" : "false", f);
    key(f, "start", 0), fprintf(f, "%llu", (unsigned long long)s->start);
    key(f, "bin", 0), fprintf(f, "%llu", (unsigned long long)s->bin);
    key(f, "v", 0), fputc('[', f);
    for (int b = 0; b < s->nbins; b++) {
      sep(f, (size_t)b);
      if (isnan(s->v[b][2])) {
        fputs("null", f);
        continue;
      }
      fputc('[', f), num(f, s->v[b][0]), fputc(',', f), num(f, s->v[b][1]), fputc(',', f), num(f, s->v[b][2]);
      fputc(']', f);
    }
    fputs("]}", f);
  }
  fputc(']', f);
}

/* -------------------------------------------------------------------------------- codelets */
#define VW_GRID 40
/* The merged tasks of a group, counted on a log-log grid (the page draws their density). */
static void grid(FILE *f, const vw_trace *t, const vw_codelet *c) {
  double y0 = log10(c->min > 0 ? c->min : 1e-9), y1 = log10(c->max > 0 ? c->max : 1e-9);
  if (!(c->x1 > c->x0)) return;
  if (!(y1 > y0)) y1 = y0 + 1;
  unsigned *n = calloc(VW_GRID * VW_GRID, sizeof *n);
  size_t any = 0;
  for (size_t i = 0; n && i < t->ntasks; i++) {
    const vw_task *k = &t->task[i];
    if ((k->flags & VW_F_KEEP) || k->codelet != c->codelet || t->lane[k->lane].wtype != c->wtype || k->flops <= 0 ||
        k->end <= k->start)
      continue;
    int gx = (int)((log10(k->flops) - c->x0) / (c->x1 - c->x0) * VW_GRID);
    int gy = (int)((log10((double)(k->end - k->start) * 1e-9) - y0) / (y1 - y0) * VW_GRID);
    gx = gx < 0 ? 0 : gx >= VW_GRID ? VW_GRID - 1 : gx;
    gy = gy < 0 ? 0 : gy >= VW_GRID ? VW_GRID - 1 : gy;
    n[gy * VW_GRID + gx]++;
    any++;
  }
  if (n && any) {
    key(f, "grid", 0);
    fprintf(f, "{\"x0\":%.6g,\"x1\":%.6g,\"y0\":%.6g,\"y1\":%.6g,\"size\":%d,\"c\":[", c->x0, c->x1, y0, y1, VW_GRID);
    for (int i = 0; i < VW_GRID * VW_GRID; i++) sep(f, (size_t)i), fprintf(f, "%u", n[i]);
    fputs("]}", f);
  }
  free(n);
}

static void groups(FILE *f, const vw_page *pg, const size_t *kept) {
  key(f, "groups", 0), fputc('[', f);
  for (int i = 0; i < pg->ncod; i++) {
    const vw_codelet *c = &pg->cod[i];
    sep(f, (size_t)i);
    fprintf(f, "{\"codelet\":%d,\"wtype\":%d,\"count\":%zu,\"with_flops\":%zu,\"iqr\":%zu,\"reg\":%zu", c->codelet,
            c->wtype, c->count, c->with_flops, c->iqr, c->reg);
    const double q[6] = {c->total, c->min, c->q1, c->median, c->q3, c->max};
    static const char *const qn[6] = {"total", "min", "q1", "median", "q3", "max"};
    for (int j = 0; j < 6; j++) key(f, qn[j], 0), num(f, q[j]);
    if (c->has_fit) {
      fprintf(f, ",\"fit\":{\"a\":%.6g,\"b\":%.6g,\"band\":[", c->a, c->b);
      for (int j = 0; j < VW_BAND_POINTS; j++)
        sep(f, (size_t)j), fprintf(f, "[%.6g,%.6g,%.6g]", c->band[j][0], c->band[j][1], c->band[j][2]);
      fputs("]}", f);
    }
    key(f, "worst", 0), fputc('[', f);
    for (size_t j = 0; j < c->nworst; j++)
      sep(f, j), fprintf(f, "{\"task\":%zu,\"thr\":%.6g,\"kind\":\"%s\"}", kept[c->worst[j]], c->worst_thr[j],
                         c->worst_kind[j] == VW_F_IQR ? "IQR" : "regression");
    fputc(']', f);
    grid(f, pg->t, c);
    fputc('}', f);
  }
  fputc(']', f);
}

/* Without a trace: popmeter.json's codelet statistics, its top outliers with their tags. */
static void profile_groups(FILE *f, const pm_profile *p) {
  key(f, "pgroups", 0), fputc('[', f);
  for (int i = 0; p->tasks && i < p->tasks->ncodelets; i++) {
    const pm_prof_codelet *c = &p->tasks->codelet[i];
    sep(f, (size_t)i);
    fputs("{\"name\":", f), str(f, c->name);
    fprintf(f, ",\"rank\":%d,\"wtype\":%d,\"count\":%llu,\"iqr\":%llu,\"reg\":%llu", p->proc[c->process].rank,
            c->worker_type, (unsigned long long)c->count, (unsigned long long)c->outliers_iqr,
            (unsigned long long)c->outliers_reg);
    const double q[6] = {c->total, c->min, c->q1, c->q3, c->max, c->flops};
    static const char *const qn[6] = {"total", "min", "q1", "q3", "max", "flops"};
    for (int j = 0; j < 6; j++) key(f, qn[j], 0), num(f, q[j]);
    key(f, "worst", 0), fputc('[', f);
    for (int j = 0; j < c->ntop; j++) {
      const pm_prof_outlier *o = &c->top[j];
      sep(f, (size_t)j);
      fprintf(f, "{\"duration\":%.6g,\"thr\":%.6g,\"start\":%.6g,\"tag\":", o->duration, o->threshold, o->start);
      tagval(f, o->has_tag ? o->tag : VW_NONE);
      fputs(",\"worker\":", f), str(f, o->location >= 0 && o->location < p->nlocations ? p->loc[o->location].name : "");
      fprintf(f, ",\"kind\":\"%s\"}", o->kind ? "regression" : "IQR");
    }
    fputs("]}", f);
  }
  fputc(']', f);
}

/* ------------------------------------------------------------------------------------ tree */
static void tree(FILE *f, const vw_tree *tr) {
  key(f, "tree", 0);
  if (!tr || tr->n == 0) {
    fputs("null", f);
    return;
  }
  int *idx = malloc(sizeof *idx * (size_t)tr->n), n = 0;
  for (int i = 0; idx && i < tr->n; i++) idx[i] = tr->node[i].drawn ? n++ : -1;
  fprintf(f, "{\"n\":%d,\"hidden\":%d,\"dropped\":%llu,\"maxdepth\":%d", n, tr->hidden, (unsigned long long)tr->dropped,
          tr->maxdepth);
  static const char *const col[14] = {"tag",  "parent", "depth", "x",   "w",    "xt", "wt",
                                      "rank", "flops",  "time",  "eff", "rate", "cp", "folded"};
  for (int c = 0; idx && c < 14; c++) {
    key(f, col[c], 0), fputc('[', f);
    size_t m = 0;
    for (int i = 0; i < tr->n; i++) {
      const vw_node *v = &tr->node[i];
      if (!v->drawn) continue;
      sep(f, m++);
      switch (c) {
      case 0: tagval(f, v->tag); break;
      case 1: fprintf(f, "%d", v->parent >= 0 ? idx[v->parent] : -1); break;
      case 2: fprintf(f, "%d", v->depth); break;
      case 3: fprintf(f, "%.6g", v->x[0]); break; /* a millionth of the width: below a pixel */
      case 4: fprintf(f, "%.6g", v->w[0]); break;
      case 5: fprintf(f, "%.6g", v->x[1]); break;
      case 6: fprintf(f, "%.6g", v->w[1]); break;
      case 7: fprintf(f, "%d", v->rank); break;
      case 8: num4(f, v->flops); break; /* shown with 3 or 4 digits */
      case 9: num4(f, v->time); break;
      case 10: num4(f, v->timed > 0 ? v->predicted / v->timed : NAN); break;
      case 11: num4(f, v->time > 0 && v->tflops > 0 ? v->tflops / v->time : NAN); break;
      case 12: fprintf(f, "%d", v->on_path); break;
      default: fprintf(f, "%d", v->folded); break;
      }
    }
    fputc(']', f);
  }
  fputc('}', f);
  free(idx);
}

int vw_json_write(FILE *f, const vw_page *pg) {
  header(f, pg);
  lanes(f, pg);
  size_t *kept = pg->t ? kept_index(pg->t) : NULL;
  if (pg->t && kept) {
    tasks(f, pg->t);
    states(f, pg->t, pg->agg->beta);
    bins(f, pg);
    msgs(f, pg->t);
    key(f, "path", 0), fputc('{', f), path_trace(f, pg, kept), fputc('}', f);
    groups(f, pg, kept);
  } else {
    key(f, "path", 0), fputc('{', f), path_profile(f, pg->p), fputc('}', f);
  }
  profile_groups(f, pg->p);
  series(f, pg);
  tree(f, pg->tree);
  fputc('}', f);
  free(kept);
  return ferror(f) || (pg->t && !kept) ? -1 : 0;
}
