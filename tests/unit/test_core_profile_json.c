/* popmeter.json round trip, merging of process profiles, and the reader's robustness: every
 * truncation and many byte flips of a valid file give an error or a valid profile, never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "pm_profile.h"
#include "pm_text.h"
#include "pm_profile_json.h"
#include "pm_report_summary.h"
#include "pm_report_models.h"
#include <jansson.h>

static pm_profile *sample(int rank, const char *host, double window, double useful) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "app");
  p->has_critical_path = 1;
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].rank = rank;
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "%s", host);
  p->proc[0].window = window;
  p->nlocations = 1;
  p->loc = calloc(1, sizeof *p->loc);
  snprintf(p->loc[0].name, sizeof p->loc[0].name, "main");
  p->loc[0].role = PM_ROLE_MAIN;
  p->loc[0].time[0][PM_STATE_USEFUL] = useful;
  p->loc[0].time[0][PM_STATE_MPI_COLL] = window - useful;
  p->loc[0].bytes_sent = 1234;
  p->loc[0].cp_global = (pm_prof_cp){useful, window, useful};
  int main_r = pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int bar = pm_profile_add_region(p, "MPI_Barrier", PM_PARADIGM_MPI, PM_ROLE_BARRIER);
  int c0 = pm_profile_add_cnode(p, -1, main_r);
  int c1 = pm_profile_add_cnode(p, c0, bar);
  p->val = calloc(2, sizeof *p->val);
  p->val[0] = (pm_prof_value){.cnode = c0, .location = 0, .visits = 1};
  p->val[0].time[PM_STATE_USEFUL] = useful;
  p->val[1] = (pm_prof_value){.cnode = c1, .location = 0, .visits = 3, .coll_bytes_out = 96, .coll_bytes_in = 32};
  p->val[1].time[PM_STATE_MPI_COLL] = window - useful;
  p->nvalues = 2;
  pm_profile_finish(p);
  return p;
}

static void test_roundtrip(void **state) {
  (void)state;
  pm_profile *p = sample(0, "n0", 2.5, 1.25);
  char *s = pm_profile_to_json_string(p);
  char err[256];
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_int_equal(q->nlocations, 1);
  assert_double_equal(q->runtime, 2.5, 0);
  assert_double_equal(q->loc[0].time[0][PM_STATE_USEFUL], 1.25, 0);
  assert_int_equal(q->loc[0].bytes_sent, 1234);
  assert_int_equal(q->loc[0].role, PM_ROLE_MAIN);
  assert_int_equal(q->ncnodes, 2);
  assert_int_equal(q->val[1].visits, 3);
  /* collective bytes travel apart from the point-to-point ones ("collective_bytes") */
  assert_int_equal(q->val[1].coll_bytes_out, 96);
  assert_int_equal(q->val[1].coll_bytes_in, 32);
  assert_int_equal(q->val[1].bytes_sent, 0);
  assert_int_equal(q->val[0].coll_bytes_out, 0);
  assert_non_null(strstr(s, "\"collective_bytes\":[[1,96,32]]"));
  assert_string_equal(q->reg[q->cnode[1].region].name, "MPI_Barrier");
  char *s2 = pm_profile_to_json_string(q);
  assert_string_equal(s, s2); /* a second round trip is the identity */
  free(s);
  free(s2);
  pm_profile_free(p);
  pm_profile_free(q);
}

/* The text p's end-of-run table prints (width 100, no colour, no files): the summary, or the full
 * table without models (header, time breakdown, regions). */
static char *table_of(const pm_profile *p, int full) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  pm_summary_options o = {.width = 100};
  pm_model_set none = {0};
  assert_int_equal(full ? pm_report_write_table(f, p, &none, 100, NULL, 0) : pm_report_write_summary(f, p, &o), 0);
  fclose(f);
  return text;
}

/* A task run of one process, 4 s: the main thread computes 1 s and waits 3 s for the tasks; the
 * worker executes tasks 4 - worker_idle s and idles worker_idle s. */
