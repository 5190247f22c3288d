/* File I/O per file class: storage, merge and JSON form (pm_profile_io.h). */
#include "pm_profile_io.h"
#include "pm_json_read.h"
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
    json_array_append_new(values, json_pack("{s:i, s:i, s:I, s:f, s:I, s:I}", "location", v->location, "class", v->cls,
                                            "calls", (json_int_t)v->calls, "time", v->time, "bytes_read",
                                            (json_int_t)v->bytes_read, "bytes_written", (json_int_t)v->bytes_written));
  }
  json_object_set_new(o, "classes", classes);
  json_object_set_new(o, "values", values);
  return o;
}

/* ------------------------------------------------------------------------------------- reading */
pm_prof_io *pm_prof_io_from_json(const json_t *o, int nlocations, char *err, size_t errlen) {
  pm_jr r = pm_jr_init(err, errlen, "io_classes", 1e30);
  const json_t *classes = json_object_get(o, "classes"), *values = json_object_get(o, "values");
  if (!json_is_array(classes) || !json_is_array(values)) {
    pm_jr_fail(&r, "\"classes\" and \"values\" must be arrays");
    return NULL;
  }
  pm_prof_io *io = calloc(1, sizeof *io);
  if (!io) {
    pm_jr_fail(&r, "out of memory");
    return NULL;
  }
  char w[48];
  for (size_t i = 0; i < json_array_size(classes) && !r.failed; i++) {
    const json_t *c = json_array_get(classes, i);
    const json_t *m = json_object_get(c, "mount"), *t = json_object_get(c, "fstype");
    if (!json_is_string(m) || !json_is_string(t)) {
      pm_jr_fail(&r, "classes[%zu]: mount and fstype must be strings", i);
      break;
    }
    int before = io->nclasses;
    if (pm_prof_io_class_index(&io, json_string_value(m), json_string_value(t)) != before)
      pm_jr_fail(&r, "classes[%zu]: duplicate or out of memory", i);
  }
  for (size_t i = 0; i < json_array_size(values) && !r.failed; i++) {
    const json_t *v = json_array_get(values, i);
    snprintf(w, sizeof w, "values[%zu]", i);
    pm_prof_io_value x = {0};
    x.location = pm_jr_int(&r, v, "location", 0, (json_int_t)nlocations - 1, w);
    x.cls = pm_jr_int(&r, v, "class", 0, (json_int_t)io->nclasses - 1, w);
    x.time = pm_jr_num(&r, v, "time", w);
    x.calls = pm_jr_count(&r, v, "calls", w);
    x.bytes_read = pm_jr_count(&r, v, "bytes_read", w);
    x.bytes_written = pm_jr_count(&r, v, "bytes_written", w);
    if (!r.failed && pm_prof_io_add(io, &x) != 0) pm_jr_fail(&r, "out of memory");
  }
  if (r.failed) {
    pm_prof_io_free(io);
    return NULL;
  }
  return io;
}
