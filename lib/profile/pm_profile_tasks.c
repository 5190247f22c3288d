/* Task-runtime part of the run profile: containers, merge, JSON (writer and validating reader),
 * the resolved global critical path, and the task model's input (see pm_profile_tasks.h). */
#include "pm_profile_tasks.h"
#include "pm_json_read.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pm_prof_tasks_free(pm_prof_tasks *t) {
  if (!t) return;
  free(t->taskproc);
  free(t->codelet);
  free(t->tag);
  free(t->transfer);
  free(t->mpicomm);
  free(t->mpihandle);
  free(t);
}

/* Appends n elements of src to *dst (holding *nd), returning the index of the first, or -1. */
static int append(void **dst, int *nd, const void *src, int n, size_t sz) {
  if (n <= 0) return *nd;
  void *q = realloc(*dst, (size_t)(*nd + n) * sz);
  if (!q) return -1;
  *dst = q;
  memcpy((char *)q + (size_t)*nd * sz, src, (size_t)n * sz);
  int first = *nd;
  *nd += n;
  return first;
}

int pm_prof_tasks_merge(pm_prof_tasks **dstp, const pm_prof_tasks *s, int p0, int l0) {
  if (!*dstp && !(*dstp = calloc(1, sizeof **dstp))) return -1;
  pm_prof_tasks *d = *dstp;
  int i, k;
#define APPEND(arr, n)                                                                    \
  if ((k = append((void **)&d->arr, &d->n, s->arr, s->n, sizeof *s->arr)) < 0) return -1; \
  for (i = k; i < d->n; i++) d->arr[i].process += p0;
  APPEND(taskproc, ntaskprocs)
  APPEND(codelet, ncodelets)
  for (i = k; i < d->ncodelets; i++)
    for (int j = 0; j < d->codelet[i].ntop; j++) d->codelet[i].top[j].location += l0;
  APPEND(tag, ntags)
  APPEND(transfer, ntransfers)
  APPEND(mpicomm, nmpicomms)
  APPEND(mpihandle, nmpihandles)
#undef APPEND
  return 0;
}

/* ------------------------------------------------------------------------------------- writing */
static json_t *cp_json(pm_prof_cp c) { return json_pack("{s:f,s:f,s:f}", "cue", c.cue, "com", c.com, "coo", c.coo); }
#define I(x) ((json_int_t)(x))

