/* popmeter view (view/): the steps between the trace and the page, on runs written out below with
 * their expected values derived by hand -- the critical path rebuilt from the tasks' clocks, the
 * codelets' quartiles, fit and outliers, the series' envelopes, the tree's icicle layout and its
 * folding, and the aggregation's choice of what is drawn one by one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vw.h"
#include "pm_profile_published.h"
#include "pm_profile_tasks.h"

/* A trace of nlanes CPU lanes (one process) and ncodelets codelets c0, c1, ... */
static void trace_init(vw_trace *t, int nlanes, int ncodelets, size_t ntasks) {
  memset(t, 0, sizeof *t);
  t->nlanes = nlanes;
  t->lane = calloc((size_t)nlanes, sizeof *t->lane);
  for (int i = 0; i < nlanes; i++) t->lane[i].loc = -1;
  char name[8];
  for (int c = 0; c < ncodelets; c++) {
    snprintf(name, sizeof name, "c%d", c);
    assert_int_equal(vw_codelet_index(t, name), c);
  }
  t->task = calloc(ntasks ? ntasks : 1, sizeof *t->task);
}
static vw_task *task(vw_trace *t, int lane, int codelet, uint64_t start, uint64_t end) {
  vw_task *k = &t->task[t->ntasks++];
  *k = (vw_task){start, end, VW_NONE, VW_NONE, VW_NONE, VW_NONE, VW_NONE, VW_NONE, 0, lane, codelet, 0};
  if (end > t->span) t->span = end;
  return k;
}
static void cp(vw_task *k, uint64_t in, uint64_t out) {
  k->cp_in = in;
  k->cp_out = out;
}

/* A (lane 0, cp 5 -> 15), C (lane 0, 15 -> 18), B (lane 1, 15 -> 23), D (lane 0, 23 -> 28), E (no
 * clocks). From the largest cp_out (D, 28) back: cp_in 23 is B's cp_out, B's cp_in 15 is A's
 * cp_out (C ends at 18, not 15), A's cp_in 5 matches nothing: 5 of application-thread time before
 * it. Path A, B, D; length 28. Then a tie: F and G both end their clock at 40, H starts from 40:
 * the one that ended later in time (G) precedes it. */
static void test_path(void **state) {
  (void)state;
  vw_trace t;
  trace_init(&t, 2, 1, 8);
  cp(task(&t, 0, 0, 0, 10), 5, 15);   /* A: index 0 */
  cp(task(&t, 0, 0, 11, 14), 15, 18); /* C: 1 */
  cp(task(&t, 1, 0, 12, 20), 15, 23); /* B: 2 */
  cp(task(&t, 0, 0, 25, 30), 23, 28); /* D: 3 */
  task(&t, 1, 0, 31, 33);             /* E: 4 */
  vw_path p;
  assert_int_equal(vw_path_build(&t, &p), 0);
  assert_int_equal(p.n, 3);
  assert_int_equal(p.task[0], 0);
  assert_int_equal(p.task[1], 2);
  assert_int_equal(p.task[2], 3);
  assert_int_equal(p.length, 28);
  assert_int_equal(p.before, 5);
  assert_int_equal(t.task[1].flags & VW_F_CP, 0);
  assert_int_equal(t.task[2].flags & VW_F_CP, VW_F_CP);
  vw_path_free(&p);

  cp(task(&t, 0, 0, 40, 45), 35, 40); /* F: 5 */
  cp(task(&t, 1, 0, 41, 47), 32, 40); /* G: 6 */
  cp(task(&t, 0, 0, 50, 52), 40, 42); /* H: 7 */
  assert_int_equal(vw_path_build(&t, &p), 0);
  assert_int_equal(p.n, 2);
  assert_int_equal(p.task[0], 6);
  assert_int_equal(p.task[1], 7);
  assert_int_equal(p.before, 32);
  vw_path_free(&p);
  vw_trace_free(&t);
}

/* Codelet 0: durations 1..8 ms and 100 ms (9 tasks). Sorted, h = 8p: Q1 = d[2] = 3 ms, median
 * d[4] = 5 ms, Q3 = d[6] = 7 ms; Q3 + 1.5 IQR = 13 ms: the 100 ms task is the one IQR outlier.
 * Codelet 1: 5 tasks with flops 10^e, e = 3..7, and durations 10^e ns times 2, 1/2, 1, 1/2, 2: the
 * residuals of log10 d ~ log10 flops around the line -9 + log10 flops are r = (+1, -1, 0, -1, +1)
 * log10 2, whose sum and whose products with x - 5 = (-2..2) are 0: the fit is that line exactly,
 * s^2 = 4 log10(2)^2 / 3, and at x = 3 the band is -6 +- t(3) s sqrt(1 + 1/5 + 4/10), t(3) = 3.182:
 * wide enough for every residual (no regression outlier). */