static pm_profile *task_run(double worker_idle) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "app");
  p->has_critical_path = 1;
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "n0");
  p->proc[0].window = 4;
  p->nlocations = 2;
  p->loc = calloc(2, sizeof *p->loc);
  snprintf(p->loc[0].name, sizeof p->loc[0].name, "main");
  p->loc[0].role = PM_ROLE_MAIN;
  p->loc[0].time[0][PM_STATE_USEFUL] = 1;
  p->loc[0].time[0][PM_STATE_SYNC_WAIT] = 3;
  snprintf(p->loc[1].name, sizeof p->loc[1].name, "worker 0");
  p->loc[1].role = PM_ROLE_WORKER;
  p->loc[1].time[0][PM_STATE_USEFUL] = 4 - worker_idle;
  p->loc[1].time[0][PM_STATE_IDLE] = worker_idle;
  for (int i = 0; i < 2; i++) p->loc[i].cp_global = (pm_prof_cp){4 - worker_idle, 4 - worker_idle, 4 - worker_idle};
  int c0 = pm_profile_add_cnode(p, -1, pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION));
  p->val = calloc(2, sizeof *p->val);
  for (int i = 0; i < 2; i++) {
    p->val[i] = (pm_prof_value){.cnode = c0, .location = i, .visits = 1};
    memcpy(p->val[i].time, p->loc[i].time[0], sizeof p->val[i].time);
  }
  p->nvalues = 2;
  pm_profile_finish(p);
  return p;
}

/* The hint for a task run's idle threads: starvation only when the workers idle. Worker idle
 * 0.04 s of 4: pipeline 0.99, the idle time is the main thread's wait; 1.5 s: pipeline 0.62. */
static void test_task_idle_hint(void **state) {
  (void)state;
  const char *busy = "(pipeline 0.99)\n                 -> workers busy, application threads wait: give them work "
                     "or their cores to workers\n";
  const char *starved = "(pipeline 0.62)\n                 -> starvation: expose more parallelism (finer tasks, "
                        "priorities, submitting ahead)\n";
  pm_profile *p = task_run(0.04);
  char *t = table_of(p, 0);
  assert_non_null(strstr(t, busy));
  assert_null(strstr(t, "starvation"));
  free(t);
  pm_profile_free(p);
  p = task_run(1.5);
  t = table_of(p, 0);
  assert_non_null(strstr(t, starved));
  assert_null(strstr(t, "workers busy"));
  free(t);
  pm_profile_free(p);
}

/* A thread's wait for a CPU ("cpu_wait", seconds): it travels when known, reads back as unknown
 * (-1) when absent, a negative value is refused; the summary notes it from 5 % of the compute
 * threads' time on, the full table shows its average and maximum. The sample's main thread lives 2.5 s (1.25 useful + 1.25 in MPI): 0.5 s of
 * waiting is 20 %, 0.1 s is 4 % (no note). */
static void test_cpu_wait(void **state) {
  (void)state;
  char err[256];
  pm_profile *p = sample(0, "n0", 2.5, 1.25);
  p->loc[0].cpu_wait = 0.5;
  char *s = pm_profile_to_json_string(p);
  assert_non_null(strstr(s, "\"cpu_wait\":0.5"));
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_double_equal(q->loc[0].cpu_wait, 0.5, 0);
  char *t = table_of(q, 0);
  assert_non_null(strstr(t, "   Note: threads waited for a CPU 20 % of their time, ready to run while other threads"));
  free(t);
  /* the full table's time breakdown: average and maximum over the one thread, 0.5 of 2.5 s */
  t = table_of(q, 1);
  assert_non_null(
      strstr(t, "\n   CPU wait      500.00 ms / 500.00 ms    ( 20.0 % of runtime on average, within the above)\n"));
  free(t);
  q->loc[0].cpu_wait = 0.1;
  t = table_of(q, 0);
  assert_null(strstr(t, "waited for a CPU"));
  free(t);
  pm_profile_free(q);
  free(s);

  p->loc[0].cpu_wait = -1; /* not known: no key, and unknown again when read */
  s = pm_profile_to_json_string(p);
  assert_null(strstr(s, "cpu_wait"));
  q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_true(q->loc[0].cpu_wait < 0);
  t = table_of(q, 0);
  assert_null(strstr(t, "waited for a CPU"));
  free(t);
  pm_profile_free(q);
  free(s);

  p->loc[0].cpu_wait = 0.5;
  char *text = pm_profile_to_json_string(p);
  s = malloc(strlen(text) + 2); /* room for the inserted sign */
  assert_non_null(s);
  strcpy(s, text);
  free(text);
  char *at = strstr(s, "\"cpu_wait\":0.5");
  assert_non_null(at);
  memmove(at + 12, at + 11, strlen(at + 11) + 1); /* "cpu_wait":-0.5 */
  at[11] = '-';
  assert_null(pm_profile_from_json_string(s, err, sizeof err));
  assert_non_null(strstr(err, "cpu_wait"));
  free(s);
  pm_profile_free(p);
}

