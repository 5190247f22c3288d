/* popmeter.json <-> pm_profile. The reader validates every field (type, range, cross-references):
 * a malformed or foreign file gives an error message naming the problem, never a crash. */
#include "pm_profile_json.h"
#include "pm_profile_tasks.h"
#include "pm_profile_io.h"
#include "pm_profile_published.h"
#include "pm_profile_counters.h"
#include "pm_json_read.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------------------------------- writing */
static json_t *states_obj(const double *t) {
  json_t *o = json_object();
  for (int s = 0; s < PM_STATE_COUNT; s++) json_object_set_new(o, pm_state_name((pm_state)s), json_real(t[s]));
  return o;
}
static json_t *cp_obj(pm_prof_cp c) { return json_pack("{s:f,s:f,s:f}", "cue", c.cue, "com", c.com, "coo", c.coo); }

/* OpenMP parallel regions: written only when the run had some (readers treat absence as none). */
static json_t *omp_regions_json(const pm_profile *p) {
  json_t *a = json_array();
  for (int i = 0; i < p->nomp_regions; i++) {
    const pm_prof_omp_region *r = &p->omp_region[i];
    json_t *u = json_array(), *w = json_array();
    for (int j = 0; j < r->nthreads; j++) {
      json_array_append_new(u, json_real(r->thread_useful[j]));
      json_array_append_new(w, json_real(r->thread_idle[j]));
    }
    json_array_append_new(a, json_pack("{s:s,s:i,s:i,s:I,s:f,s:o,s:o}", "name", r->name, "process", r->process,
                                       "nthreads", r->nthreads, "instances", (json_int_t)r->instances, "span", r->span,
                                       "thread_useful", u, "thread_idle", w));
  }
  return a;
}

/* "collective_bytes": [value index, bytes out, bytes in] for the values with collective traffic
 * (most have none; the key is left out when no value has any). */
static void collective_bytes_write(json_t *root, const pm_profile *p) {
  json_t *rows = json_array();
  for (int i = 0; rows && i < p->nvalues; i++) {
    const pm_prof_value *v = &p->val[i];
    if (v->coll_bytes_out || v->coll_bytes_in)
      json_array_append_new(rows, json_pack("[i,I,I]", i, (json_int_t)v->coll_bytes_out, (json_int_t)v->coll_bytes_in));
  }
  if (rows && json_array_size(rows) > 0)
    json_object_set_new(root, "collective_bytes", rows);
  else
    json_decref(rows);
}

/* "mpi_transfer": [value index, seconds] for the values with MPI transfer time; present (perhaps
 * empty) when the run measured it, so that absent means "not measured", not "none". */
static void mpi_transfer_write(json_t *root, const pm_profile *p) {
  if (!p->has_mpi_transfer) return;
  json_t *rows = json_array();
  for (int i = 0; rows && i < p->nvalues; i++)
    if (p->val[i].mpi_transfer > 0) json_array_append_new(rows, json_pack("[i,f]", i, p->val[i].mpi_transfer));
  if (rows) json_object_set_new(root, "mpi_transfer", rows);
}