json_t *pm_prof_tasks_to_json(const pm_prof_tasks *t) {
  json_t *procs = json_array(), *cls = json_array(), *tags = json_array(), *trs = json_array(), *mpi = json_array(),
         *mh = json_array();
  for (int i = 0; i < t->ntaskprocs; i++) {
    const pm_prof_taskproc *q = &t->taskproc[i];
    json_t *comp = json_array();
    for (int j = 0; j < q->ncomp; j++)
      json_array_append_new(comp, json_pack("[i,I,f]", q->comp[j].rank, I(q->comp[j].hash), q->comp[j].time));
    json_t *o = json_pack("{s:i,s:I,s:I,s:o,s:o,s:f,s:o,s:f}", "process", q->process, "tasks", I(q->tasks), "bodyless",
                          I(q->bodyless), "dag_pl", cp_json(q->dag_pl), "dag_g", cp_json(q->dag_g), "coo_mpi",
                          q->coo_mpi, "composition", comp, "composition_other", q->comp_other);
    json_object_set_new(o, "clocks",
                        json_pack("{s:I,s:I,s:I}", "sent", I(q->clocks_sent), "received", I(q->clocks_received), "lost",
                                  I(q->clocks_lost)));
    json_object_set_new(o, "peak_tasks", json_integer(I(q->peak_tasks)));
    json_object_set_new(o, "tags_dropped", json_integer(I(q->tags_dropped)));
    json_object_set_new(o, "handles_untracked", json_integer(I(q->handles_untracked)));
    json_object_set_new(o, "runtime_observed", json_boolean(!q->runtime_unobserved));
    json_array_append_new(procs, o);
  }
  for (int i = 0; i < t->ncodelets; i++) {
    const pm_prof_codelet *c = &t->codelet[i];
    json_t *top = json_array();
    for (int j = 0; j < c->ntop; j++) {
      const pm_prof_outlier *x = &c->top[j];
      json_array_append_new(top, json_pack("{s:f,s:f,s:f,s:I,s:b,s:i,s:i}", "duration", x->duration, "threshold",
                                           x->threshold, "start", x->start, "tag", I(x->tag), "has_tag", x->has_tag,
                                           "kind", x->kind, "location", x->location));
    }
    json_t *o = json_pack("{s:s,s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:I}", "name", c->name, "process", c->process,
                          "worker_type", c->worker_type, "hash", I(c->hash), "count", I(c->count), "with_flops",
                          I(c->with_flops), "with_prediction", I(c->with_prediction), "outliers_iqr",
                          I(c->outliers_iqr), "outliers_reg", I(c->outliers_reg));
    json_object_set_new(
        o, "time",
        json_pack("{s:f,s:f,s:f,s:f,s:f}", "total", c->total, "min", c->min, "max", c->max, "q1", c->q1, "q3", c->q3));
    json_object_set_new(o, "flops", json_real(c->flops));
    json_object_set_new(o, "predicted", json_real(c->predicted));
    json_object_set_new(o, "bytes", json_real(c->bytes));
    if (c->with_waits) /* absent where the runtime showed no submission and ready times */
      json_object_set_new(o, "waits",
                          json_pack("{s:I,s:f,s:f}", "count", I(c->with_waits), "dependencies", c->wait_deps,
                                    "scheduling", c->wait_sched));
    json_object_set_new(o, "outliers", top);
    json_array_append_new(cls, o);
  }
  for (int i = 0; i < t->ntags; i++) {
    const pm_prof_tag *g = &t->tag[i]; /* tags are 64-bit: stored as their signed bit pattern */
    json_array_append_new(tags, json_pack("[i,I,I,f,f,f,f]", g->process, (json_int_t)(int64_t)g->tag, I(g->count),
                                          g->total, g->min, g->max, g->flops));
  }
  for (int i = 0; i < t->ntransfers; i++) {
    const pm_prof_transfer *x = &t->transfer[i];
    json_array_append_new(trs, json_pack("{s:i,s:i,s:s,s:I,s:I}", "process", x->process, "node", x->node, "kind",
                                         x->kind, "count", I(x->count), "bytes", I(x->bytes)));
  }
  for (int i = 0; i < t->nmpicomms; i++) {
    const pm_prof_mpicomm *x = &t->mpicomm[i];
    json_array_append_new(mpi, json_pack("{s:i,s:i,s:s,s:I,s:I,s:f}", "process", x->process, "peer", x->peer, "dir",
                                         x->dir ? "recv" : "send", "count", I(x->count), "bytes", I(x->bytes), "time",
                                         x->time));
  }
  for (int i = 0; i < t->nmpihandles; i++) {
    const pm_prof_mpihandle *x = &t->mpihandle[i];
    json_array_append_new(mh, json_pack("{s:i,s:i,s:s,s:I,s:I,s:I}", "process", x->process, "peer", x->peer, "dir",
                                        x->dir ? "recv" : "send", "data_tag", (json_int_t)x->data_tag, "count",
                                        I(x->count), "bytes", I(x->bytes)));
  }
  return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "processes", procs, "codelets", cls, "tags", tags, "transfers", trs,
                   "mpi", mpi, "mpi_handles", mh);
}

