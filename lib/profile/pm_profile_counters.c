/* Hardware-counter part of the run profile: event kinds, containers, merge, JSON. */
#include "pm_profile_counters.h"
#include "pm_json_read.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------------------ event kinds */
static const char *const kind_names[PM_CTR_KIND_COUNT] = {[PM_CTR_OTHER] = "other",
                                                          [PM_CTR_INSTRUCTIONS] = "instructions",
                                                          [PM_CTR_CYCLES] = "cycles",
                                                          [PM_CTR_FP_SP_SCALAR] = "fp_sp_scalar",
                                                          [PM_CTR_FP_DP_SCALAR] = "fp_dp_scalar",
                                                          [PM_CTR_FP_SP_128] = "fp_sp_128",
                                                          [PM_CTR_FP_DP_128] = "fp_dp_128",
                                                          [PM_CTR_FP_SP_256] = "fp_sp_256",
                                                          [PM_CTR_FP_DP_256] = "fp_dp_256",
                                                          [PM_CTR_FP_SP_512] = "fp_sp_512",
                                                          [PM_CTR_FP_DP_512] = "fp_dp_512"};

const char *pm_ctr_kind_name(pm_ctr_kind k) { return k >= 0 && k < PM_CTR_KIND_COUNT ? kind_names[k] : "other"; }
int pm_ctr_kind_from_name(const char *name) {
  for (int k = 0; k < PM_CTR_KIND_COUNT; k++)
    if (!strcmp(name, kind_names[k])) return k;
  return -1;
}
int pm_ctr_kind_is_fp(pm_ctr_kind k) { return k >= PM_CTR_FP_SP_SCALAR && k <= PM_CTR_FP_DP_512; }
int pm_ctr_fp_precision(pm_ctr_kind k) { return (int)(k - PM_CTR_FP_SP_SCALAR) & 1; }
int pm_ctr_fp_packed(pm_ctr_kind k) { return k >= PM_CTR_FP_SP_128; }
int pm_ctr_fp_width_index(pm_ctr_kind k) {
  return k < PM_CTR_FP_SP_128 ? pm_ctr_fp_precision(k) : 2 + (int)(k - PM_CTR_FP_SP_128) / 2;
}
/* lanes of a packed instruction: width / element size (single 32, double 64 bits) */
int pm_ctr_fp_ops(pm_ctr_kind k) {
  static const int width[5] = {32, 64, 128, 256, 512};
  if (!pm_ctr_kind_is_fp(k)) return 0;
  return pm_ctr_fp_packed(k) ? width[pm_ctr_fp_width_index(k)] / (pm_ctr_fp_precision(k) ? 64 : 32) : 1;
}
const char *pm_ctr_category_name(pm_ctr_category c) {
  static const char *const n[PM_CTR_CAT_COUNT] = {"instructions", "cycles", "fp"};
  return c >= 0 && c < PM_CTR_CAT_COUNT ? n[c] : "other";
}
pm_ctr_category pm_ctr_category_of(pm_ctr_kind k) {
  if (k == PM_CTR_INSTRUCTIONS) return PM_CTR_CAT_INSTRUCTIONS;
  if (k == PM_CTR_CYCLES) return PM_CTR_CAT_CYCLES;
  return pm_ctr_kind_is_fp(k) ? PM_CTR_CAT_FP : PM_CTR_CAT_COUNT;
}

/* Event names: an optional PMU prefix ("perf::", "skx::"), a base name, ':'-separated unit masks,
 * and modifiers "u=0"... which do not change what is counted as far as the models care. */