json_t *pm_profile_to_json(const pm_profile *p) {
  json_t *procs = json_array(), *locs = json_array(), *regs = json_array(), *cps = json_array(), *vals = json_array();
  for (int i = 0; i < p->nprocesses; i++) {
    const pm_prof_process *q = &p->proc[i];
    json_t *o = json_pack("{s:i,s:s,s:i,s:I,s:f}", "rank", q->rank, "host", q->host, "node", q->node, "pid",
                          (json_int_t)q->pid, "window", q->window);
    if (o && q->cuda[0]) json_object_set_new(o, "cuda", json_string(q->cuda)); /* CUDA module status */
    if (o && q->trace_events)                                                  /* OTF2 trace */
      json_object_set_new(o, "trace",
                          json_pack("{s:I,s:I,s:I,s:f}", "events", (json_int_t)q->trace_events, "bytes",
                                    (json_int_t)q->trace_bytes, "flushes", (json_int_t)q->trace_flushes, "flush_time",
                                    q->trace_flush_time));
    json_array_append_new(procs, o);
  }
  for (int i = 0; i < p->nlocations; i++) {
    const pm_prof_location *l = &p->loc[i];
    json_t *o = json_pack("{s:s,s:s,s:i,s:i,s:f}", "name", l->name, "role", pm_loc_role_name((pm_loc_role)l->role),
                          "process", l->process, "thread", l->thread, "registered", l->registered);
    json_object_set_new(o, "time", states_obj(l->time[PM_CTX_SERIAL]));
    json_object_set_new(o, "time_in_parallel", states_obj(l->time[PM_CTX_PARALLEL]));
    json_object_set_new(o, "comm",
                        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "msgs_sent", (json_int_t)l->msgs_sent,
                                  "msgs_received", (json_int_t)l->msgs_received, "bytes_sent",
                                  (json_int_t)l->bytes_sent, "bytes_received", (json_int_t)l->bytes_received,
                                  "coll_calls", (json_int_t)l->coll_calls, "coll_bytes_out",
                                  (json_int_t)l->coll_bytes_out, "coll_bytes_in", (json_int_t)l->coll_bytes_in, "polls",
                                  (json_int_t)l->polls));
    json_object_set_new(o, "io",
                        json_pack("{s:I,s:I}", "bytes_read", (json_int_t)l->io_bytes_read, "bytes_written",
                                  (json_int_t)l->io_bytes_written));
    json_object_set_new(o, "critical_path",
                        json_pack("{s:o,s:o}", "process", cp_obj(l->cp_process), "global", cp_obj(l->cp_global)));
    if (l->cpu_wait >= 0) json_object_set_new(o, "cpu_wait", json_real(l->cpu_wait));
    if (l->callpaths_truncated) json_object_set_new(o, "callpaths_truncated", json_true());
    if (l->role == PM_ROLE_DEVICE) /* device stream (CUDA module) */
      json_object_set_new(o, "device",
                          json_pack("{s:i,s:i,s:I,s:I,s:I,s:f}", "device", l->dev.device, "stream", l->dev.stream,
                                    "kernels", (json_int_t)l->dev.kernels, "copies", (json_int_t)l->dev.copies, "bytes",
                                    (json_int_t)l->dev.bytes, "memcpy_overlapped", l->dev.memcpy_overlapped));
    json_array_append_new(locs, o);
  }
  for (int i = 0; i < p->nregions; i++)
    json_array_append_new(regs, json_pack("{s:s,s:i,s:i}", "name", p->reg[i].name, "paradigm", p->reg[i].paradigm,
                                          "role", p->reg[i].role));
  for (int i = 0; i < p->ncnodes; i++)
    json_array_append_new(cps, json_pack("[i,i]", p->cnode[i].parent, p->cnode[i].region));
  for (int i = 0; i < p->nvalues; i++) {
    const pm_prof_value *v = &p->val[i];
    json_t *a = json_pack("[i,i,I,I,I,I,I,I,I,I]", v->cnode, v->location, (json_int_t)v->visits, (json_int_t)v->polls,
                          (json_int_t)v->bytes_sent, (json_int_t)v->bytes_received, (json_int_t)v->msgs_sent,
                          (json_int_t)v->msgs_received, (json_int_t)v->io_bytes_read, (json_int_t)v->io_bytes_written);
    /* most states of a call path on a location are empty: an exact 0 costs no float formatting */
    for (int s = 0; s < PM_STATE_COUNT; s++)
      json_array_append_new(a, v->time[s] == 0.0 ? json_integer(0) : json_real(v->time[s]));
    json_array_append_new(vals, a);
  }
  json_t *states = json_array();
  for (int s = 0; s < PM_STATE_COUNT; s++) json_array_append_new(states, json_string(pm_state_name((pm_state)s)));
  json_t *root =
      json_pack("{s:s,s:i,s:s,s:s,s:s,s:f,s:b,s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "schema", PM_PROFILE_SCHEMA, "version",
                PM_PROFILE_VERSION, "app", p->app, "command", p->command, "start_time", p->start_time, "runtime",
                p->runtime, "has_critical_path", p->has_critical_path, "nnodes", p->nnodes, "states", states,
                "processes", procs, "locations", locs, "regions", regs, "callpaths", cps, "values", vals);
  if (root && p->nomp_regions > 0) json_object_set_new(root, "omp_regions", omp_regions_json(p));
  if (root) collective_bytes_write(root, p);
  if (root) mpi_transfer_write(root, p);
  if (root && p->cp_io_useful) /* absent: the critical path counted I/O as not useful */
    json_object_set_new(root, "critical_path_io_useful", json_true());
  if (root && p->regions_folded) /* the region registry was full */
    json_object_set_new(root, "regions_folded", json_integer((json_int_t)p->regions_folded));
  if (root && p->tasks) json_object_set_new(root, "tasks", pm_prof_tasks_to_json(p->tasks)); /* task runtime */
  if (root && p->io) json_object_set_new(root, "io_classes", pm_prof_io_to_json(p->io));     /* file classes */
  if (root && p->counters) json_object_set_new(root, "counters", pm_prof_counters_to_json(p->counters)); /* counters */
  if (root && p->published) pm_prof_published_to_json(root, p->published); /* tag tree, series */
  return root;
}