/* p through JSON and back: the text holds 'expect' (NULL: no "mpi_transfer" key at all), the copy
 * says whether it was measured; returns the copy. */
static pm_profile *transfer_roundtrip(const pm_profile *p, const char *expect, int measured) {
  char err[256];
  char *s = pm_profile_to_json_string(p);
  if (expect)
    assert_non_null(strstr(s, expect));
  else
    assert_null(strstr(s, "mpi_transfer"));
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_int_equal(q->has_mpi_transfer, measured);
  free(s);
  return q;
}

/* MPI transfer time ("mpi_transfer"): the nonzero values travel; an empty list still says that it
 * was measured, a missing key that it was not; a malformed row is refused with its index. */
static void test_mpi_transfer(void **state) {
  (void)state;
  char err[256];
  pm_profile *p = sample(0, "n0", 2.5, 1.25);
  p->has_mpi_transfer = 1;
  p->val[1].mpi_transfer = 0.5;
  pm_profile *q = transfer_roundtrip(p, "\"mpi_transfer\":[[1,0.5]]", 1);
  assert_double_equal(q->val[1].mpi_transfer, 0.5, 0);
  assert_double_equal(q->val[0].mpi_transfer, 0.0, 0);
  pm_profile *run = pm_profile_new();
  assert_int_equal(pm_profile_merge(run, q), 0);
  assert_int_equal(run->has_mpi_transfer, 1);
  assert_double_equal(run->val[1].mpi_transfer, 0.5, 0);
  pm_profile_free(run);
  pm_profile_free(q);
  p->val[1].mpi_transfer = 0;
  pm_profile_free(transfer_roundtrip(p, "\"mpi_transfer\":[]", 1));
  p->has_mpi_transfer = 0;
  pm_profile_free(transfer_roundtrip(p, NULL, 0));
  static const char *const bad[] = {"[[2,0.5]]", "[[1,-1]]", "[[1]]", "[1]", "{}", "[[\"1\",0.5]]"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *j = pm_profile_to_json(p);
    json_object_set_new(j, "mpi_transfer", json_loads(bad[i], 0, NULL));
    char *t = json_dumps(j, 0);
    json_decref(j);
    assert_null(pm_profile_from_json_string(t, err, sizeof err));
    assert_non_null(strstr(err, "mpi_transfer"));
    free(t);
  }
  pm_profile_free(p);
}

/* Two ranks on one host, one on another: regions and call paths unified, nodes counted. */
static void test_merge(void **state) {
  (void)state;
  pm_profile *run = pm_profile_new();
  pm_profile *a = sample(0, "n0", 2.0, 1.0), *b = sample(1, "n0", 3.0, 2.0), *c = sample(2, "n1", 1.0, 0.5);
  assert_int_equal(pm_profile_merge(run, a), 0);
  assert_int_equal(pm_profile_merge(run, b), 0);
  assert_int_equal(pm_profile_merge(run, c), 0);
  pm_profile_finish(run);
  assert_int_equal(run->nprocesses, 3);
  assert_int_equal(run->nlocations, 3);
  assert_int_equal(run->nregions, 2);
  assert_int_equal(run->ncnodes, 2);
  assert_int_equal(run->nvalues, 6);
  assert_int_equal(run->nnodes, 2);
  assert_double_equal(run->runtime, 3.0, 0);
  assert_int_equal(run->loc[2].process, 2);
  assert_int_equal(run->val[5].location, 2);
  assert_int_equal(run->proc[2].node, 1);
  pm_profile_free(a);
  pm_profile_free(b);
  pm_profile_free(c);
  pm_profile_free(run);
}

static void test_foreign_and_malformed(void **state) {
  (void)state;
  char err[256];
  assert_null(pm_profile_from_json_string("{\"schema\":\"other\"}", err, sizeof err));
  assert_non_null(strstr(err, "not a popmeter profile"));
  assert_null(pm_profile_from_json_string("{\"schema\":\"popmeter-profile\",\"version\":99}", err, sizeof err));
  assert_non_null(strstr(err, "version"));
  assert_null(pm_profile_from_json_string("[1,2", err, sizeof err));
  assert_non_null(strstr(err, "invalid JSON"));
  assert_null(pm_profile_read_file("/nonexistent/popmeter.json", err, sizeof err));
  assert_non_null(strstr(err, "/nonexistent/popmeter.json"));
}

