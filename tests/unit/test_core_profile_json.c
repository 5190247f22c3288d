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
  p->val[1] = (pm_prof_value){.cnode = c1, .location = 0, .visits = 3};
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
  assert_string_equal(q->reg[q->cnode[1].region].name, "MPI_Barrier");
  char *s2 = pm_profile_to_json_string(q);
  assert_string_equal(s, s2);          /* a second round trip is the identity */
  free(s); free(s2);
  pm_profile_free(p); pm_profile_free(q);
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
  pm_profile_free(a); pm_profile_free(b); pm_profile_free(c); pm_profile_free(run);
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
    memcpy(buf, s, k); buf[k] = '\0';
    pm_profile *q = pm_profile_from_json_string(buf, err, sizeof err);
    if (q) accepted++;
    pm_profile_free(q);
  }
  assert_int_equal(accepted, 0);   /* no strict prefix of the document is a complete profile */
  static const char flips[] = {'0', '9', '-', '"', '}', ']', 'x', ' '};
  for (size_t k = 0; k < n; k++) {
    for (size_t f = 0; f < sizeof flips; f++) {
      memcpy(buf, s, n + 1);
      buf[k] = flips[f];
      pm_profile *q = pm_profile_from_json_string(buf, err, sizeof err);
      if (q) {   /* accepted documents must be internally consistent */
        for (int i = 0; i < q->nvalues; i++) {
          assert_true(q->val[i].cnode < q->ncnodes);
          assert_true(q->val[i].location < q->nlocations);
        }
        for (int i = 0; i < q->nlocations; i++) assert_true(q->loc[i].process < q->nprocesses);
      }
      pm_profile_free(q);
    }
  }
  free(buf); free(s);
  pm_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_merge),
    cmocka_unit_test(test_foreign_and_malformed), cmocka_unit_test(test_fuzz_truncation_and_flips),
  };
  return cmocka_run_group_tests_name("profile json", tests, NULL, NULL);
}
