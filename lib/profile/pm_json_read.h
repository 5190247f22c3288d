/* Validating reads of popmeter.json, shared by every part's reader (profile, tasks, file I/O,
 * counters). A malformed or crafted file must give a message naming the field, never a crash: each
 * integer is checked against its bounds in its full JSON type (json_int_t) before it is narrowed,
 * so 2^32 is not "process 0". The first failure is kept; later reads are no-ops returning 0. */
#ifndef PM_JSON_READ_H
#define PM_JSON_READ_H
#include <jansson.h>
#include <stdint.h>

typedef struct {
  char *err; /* the caller's message buffer */
  size_t len;
  int failed;
  const char *part; /* prefix of every message ("tasks", "io_classes"), or NULL */
  double num_max;   /* exclusive upper bound of pm_jr_num (times, flops) */
} pm_jr;

/* A reader writing its first failure into err (len bytes), messages prefixed with part. */
pm_jr pm_jr_init(char *err, size_t len, const char *part, double num_max);
void pm_jr_fail(pm_jr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* o[key] when o is an object holding key with type t (an integer is accepted for JSON_REAL); else
 * NULL and a failure naming key and where. */
const json_t *pm_jr_member(pm_jr *r, const json_t *o, const char *key, json_type t, const char *where);
/* A number in [0, num_max). */
double pm_jr_num(pm_jr *r, const json_t *o, const char *key, const char *where);
/* A non-negative integer (a count, bytes, a pid). */
uint64_t pm_jr_count(pm_jr *r, const json_t *o, const char *key, const char *where);
/* An integer in [lo, hi] (an index, a rank, an enumeration value), narrowed to int. */
int pm_jr_int(pm_jr *r, const json_t *o, const char *key, json_int_t lo, json_int_t hi, const char *where);
/* The same check on a bare value (array elements): 0 and *out set, or -1 (no failure recorded). */
int pm_jr_int_value(const json_t *v, json_int_t lo, json_int_t hi, json_int_t *out);
/* A string copied into dst (n bytes, cut to fit); "" on failure. */
void pm_jr_str(pm_jr *r, const json_t *o, const char *key, char *dst, size_t n, const char *where);
#endif