char *pm_profile_to_json_string(const pm_profile *p) {
  json_t *j = pm_profile_to_json(p);
  if (!j) return NULL;
  char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(j);
  return s;
}

/* -------------------------------------------------------------------------------------- reading */
static void read_states(pm_jr *c, const json_t *o, double *t, const char *where) {
  if (!json_is_object(o)) {
    pm_jr_fail(c, "%s: time is not an object", where);
    return;
  }
  for (int s = 0; s < PM_STATE_COUNT; s++) t[s] = pm_jr_num(c, o, pm_state_name((pm_state)s), where);
}
static pm_prof_cp cp(pm_jr *c, const json_t *o, const char *where) {
  return (pm_prof_cp){pm_jr_num(c, o, "cue", where), pm_jr_num(c, o, "com", where), pm_jr_num(c, o, "coo", where)};
}
static int role_from_name(const char *s) {
  for (int r = 0; r < PM_LOC_ROLE_COUNT; r++)
    if (!strcmp(s, pm_loc_role_name((pm_loc_role)r))) return r;
  return -1;
}

/* Optional "omp_regions": each entry validated (types, ranges, process index, array lengths). */
static void omp_regions_read(pm_jr *c, const json_t *a, pm_profile *p) {
  char where[64];
  if (!a) return;
  if (!json_is_array(a)) {
    pm_jr_fail(c, "profile: \"omp_regions\" is not an array");
    return;
  }
  for (size_t i = 0; i < json_array_size(a) && !c->failed; i++) {
    const json_t *o = json_array_get(a, i);
    snprintf(where, sizeof where, "omp_regions[%zu]", i);
    char name[1024];
    pm_jr_str(c, o, "name", name, sizeof name, where);
    int proc = pm_jr_int(c, o, "process", 0, p->nprocesses - 1, where);
    int nt = pm_jr_int(c, o, "nthreads", 0, 1000000, where);
    pm_prof_omp_region r = {name, proc, nt, pm_jr_count(c, o, "instances", where), pm_jr_num(c, o, "span", where),
                            NULL, NULL};
    const json_t *u = pm_jr_member(c, o, "thread_useful", JSON_ARRAY, where);
    const json_t *w = pm_jr_member(c, o, "thread_idle", JSON_ARRAY, where);
    if (c->failed) return;
    if (json_array_size(u) != (size_t)nt || json_array_size(w) != (size_t)nt) {
      pm_jr_fail(c, "%s: thread_useful / thread_idle do not have nthreads (%d) entries", where, nt);
      return;
    }
    double *du = malloc(sizeof(double) * (size_t)nt + 1), *dw = malloc(sizeof(double) * (size_t)nt + 1);
    for (size_t j = 0; du && dw && j < (size_t)nt; j++) {
      const json_t *x = json_array_get(u, j), *y = json_array_get(w, j);
      if (!json_is_number(x) || !json_is_number(y) || !(json_number_value(x) >= 0) || !(json_number_value(y) >= 0)) {
        pm_jr_fail(c, "%s: bad time for thread %zu", where, j);
        break;
      }
      du[j] = json_number_value(x);
      dw[j] = json_number_value(y);
    }
    if (!du || !dw) pm_jr_fail(c, "out of memory");
    r.thread_useful = du;
    r.thread_idle = dw;
    if (!c->failed && pm_profile_add_omp_region(p, &r) < 0) pm_jr_fail(c, "out of memory");
    free(du);
    free(dw);
  }
}

