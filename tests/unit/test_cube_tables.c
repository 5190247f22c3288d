/* The CUBE writer's fixed parts: the metric table (shape, metric-tree inclusiveness, CubePL text),
 * the call-tree row order, and the system-tree layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "pm_cube_internal.h"

#define S(x) (1u << (x))

static int depth_of(int i) {
  int d = 0;
  for (int p = pm_cube_metrics[i].parent; p >= 0; p = pm_cube_metrics[p].parent) d++;
  return d;
}

/* Pre-order with contiguous subtrees: the metric before i is i's parent or a descendant of i's
 * parent's subtree; ids are table indices, so this is what the anchor's nesting relies on. */
static void test_table_preorder(void **state) {
  (void)state;
  assert_true(pm_cube_nmetrics > 0);
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    int par = pm_cube_metrics[i].parent;
    assert_true(par < i);
    assert_true(depth_of(i) < 8);
    if (par >= 0 && i > 0) {
      int a = i - 1;
      while (a >= 0 && a != par) a = pm_cube_metrics[a].parent;
      assert_int_equal(a, par); /* the previous metric lies inside par's subtree */
      assert_int_equal(pm_cube_metrics[par].src, PM_CUBE_SRC_STATES);
    }
  }
}

static void test_table_names_and_types(void **state) {
  (void)state;
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    const pm_cube_metric_def *m = &pm_cube_metrics[i];
    for (const char *s = m->uniq; *s; s++) assert_true(isalnum((unsigned char)*s) || *s == '_');
    for (int j = 0; j < i; j++) assert_string_not_equal(m->uniq, pm_cube_metrics[j].uniq);
    assert_true(m->disp[0] && m->descr[0] && m->uom);
    if (m->src == PM_CUBE_SRC_DERIVED) {
      assert_true(m->type == PM_CUBE_POSTDERIVED || m->type == PM_CUBE_PREDERIVED_INCLUSIVE ||
                  m->type == PM_CUBE_PREDERIVED_EXCLUSIVE);
      assert_int_equal(m->dtype, PM_CUBE_DOUBLE); /* CubeLib: derived metrics are DOUBLE */
      /* CubeLib ignores the aggregation rules of a POSTDERIVED metric read from a file */
      if (m->type == PM_CUBE_POSTDERIVED) assert_true(!m->aggr && !m->plus && !m->minus && !m->init);
    } else {
      assert_int_equal(m->type, PM_CUBE_EXCLUSIVE);
      int is_time = m->src == PM_CUBE_SRC_STATES || m->src == PM_CUBE_SRC_TRANSFER || m->src == PM_CUBE_SRC_CPU_WAIT;
      assert_int_equal(m->dtype, is_time ? PM_CUBE_DOUBLE : PM_CUBE_UINT64);
    }
  }
  assert_string_equal(pm_cube_metrics[0].uniq, "time");
}

/* The transfer rows close the table, so a file without them keeps every other id; they are written
 * only for a profile that measured the transfer time. */
static void test_table_transfer_rows(void **state) {
  (void)state;
  int first = pm_cube_nmetrics - PM_CUBE_NTRANSFER;
  assert_string_equal(pm_cube_metrics[first].uniq, "transfer_time_mpi");
  assert_int_equal(pm_cube_metrics[first].src, PM_CUBE_SRC_TRANSFER);
  for (int i = 0; i < first; i++)
    assert_null(strstr(pm_cube_metrics[i].cubepl ? pm_cube_metrics[i].cubepl : "", "transfer"));
  for (int i = first; i < pm_cube_nmetrics; i++) assert_int_equal(pm_cube_metrics[i].parent, -1);
  pm_profile p = {0};
  assert_int_equal(pm_cube_nmetrics_of(&p), first);
  p.has_mpi_transfer = 1;
  assert_int_equal(pm_cube_nmetrics_of(&p), pm_cube_nmetrics);
  pm_prof_value v = {.mpi_transfer = 0.25};
  v.time[PM_STATE_MPI_P2P] = 1.0;
  assert_double_equal(pm_cube_time_of(&pm_cube_metrics[first], &v), 0.25, 0.0);
}

/* CubeLib's metric-tree semantics: a parent's stored value includes its children. So a child's
 * states are a subset of its parent's, siblings are disjoint, and "time" holds every state but
 * "off"; every measured state is in exactly one top-level child of time. */
