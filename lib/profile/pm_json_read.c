/* Validating reads of popmeter.json (see pm_json_read.h). */
#include "pm_json_read.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pm_jr pm_jr_init(char *err, size_t len, const char *part, double num_max) {
  if (err && len) err[0] = '\0';
  return (pm_jr){err, len, 0, part, num_max};
}

void pm_jr_fail(pm_jr *r, const char *fmt, ...) {
  if (r->failed++) return;
  if (!r->err || !r->len) return;
  size_t off = 0;
  if (r->part) {
    int k = snprintf(r->err, r->len, "%s: ", r->part);
    off = k < 0 ? 0 : (size_t)k < r->len ? (size_t)k : r->len - 1;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + off, r->len - off, fmt, ap);
  va_end(ap);
}

const json_t *pm_jr_member(pm_jr *r, const json_t *o, const char *key, json_type t, const char *where) {
  const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
  if (!v || (json_typeof(v) != t && !(t == JSON_REAL && json_is_integer(v)))) {
    pm_jr_fail(r, "%s: missing or wrong type for \"%s\"", where, key);
    return NULL;
  }
  return v;
}

double pm_jr_num(pm_jr *r, const json_t *o, const char *key, const char *where) {
  const json_t *v = pm_jr_member(r, o, key, JSON_REAL, where);
  double x = v ? json_number_value(v) : 0;
  if (v && !(x >= 0 && x < r->num_max)) {
    pm_jr_fail(r, "%s: \"%s\" out of range", where, key);
    return 0;
  }
  return x;
}

uint64_t pm_jr_count(pm_jr *r, const json_t *o, const char *key, const char *where) {
  const json_t *v = pm_jr_member(r, o, key, JSON_INTEGER, where);
  json_int_t x = v ? json_integer_value(v) : 0;
  if (x < 0) {
    pm_jr_fail(r, "%s: \"%s\" is negative", where, key);
    return 0;
  }
  return (uint64_t)x;
}

int pm_jr_int_value(const json_t *v, json_int_t lo, json_int_t hi, json_int_t *out) {
  if (!json_is_integer(v)) return -1;
  json_int_t x = json_integer_value(v);
  if (x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int pm_jr_int(pm_jr *r, const json_t *o, const char *key, json_int_t lo, json_int_t hi, const char *where) {
  const json_t *v = pm_jr_member(r, o, key, JSON_INTEGER, where);
  json_int_t x = 0;
  if (v && pm_jr_int_value(v, lo, hi, &x) != 0) {
    pm_jr_fail(r, "%s: \"%s\" %lld out of range [%lld, %lld]", where, key, (long long)json_integer_value(v),
               (long long)lo, (long long)hi);
    return 0;
  }
  return (int)x;
}

void pm_jr_str(pm_jr *r, const json_t *o, const char *key, char *dst, size_t n, const char *where) {
  const json_t *v = pm_jr_member(r, o, key, JSON_STRING, where);
  snprintf(dst, n, "%s", v ? json_string_value(v) : "");
}