/* ------------------------------------------------------------------------------------- reading */
typedef struct {
  pm_jr j;
  int np, nl;
} rd; /* np, nl: the enclosing profile's bounds */
#define fail(r, ...) pm_jr_fail(&(r)->j, __VA_ARGS__)
static const json_t *get(rd *r, const json_t *o, const char *k, json_type t, const char *w) {
  return pm_jr_member(&r->j, o, k, t, w);
}
static double num(rd *r, const json_t *o, const char *k, const char *w) { return pm_jr_num(&r->j, o, k, w); }
static uint64_t cnt(rd *r, const json_t *o, const char *k, const char *w) { return pm_jr_count(&r->j, o, k, w); }
static int idx(rd *r, const json_t *o, const char *k, int n, const char *w) {
  return pm_jr_int(&r->j, o, k, 0, (json_int_t)n - 1, w);
}
static pm_prof_cp cp_read(rd *r, const json_t *o, const char *k, const char *w) {
  const json_t *v = get(r, o, k, JSON_OBJECT, w);
  if (!v) return (pm_prof_cp){0, 0, 0};
  return (pm_prof_cp){num(r, v, "cue", w), num(r, v, "com", w), num(r, v, "coo", w)};
}
static int dir_read(rd *r, const json_t *o, const char *w) {
  const json_t *v = get(r, o, "dir", JSON_STRING, w);
  if (!v) return 0;
  if (!strcmp(json_string_value(v), "send")) return 0;
  if (!strcmp(json_string_value(v), "recv")) return 1;
  fail(r, "%s: \"dir\" is neither send nor recv", w);
  return 0;
}
static void str_read(rd *r, const json_t *o, const char *k, char *dst, size_t n, const char *w) {
  const json_t *v = get(r, o, k, JSON_STRING, w);
  snprintf(dst, n, "%s", v ? json_string_value(v) : "");
}

/* Allocates the array named k of o (n entries of size sz) into *dst; returns the array or NULL. */
static const json_t *arr(rd *r, const json_t *o, const char *k, void **dst, int *n, size_t sz) {
  const json_t *a = get(r, o, k, JSON_ARRAY, "tasks");
  if (!a) return NULL;
  size_t m = json_array_size(a);
  if (m > 100000000) {
    fail(r, "implausible size of \"%s\"", k);
    return NULL;
  }
  if (!(*dst = calloc(m + 1, sz))) {
    fail(r, "out of memory");
    return NULL;
  }
  *n = (int)m;
  return a;
}

static void read_procs(rd *r, pm_prof_tasks *t, const json_t *a) {
  char w[64];
  for (int i = 0; i < t->ntaskprocs && !r->j.failed; i++) {
    const json_t *o = json_array_get(a, (size_t)i);
    snprintf(w, sizeof w, "processes[%d]", i);
    pm_prof_taskproc *q = &t->taskproc[i];
    q->process = idx(r, o, "process", r->np, w);
    q->tasks = cnt(r, o, "tasks", w);
    q->bodyless = cnt(r, o, "bodyless", w);
    q->dag_pl = cp_read(r, o, "dag_pl", w);
    q->dag_g = cp_read(r, o, "dag_g", w);
    q->coo_mpi = num(r, o, "coo_mpi", w);
    q->comp_other = num(r, o, "composition_other", w);
    q->peak_tasks = cnt(r, o, "peak_tasks", w);
    q->tags_dropped = cnt(r, o, "tags_dropped", w);
    q->handles_untracked = cnt(r, o, "handles_untracked", w);
    /* optional (profiles written before it existed observed the runtime) */
    const json_t *ro = json_object_get(o, "runtime_observed");
    if (ro && !json_is_boolean(ro)) fail(r, "%s: runtime_observed is not a boolean", w);
    q->runtime_unobserved = ro && json_is_false(ro);
    const json_t *ck = get(r, o, "clocks", JSON_OBJECT, w), *comp = get(r, o, "composition", JSON_ARRAY, w);
    if (r->j.failed) return;
    q->clocks_sent = cnt(r, ck, "sent", w);
    q->clocks_received = cnt(r, ck, "received", w);
    q->clocks_lost = cnt(r, ck, "lost", w);
    if (json_array_size(comp) > PM_PROF_COMP_N) {
      fail(r, "%s: composition too long", w);
      return;
    }
    for (size_t j = 0; j < json_array_size(comp); j++) {
      const json_t *e = json_array_get(comp, j);
      if (!json_is_array(e) || json_array_size(e) != 3 || !json_is_integer(json_array_get(e, 0)) ||
          !json_is_integer(json_array_get(e, 1)) || !json_is_number(json_array_get(e, 2)) ||
          json_integer_value(json_array_get(e, 0)) < 0 || json_integer_value(json_array_get(e, 0)) > INT_MAX ||
          json_integer_value(json_array_get(e, 1)) < 0 || json_integer_value(json_array_get(e, 1)) > 0xffffffffll ||
          !(json_number_value(json_array_get(e, 2)) >= 0)) {
        fail(r, "%s: composition[%zu] is not [rank, hash, time]", w, j);
        return;
      }
      q->comp[j] = (pm_prof_cp_part){(int)json_integer_value(json_array_get(e, 0)),
                                     (uint32_t)json_integer_value(json_array_get(e, 1)),
                                     json_number_value(json_array_get(e, 2))};
      q->ncomp++;
    }
  }
}

