/* What a program publishes through popmeter.h (lib/published, lib/profile/pm_profile_published.c):
 * the tag tree (sorted, first record of a tag kept, bounded, merged across processes) and the
 * quantity series (bins of the step function's envelope, pairwise merging when the run outgrows
 * them), with exact values on the virtual clock, their JSON form and its validation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "popmeter.h"
#include "pm_core.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_published.h"
#include "pm_profile.h"
#include "pm_profile_published.h"

#define T0 1000000000ull
#define US 1000ull

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_published_reset();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  pm_module_register(&pm_published_module);
  assert_int_equal(pm_core_activate(), 1);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_published_reset();
  return 0;
}

static void bin_is(const pm_prof_bin *b, double min, double max, double last) {
  assert_true(b->min == min);
  assert_true(b->max == max);
  assert_true(b->last == last);
}

/* Values 5 at +0, 3 at +15 us, 8 at +25 us with 10 us bins: bin 0 {5,5,5}; bin 1 begins at the
 * current 5 and gets 3: {3,5,3}; bin 2 begins at 3 and gets 8: {3,8,8}. Then 1 at +10245 us, past
 * the 1024th bin: pairs merge once (width 20 us): bin 0 = bins 0+1 {3,5,3}, bin 1 = old bin 2
 * {3,8,8}; 10245/20 = bin 512, bins 2..511 hold the current 8, bin 512 begins at 8 and gets 1:
 * {1,8,1}. NaN and infinities are not values. */
static void test_quantity_bins(void **state) {
  (void)state;
  pm_quantity_set_at("m", 5, T0);
  pm_quantity_set_at("m", 3, T0 + 15 * US);
  pm_quantity_set_at("m", NAN, T0 + 16 * US);
  pm_quantity_set_at("m", INFINITY, T0 + 17 * US);
  pm_quantity_set_at("m", 8, T0 + 25 * US);
  pm_clock_advance(30 * US);
  pm_profile *p = pm_profile_build_process(T0, pm_clock_now());
  assert_non_null(p);
  assert_non_null(p->published);
  pm_prof_series *s = &p->published->series[0];
  assert_int_equal(p->published->nseries, 1);
  assert_string_equal(s->name, "m");
  assert_int_equal(s->nbins, 3);
  assert_int_equal(s->samples, 3);
  assert_true(s->start == 0);
  assert_int_equal(s->clock, T0);
  assert_true(s->bin == 10000 * 1e-9);
  bin_is(&s->bins[0], 5, 5, 5);
  bin_is(&s->bins[1], 3, 5, 3);
  bin_is(&s->bins[2], 3, 8, 8);
  pm_profile_free(p);

  pm_quantity_set_at("m", 1, T0 + 10245 * US);
  p = pm_profile_build_process(T0, T0 + 10300 * US);
  s = &p->published->series[0];
  assert_int_equal(s->nbins, 513);
  assert_true(s->bin == 20000 * 1e-9);
  bin_is(&s->bins[0], 3, 5, 3);
  bin_is(&s->bins[1], 3, 8, 8);
  for (int b = 2; b < 512; b++) bin_is(&s->bins[b], 8, 8, 8);
  bin_is(&s->bins[512], 1, 8, 1);
  pm_profile_free(p);
}

/* A series starting before the window (a value set before MPI_Init) has a negative start; at most
 * PM_QUANTITY_MAX names are kept, and pm_quantity_set itself reads popmeter's clock. */
static void test_quantity_names(void **state) {
  (void)state;
  char name[16];
  pm_clock_advance(2 * US);
  pm_quantity_set("early", 1);
  for (int i = 0; i < PM_QUANTITY_MAX + 3; i++) {
    snprintf(name, sizeof name, "q%d", i);
    pm_quantity_set(name, i);
  }
  pm_profile *p = pm_profile_build_process(T0 + 4 * US, T0 + 10 * US);
  assert_int_equal(p->published->nseries, PM_QUANTITY_MAX);
  assert_string_equal(p->published->series[0].name, "early");
  assert_true(p->published->series[0].start == -2000 * 1e-9);
  assert_string_equal(p->published->series[PM_QUANTITY_MAX - 1].name, "q14");
  pm_profile_free(p);
}