static void test_codelets(void **state) {
  (void)state;
  vw_trace t;
  trace_init(&t, 1, 2, 16);
  uint64_t at = 0;
  for (int i = 1; i <= 8; i++, at += 200000000) task(&t, 0, 0, at, at + (uint64_t)i * 1000000);
  task(&t, 0, 0, at, at + 100000000);
  at += 200000000;
  static const double factor[5] = {2, 0.5, 1, 0.5, 2};
  for (int e = 3; e <= 7; e++, at += 200000000)
    task(&t, 0, 1, at, at + (uint64_t)(pow(10, e) * factor[e - 3]))->flops = pow(10, e);
  vw_trace_sort(&t);
  vw_codelet *c;
  int n;
  assert_int_equal(vw_codelets_build(&t, &c, &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(c[0].count, 9);
  assert_double_equal(c[0].q1, 0.003, 1e-15);
  assert_double_equal(c[0].median, 0.005, 1e-15);
  assert_double_equal(c[0].q3, 0.007, 1e-15);
  assert_double_equal(c[0].total, 0.136, 1e-15);
  assert_int_equal(c[0].iqr, 1);
  assert_int_equal(c[0].nworst, 1);
  assert_int_equal(c[0].worst_kind[0], VW_F_IQR);
  assert_int_equal(t.task[c[0].worst[0]].end - t.task[c[0].worst[0]].start, 100000000);
  assert_double_equal(c[0].worst_thr[0], 0.013, 1e-15);
  assert_int_equal(t.task[c[0].worst[0]].flags & (VW_F_IQR | VW_F_KEEP), VW_F_IQR | VW_F_KEEP);
  assert_false(c[0].has_fit);
  assert_int_equal(c[1].with_flops, 5);
  assert_true(c[1].has_fit);
  assert_double_equal(c[1].a, -9, 1e-9);
  assert_double_equal(c[1].b, 1, 1e-9);
  assert_int_equal(c[1].reg, 0);
  assert_double_equal(c[1].band[0][0], 3, 1e-12);
  assert_double_equal(c[1].band[VW_BAND_POINTS - 1][0], 7, 1e-12);
  double half = 3.182 * sqrt(4 * log10(2) * log10(2) / 3 * (1 + 1 / 5.0 + 4 / 10.0));
  assert_double_equal(c[1].band[0][1], -6 - half, 1e-9);
  assert_double_equal(c[1].band[0][2], -6 + half, 1e-9);
  assert_double_equal(vw_codelet_predict(c, n, &t, &t.task[11]), 1e-4, 1e-15); /* flops 10^5 */
  free(c);
  vw_trace_free(&t);
}

/* Changes +1 at 0, +1 at 10, -1 at 15, -1 at 30 over [0, 40) in 4 bins of 10: [0,10) begins at 1
 * and stays {1,1,1}; [10,20) begins at 2, goes to 1 at 15: {1,2,1}; [20,30) {1,1,1}; [30,40)
 * begins at 0. A +1 and a -1 at the same instant (t = 35) make no peak. Over [5, 45) in 2 bins of
 * 20: [5,25) begins at 1 (the change at 0), reaches 2: {1,2,1}; [25,45) {0,1,0}. */
static void test_envelope(void **state) {
  (void)state;
  vw_change ch[] = {{30, -1}, {0, 1}, {15, -1}, {10, 1}, {35, 1}, {35, -1}};
  vw_series s = {0};
  assert_int_equal(vw_series_envelope(ch, 6, 0, 40, 4, &s), 0);
  assert_int_equal(s.bin, 10);
  const double want[4][3] = {{1, 1, 1}, {1, 2, 1}, {1, 1, 1}, {0, 0, 0}};
  for (int b = 0; b < 4; b++)
    for (int j = 0; j < 3; j++) assert_true(s.v[b][j] == want[b][j]);
  free(s.v);
  assert_int_equal(vw_series_envelope(ch, 6, 5, 45, 2, &s), 0);
  assert_int_equal(s.start, 5);
  assert_int_equal(s.bin, 20);
  assert_true(s.v[0][0] == 1 && s.v[0][1] == 2 && s.v[0][2] == 1);
  assert_true(s.v[1][0] == 0 && s.v[1][1] == 1 && s.v[1][2] == 0);
  free(s.v);
}

/* A profile holding a tag tree: root 10 (flops 4), its children 3 (flops 2, order 0) and 7 (flops
 * 1, order 1), 1 (flops 1) under 3; measured time 2 s on 10, 1 s on 3 and on 7. Plus 20 -> 21 ->
 * 20 (a loop) and 30 whose parent 99 is not in the tree. */
static pm_profile *tree_profile(void) {
  pm_profile *p = pm_profile_new();
  pm_prof_tag_node nodes[] = {{10, PM_PROF_TAG_NONE, 3, 4, 0},
                              {3, 10, 0, 2, 0},
                              {7, 10, 1, 1, 1},
                              {1, 3, 0, 1, 0},
                              {20, 21, 5, 0, 0},
                              {21, 20, 6, 0, 0},
                              {30, 99, 7, 0, 0}};
  assert_int_equal(pm_prof_tag_nodes_add(&p->published, nodes, 7), 0);
  p->tasks = calloc(1, sizeof *p->tasks);
  return p;
}

static vw_node *node(vw_tree *tr, uint64_t tag) {
  for (int i = 0; i < tr->n; i++)
    if (tr->node[i].tag == tag) return &tr->node[i];
  fail_msg("no node %llu", (unsigned long long)tag);
  return NULL;
}

/* Sized by flops the roots are 10 (subtree 4 + 2 + 1 + 1 = 8), 20, 30 (0 each: zero-width): 10
 * spans [0, 1); 3 [0, 3/8), its child 1 [0, 1/8), 7 [3/8, 4/8); the root's own 4/8 at the right.
 * Sized by time: 10 has 2 + 1 + 1 = 4: 3 [0, 1/4), 1 [0, 0), 7 [1/4, 1/2). The loop is cut at 20
 * (the first met), which becomes a root; 30 is a root. Depths 0, 1, 1, 2. */
static void test_tree_layout(void **state) {
  (void)state;
  pm_profile *p = tree_profile();
  pm_prof_tag tags[] = {{0, 10, 1, 2, 2, 2, 0}, {0, 3, 1, 1, 1, 1, 0}, {0, 7, 1, 1, 1, 1, 0}};
  p->tasks->tag = tags;
  p->tasks->ntags = 3;
  vw_tree tr;
  assert_int_equal(vw_tree_build(p, NULL, NULL, 0, &tr), 0);
  assert_int_equal(tr.n, 7);
  vw_tree_layout(&tr, 100);
  assert_int_equal(node(&tr, 10)->depth, 0);
  assert_int_equal(node(&tr, 3)->depth, 1);
  assert_int_equal(node(&tr, 1)->depth, 2);
  assert_int_equal(node(&tr, 20)->parent, -1);
  assert_int_equal(node(&tr, 21)->depth, 1);
  assert_int_equal(node(&tr, 30)->parent, -1);
  assert_true(node(&tr, 10)->x[0] == 0 && node(&tr, 10)->w[0] == 1);
  assert_true(node(&tr, 3)->x[0] == 0 && node(&tr, 3)->w[0] == 3.0 / 8);
  assert_true(node(&tr, 1)->x[0] == 0 && node(&tr, 1)->w[0] == 1.0 / 8);
  assert_true(node(&tr, 7)->x[0] == 3.0 / 8 && node(&tr, 7)->w[0] == 1.0 / 8);
  assert_true(node(&tr, 20)->x[0] == 1 && node(&tr, 20)->w[0] == 0);
  assert_true(node(&tr, 3)->x[1] == 0 && node(&tr, 3)->w[1] == 0.25);
  assert_true(node(&tr, 1)->w[1] == 0);
  assert_true(node(&tr, 7)->x[1] == 0.25 && node(&tr, 7)->w[1] == 0.25);
  assert_true(node(&tr, 10)->time == 2);
  assert_int_equal(tr.hidden, 0);
  assert_int_equal(tr.maxdepth, 2);
  /* two drawn: the widest (10 and 3); 1 folds into 3, 7 into 10, 20, 21 and 30 into nothing */
  vw_tree_layout(&tr, 2);
  assert_int_equal(tr.hidden, 5);
  assert_true(node(&tr, 10)->drawn && node(&tr, 3)->drawn && !node(&tr, 7)->drawn);
  assert_int_equal(node(&tr, 10)->folded, 1);
  assert_int_equal(node(&tr, 3)->folded, 1);
  assert_int_equal(tr.maxdepth, 1);
  vw_tree_free(&tr);
  p->tasks->tag = NULL;
  p->tasks->ntags = 0;
  pm_profile_free(p);
}

/* Lane 0: [0,100) c0, [100,110) c0, [110,115) c1, [120,125) c0, [500,510) c0; lane 1: [0,5) c0 and
 * a state [600,700); span 700. Everything: 7 items. beta = 700 >> 5 = 21: kept [0,100) and the
 * state; bins (l0, c0, [84,105)) {[100,110)}, (l0, c1, [105,126)) {[110,115)}, (l0, c0,
 * [105,126)) {[120,125)}, (l0, c0, [483,504)) {[500,510)}, (l1, c0, [0,21)): 2 + 5 = 7. beta = 43
 * (>> 4): kept the same two; (l0,c0,idx 2) {[100,110), [120,125)}, (l0,c1,2), (l0,c0,11), (l1,c0,0):
 * 6. beta = 87 (>> 3): kept [0,100), the state; (l0,c0,1) {100..125 starts}, (l0,c1,1), (l0,c0,5),
 * (l1,c0,0): 6. A budget of 6 gives the finest beta within it: 43. A task on the critical path is
 * kept whatever its length. */
static void test_aggregate(void **state) {
  (void)state;
  vw_trace t;
  trace_init(&t, 2, 2, 8);
  task(&t, 0, 0, 0, 100);
  task(&t, 0, 0, 100, 110);
  task(&t, 0, 1, 110, 115);
  task(&t, 0, 0, 120, 125);
  task(&t, 0, 0, 500, 510);
  task(&t, 1, 0, 0, 5);
  t.state = calloc(1, sizeof *t.state);
  t.state[t.nstates++] = (vw_state){600, 700, 1, VW_K_MPI};
  t.span = 700;
  vw_trace_sort(&t);
  assert_int_equal(vw_aggregate_items(&t, 0), 7);
  assert_int_equal(vw_aggregate_items(&t, 21), 7);
  assert_int_equal(vw_aggregate_items(&t, 43), 6);
  assert_int_equal(vw_aggregate_items(&t, 87), 6);
  vw_agg a;
  assert_int_equal(vw_aggregate(&t, 6, &a), 0);
  assert_int_equal(a.beta, 43);
  assert_int_equal(a.kept_tasks, 1);
  assert_int_equal(a.merged_tasks, 5);
  assert_int_equal(a.kept_states, 1);
  assert_int_equal(a.nbins, 4);
  const vw_bin want[4] = {{0, 0, 2, 2, 15}, {0, 1, 2, 1, 5}, {0, 0, 11, 1, 10}, {1, 0, 0, 1, 5}};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(a.bin[i].lane, want[i].lane);
    assert_int_equal(a.bin[i].cls, want[i].cls);
    assert_int_equal(a.bin[i].idx, want[i].idx);
    assert_int_equal(a.bin[i].count, want[i].count);
    assert_int_equal(a.bin[i].busy, want[i].busy);
  }
  assert_true(t.task[0].flags & VW_F_KEEP);
  assert_false(t.task[1].flags & VW_F_KEEP);
  vw_agg_free(&a);
  /* everything fits: nothing merged */
  assert_int_equal(vw_aggregate(&t, 7, &a), 0);
  assert_int_equal(a.beta, 0);
  assert_int_equal(a.nbins, 0);
  assert_int_equal(a.kept_tasks, 6);
  vw_agg_free(&a);
  /* [100,110) on the critical path is kept whatever beta: at 43 it leaves [120,125) alone in its bin,
   * 7 items; at 87 too (7); at 175 = 700 >> 2 [0,100) is merged with [120,125) into (l0,c0,0), then
   * (l0,c1,0), (l0,c0,2), (l1,c0,0) and the state's (l1, 2 + MPI, 3): 5 bins and the kept task, 6 */
  for (size_t i = 0; i < t.ntasks; i++) t.task[i].flags = 0;
  t.task[1].flags = VW_F_CP;
  assert_int_equal(vw_aggregate_items(&t, 43), 7);
  assert_int_equal(vw_aggregate_items(&t, 87), 7);
  assert_int_equal(vw_aggregate_items(&t, 175), 6);
  assert_int_equal(vw_aggregate(&t, 6, &a), 0);
  assert_int_equal(a.beta, 175);
  assert_true(t.task[1].flags & VW_F_KEEP);
  assert_false(t.task[0].flags & VW_F_KEEP);
  assert_int_equal(a.kept_tasks, 1);
  assert_int_equal(a.nbins, 5);
  assert_int_equal(a.bin[4].cls, 2 + VW_K_MPI);
  assert_int_equal(a.bin[4].idx, 3);
  vw_agg_free(&a);
  vw_trace_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_path),        cmocka_unit_test(test_codelets),  cmocka_unit_test(test_envelope),
      cmocka_unit_test(test_tree_layout), cmocka_unit_test(test_aggregate),
  };
  return cmocka_run_group_tests_name("view", tests, NULL, NULL);
}
