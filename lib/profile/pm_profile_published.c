/* The published part of the profile: storage, merge and JSON form (pm_profile_published.h).
 *
 * JSON (docs/json.md):
 *   "tag_tree": {"nodes": [[tag, parent, order, flops, rank], ...], "dropped": n}
 *   "series":   [{"name", "process", "start", "clock", "bin", "samples", "values": [[min, max, last] | null, ...]}]
 * Tags are written as the signed bit pattern of their 64 bits (as tasks.tags[]): a root's parent is -1. */
#include "pm_profile_published.h"
#include "pm_json_read.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pm_prof_published_free(pm_prof_published *p) {
  if (!p) return;
  free(p->node);
  for (int i = 0; i < p->nseries; i++) free(p->series[i].bins);
  free(p->series);
  free(p);
}

static pm_prof_published *ensure(pm_prof_published **p) {
  if (!*p) *p = calloc(1, sizeof **p);
  return *p;
}

/* Stable order by tag: the first record of a tag stays first among its equals. */
static int by_tag(const void *a, const void *b) {
  const pm_prof_tag_node *x = *(const pm_prof_tag_node *const *)a, *y = *(const pm_prof_tag_node *const *)b;
  if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
  return x < y ? -1 : x > y;
}

int pm_prof_tag_nodes_add(pm_prof_published **pp, const pm_prof_tag_node *nodes, int n) {
  pm_prof_published *p = ensure(pp);
  if (!p || n < 0 || (size_t)p->nnodes + (size_t)n > (size_t)INT32_MAX) return -1;
  if (n == 0) return 0;
  /* existing nodes first, so that they win over the new ones; sorted through pointers (stable) */
  size_t total = (size_t)p->nnodes + (size_t)n;
  const pm_prof_tag_node **ptr = malloc(total * sizeof *ptr);
  pm_prof_tag_node *out = malloc(total * sizeof *out);
  pm_prof_tag_node *all = malloc(total * sizeof *all);
  if (!ptr || !out || !all) {
    free(ptr);
    free(out);
    free(all);
    return -1;
  }
  if (p->nnodes) memcpy(all, p->node, (size_t)p->nnodes * sizeof *all);
  memcpy(all + p->nnodes, nodes, (size_t)n * sizeof *all);
  for (size_t i = 0; i < total; i++) ptr[i] = &all[i];
  qsort(ptr, total, sizeof *ptr, by_tag);
  int k = 0;
  for (size_t i = 0; i < total; i++)
    if (k == 0 || out[k - 1].tag != ptr[i]->tag) out[k++] = *ptr[i];
  free(ptr);
  free(all);
  free(p->node);
  p->node = out;
  p->nnodes = k;
  return 0;
}

int pm_prof_series_add(pm_prof_published **pp, const pm_prof_series *s) {
  pm_prof_published *p = ensure(pp);
  if (!p || s->nbins < 0) return -1;
  pm_prof_series *n = realloc(p->series, sizeof *n * (size_t)(p->nseries + 1));
  if (!n) return -1;
  p->series = n;
  pm_prof_series *d = &n[p->nseries];
  *d = *s;
  d->bins = malloc(sizeof *d->bins * (size_t)(s->nbins ? s->nbins : 1));
  if (!d->bins) return -1;
  if (s->nbins) memcpy(d->bins, s->bins, sizeof *d->bins * (size_t)s->nbins);
  p->nseries++;
  return 0;
}

int pm_prof_published_merge(pm_prof_published **dst, const pm_prof_published *src, int p0) {
  if (!ensure(dst) || pm_prof_tag_nodes_add(dst, src->node, src->nnodes) != 0) return -1;
  (*dst)->nodes_dropped += src->nodes_dropped;
  for (int i = 0; i < src->nseries; i++) {
    pm_prof_series s = src->series[i];
    s.process += p0;
    if (pm_prof_series_add(dst, &s) != 0) return -1;
  }
  return 0;
}