/* Nodes in any order; a tag published again keeps its first record; flops below 0 count 0, ranks
 * below -1 count -1. */
static void test_tag_tree(void **state) {
  (void)state;
  pm_tag_publish(5, 7, 1, 10.0, 0);
  pm_tag_publish(7, PM_TAG_NONE, 2, 20.0, 0);
  pm_tag_publish(3, 7, 0, -5.0, -4);
  pm_tag_publish(5, 3, 9, 99.0, 1);
  pm_profile *p = pm_profile_build_process(T0, T0);
  const pm_prof_published *x = p->published;
  assert_int_equal(x->nnodes, 3);
  assert_int_equal(x->node[0].tag, 3);
  assert_true(x->node[0].flops == 0);
  assert_int_equal(x->node[0].rank, -1);
  assert_int_equal(x->node[1].tag, 5);
  assert_int_equal(x->node[1].parent, 7);
  assert_int_equal(x->node[1].order, 1);
  assert_true(x->node[1].flops == 10.0);
  assert_int_equal(x->node[2].parent, PM_PROF_TAG_NONE);
  assert_ptr_equal(pm_prof_tag_node_find(x, 7), &x->node[2]);
  assert_null(pm_prof_tag_node_find(x, 4));
  assert_int_equal(x->nodes_dropped, 0);
  pm_profile_free(p);
}

/* PM_TAG_TREE_MAX nodes are kept, 3 more are counted as dropped. */
static void test_tag_tree_bound(void **state) {
  (void)state;
  for (unsigned long long t = 0; t < PM_TAG_TREE_MAX + 3; t++) pm_tag_publish(t, PM_TAG_NONE, 0, 1, 0);
  pm_profile *p = pm_profile_build_process(T0, T0);
  assert_int_equal(p->published->nnodes, PM_TAG_TREE_MAX);
  assert_int_equal(p->published->nodes_dropped, 3);
  assert_int_equal(p->published->node[PM_TAG_TREE_MAX - 1].tag, PM_TAG_TREE_MAX - 1);
  pm_profile_free(p);
}