pm_ctr_kind pm_ctr_kind_of_event(const char *event) {
  static const struct {
    const char *name;
    pm_ctr_kind kind;
  } exact[] = {{"PAPI_TOT_INS", PM_CTR_INSTRUCTIONS},
               {"INSTRUCTIONS", PM_CTR_INSTRUCTIONS},
               {"INST_RETIRED:ANY", PM_CTR_INSTRUCTIONS},
               {"INST_RETIRED:ANY_P", PM_CTR_INSTRUCTIONS},
               {"RETIRED_INSTRUCTIONS", PM_CTR_INSTRUCTIONS},
               {"PAPI_TOT_CYC", PM_CTR_CYCLES},
               {"CYCLES", PM_CTR_CYCLES},
               {"CPU-CYCLES", PM_CTR_CYCLES},
               {"CPU_CLK_UNHALTED", PM_CTR_CYCLES},
               {"CPU_CLK_UNHALTED:THREAD", PM_CTR_CYCLES},
               {"CPU_CLK_UNHALTED:THREAD_P", PM_CTR_CYCLES},
               {"CYCLES_NOT_IN_HALT", PM_CTR_CYCLES}};
  static const char *const fp_class[8] = {"SCALAR_SINGLE",      "SCALAR_DOUBLE",      "128B_PACKED_SINGLE",
                                          "128B_PACKED_DOUBLE", "256B_PACKED_SINGLE", "256B_PACKED_DOUBLE",
                                          "512B_PACKED_SINGLE", "512B_PACKED_DOUBLE"};
  if (!event) return PM_CTR_OTHER;
  const char *s = event, *p;
  while ((p = strstr(s, "::")) != NULL) s = p + 2; /* drop PMU / component prefixes */
  char buf[128], tok[8][48];
  int ntok = 0;
  snprintf(buf, sizeof buf, "%s", s);
  for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
    if (strchr(t, '=')) continue; /* modifier */
    if (ntok == 8) return PM_CTR_OTHER;
    snprintf(tok[ntok++], sizeof tok[0], "%s", t);
  }
  if (ntok == 0) return PM_CTR_OTHER;
  char base[128] = "";
  for (int i = 0; i < ntok; i++) {
    if (i) strncat(base, ":", sizeof base - strlen(base) - 1);
    strncat(base, tok[i], sizeof base - strlen(base) - 1);
  }
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (!strcasecmp(base, exact[i].name)) return exact[i].kind;
  if (ntok == 2 && (!strcasecmp(tok[0], "FP_ARITH") || !strcasecmp(tok[0], "FP_ARITH_INST_RETIRED")))
    for (int c = 0; c < 8; c++)
      if (!strcasecmp(tok[1], fp_class[c])) return (pm_ctr_kind)(PM_CTR_FP_SP_SCALAR + c);
  return PM_CTR_OTHER;
}

/* ------------------------------------------------------------------------------------- containers */
pm_prof_counters *pm_prof_counters_new(void) {
  pm_prof_counters *c = calloc(1, sizeof *c);
  if (c) {
    strcpy(c->status, "unavailable");
    strcpy(c->source, "none");
  }
  return c;
}

void pm_prof_counters_free(pm_prof_counters *c) {
  if (!c) return;
  for (int e = 0; e < c->nevents; e++) free(c->event[e].why);
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++) free(c->reason[k]);
  free(c->event);
  free(c->loc_mask);
  free(c->loc_useful);
  free(c->loc_outside);
  free(c->val);
  free(c);
}

int pm_prof_counters_set_reason(pm_prof_counters *c, pm_ctr_category cat, const char *why) {
  char *copy = why ? strdup(why) : NULL;
  if (why && !copy) return -1;
  free(c->reason[cat]);
  c->reason[cat] = copy;
  return 0;
}

int pm_prof_counters_add_event(pm_prof_counters *c, const char *name, int kind, int counted, const char *why) {
  if (c->nevents >= PM_PROF_MAX_EVENTS || c->nloc || c->nval) return -1; /* rows are nevents wide */
  pm_prof_event *ev = realloc(c->event, sizeof *ev * (size_t)(c->nevents + 1));
  if (!ev) return -1;
  c->event = ev;
  pm_prof_event *e = &c->event[c->nevents];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  e->kind = kind >= 0 && kind < PM_CTR_KIND_COUNT ? kind : PM_CTR_OTHER;
  e->counted = counted;
  if (why && !(e->why = strdup(why))) return -1;
  return c->nevents++;
}

/* Grows *a from n to m rows of w uint64_t, zeroing the new rows. */
static int grow_rows(uint64_t **a, int n, int m, int w) {
  uint64_t *q = realloc(*a, sizeof(uint64_t) * (size_t)m * (size_t)(w ? w : 1) + 1);
  if (!q) return -1;
  memset(q + (size_t)n * (size_t)w, 0, sizeof(uint64_t) * (size_t)(m - n) * (size_t)w);
  *a = q;
  return 0;
}