const pm_prof_tag_node *pm_prof_tag_node_find(const pm_prof_published *p, uint64_t tag) {
  int lo = 0, hi = p ? p->nnodes - 1 : -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->node[mid].tag == tag) return &p->node[mid];
    if (p->node[mid].tag < tag)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------- writing */
void pm_prof_published_to_json(json_t *root, const pm_prof_published *p) {
  if (p->nnodes > 0 || p->nodes_dropped > 0) {
    json_t *nodes = json_array();
    for (int i = 0; i < p->nnodes; i++) {
      const pm_prof_tag_node *n = &p->node[i];
      json_array_append_new(nodes, json_pack("[I,I,I,f,i]", (json_int_t)(int64_t)n->tag, (json_int_t)(int64_t)n->parent,
                                             (json_int_t)n->order, n->flops, n->rank));
    }
    json_object_set_new(root, "tag_tree",
                        json_pack("{s:o,s:I}", "nodes", nodes, "dropped", (json_int_t)p->nodes_dropped));
  }
  if (p->nseries > 0) {
    json_t *all = json_array();
    for (int i = 0; i < p->nseries; i++) {
      const pm_prof_series *s = &p->series[i];
      json_t *values = json_array();
      for (int b = 0; b < s->nbins; b++) {
        const pm_prof_bin *x = &s->bins[b];
        json_array_append_new(values, isnan(x->last) ? json_null() : json_pack("[f,f,f]", x->min, x->max, x->last));
      }
      json_array_append_new(all, json_pack("{s:s,s:i,s:f,s:I,s:f,s:I,s:o}", "name", s->name, "process", s->process,
                                           "start", s->start, "clock", (json_int_t)s->clock, "bin", s->bin, "samples",
                                           (json_int_t)s->samples, "values", values));
    }
    json_object_set_new(root, "series", all);
  }
}

/* ------------------------------------------------------------------------------------- reading */
/* A finite number of any sign, |x| < 1e15 (a series' start, a bin's value). */
static double finite_num(pm_jr *r, const json_t *v, const char *what, size_t i) {
  if (!json_is_number(v) || !isfinite(json_number_value(v)) || fabs(json_number_value(v)) >= 1e15) {
    pm_jr_fail(r, "%s[%zu]: not a finite number", what, i);
    return 0;
  }
  return json_number_value(v);
}

static void read_nodes(pm_jr *r, const json_t *tree, pm_prof_published **out) {
  const json_t *nodes = pm_jr_member(r, tree, "nodes", JSON_ARRAY, "tag_tree");
  size_t n = json_array_size(nodes);
  if (r->failed) return;
  if (n > (size_t)INT32_MAX / 2) {
    pm_jr_fail(r, "nodes: %zu records", n);
    return;
  }
  pm_prof_tag_node *v = malloc(sizeof *v * (n ? n : 1));
  if (!v) {
    pm_jr_fail(r, "out of memory");
    return;
  }
  for (size_t i = 0; i < n && !r->failed; i++) {
    const json_t *e = json_array_get(nodes, i);
    json_int_t k[3], rank;
    const json_t *fl = json_array_get(e, 3);
    int good = json_is_array(e) && json_array_size(e) == 5;
    for (int j = 0; good && j < 3; j++)
      good = pm_jr_int_value(json_array_get(e, (size_t)j), INT64_MIN, INT64_MAX, &k[j]) == 0;
    good = good && json_is_number(fl) && isfinite(json_number_value(fl)) && json_number_value(fl) >= 0 &&
           json_number_value(fl) < 1e30 && pm_jr_int_value(json_array_get(e, 4), -1, INT32_MAX, &rank) == 0;
    if (!good) {
      pm_jr_fail(r, "nodes[%zu]: not [tag, parent, order, flops >= 0, rank >= -1]", i);
      break;
    }
    v[i] = (pm_prof_tag_node){(uint64_t)(int64_t)k[0], (uint64_t)(int64_t)k[1], (int64_t)k[2], json_number_value(fl),
                              (int)rank};
  }
  if (!r->failed && pm_prof_tag_nodes_add(out, v, (int)n) != 0) pm_jr_fail(r, "out of memory");
  free(v);
  if (!r->failed) (*out)->nodes_dropped = pm_jr_count(r, tree, "dropped", "tag_tree");
}