/* Nothing is kept while popmeter is inactive: the profile then has no published part. */
static void test_inactive(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_tag_publish(1, PM_TAG_NONE, 0, 1, 0);
  pm_quantity_set("m", 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_profile *p = pm_profile_build_process(T0, T0);
  assert_null(p->published);
  pm_profile_free(p);
}

/* Two processes merged: rank 0's record of tag 5 wins over rank 1's, tags 3 and 9 join; the second
 * process's series gets process index 1. Then through JSON and back: the same values (a root's
 * parent is -1 in the file, an empty bin null). */
static void test_merge_and_json(void **state) {
  (void)state;
  pm_prof_tag_node a[] = {{5, PM_PROF_TAG_NONE, 1, 2.5, 0}, {3, 5, 0, 1, 0}};
  pm_prof_tag_node b[] = {{9, 5, 2, 4, 1}, {5, 9, 7, 8, 1}};
  pm_prof_bin bins[] = {{NAN, NAN, NAN}, {1, 4, 2}};
  pm_prof_series s = {"mem", 0, -0.5, 42, 0.25, 7, 2, bins};
  pm_prof_published *pa = NULL, *pb = NULL;
  assert_int_equal(pm_prof_tag_nodes_add(&pa, a, 2), 0);
  assert_int_equal(pm_prof_tag_nodes_add(&pb, b, 2), 0);
  assert_int_equal(pm_prof_series_add(&pb, &s), 0);
  pb->nodes_dropped = 4;
  assert_int_equal(pm_prof_published_merge(&pa, pb, 1), 0);
  assert_int_equal(pa->nnodes, 3);
  assert_int_equal(pa->node[1].tag, 5);
  assert_int_equal(pa->node[1].rank, 0);
  assert_int_equal(pa->node[2].tag, 9);
  assert_int_equal(pa->nodes_dropped, 4);
  assert_int_equal(pa->nseries, 1);
  assert_int_equal(pa->series[0].process, 1);

  json_t *root = json_object();
  pm_prof_published_to_json(root, pa);
  char *text = json_dumps(root, JSON_COMPACT);
  assert_non_null(strstr(text, "\"nodes\":[[3,5,0,1.0,0],[5,-1,1,2.5,0],[9,5,2,4.0,1]]"));
  assert_non_null(strstr(text, "\"values\":[null,[1.0,4.0,2.0]]"));
  pm_prof_published *back = NULL;
  char err[256];
  assert_int_equal(pm_prof_published_from_json(root, 2, &back, err, sizeof err), 0);
  assert_int_equal(back->nnodes, 3);
  assert_int_equal(back->node[1].parent, PM_PROF_TAG_NONE);
  assert_int_equal(back->nodes_dropped, 4);
  assert_true(back->series[0].start == -0.5);
  assert_int_equal(back->series[0].clock, 42);
  assert_true(isnan(back->series[0].bins[0].last));
  bin_is(&back->series[0].bins[1], 1, 4, 2);
  free(text);
  json_decref(root);
  pm_prof_published_free(back);
  pm_prof_published_free(pa);
  pm_prof_published_free(pb);
}

/* Malformed parts give a message naming the field, never a crash. */
static void test_malformed(void **state) {
  (void)state;
  static const struct {
    const char *json, *needle;
  } cases[] = {
      {"{\"tag_tree\": 3}", "tag_tree: not an object"},
      {"{\"tag_tree\": {\"nodes\": [[1, 2, 3]], \"dropped\": 0}}", "nodes[0]: not [tag, parent, order"},
      {"{\"tag_tree\": {\"nodes\": [[1, 2, 3, -1, 0]], \"dropped\": 0}}", "nodes[0]"},
      {"{\"tag_tree\": {\"nodes\": [[1, 2, 3, 1, -2]], \"dropped\": 0}}", "nodes[0]"},
      {"{\"tag_tree\": {\"nodes\": []}}", "dropped"},
      {"{\"series\": {}}", "series: not an array"},
      {"{\"series\": [{\"name\": \"m\", \"process\": 2, \"start\": 0, \"clock\": 0, \"bin\": 1, \"samples\": 1, "
       "\"values\": []}]}",
       "process"},
      {"{\"series\": [{\"name\": \"m\", \"process\": 0, \"start\": 0, \"clock\": 0, \"bin\": 0, \"samples\": 1, "
       "\"values\": []}]}",
       "bin width must be positive"},
      {"{\"series\": [{\"name\": \"m\", \"process\": 0, \"start\": 0, \"clock\": 0, \"bin\": 1, \"samples\": 1, "
       "\"values\": [[3, 1, 2]]}]}",
       "values[0]: not min <= last <= max"},
      {"{\"series\": [{\"name\": \"m\", \"process\": 0, \"start\": \"x\", \"clock\": 0, \"bin\": 1, \"samples\": 1, "
       "\"values\": []}]}",
       "start of series[0]: not a finite number"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    json_error_t je;
    json_t *root = json_loads(cases[i].json, 0, &je);
    assert_non_null(root);
    pm_prof_published *out = (pm_prof_published *)1;
    char err[256] = "";
    assert_int_equal(pm_prof_published_from_json(root, 2, &out, err, sizeof err), -1);
    assert_null(out);
    if (!strstr(err, cases[i].needle)) fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].needle);
    json_decref(root);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_quantity_bins, setup, teardown),
      cmocka_unit_test_setup_teardown(test_quantity_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tag_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tag_tree_bound, setup, teardown),
      cmocka_unit_test_setup_teardown(test_inactive, setup, teardown),
      cmocka_unit_test(test_merge_and_json),
      cmocka_unit_test(test_malformed),
  };
  return cmocka_run_group_tests_name("published: tag tree and quantities", tests, NULL, NULL);
}
