/* Scaling studies get the runs' hardware counters (reports/rp_run.c -> pm_scaling_run), so IPC,
 * instruction and frequency scalability have values. Two hand-made runs of "app":
 *   reference: 1 process, useful 1 s, 1000 instructions, 500 cycles  -> IPC 2, f = 500 /s
 *   run:       2 processes, useful 1 s each (sum 2 s), 600 + 600 instructions, 400 + 400 cycles
 *              -> IPC 1200 / 800 = 1.5, f = 800 / 2 = 400 /s
 * Strong scaling: CompScal = 1 / 2 = 0.5 = IPC scal (1.5 / 2 = 0.75) x instruction scal
 * (1000 / 1200 = 5/6) x frequency scal (400 / 500 = 0.8). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "rp_study.h"
#include "pm_profile_counters.h"

static pm_profile *process(int rank, uint64_t ins, uint64_t cyc) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "app");
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].rank = rank;
  p->proc[0].window = 1;
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "h");
  p->nlocations = 1;
  p->loc = calloc(1, sizeof *p->loc);
  p->loc[0].role = PM_ROLE_MAIN;
  p->loc[0].time[0][PM_STATE_USEFUL] = 1;
  int r = pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  p->val = calloc(1, sizeof *p->val);
  p->val[0] = (pm_prof_value){.cnode = pm_profile_add_cnode(p, -1, r), .location = 0, .visits = 1};
  p->val[0].time[PM_STATE_USEFUL] = 1;
  p->nvalues = 1;
  pm_prof_counters *c = p->counters = pm_prof_counters_new();
  strcpy(c->status, "counted");
  pm_prof_counters_add_event(c, "PAPI_TOT_INS", PM_CTR_INSTRUCTIONS, 1, NULL);
  pm_prof_counters_add_event(c, "PAPI_TOT_CYC", PM_CTR_CYCLES, 1, NULL);
  pm_prof_counters_resize(c, 1, 1);
  c->loc_mask[0] = 3;
  c->loc_useful[0] = ins;
  c->loc_useful[1] = cyc;
  pm_profile_finish(p);
  return p;
}

static void test_scaling_factors(void **state) {
  (void)state;
  rp_study s;
  char err[256];
  rp_study_init(&s);
  pm_profile *run = pm_profile_new(), *a = process(0, 600, 400), *b = process(1, 600, 400);
  assert_int_equal(pm_profile_merge(run, a), 0);
  assert_int_equal(pm_profile_merge(run, b), 0);
  pm_profile_finish(run);
  pm_profile_free(a);
  pm_profile_free(b);
  assert_int_equal(rp_study_add_profile(&s, "ref.json", process(0, 1000, 500)), 0);
  assert_int_equal(rp_study_add_profile(&s, "run.json", run), 0);
  assert_int_equal(rp_study_prepare(&s, err, sizeof err), 0);
  assert_true(s.runs[0].sr.has_counters && s.runs[1].sr.has_counters);
  assert_double_equal(s.runs[1].sr.sum_instructions, 1200, 0);
  assert_double_equal(s.runs[1].sr.sum_cycles, 800, 0);
  pm_scaling_run sr[2] = {s.runs[0].sr, s.runs[1].sr};
  pm_metric *t = pm_model_scaling(sr, 2, 1, 0, PM_SCALING_STRONG);
  double v;
  assert_true(pm_metric_get_path(t, "ge/compscal", &v));
  assert_double_equal(v, 0.5, 1e-12);
  assert_true(pm_metric_get_path(t, "ge/compscal/ipc_scal", &v));
  assert_double_equal(v, 0.75, 1e-12);
  assert_true(pm_metric_get_path(t, "ge/compscal/instr_scal", &v));
  assert_double_equal(v, 1000.0 / 1200.0, 1e-12);
  assert_true(pm_metric_get_path(t, "ge/compscal/freq_scal", &v));
  assert_double_equal(v, 0.8, 1e-12);
  pm_metric_free(t);
  /* a run without counters on a location: no counter factors */
  s.runs[1].prof->counters->loc_mask[1] = 1; /* cycles not counted on the second process */
  rp_run_free_derived(&s.runs[1], s.nregions);
  assert_int_equal(rp_run_prepare(&s.runs[1]), 0);
  assert_false(s.runs[1].sr.has_counters);
  rp_study_free(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_scaling_factors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