/* The document's schema and version: 0, or -1 with the failure recorded. */
static int read_header(pm_jr *c, const json_t *root) {
  if (!json_is_object(root)) {
    pm_jr_fail(c, "not a JSON object");
    return -1;
  }
  const json_t *schema = json_object_get(root, "schema");
  if (!json_is_string(schema) || strcmp(json_string_value(schema), PM_PROFILE_SCHEMA)) {
    pm_jr_fail(c, "not a popmeter profile (no \"schema\": \"%s\")", PM_PROFILE_SCHEMA);
    return -1;
  }
  const json_t *ver = json_object_get(root, "version");
  if (!json_is_integer(ver) || json_integer_value(ver) != PM_PROFILE_VERSION) {
    pm_jr_fail(c, "unsupported profile version (this popmeter reads version %d)", PM_PROFILE_VERSION);
    return -1;
  }
  return 0;
}

/* The run's own fields: application, command, start, runtime, whether a critical path was measured. */
static void read_run(pm_jr *c, const json_t *root, pm_profile *p) {
  pm_jr_str(c, root, "app", p->app, sizeof p->app, "profile");
  pm_jr_str(c, root, "command", p->command, sizeof p->command, "profile");
  pm_jr_str(c, root, "start_time", p->start_time, sizeof p->start_time, "profile");
  p->runtime = pm_jr_num(c, root, "runtime", "profile");
  if (json_object_get(root, "regions_folded")) p->regions_folded = pm_jr_count(c, root, "regions_folded", "profile");
  const json_t *hcp = json_object_get(root, "has_critical_path");
  if (!json_is_boolean(hcp)) pm_jr_fail(c, "profile: missing or wrong type for \"has_critical_path\"");
  p->has_critical_path = json_is_true(hcp);
  const json_t *ciu = json_object_get(root, "critical_path_io_useful");
  if (ciu && !json_is_boolean(ciu)) pm_jr_fail(c, "profile: wrong type for \"critical_path_io_useful\"");
  p->cp_io_useful = json_is_true(ciu);
}

/* The five arrays of the profile and their lengths. */
typedef struct {
  const json_t *procs, *locs, *regs, *cps, *vals;
  size_t np, nl, nr, nc, nv;
} parts;

/* Finds the arrays, checks their sizes and allocates the profile's tables: 0, or -1 with the
 * failure recorded. */
