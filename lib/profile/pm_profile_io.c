/* File I/O per file class: storage, merge and JSON form (pm_profile_io.h). */
#include "pm_profile_io.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void pm_prof_io_free(pm_prof_io *io) {
  if (!io) return;
  free(io->cls);
  free(io->val);
  free(io);
}

int pm_prof_io_class_index(pm_prof_io **pio, const char *mount, const char *fstype) {
  if (!*pio && !(*pio = calloc(1, sizeof **pio))) return -1;
  pm_prof_io *io = *pio;
  for (int i = 0; i < io->nclasses; i++)
    if (!strcmp(io->cls[i].mount, mount) && !strcmp(io->cls[i].fstype, fstype)) return i;
  pm_prof_io_class *c = realloc(io->cls, sizeof *c * (size_t)(io->nclasses + 1));
  if (!c) return -1;
  io->cls = c;
  snprintf(c[io->nclasses].mount, sizeof c->mount, "%s", mount);
  snprintf(c[io->nclasses].fstype, sizeof c->fstype, "%s", fstype);
  return io->nclasses++;
}

int pm_prof_io_add(pm_prof_io *io, const pm_prof_io_value *v) {
  pm_prof_io_value *n = realloc(io->val, sizeof *n * (size_t)(io->nvalues + 1));
  if (!n) return -1;
  io->val = n;
  n[io->nvalues++] = *v;
  return 0;
}

int pm_prof_io_merge(pm_prof_io **dst, const pm_prof_io *src, int l0) {
  for (int i = 0; i < src->nvalues; i++) {
    pm_prof_io_value v = src->val[i];
    const pm_prof_io_class *c = &src->cls[v.cls];
    if ((v.cls = pm_prof_io_class_index(dst, c->mount, c->fstype)) < 0) return -1;
    v.location += l0;
    if (pm_prof_io_add(*dst, &v) != 0) return -1;
  }
  return 0;
}

void pm_prof_io_class_total(const pm_prof_io *io, int cls, pm_prof_io_total *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; io && i < io->nvalues; i++) {
    const pm_prof_io_value *v = &io->val[i];
    if (v->cls != cls) continue;
    out->calls += v->calls;
    out->bytes_read += v->bytes_read;
    out->bytes_written += v->bytes_written;
    out->time += v->time;
  }
}

json_t *pm_prof_io_to_json(const pm_prof_io *io) {
  json_t *o = json_object(), *classes = json_array(), *values = json_array();
  for (int i = 0; i < io->nclasses; i++)
    json_array_append_new(classes, json_pack("{s:s, s:s}", "mount", io->cls[i].mount, "fstype", io->cls[i].fstype));
  for (int i = 0; i < io->nvalues; i++) {
    const pm_prof_io_value *v = &io->val[i];
    json_array_append_new(values, json_pack("{s:i, s:i, s:I, s:f, s:I, s:I}", "location", v->location,
                                            "class", v->cls, "calls", (json_int_t)v->calls, "time", v->time,
                                            "bytes_read", (json_int_t)v->bytes_read,
                                            "bytes_written", (json_int_t)v->bytes_written));
  }
  json_object_set_new(o, "classes", classes);
  json_object_set_new(o, "values", values);
  return o;
}

/* ------------------------------------------------------------------------------------- reading */
typedef struct { char *err; size_t len; int failed; } rd;
static void fail(rd *r, const char *fmt, ...) {
  if (r->failed) return;
  r->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, r->len, fmt, ap);
  va_end(ap);
}
static const json_t *field(rd *r, const json_t *o, const char *k, int want_int, const char *w, int i) {
  const json_t *v = json_is_object(o) ? json_object_get(o, k) : NULL;
  int ok = v && (want_int ? json_is_integer(v) : json_is_number(v));
  if (!ok) { fail(r, "io_classes: %s[%d]: missing or wrong type for \"%s\"", w, i, k); return NULL; }
  if (!(json_number_value(v) >= 0 && json_number_value(v) < 1e30)) {
    fail(r, "io_classes: %s[%d]: \"%s\" out of range", w, i, k);
    return NULL;
  }
  return v;
}
static uint64_t cnt(rd *r, const json_t *o, const char *k, int i) {
  const json_t *v = field(r, o, k, 1, "values", i);
  return v ? (uint64_t)json_integer_value(v) : 0;
}

pm_prof_io *pm_prof_io_from_json(const json_t *o, int nlocations, char *err, size_t errlen) {
  rd r = {err, errlen, 0};
  const json_t *classes = json_object_get(o, "classes"), *values = json_object_get(o, "values");
  if (!json_is_array(classes) || !json_is_array(values)) {
    snprintf(err, errlen, "io_classes: \"classes\" and \"values\" must be arrays");
    return NULL;
  }
  pm_prof_io *io = calloc(1, sizeof *io);
  if (!io) { snprintf(err, errlen, "out of memory"); return NULL; }
  for (size_t i = 0; i < json_array_size(classes) && !r.failed; i++) {
    const json_t *c = json_array_get(classes, i);
    const json_t *m = json_object_get(c, "mount"), *t = json_object_get(c, "fstype");
    if (!json_is_string(m) || !json_is_string(t)) { fail(&r, "io_classes: classes[%zu]: mount and fstype must be strings", i); break; }
    int before = io->nclasses;
    if (pm_prof_io_class_index(&io, json_string_value(m), json_string_value(t)) != before) {
      fail(&r, "io_classes: classes[%zu]: duplicate or out of memory", i);
    }
  }
  for (size_t i = 0; i < json_array_size(values) && !r.failed; i++) {
    const json_t *v = json_array_get(values, i);
    pm_prof_io_value x = {0};
    const json_t *loc = field(&r, v, "location", 1, "values", (int)i), *cls = field(&r, v, "class", 1, "values", (int)i);
    const json_t *time = field(&r, v, "time", 0, "values", (int)i);
    x.calls = cnt(&r, v, "calls", (int)i);
    x.bytes_read = cnt(&r, v, "bytes_read", (int)i);
    x.bytes_written = cnt(&r, v, "bytes_written", (int)i);
    if (r.failed) break;
    x.location = (int)json_integer_value(loc);
    x.cls = (int)json_integer_value(cls);
    x.time = json_number_value(time);
    if (x.location >= nlocations || x.cls >= io->nclasses) { fail(&r, "io_classes: values[%zu]: location or class out of range", i); break; }
    if (pm_prof_io_add(io, &x) != 0) fail(&r, "out of memory");
  }
  if (r.failed) { pm_prof_io_free(io); return NULL; }
  return io;
}