static void read_codelets(rd *r, pm_prof_tasks *t, const json_t *a) {
  char w[64];
  for (int i = 0; i < t->ncodelets && !r->j.failed; i++) {
    const json_t *o = json_array_get(a, (size_t)i);
    snprintf(w, sizeof w, "codelets[%d]", i);
    pm_prof_codelet *c = &t->codelet[i];
    str_read(r, o, "name", c->name, sizeof c->name, w);
    c->process = idx(r, o, "process", r->np, w);
    c->worker_type = idx(r, o, "worker_type", 2, w);
    uint64_t h = cnt(r, o, "hash", w);
    if (h > 0xffffffffull) fail(r, "%s: hash out of range", w);
    c->hash = (uint32_t)h;
    c->count = cnt(r, o, "count", w);
    c->with_flops = cnt(r, o, "with_flops", w);
    c->with_prediction = cnt(r, o, "with_prediction", w);
    c->outliers_iqr = cnt(r, o, "outliers_iqr", w);
    c->outliers_reg = cnt(r, o, "outliers_reg", w);
    c->flops = num(r, o, "flops", w);
    c->predicted = num(r, o, "predicted", w);
    c->bytes = num(r, o, "bytes", w);
    if (json_object_get(o, "waits")) { /* optional: profiles of runtimes that do not show them lack it */
      const json_t *wt = get(r, o, "waits", JSON_OBJECT, w);
      c->with_waits = cnt(r, wt, "count", w);
      c->wait_deps = num(r, wt, "dependencies", w);
      c->wait_sched = num(r, wt, "scheduling", w);
      if (c->with_waits > c->count) fail(r, "%s: waits.count exceeds the task count", w);
    }
    const json_t *tm = get(r, o, "time", JSON_OBJECT, w), *top = get(r, o, "outliers", JSON_ARRAY, w);
    if (r->j.failed) return;
    c->total = num(r, tm, "total", w);
    c->min = num(r, tm, "min", w);
    c->max = num(r, tm, "max", w);
    c->q1 = num(r, tm, "q1", w);
    c->q3 = num(r, tm, "q3", w);
    if (json_array_size(top) > PM_PROF_TOP) {
      fail(r, "%s: too many outliers", w);
      return;
    }
    for (size_t j = 0; j < json_array_size(top) && !r->j.failed; j++) {
      const json_t *x = json_array_get(top, j);
      pm_prof_outlier *e = &c->top[j];
      e->duration = num(r, x, "duration", w);
      e->threshold = num(r, x, "threshold", w);
      e->start = num(r, x, "start", w);
      const json_t *tg = get(r, x, "tag", JSON_INTEGER, w), *ht = json_object_get(x, "has_tag");
      e->tag = tg ? (uint64_t)(int64_t)json_integer_value(tg) : 0;
      if (!json_is_boolean(ht)) fail(r, "%s: outlier without has_tag", w);
      e->has_tag = json_is_true(ht);
      e->kind = idx(r, x, "kind", 2, w);
      e->location = idx(r, x, "location", r->nl, w);
      c->ntop++;
    }
  }
}