static int read_parts(pm_jr *c, const json_t *root, pm_profile *p, parts *a) {
  a->procs = pm_jr_member(c, root, "processes", JSON_ARRAY, "profile");
  a->locs = pm_jr_member(c, root, "locations", JSON_ARRAY, "profile");
  a->regs = pm_jr_member(c, root, "regions", JSON_ARRAY, "profile");
  a->cps = pm_jr_member(c, root, "callpaths", JSON_ARRAY, "profile");
  a->vals = pm_jr_member(c, root, "values", JSON_ARRAY, "profile");
  if (c->failed) return -1;
  a->np = json_array_size(a->procs);
  a->nl = json_array_size(a->locs);
  a->nr = json_array_size(a->regs);
  a->nc = json_array_size(a->cps);
  a->nv = json_array_size(a->vals);
  if (a->np == 0 || a->np > 10000000 || a->nl > 100000000 || a->nr > 10000000 || a->nc > 100000000 ||
      a->nv > 1000000000) {
    pm_jr_fail(c, "profile: implausible sizes (%zu processes, %zu locations)", a->np, a->nl);
    return -1;
  }
  p->proc = calloc(a->np, sizeof *p->proc);
  p->loc = calloc(a->nl + 1, sizeof *p->loc);
  p->reg = calloc(a->nr + 1, sizeof *p->reg);
  p->cnode = calloc(a->nc + 1, sizeof *p->cnode);
  p->val = calloc(a->nv + 1, sizeof *p->val);
  if (!p->proc || !p->loc || !p->reg || !p->cnode || !p->val) {
    pm_jr_fail(c, "out of memory");
    return -1;
  }
  return 0;
}

static void read_processes(pm_jr *c, const parts *a, pm_profile *p) {
  char where[96];
  for (size_t i = 0; i < a->np && !c->failed; i++) {
    const json_t *o = json_array_get(a->procs, i);
    snprintf(where, sizeof where, "processes[%zu]", i);
    pm_prof_process *q = &p->proc[i];
    q->rank = pm_jr_int(c, o, "rank", 0, INT_MAX, where);
    pm_jr_str(c, o, "host", q->host, sizeof q->host, where);
    q->node = pm_jr_int(c, o, "node", 0, (json_int_t)a->np - 1, where);
    q->pid = pm_jr_int(c, o, "pid", 0, INT_MAX, where);
    q->window = pm_jr_num(c, o, "window", where);
    if (json_object_get(o, "cuda")) pm_jr_str(c, o, "cuda", q->cuda, sizeof q->cuda, where); /* optional */
    const json_t *tr = json_object_get(o, "trace");                                          /* optional */
    if (tr) {
      snprintf(where, sizeof where, "processes[%zu].trace", i);
      if (!json_is_object(tr)) pm_jr_fail(c, "%s: not an object", where);
      q->trace_events = pm_jr_count(c, tr, "events", where);
      q->trace_bytes = pm_jr_count(c, tr, "bytes", where);
      q->trace_flushes = pm_jr_count(c, tr, "flushes", where);
      q->trace_flush_time = pm_jr_num(c, tr, "flush_time", where);
    }
    p->nprocesses++;
  }
}

static void read_regions(pm_jr *c, const parts *a, pm_profile *p) {
  char where[96];
  for (size_t i = 0; i < a->nr && !c->failed; i++) {
    const json_t *o = json_array_get(a->regs, i);
    snprintf(where, sizeof where, "regions[%zu]", i);
    char name[1024];
    pm_jr_str(c, o, "name", name, sizeof name, where);
    int par = pm_jr_int(c, o, "paradigm", 0, PM_PARADIGM_COUNT - 1, where);
    int role = pm_jr_int(c, o, "role", 0, PM_ROLE_COUNT - 1, where);
    if (c->failed) break;
    p->reg[i] = (pm_prof_region){strdup(name), par, role};
    if (!p->reg[i].name) {
      pm_jr_fail(c, "out of memory");
      break;
    }
    p->nregions++;
  }
}