int pm_prof_counters_resize(pm_prof_counters *c, int nloc, int nval) {
  int w = c->nevents;
  if (nloc > c->nloc) {
    if (grow_rows(&c->loc_mask, c->nloc, nloc, 1) || grow_rows(&c->loc_useful, c->nloc, nloc, w) ||
        grow_rows(&c->loc_outside, c->nloc, nloc, w))
      return -1;
    c->nloc = nloc;
  }
  if (nval > c->nval) {
    if (grow_rows(&c->val, c->nval, nval, w)) return -1;
    c->nval = nval;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------ merge */
static int find_event(const pm_prof_counters *c, const char *name) {
  for (int e = 0; e < c->nevents; e++)
    if (!strcmp(c->event[e].name, name)) return e;
  return -1;
}

/* Re-lays out c's rows for nev events, event e going to column map[e]. */
static int widen(pm_prof_counters *c, int nev, const int *map) {
  int w = c->nevents;
  uint64_t *mask = calloc((size_t)c->nloc + 1, sizeof *mask);
  uint64_t *u = calloc((size_t)c->nloc * (size_t)nev + 1, sizeof *u);
  uint64_t *o = calloc((size_t)c->nloc * (size_t)nev + 1, sizeof *o);
  uint64_t *v = calloc((size_t)c->nval * (size_t)nev + 1, sizeof *v);
  if (!mask || !u || !o || !v) {
    free(mask);
    free(u);
    free(o);
    free(v);
    return -1;
  }
  for (int i = 0; i < c->nloc; i++)
    for (int e = 0; e < w; e++) {
      if (c->loc_mask[i] >> e & 1) mask[i] |= 1ull << map[e];
      u[(size_t)i * nev + map[e]] = c->loc_useful[(size_t)i * w + e];
      o[(size_t)i * nev + map[e]] = c->loc_outside[(size_t)i * w + e];
    }
  for (int i = 0; i < c->nval; i++)
    for (int e = 0; e < w; e++) v[(size_t)i * nev + map[e]] = c->val[(size_t)i * w + e];
  free(c->loc_mask);
  free(c->loc_useful);
  free(c->loc_outside);
  free(c->val);
  c->loc_mask = mask;
  c->loc_useful = u;
  c->loc_outside = o;
  c->val = v;
  return 0;
}

/* Status of a run from its parts: all the same -> that; otherwise some counted -> partial. */
static void merge_status(char *dst, const char *src) {
  if (strcmp(dst, src) == 0) return;
  if (!strcmp(dst, "counted") || !strcmp(src, "counted") || !strcmp(dst, "partial") || !strcmp(src, "partial"))
    strcpy(dst, "partial");
  else
    strcpy(dst, "unavailable");
}

int pm_prof_counters_merge(pm_prof_counters **dstp, const pm_prof_counters *src, int l0, int v0) {
  int fresh = *dstp == NULL;
  pm_prof_counters *d = fresh ? pm_prof_counters_new() : *dstp;
  if (!d) return -1;
  if (fresh) {
    memcpy(d->status, src->status, sizeof d->status);
    memcpy(d->source, src->source, sizeof d->source);
  } else {
    merge_status(d->status, src->status);
  }
  /* the events of the union, dst's first */
  int map[PM_PROF_MAX_EVENTS], nev = d->nevents;
  for (int e = 0; e < src->nevents; e++) {
    int k = find_event(d, src->event[e].name);
    if (k < 0) {
      if (nev >= PM_PROF_MAX_EVENTS) goto fail;
      k = nev++;
    }
    map[e] = k;
  }
  if (nev > d->nevents) {
    int ident[PM_PROF_MAX_EVENTS];
    for (int e = 0; e < d->nevents; e++) ident[e] = e;
    if (widen(d, nev, ident) != 0) goto fail;
    pm_prof_event *ev = realloc(d->event, sizeof *ev * (size_t)nev);
    if (!ev) goto fail;
    d->event = ev;
    for (int e = 0; e < src->nevents; e++)
      if (map[e] >= d->nevents) {
        d->event[map[e]] = src->event[e];
        d->event[map[e]].why = NULL;
      }
    for (int e = 0; e < src->nevents; e++)
      if (map[e] >= d->nevents && src->event[e].why) d->event[map[e]].why = strdup(src->event[e].why);
    d->nevents = nev;
  }
  for (int e = 0; e < src->nevents; e++) {
    pm_prof_event *x = &d->event[map[e]];
    if (src->event[e].counted && !x->counted) {
      x->counted = 1;
      free(x->why);
      x->why = NULL;
    }
  }
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++)
    if (!d->reason[k] && src->reason[k] && pm_prof_counters_set_reason(d, (pm_ctr_category)k, src->reason[k]) != 0)
      goto fail;
  if (src->vector_width_max > d->vector_width_max) d->vector_width_max = src->vector_width_max;
  /* rows: dst's profile had l0 locations and v0 values before src's */
  int ln = l0 > d->nloc ? l0 : d->nloc, vn = v0 > d->nval ? v0 : d->nval;
  if (pm_prof_counters_resize(d, ln + src->nloc, vn + src->nval) != 0) goto fail;
  for (int i = 0; i < src->nloc; i++) {
    uint64_t m = 0;
    for (int e = 0; e < src->nevents; e++) {
      if (src->loc_mask[i] >> e & 1) m |= 1ull << map[e];
      d->loc_useful[(size_t)(l0 + i) * nev + map[e]] = src->loc_useful[(size_t)i * src->nevents + e];
      d->loc_outside[(size_t)(l0 + i) * nev + map[e]] = src->loc_outside[(size_t)i * src->nevents + e];
    }
    d->loc_mask[l0 + i] = m;
  }
  for (int i = 0; i < src->nval; i++)
    for (int e = 0; e < src->nevents; e++)
      d->val[(size_t)(v0 + i) * nev + map[e]] = src->val[(size_t)i * src->nevents + e];
  *dstp = d;
  return 0;
fail:
  if (fresh) pm_prof_counters_free(d);
  return -1;
}

/* -------------------------------------------------------------------------------------------- JSON */
static json_t *count_array(const uint64_t *v, uint64_t mask, int n) {
  json_t *a = json_array();
  for (int e = 0; e < n; e++) json_array_append_new(a, mask >> e & 1 ? json_integer((json_int_t)v[e]) : json_null());
  return a;
}

json_t *pm_prof_counters_to_json(const pm_prof_counters *c) {
  json_t *reasons = json_object(), *events = json_array(), *locs = json_array(), *vals = json_array();
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++)
    if (c->reason[k]) json_object_set_new(reasons, pm_ctr_category_name((pm_ctr_category)k), json_string(c->reason[k]));
  for (int e = 0; e < c->nevents; e++) {
    const pm_prof_event *x = &c->event[e];
    json_t *o = json_pack("{s:s,s:s,s:b}", "name", x->name, "kind", pm_ctr_kind_name((pm_ctr_kind)x->kind), "counted",
                          x->counted);
    if (x->why) json_object_set_new(o, "why", json_string(x->why));
    json_array_append_new(events, o);
  }
  int w = c->nevents;
  for (int i = 0; i < c->nloc; i++) {
    if (!c->loc_mask[i]) continue;
    json_array_append_new(locs,
                          json_pack("{s:i,s:o,s:o}", "location", i, "useful",
                                    count_array(c->loc_useful + (size_t)i * w, c->loc_mask[i], w), "outside_useful",
                                    count_array(c->loc_outside + (size_t)i * w, c->loc_mask[i], w)));
  }
  for (int i = 0; i < c->nval; i++) {
    const uint64_t *v = c->val + (size_t)i * w;
    int any = 0;
    for (int e = 0; e < w; e++) any |= v[e] != 0;
    if (!any) continue;
    json_t *a = json_array();
    json_array_append_new(a, json_integer(i));
    for (int e = 0; e < w; e++) json_array_append_new(a, json_integer((json_int_t)v[e]));
    json_array_append_new(vals, a);
  }
  return json_pack("{s:s,s:s,s:i,s:o,s:o,s:o,s:o}", "status", c->status, "source", c->source, "vector_width_max",
                   c->vector_width_max, "reasons", reasons, "events", events, "locations", locs, "values", vals);
}