/* Every prefix of a valid document, and single-byte corruptions at every position, must be
 * handled (error or valid profile) without crashing; run under valgrind/ASan this also proves no
 * invalid read. */
static void test_fuzz_truncation_and_flips(void **state) {
  (void)state;
  pm_profile *p = sample(0, "n0", 2.5, 1.25);
  char *s = pm_profile_to_json_string(p);
  size_t n = strlen(s);
  char err[256];
  int accepted = 0;
  char *buf = malloc(n + 1);
  for (size_t k = 0; k < n; k++) {
    memcpy(buf, s, k);
    buf[k] = '\0';
    pm_profile *q = pm_profile_from_json_string(buf, err, sizeof err);
    if (q) accepted++;
    pm_profile_free(q);
  }
  assert_int_equal(accepted, 0); /* no strict prefix of the document is a complete profile */
  static const char flips[] = {'0', '9', '-', '"', '}', ']', 'x', ' '};
  for (size_t k = 0; k < n; k++) {
    for (size_t f = 0; f < sizeof flips; f++) {
      memcpy(buf, s, n + 1);
      buf[k] = flips[f];
      pm_profile *q = pm_profile_from_json_string(buf, err, sizeof err);
      if (q) { /* accepted documents must be internally consistent */
        for (int i = 0; i < q->nvalues; i++) {
          assert_true(q->val[i].cnode < q->ncnodes);
          assert_true(q->val[i].location < q->nlocations);
        }
        for (int i = 0; i < q->nlocations; i++) assert_true(q->loc[i].process < q->nprocesses);
      }
      pm_profile_free(q);
    }
  }
  free(buf);
  free(s);
  pm_profile_free(p);
}

/* The clean form of byte strings (pm_text.h), on inputs whose answers follow from RFC 3629. */
static void test_text_clean(void **state) {
  (void)state;
  char out[64];
  static const struct {
    const char *in, *want;
  } cases[] = {
      {"caf\xe9", "caf\\xE9"},                      /* Latin-1 e-acute: not UTF-8 */
      {"caf\xc3\xa9", "caf\xc3\xa9"},               /* UTF-8 e-acute: kept */
      {"\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"},   /* a 4-byte character: kept */
      {"\xc0\xaf", "\\xC0\\xAF"},                   /* overlong '/' */
      {"\xed\xa0\x80", "\\xED\\xA0\\x80"},          /* UTF-16 surrogate */
      {"\xf4\x90\x80\x80", "\\xF4\\x90\\x80\\x80"}, /* above U+10FFFF */
      {"\xe2\x82", "\\xE2\\x82"},                   /* a character cut short */
      {"a\x01"
       "b\tc\x7f",
       "a\\x01b\\x09c\\x7F"},         /* control characters */
      {"back\\slash", "back\\slash"}, /* a backslash is text */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = pm_text_clean(out, sizeof out, cases[i].in);
    assert_string_equal(out, cases[i].want);
    assert_int_equal(n, strlen(cases[i].want));
    assert_int_equal(pm_text_is_clean(cases[i].in), strcmp(cases[i].in, cases[i].want) == 0);
    assert_true(pm_text_is_clean(out));
  }
  /* cut at a whole character or escape: "abc" + escape (7 bytes) does not fit 6 */
  assert_int_equal(pm_text_clean(out, 6, "abc\xe9"), 3);
  assert_string_equal(out, "abc");
  assert_int_equal(pm_text_clean(out, 3, "a\xc3\xa9"), 1); /* 'a' + 2 bytes + NUL > 3 */
  assert_string_equal(out, "a");
  char field[8] = "ab\xe9";
  pm_text_clean_field(field, sizeof field);
  assert_string_equal(field, "ab\\xE9");
}

/* One byte that is not UTF-8 in any name must not lose the profile: every name comes out escaped
 * and the profile round-trips through JSON. */