/* [parent, region] pairs; a parent comes before its children. */
static void read_callpaths(pm_jr *c, const parts *a, pm_profile *p) {
  for (size_t i = 0; i < a->nc && !c->failed; i++) {
    const json_t *e = json_array_get(a->cps, i);
    if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(json_array_get(e, 0)) ||
        !json_is_integer(json_array_get(e, 1))) {
      pm_jr_fail(c, "callpaths[%zu]: expected [parent, region]", i);
      break;
    }
    json_int_t par = json_integer_value(json_array_get(e, 0)), reg = json_integer_value(json_array_get(e, 1));
    if (par < -1 || par >= (json_int_t)i || reg < 0 || reg >= (json_int_t)a->nr) {
      pm_jr_fail(c, "callpaths[%zu]: parent %lld or region %lld out of range", i, (long long)par, (long long)reg);
      break;
    }
    p->cnode[i] = (pm_prof_cnode){(int)par, (int)reg};
    p->ncnodes++;
  }
}

static void read_locations(pm_jr *c, const parts *a, pm_profile *p) {
  char where[96];
  for (size_t i = 0; i < a->nl && !c->failed; i++) {
    const json_t *o = json_array_get(a->locs, i);
    snprintf(where, sizeof where, "locations[%zu]", i);
    pm_prof_location *l = &p->loc[i];
    pm_jr_str(c, o, "name", l->name, sizeof l->name, where);
    char role[32];
    pm_jr_str(c, o, "role", role, sizeof role, where);
    l->role = role_from_name(role);
    if (!c->failed && l->role < 0) pm_jr_fail(c, "%s: unknown role \"%s\"", where, role);
    l->process = pm_jr_int(c, o, "process", 0, (json_int_t)a->np - 1, where);
    l->thread = pm_jr_int(c, o, "thread", 0, INT_MAX, where);
    l->registered = pm_jr_num(c, o, "registered", where);
    l->cpu_wait = json_object_get(o, "cpu_wait") ? pm_jr_num(c, o, "cpu_wait", where) : -1; /* optional */
    read_states(c, json_object_get(o, "time"), l->time[PM_CTX_SERIAL], where);
    read_states(c, json_object_get(o, "time_in_parallel"), l->time[PM_CTX_PARALLEL], where);
    const json_t *cm = pm_jr_member(c, o, "comm", JSON_OBJECT, where),
                 *io = pm_jr_member(c, o, "io", JSON_OBJECT, where);
    const json_t *crit = pm_jr_member(c, o, "critical_path", JSON_OBJECT, where);
    if (c->failed) break;
    l->msgs_sent = pm_jr_count(c, cm, "msgs_sent", where);
    l->msgs_received = pm_jr_count(c, cm, "msgs_received", where);
    l->bytes_sent = pm_jr_count(c, cm, "bytes_sent", where);
    l->bytes_received = pm_jr_count(c, cm, "bytes_received", where);
    l->coll_calls = pm_jr_count(c, cm, "coll_calls", where);
    l->coll_bytes_out = pm_jr_count(c, cm, "coll_bytes_out", where);
    l->coll_bytes_in = pm_jr_count(c, cm, "coll_bytes_in", where);
    l->polls = pm_jr_count(c, cm, "polls", where);
    l->io_bytes_read = pm_jr_count(c, io, "bytes_read", where);
    l->io_bytes_written = pm_jr_count(c, io, "bytes_written", where);
    l->cp_process = cp(c, json_object_get(crit, "process"), where);
    l->cp_global = cp(c, json_object_get(crit, "global"), where);
    l->callpaths_truncated = json_is_true(json_object_get(o, "callpaths_truncated"));
    const json_t *dv = json_object_get(o, "device"); /* optional: device streams */
    if (dv && pm_jr_member(c, o, "device", JSON_OBJECT, where))
      l->dev = (pm_prof_device){pm_jr_int(c, dv, "device", 0, INT_MAX, where),
                                pm_jr_int(c, dv, "stream", 0, INT_MAX, where),
                                pm_jr_count(c, dv, "kernels", where),
                                pm_jr_count(c, dv, "copies", where),
                                pm_jr_count(c, dv, "bytes", where),
                                pm_jr_num(c, dv, "memcpy_overlapped", where)};
    p->nlocations++;
  }
}