static void test_table_metric_tree_inclusive(void **state) {
  (void)state;
  unsigned all = ((1u << PM_STATE_COUNT) - 1) & ~S(PM_STATE_OFF);
  assert_int_equal(pm_cube_metrics[0].states, all);
  unsigned top = 0;
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    const pm_cube_metric_def *m = &pm_cube_metrics[i];
    if (m->src != PM_CUBE_SRC_STATES) continue;
    assert_true(m->states != 0);
    if (m->parent < 0) continue;
    assert_int_equal(m->states & ~pm_cube_metrics[m->parent].states, 0);
    for (int j = 0; j < i; j++)
      if (pm_cube_metrics[j].parent == m->parent) assert_int_equal(m->states & pm_cube_metrics[j].states, 0);
    if (m->parent == 0) {
      assert_int_equal(top & m->states, 0);
      top |= m->states;
    }
  }
  assert_int_equal(top, all);
  /* the issue's tree: MPI holds its five kinds, idle includes synchronisation waits */
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    if (!strcmp(pm_cube_metrics[i].uniq, "mpi"))
      assert_int_equal(pm_cube_metrics[i].states, S(PM_STATE_MPI_P2P) | S(PM_STATE_MPI_COLL) | S(PM_STATE_MPI_SYNC) |
                                                      S(PM_STATE_MPI_MGMT) | S(PM_STATE_MPI_IO));
    if (!strcmp(pm_cube_metrics[i].uniq, "idle"))
      assert_int_equal(pm_cube_metrics[i].states, S(PM_STATE_IDLE) | S(PM_STATE_SYNC_WAIT));
  }
}

/* CubePL: no '<' (CubeLib's CubePL parser rejects it even as an entity) or '&', and every
 * metric::NAME refers to a metric defined earlier in the table. */
static void test_table_cubepl(void **state) {
  (void)state;
  int nderived = 0;
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    const pm_cube_metric_def *m = &pm_cube_metrics[i];
    if (m->src != PM_CUBE_SRC_DERIVED) {
      assert_null(m->cubepl);
      continue;
    }
    nderived++;
    char *e = pm_cube_expression(m, 12);
    assert_non_null(e);
    assert_null(strchr(e, '<'));
    assert_null(strchr(e, '&'));
    assert_null(strstr(e, "@N@"));
    for (const char *q = e; (q = strstr(q, "metric::"));) {
      q += 8;
      size_t k = strcspn(q, "(");
      int found = -1;
      for (int j = 0; j < i; j++)
        if (strlen(pm_cube_metrics[j].uniq) == k && !strncmp(pm_cube_metrics[j].uniq, q, k)) found = j;
      assert_true(found >= 0);
    }
    free(e);
  }
  assert_int_equal(nderived, 15);
  /* @N@ is the run's number of compute locations, the cap of a selection's count */
  const pm_cube_metric_def *nsel = NULL;
  for (int i = 0; i < pm_cube_nmetrics; i++)
    if (!strcmp(pm_cube_metrics[i].uniq, "pop_nsel")) nsel = &pm_cube_metrics[i];
  assert_non_null(nsel);
  char *e = pm_cube_expression(nsel, 12);
  assert_string_equal(e, "min(12, metric::pop_nloc(i))");
  free(e);
}

static void test_value_extraction(void **state) {
  (void)state;
  pm_prof_value v = {0};
  for (int s = 0; s < PM_STATE_COUNT; s++) v.time[s] = (double)(1u << s);
  v.visits = 7;
  v.io_bytes_written = 1ull << 40;
  for (int i = 0; i < pm_cube_nmetrics; i++) {
    const pm_cube_metric_def *m = &pm_cube_metrics[i];
    if (m->src == PM_CUBE_SRC_STATES) assert_double_equal(pm_cube_time_of(m, &v), (double)m->states, 0);
    if (!strcmp(m->uniq, "visits")) assert_int_equal(pm_cube_count_of(m, &v), 7);
    if (!strcmp(m->uniq, "io_bytes_written")) assert_true(pm_cube_count_of(m, &v) == 1ull << 40);
  }
}

/* The example of docs/cube-format.md §5 (verified with cube_dump): main{init{io}, solve} with ids
 * main 0, init 1, solve 2, io 3 is stored in the order 0 1 3 2. */