static void test_non_utf8_names(void **state) {
  (void)state;
  pm_profile *p = sample(0, "n\xff", 2.5, 1.25);
  snprintf(p->app, sizeof p->app, "caf\xe9");
  snprintf(p->command, sizeof p->command, "./caf\xe9 caf\xe9");
  snprintf(p->loc[0].name, sizeof p->loc[0].name, "thr\x80");
  int r = pm_profile_add_region(p, "caf\xe9", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  assert_true(r >= 0);
  assert_int_equal(pm_profile_clean_text(p), 0);
  char *s = pm_profile_to_json_string(p);
  assert_non_null(s);
  char err[256];
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_string_equal(q->app, "caf\\xE9");
  assert_string_equal(q->command, "./caf\\xE9 caf\\xE9");
  assert_string_equal(q->proc[0].host, "n\\xFF");
  assert_string_equal(q->loc[0].name, "thr\\x80");
  assert_string_equal(q->reg[r].name, "caf\\xE9");
  assert_double_equal(q->loc[0].time[0][PM_STATE_USEFUL], 1.25, 0); /* nothing else lost */
  /* a control character arriving through JSON (\u0001) is cleaned too: XML would refuse it */
  json_t *j = json_loads(s, 0, NULL);
  json_object_set_new(j, "app", json_string("a\x01z"));
  char *s2 = json_dumps(j, JSON_COMPACT);
  pm_profile *q2 = pm_profile_from_json_string(s2, err, sizeof err);
  assert_non_null(q2);
  assert_string_equal(q2->app, "a\\x01z");
  json_decref(j);
  free(s);
  free(s2);
  pm_profile_free(p);
  pm_profile_free(q);
  pm_profile_free(q2);
}

/* Sets target[key] = v inside the document root and reads the document back: the profile, or
 * NULL with err filled when it is refused. */
static pm_profile *read_with(json_t *root, json_t *target, const char *key, json_t *v, char *err, size_t n) {
  json_object_set_new(target, key, v);
  char *s = json_dumps(root, JSON_COMPACT);
  pm_profile *q = pm_profile_from_json_string(s, err, n);
  free(s);
  return q;
}

/* Integers are checked in their full JSON type before they are narrowed: 2^31, 2^32 and 2^63-1
 * as a process index are refused with a message naming the field, never wrapped or used. */
static void test_integer_ranges(void **state) {
  (void)state;
  pm_profile *p = sample(0, "n0", 2.5, 1.25);
  char *s = pm_profile_to_json_string(p);
  static const json_int_t bad[] = {2147483648LL, 4294967296LL, 9223372036854775807LL, -1};
  char err[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *root = json_loads(s, 0, NULL);
    json_t *loc = json_array_get(json_object_get(root, "locations"), 0);
    pm_profile *q = read_with(root, loc, "process", json_integer(bad[i]), err, sizeof err);
    assert_null(q);
    assert_non_null(strstr(err, "locations[0]"));
    assert_non_null(strstr(err, "\"process\""));
    json_decref(root);
  }
  /* the same for the other narrowed integers */
  static const struct {
    const char *array, *key;
    json_int_t v;
  } more[] = {
      {"processes", "rank", 4294967296LL},   {"processes", "node", 4294967296LL},   {"processes", "pid", 1LL << 40},
      {"locations", "thread", 4294967297LL}, {"regions", "paradigm", 4294967296LL}, {"regions", "role", 99},
  };
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
    json_t *root = json_loads(s, 0, NULL);
    json_t *o = json_array_get(json_object_get(root, more[i].array), 0);
    pm_profile *q = read_with(root, o, more[i].key, json_integer(more[i].v), err, sizeof err);
    assert_null(q);
    assert_non_null(strstr(err, more[i].key));
    json_decref(root);
  }
  /* a file-I/O part whose location index wraps to 0 in 32 bits */
  json_t *root = json_loads(s, 0, NULL);
  json_t *io = json_pack("{s:[{s:s,s:s}],s:[{s:I,s:i,s:i,s:f,s:i,s:i}]}", "classes", "mount", "/", "fstype", "ext4",
                         "values", "location", (json_int_t)4294967296LL, "class", 0, "calls", 1, "time", 0.5,
                         "bytes_read", 0, "bytes_written", 0);
  pm_profile *q = read_with(root, root, "io_classes", io, err, sizeof err);
  assert_null(q);
  assert_non_null(strstr(err, "io_classes: values[0]"));
  json_decref(root);
  free(s);
  pm_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_cpu_wait),
      cmocka_unit_test(test_task_idle_hint),
      cmocka_unit_test(test_mpi_transfer),
      cmocka_unit_test(test_merge),
      cmocka_unit_test(test_foreign_and_malformed),
      cmocka_unit_test(test_fuzz_truncation_and_flips),
      cmocka_unit_test(test_text_clean),
      cmocka_unit_test(test_non_utf8_names),
      cmocka_unit_test(test_integer_ranges),
  };
  return cmocka_run_group_tests_name("profile json", tests, NULL, NULL);
}