/* [call path, location, visits, polls, bytes and messages sent / received, I/O bytes read /
 * written, time per state...]: ten counts, then one time per state. */
static void read_values(pm_jr *c, const parts *a, pm_profile *p) {
  for (size_t i = 0; i < a->nv && !c->failed; i++) {
    const json_t *e = json_array_get(a->vals, i);
    if (!json_is_array(e) || json_array_size(e) != 10 + PM_STATE_COUNT) {
      pm_jr_fail(c, "values[%zu]: wrong length", i);
      break;
    }
    json_int_t k[10];
    for (int j = 0; j < 10; j++) {
      const json_t *x = json_array_get(e, (size_t)j);
      if (!json_is_integer(x) || json_integer_value(x) < 0) {
        pm_jr_fail(c, "values[%zu][%d]: not a count", i, j);
        break;
      }
      k[j] = json_integer_value(x);
    }
    if (c->failed) break;
    if (k[0] >= (json_int_t)a->nc || k[1] >= (json_int_t)a->nl) {
      pm_jr_fail(c, "values[%zu]: call path or location out of range", i);
      break;
    }
    pm_prof_value *v = &p->val[i];
    *v = (pm_prof_value){.cnode = (int)k[0],
                         .location = (int)k[1],
                         .visits = (uint64_t)k[2],
                         .polls = (uint64_t)k[3],
                         .bytes_sent = (uint64_t)k[4],
                         .bytes_received = (uint64_t)k[5],
                         .msgs_sent = (uint64_t)k[6],
                         .msgs_received = (uint64_t)k[7],
                         .io_bytes_read = (uint64_t)k[8],
                         .io_bytes_written = (uint64_t)k[9]};
    for (int s = 0; s < PM_STATE_COUNT; s++) {
      const json_t *x = json_array_get(e, (size_t)(10 + s));
      if (!json_is_number(x) || !(json_number_value(x) >= 0)) {
        pm_jr_fail(c, "values[%zu]: bad time", i);
        break;
      }
      v->time[s] = json_number_value(x);
    }
    p->nvalues++;
  }
}

/* "collective_bytes" (optional: files without collective traffic, or written before it existed). */
static void read_collective_bytes(pm_jr *c, const json_t *rows, pm_profile *p) {
  if (!rows || c->failed) return;
  if (!json_is_array(rows)) {
    pm_jr_fail(c, "collective_bytes: not an array");
    return;
  }
  for (size_t i = 0; i < json_array_size(rows) && !c->failed; i++) {
    const json_t *e = json_array_get(rows, i);
    json_int_t k[3];
    int good = json_is_array(e) && json_array_size(e) == 3;
    for (int j = 0; good && j < 3; j++) {
      const json_t *x = json_array_get(e, (size_t)j);
      good = json_is_integer(x) && json_integer_value(x) >= 0;
      k[j] = good ? json_integer_value(x) : 0;
    }
    if (!good || k[0] >= p->nvalues) {
      pm_jr_fail(c, "collective_bytes[%zu]: not [value index, bytes out, bytes in]", i);
      return;
    }
    p->val[k[0]].coll_bytes_out = (uint64_t)k[1];
    p->val[k[0]].coll_bytes_in = (uint64_t)k[2];
  }
}