static void test_preorder(void **state) {
  (void)state;
  pm_prof_cnode cn[] = {{-1, 0}, {0, 1}, {0, 2}, {1, 3}};
  int order[4];
  assert_int_equal(pm_cube_preorder(cn, 4, order), 0);
  int expect[] = {0, 1, 3, 2};
  assert_memory_equal(order, expect, sizeof expect);
  /* two roots, children in id order: A0{C2{E4}} B1{D3} -> 0 2 4 1 3 */
  pm_prof_cnode forest[] = {{-1, 0}, {-1, 0}, {0, 0}, {1, 0}, {2, 0}};
  int o2[5], e2[] = {0, 2, 4, 1, 3};
  assert_int_equal(pm_cube_preorder(forest, 5, o2), 0);
  assert_memory_equal(o2, e2, sizeof e2);
}

/* A 200000-deep chain: no recursion on the C stack. */
static void test_preorder_deep(void **state) {
  (void)state;
  int n = 200000;
  pm_prof_cnode *cn = malloc(sizeof *cn * (size_t)n);
  int *order = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) cn[i] = (pm_prof_cnode){i - 1, 0};
  assert_int_equal(pm_cube_preorder(cn, n, order), 0);
  for (int i = 0; i < n; i++) assert_int_equal(order[i], i);
  free(cn);
  free(order);
}

/* Ranks 0 and 2 share host a, rank 1 is on host b: the system tree nests a{0,2} b{1}, so the
 * columns follow that order; progress threads and devices are not compute locations. */
static void test_layout(void **state) {
  (void)state;
  pm_profile *p = pm_profile_new();
  p->nprocesses = 3;
  p->proc = calloc(3, sizeof *p->proc);
  const char *hosts[] = {"a", "b", "a"};
  for (int i = 0; i < 3; i++) {
    p->proc[i].rank = i;
    snprintf(p->proc[i].host, sizeof p->proc[i].host, "%s", hosts[i]);
  }
  p->nlocations = 5;
  p->loc = calloc(5, sizeof *p->loc);
  int proc[] = {0, 1, 2, 2, 0}, thread[] = {0, 0, 1, 0, 1},
      role[] = {PM_ROLE_MAIN, PM_ROLE_MAIN, PM_ROLE_PROGRESS, PM_ROLE_MAIN, PM_ROLE_DEVICE};
  for (int i = 0; i < 5; i++) {
    p->loc[i].process = proc[i];
    p->loc[i].thread = thread[i];
    p->loc[i].role = role[i];
  }
  pm_profile_finish(p);
  pm_cube_layout lay;
  assert_int_equal(pm_cube_layout_build(p, &lay), 0);
  int groups[] = {0, 2, 1};     /* group g holds process groups[g] */
  int cols[] = {0, 4, 3, 2, 1}; /* column c holds profile location cols[c] */
  assert_memory_equal(lay.proc_of_group, groups, sizeof groups);
  assert_memory_equal(lay.loc_of_col, cols, sizeof cols);
  for (int c = 0; c < 5; c++) assert_int_equal(lay.col[cols[c]], c);
  assert_int_equal(lay.ncompute, 3);
  assert_int_equal(lay.has_gpu, 1);
  /* the CubePL init marks CUBE locations 1 (the device, profile location 4) and 3 (the progress
   * thread, profile location 2) as non-compute: no '<', which CubeLib's CubePL parser rejects */
  char *init = pm_cube_init_expression(p, &lay);
  assert_string_equal(init, "{ global(pop_compute); ${i} = 0; while ( ${cube::#locations} > ${i} ) { "
                            "${pop_compute}[${i}] = 1; ${i} = ${i} + 1; }; ${pop_compute}[1] = 0; "
                            "${pop_compute}[3] = 0; return 0; }");
  free(init);
  pm_cube_layout_free(&lay);
  pm_profile_free(p);
}

static void test_xml_escape(void **state) {
  (void)state;
  pm_cube_buf b = {0};
  pm_cube_buf_escaped(&b, "a<b>&\"c'\n\td");
  assert_false(b.failed);
  assert_string_equal(b.s, "a&lt;b&gt;&amp;&quot;c&apos;  d");
  pm_cube_buf_printf(&b, "%d", 42);
  assert_string_equal(b.s + b.len - 2, "42");
  pm_cube_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_preorder),
      cmocka_unit_test(test_table_names_and_types),
      cmocka_unit_test(test_table_transfer_rows),
      cmocka_unit_test(test_table_metric_tree_inclusive),
      cmocka_unit_test(test_table_cubepl),
      cmocka_unit_test(test_value_extraction),
      cmocka_unit_test(test_preorder),
      cmocka_unit_test(test_preorder_deep),
      cmocka_unit_test(test_layout),
      cmocka_unit_test(test_xml_escape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