static void read_rest(rd *r, pm_prof_tasks *t, const json_t *tags, const json_t *trs, const json_t *mpi,
                      const json_t *mh) {
  char w[64];
  for (int i = 0; i < t->ntags && !r->j.failed; i++) {
    const json_t *e = json_array_get(tags, (size_t)i);
    int ok = json_is_array(e) && json_array_size(e) == 7;
    for (int j = 0; ok && j < 7; j++)
      ok = j < 3 ? json_is_integer(json_array_get(e, j)) : json_is_number(json_array_get(e, j));
    json_int_t proc = ok ? json_integer_value(json_array_get(e, 0)) : -1,
               count = ok ? json_integer_value(json_array_get(e, 2)) : -1;
    if (!ok || proc < 0 || proc >= r->np || count < 0) {
      fail(r, "tags[%d] is not [process, tag, count, total, min, max, flops]", i);
      return;
    }
    pm_prof_tag *g = &t->tag[i];
    g->process = (int)proc;
    g->tag = (uint64_t)(int64_t)json_integer_value(json_array_get(e, 1));
    g->count = (uint64_t)count;
    g->total = json_number_value(json_array_get(e, 3));
    g->min = json_number_value(json_array_get(e, 4));
    g->max = json_number_value(json_array_get(e, 5));
    g->flops = json_number_value(json_array_get(e, 6));
    if (!(g->total >= 0 && g->min >= 0 && g->max >= 0 && g->flops >= 0)) fail(r, "tags[%d]: negative value", i);
  }
  for (int i = 0; i < t->ntransfers && !r->j.failed; i++) {
    const json_t *o = json_array_get(trs, (size_t)i);
    snprintf(w, sizeof w, "transfers[%d]", i);
    pm_prof_transfer *x = &t->transfer[i];
    x->process = idx(r, o, "process", r->np, w);
    x->node = idx(r, o, "node", 1 << 20, w);
    str_read(r, o, "kind", x->kind, sizeof x->kind, w);
    x->count = cnt(r, o, "count", w);
    x->bytes = cnt(r, o, "bytes", w);
  }
  for (int i = 0; i < t->nmpicomms && !r->j.failed; i++) {
    const json_t *o = json_array_get(mpi, (size_t)i);
    snprintf(w, sizeof w, "mpi[%d]", i);
    pm_prof_mpicomm *x = &t->mpicomm[i];
    x->process = idx(r, o, "process", r->np, w);
    x->peer = idx(r, o, "peer", 1 << 30, w);
    x->dir = dir_read(r, o, w);
    x->count = cnt(r, o, "count", w);
    x->bytes = cnt(r, o, "bytes", w);
    x->time = num(r, o, "time", w);
  }
  for (int i = 0; i < t->nmpihandles && !r->j.failed; i++) {
    const json_t *o = json_array_get(mh, (size_t)i);
    snprintf(w, sizeof w, "mpi_handles[%d]", i);
    pm_prof_mpihandle *x = &t->mpihandle[i];
    x->process = idx(r, o, "process", r->np, w);
    x->peer = idx(r, o, "peer", 1 << 30, w);
    x->dir = dir_read(r, o, w);
    const json_t *dt = get(r, o, "data_tag", JSON_INTEGER, w);
    x->data_tag = dt ? (int64_t)json_integer_value(dt) : 0;
    x->count = cnt(r, o, "count", w);
    x->bytes = cnt(r, o, "bytes", w);
  }
}

pm_prof_tasks *pm_prof_tasks_from_json(const json_t *o, int nprocesses, int nlocations, char *err, size_t errlen) {
  rd r = {pm_jr_init(err, errlen, "tasks", 1e30), nprocesses, nlocations};
  if (!json_is_object(o)) {
    fail(&r, "not an object");
    return NULL;
  }
  pm_prof_tasks *t = calloc(1, sizeof *t);
  if (!t) {
    fail(&r, "out of memory");
    return NULL;
  }
  const json_t *procs = arr(&r, o, "processes", (void **)&t->taskproc, &t->ntaskprocs, sizeof *t->taskproc);
  const json_t *cls = arr(&r, o, "codelets", (void **)&t->codelet, &t->ncodelets, sizeof *t->codelet);
  const json_t *tags = arr(&r, o, "tags", (void **)&t->tag, &t->ntags, sizeof *t->tag);
  const json_t *trs = arr(&r, o, "transfers", (void **)&t->transfer, &t->ntransfers, sizeof *t->transfer);
  const json_t *mpi = arr(&r, o, "mpi", (void **)&t->mpicomm, &t->nmpicomms, sizeof *t->mpicomm);
  const json_t *mh = arr(&r, o, "mpi_handles", (void **)&t->mpihandle, &t->nmpihandles, sizeof *t->mpihandle);
  if (!r.j.failed) read_procs(&r, t, procs);
  if (!r.j.failed) read_codelets(&r, t, cls);
  if (!r.j.failed) read_rest(&r, t, tags, trs, mpi, mh);
  if (r.j.failed) {
    pm_prof_tasks_free(t);
    return NULL;
  }
  return t;
}