/* "mpi_transfer" (optional: runs without the critical path, or files written before it existed). */
static void read_mpi_transfer(pm_jr *c, const json_t *rows, pm_profile *p) {
  if (!rows || c->failed) return;
  if (!json_is_array(rows)) {
    pm_jr_fail(c, "mpi_transfer: not an array");
    return;
  }
  for (size_t i = 0; i < json_array_size(rows); i++) {
    const json_t *e = json_array_get(rows, i);
    const json_t *k = json_array_get(e, 0), *t = json_array_get(e, 1);
    if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(k) || json_integer_value(k) < 0 ||
        json_integer_value(k) >= p->nvalues || !json_is_number(t) || !(json_number_value(t) >= 0) ||
        !(json_number_value(t) < 1e15)) {
      pm_jr_fail(c, "mpi_transfer[%zu]: not [value index, seconds]", i);
      return;
    }
    p->val[json_integer_value(k)].mpi_transfer = json_number_value(t);
  }
  p->has_mpi_transfer = 1;
}

/* The parts other modules own, each optional (absent: not measured): tasks, file classes,
 * hardware counters. Their readers write their own message into err. 0, or -1. */
static int read_modules(const json_t *root, pm_profile *p, char *err, size_t errlen) {
  const json_t *tasks = json_object_get(root, "tasks");
  if (tasks && !(p->tasks = pm_prof_tasks_from_json(tasks, p->nprocesses, p->nlocations, err, errlen))) return -1;
  const json_t *io = json_object_get(root, "io_classes");
  if (io && !(p->io = pm_prof_io_from_json(io, p->nlocations, err, errlen))) return -1;
  const json_t *ctr = json_object_get(root, "counters");
  if (ctr && !(p->counters = pm_prof_counters_from_json(ctr, p->nlocations, p->nvalues, err, errlen))) return -1;
  return pm_prof_published_from_json(root, p->nprocesses, &p->published, err, errlen); /* tag tree, series */
}

/* Each part in turn; the first failure stops the rest (every reader checks c.failed first). */
pm_profile *pm_profile_from_json(const json_t *root, char *err, size_t errlen) {
  pm_jr c = pm_jr_init(err, errlen, NULL, 1e15);
  parts a;
  if (read_header(&c, root) != 0) return NULL;
  pm_profile *p = pm_profile_new();
  if (!p) {
    pm_jr_fail(&c, "out of memory");
    return NULL;
  }
  read_run(&c, root, p);
  if (read_parts(&c, root, p, &a) != 0) goto bad;
  read_processes(&c, &a, p);
  read_regions(&c, &a, p);
  read_callpaths(&c, &a, p);
  read_locations(&c, &a, p);
  read_values(&c, &a, p);
  read_collective_bytes(&c, json_object_get(root, "collective_bytes"), p);
  read_mpi_transfer(&c, json_object_get(root, "mpi_transfer"), p);
  omp_regions_read(&c, json_object_get(root, "omp_regions"), p);
  if (c.failed || read_modules(root, p, err, errlen) != 0) goto bad;
  /* jansson guarantees UTF-8, not the absence of control characters (\u0001) that XML refuses */
  if (pm_profile_clean_text(p) != 0) {
    pm_jr_fail(&c, "out of memory");
    goto bad;
  }
  pm_profile_finish(p);
  return p;
bad:
  pm_profile_free(p);
  return NULL;
}

pm_profile *pm_profile_from_json_string(const char *text, char *err, size_t errlen) {
  json_error_t je;
  json_t *root = json_loads(text, 0, &je);
  if (!root) {
    snprintf(err, errlen, "invalid JSON at line %d: %s", je.line, je.text);
    return NULL;
  }
  pm_profile *p = pm_profile_from_json(root, err, errlen);
  json_decref(root);
  return p;
}

pm_profile *pm_profile_read_file(const char *path, char *err, size_t errlen) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root) {
    if (je.line > 0)
      snprintf(err, errlen, "%s: %s (line %d)", path, je.text, je.line);
    else /* not even opened: jansson's text says why (no such file, a directory...) */
      snprintf(err, errlen, "%s: %s", path, je.text);
    return NULL;
  }
  char inner[400];
  pm_profile *p = pm_profile_from_json(root, inner, sizeof inner);
  if (!p) snprintf(err, errlen, "%s: %s", path, inner);
  json_decref(root);
  return p;
}