static const char *rstring(pm_jr *x, const json_t *o, const char *key, size_t max) {
  const json_t *v = json_object_get(o, key);
  if (!json_is_string(v) || strlen(json_string_value(v)) >= max) {
    pm_jr_fail(x, "\"%s\" is not a string of at most %zu bytes", key, max - 1);
    return "";
  }
  return json_string_value(v);
}
static int known_status(const char *s) {
  return !strcmp(s, "counted") || !strcmp(s, "partial") || !strcmp(s, "unavailable") || !strcmp(s, "disabled");
}
/* A count: a non-negative integer. */
static int count_of(const json_t *e, uint64_t *out) {
  if (!json_is_integer(e) || json_integer_value(e) < 0) return -1;
  *out = (uint64_t)json_integer_value(e);
  return 0;
}

pm_prof_counters *pm_prof_counters_from_json(const json_t *o, int nlocations, int nvalues, char *err, size_t errlen) {
  pm_jr x = pm_jr_init(err, errlen, "counters", 1e30);
  if (!json_is_object(o)) {
    pm_jr_fail(&x, "not an object");
    return NULL;
  }
  pm_prof_counters *c = pm_prof_counters_new();
  if (!c) {
    pm_jr_fail(&x, "out of memory");
    return NULL;
  }
  snprintf(c->status, sizeof c->status, "%s", rstring(&x, o, "status", sizeof c->status));
  snprintf(c->source, sizeof c->source, "%s", rstring(&x, o, "source", sizeof c->source));
  if (!x.failed && !known_status(c->status)) pm_jr_fail(&x, "unknown status \"%s\"", c->status);
  const json_t *vw = json_object_get(o, "vector_width_max");
  if (!json_is_integer(vw) || json_integer_value(vw) < 0 || json_integer_value(vw) > 8192)
    pm_jr_fail(&x, "\"vector_width_max\" is not a width in bits");
  else
    c->vector_width_max = (int)json_integer_value(vw);
  const json_t *reasons = json_object_get(o, "reasons"), *events = json_object_get(o, "events");
  const json_t *locs = json_object_get(o, "locations"), *vals = json_object_get(o, "values");
  if (!json_is_object(reasons) || !json_is_array(events) || !json_is_array(locs) || !json_is_array(vals))
    pm_jr_fail(&x, "\"reasons\", \"events\", \"locations\" or \"values\" missing or of the wrong type");
  if (x.failed) goto bad;
  for (int k = 0; k < PM_CTR_CAT_COUNT; k++) {
    const json_t *r = json_object_get(reasons, pm_ctr_category_name((pm_ctr_category)k));
    if (!r) continue;
    if (!json_is_string(r)) {
      pm_jr_fail(&x, "reasons.%s is not a string", pm_ctr_category_name((pm_ctr_category)k));
      goto bad;
    }
    if (pm_prof_counters_set_reason(c, (pm_ctr_category)k, json_string_value(r)) != 0) {
      pm_jr_fail(&x, "out of memory");
      goto bad;
    }
  }
  if (json_array_size(events) > PM_PROF_MAX_EVENTS) {
    pm_jr_fail(&x, "more than %d events", PM_PROF_MAX_EVENTS);
    goto bad;
  }
  for (size_t e = 0; e < json_array_size(events); e++) {
    const json_t *ev = json_array_get(events, e);
    const json_t *name = json_object_get(ev, "name"), *kind = json_object_get(ev, "kind");
    const json_t *counted = json_object_get(ev, "counted"), *why = json_object_get(ev, "why");
    int k = json_is_string(kind) ? pm_ctr_kind_from_name(json_string_value(kind)) : -1;
    if (!json_is_string(name) || !json_string_value(name)[0] ||
        strlen(json_string_value(name)) >= sizeof c->event[0].name || k < 0 || !json_is_boolean(counted) ||
        (why && !json_is_string(why))) {
      pm_jr_fail(&x, "events[%zu] needs a name, a known kind, counted (boolean) and an optional why", e);
      goto bad;
    }
    if (find_event(c, json_string_value(name)) >= 0) {
      pm_jr_fail(&x, "event %s listed twice", json_string_value(name));
      goto bad;
    }
    if (pm_prof_counters_add_event(c, json_string_value(name), k, json_is_true(counted),
                                   why ? json_string_value(why) : NULL) < 0) {
      pm_jr_fail(&x, "out of memory");
      goto bad;
    }
  }
  int w = c->nevents;
  if (pm_prof_counters_resize(c, nlocations, nvalues) != 0) {
    pm_jr_fail(&x, "out of memory");
    goto bad;
  }
  for (size_t i = 0; i < json_array_size(locs); i++) {
    const json_t *l = json_array_get(locs, i), *loc = json_object_get(l, "location");
    const json_t *u = json_object_get(l, "useful"), *out = json_object_get(l, "outside_useful");
    if (!json_is_integer(loc) || json_integer_value(loc) < 0 || json_integer_value(loc) >= nlocations ||
        !json_is_array(u) || !json_is_array(out) || (int)json_array_size(u) != w || (int)json_array_size(out) != w) {
      pm_jr_fail(&x, "locations[%zu] needs a location index below %d and two arrays of %d counts", i, nlocations, w);
      goto bad;
    }
    int li = (int)json_integer_value(loc);
    if (c->loc_mask[li]) {
      pm_jr_fail(&x, "location %d listed twice", li);
      goto bad;
    }
    for (int e = 0; e < w; e++) {
      const json_t *a = json_array_get(u, (size_t)e), *b = json_array_get(out, (size_t)e);
      if (json_is_null(a) && json_is_null(b)) continue;
      if (count_of(a, &c->loc_useful[(size_t)li * w + e]) || count_of(b, &c->loc_outside[(size_t)li * w + e])) {
        pm_jr_fail(&x, "locations[%zu]: event %d is not a count (or null in both arrays)", i, e);
        goto bad;
      }
      c->loc_mask[li] |= 1ull << e;
    }
  }
  for (size_t i = 0; i < json_array_size(vals); i++) {
    const json_t *a = json_array_get(vals, i), *vi = json_array_get(a, 0);
    if (!json_is_array(a) || (int)json_array_size(a) != w + 1 || !json_is_integer(vi) || json_integer_value(vi) < 0 ||
        json_integer_value(vi) >= nvalues) {
      pm_jr_fail(&x, "values[%zu] must be [value index below %d, %d counts]", i, nvalues, w);
      goto bad;
    }
    size_t row = (size_t)json_integer_value(vi);
    for (int e = 0; e < w; e++)
      if (count_of(json_array_get(a, (size_t)e + 1), &c->val[row * w + e])) {
        pm_jr_fail(&x, "values[%zu][%d] is not a count", i, e + 1);
        goto bad;
      }
  }
  return c;
bad:
  pm_prof_counters_free(c);
  return NULL;
}