/* ------------------------------------------------------------------------- derived: the path */
int pm_prof_tasks_cp(const pm_profile *p, pm_prof_task_cp *out) {
  memset(out, 0, sizeof *out);
  const pm_prof_tasks *t = p->tasks;
  if (!t || t->ntaskprocs == 0) return 0;
  const pm_prof_taskproc *best = NULL;
  for (int i = 0; i < t->ntaskprocs; i++) {
    const pm_prof_taskproc *q = &t->taskproc[i];
    out->clocks_lost += q->clocks_lost;
    if (q->tasks && (!best || q->dag_g.cue > best->dag_g.cue)) best = q;
  }
  if (!best) return 0;
  out->valid = 1;
  out->process = best->process;
  out->len = best->dag_g;
  out->coo_mpi = best->coo_mpi;
  for (int j = 0; j < best->ncomp; j++) {
    const pm_prof_cp_part *c = &best->comp[j];
    const char *name = c->hash == PM_PROF_APP_HASH ? "(application threads)" : NULL;
    /* the codelet of that hash on a process of that rank (any worker type) */
    for (int k = 0; !name && k < t->ncodelets; k++) {
      const pm_prof_codelet *cl = &t->codelet[k];
      if (cl->hash == c->hash && p->proc[cl->process].rank == c->rank) name = cl->name;
    }
    for (int k = 0; !name && k < t->ncodelets; k++)
      if (t->codelet[k].hash == c->hash) name = t->codelet[k].name;
    snprintf(out->part[out->nparts].name, sizeof out->part[0].name, "%s", name ? name : "(unknown codelet)");
    out->part[out->nparts].rank = c->rank;
    out->part[out->nparts++].time = c->time;
    int r;
    for (r = 0; r < out->nranks && out->rank[r].rank != c->rank; r++) {}
    if (r == out->nranks && out->nranks < PM_PROF_CP_MAXRANKS) out->rank[out->nranks++].rank = c->rank;
    if (r < out->nranks) out->rank[r].time += c->time;
  }
  if (best->comp_other > 0) {
    snprintf(out->part[out->nparts].name, sizeof out->part[0].name, "(other codelets)");
    out->part[out->nparts].rank = -1;
    out->part[out->nparts++].time = best->comp_other;
  }
  return 1;
}

int pm_prof_tasks_runtime_unobserved(const pm_prof_tasks *t) {
  for (int i = 0; t && i < t->ntaskprocs; i++)
    if (t->taskproc[i].runtime_unobserved) return 1;
  return 0;
}

int pm_prof_tasks_input(const pm_profile *p, pm_codelet_input **codelets, int *ncodelets, double *cp_bound,
                        int *runtime_unobserved) {
  *codelets = NULL;
  *ncodelets = 0;
  *cp_bound = 0;
  const pm_prof_tasks *t = p->tasks;
  *runtime_unobserved = pm_prof_tasks_runtime_unobserved(t);
  if (!t) return 0;
  pm_prof_task_cp cp;
  if (pm_prof_tasks_cp(p, &cp)) *cp_bound = cp.len.cue;
  if (t->ncodelets == 0) return 0;
  pm_codelet_input *c = calloc((size_t)t->ncodelets, sizeof *c);
  if (!c) return -1;
  for (int i = 0; i < t->ncodelets; i++) {
    const pm_prof_codelet *x = &t->codelet[i];
    /* a prediction counts only when every task of the codelet had one (otherwise the predicted
     * and observed totals cover different tasks) */
    c[i] = (pm_codelet_input){x->name, x->worker_type, x->total, x->with_prediction == x->count ? x->predicted : 0,
                              (int64_t)x->count};
  }
  *codelets = c;
  *ncodelets = t->ncodelets;
  return 0;
}