static void read_bins(pm_jr *r, const json_t *values, pm_prof_series *s) {
  size_t n = json_array_size(values);
  if (n > 1 << 20) {
    pm_jr_fail(r, "series %s: %zu bins", s->name, n);
    return;
  }
  if (!(s->bins = malloc(sizeof *s->bins * (n ? n : 1)))) {
    pm_jr_fail(r, "out of memory");
    return;
  }
  s->nbins = (int)n;
  for (size_t b = 0; b < n && !r->failed; b++) {
    const json_t *e = json_array_get(values, b);
    if (json_is_null(e)) {
      s->bins[b] = (pm_prof_bin){NAN, NAN, NAN};
      continue;
    }
    if (!json_is_array(e) || json_array_size(e) != 3) {
      pm_jr_fail(r, "series %s: values[%zu] is not [min, max, last] or null", s->name, b);
      break;
    }
    double x[3];
    for (int j = 0; j < 3; j++) x[j] = finite_num(r, json_array_get(e, (size_t)j), "values", b);
    if (!r->failed && !(x[0] <= x[2] && x[2] <= x[1]))
      pm_jr_fail(r, "series %s: values[%zu]: not min <= last <= max", s->name, b);
    s->bins[b] = (pm_prof_bin){x[0], x[1], x[2]};
  }
}

static void read_series(pm_jr *r, const json_t *all, int nprocesses, pm_prof_published **out) {
  if (!json_is_array(all)) {
    pm_jr_fail(r, "series: not an array");
    return;
  }
  char w[32];
  for (size_t i = 0; i < json_array_size(all) && !r->failed; i++) {
    const json_t *o = json_array_get(all, i);
    pm_prof_series s = {0};
    snprintf(w, sizeof w, "series[%zu]", i);
    pm_jr_str(r, o, "name", s.name, sizeof s.name, w);
    s.process = pm_jr_int(r, o, "process", 0, (json_int_t)nprocesses - 1, w);
    s.start = finite_num(r, json_object_get(o, "start"), "start of series", i);
    s.clock = pm_jr_count(r, o, "clock", w);
    s.bin = pm_jr_num(r, o, "bin", w);
    s.samples = pm_jr_count(r, o, "samples", w);
    const json_t *values = pm_jr_member(r, o, "values", JSON_ARRAY, w);
    if (!r->failed && !(s.bin > 0)) pm_jr_fail(r, "%s: bin width must be positive", w);
    if (!r->failed) read_bins(r, values, &s);
    if (!r->failed && pm_prof_series_add(out, &s) != 0) pm_jr_fail(r, "out of memory");
    free(s.bins);
  }
}

int pm_prof_published_from_json(const json_t *root, int nprocesses, pm_prof_published **out, char *err, size_t errlen) {
  const json_t *tree = json_object_get(root, "tag_tree"), *series = json_object_get(root, "series");
  *out = NULL;
  if (!tree && !series) return 0;
  pm_jr r = pm_jr_init(err, errlen, tree ? "tag_tree" : "series", 1e30);
  if (!ensure(out)) {
    pm_jr_fail(&r, "out of memory");
    return -1;
  }
  if (tree && !json_is_object(tree)) pm_jr_fail(&r, "not an object");
  if (tree && !r.failed) read_nodes(&r, tree, out);
  r.part = "series";
  if (series && !r.failed) read_series(&r, series, nprocesses, out);
  if (r.failed) {
    pm_prof_published_free(*out);
    *out = NULL;
    return -1;
  }
  return 0;
}