/* ------------------------------------------------------------------------------ model input */
void pm_prof_counters_input(const pm_prof_counters *c, int loc, pm_counters *out) {
  memset(out, 0, sizeof *out);
  if (!c || loc < 0 || loc >= c->nloc) return;
  int w = c->nevents;
  uint64_t mask = c->loc_mask[loc];
  const uint64_t *u = c->loc_useful + (size_t)loc * w;
  unsigned listed = 0, used = 0; /* kinds in the run's list / kinds taken from this location */
  for (int e = 0; e < w; e++) {
    int k = c->event[e].kind;
    listed |= 1u << k;
    if (!(mask >> e & 1) || (used >> k & 1)) continue; /* not counted here, or a duplicate kind */
    used |= 1u << k;
    double v = (double)u[e];
    if (k == PM_CTR_INSTRUCTIONS) {
      out->has_instructions = 1;
      out->instructions = v;
    } else if (k == PM_CTR_CYCLES) {
      out->has_cycles = 1;
      out->cycles = v;
    } else if (pm_ctr_kind_is_fp((pm_ctr_kind)k)) {
      out->fp_by_width[pm_ctr_fp_width_index((pm_ctr_kind)k)] += v;
      if (pm_ctr_fp_packed((pm_ctr_kind)k))
        out->fp_packed[pm_ctr_fp_precision((pm_ctr_kind)k)] += v;
      else
        out->fp_scalar[pm_ctr_fp_precision((pm_ctr_kind)k)] += v;
      out->fp_ops += v * pm_ctr_fp_ops((pm_ctr_kind)k);
    }
  }
  unsigned fp = 0;
  for (int k = PM_CTR_FP_SP_SCALAR; k <= PM_CTR_FP_DP_512; k++) fp |= 1u << k;
  out->has_fp = (listed & fp) != 0 && (listed & fp & ~used) == 0;
  if (!out->has_fp) { /* a partial set of classes is not a measurement: nothing of it is kept */
    memset(out->fp_by_width, 0, sizeof out->fp_by_width);
    memset(out->fp_scalar, 0, sizeof out->fp_scalar);
    memset(out->fp_packed, 0, sizeof out->fp_packed);
    out->fp_ops = 0;
  }
}

int pm_prof_counters_sums(const pm_profile *p, double *instructions, double *cycles) {
  double ins = 0, cyc = 0;
  int complete = p->counters != NULL;
  for (int i = 0; i < p->nlocations && complete; i++) {
    if (!pm_prof_loc_computes(&p->loc[i])) continue;
    pm_counters k;
    pm_prof_counters_input(p->counters, i, &k);
    complete = k.has_instructions && k.has_cycles;
    ins += k.instructions;
    cyc += k.cycles;
  }
  *instructions = complete ? ins : 0;
  *cycles = complete ? cyc : 0;
  return complete && p->nlocations > 0;
}
