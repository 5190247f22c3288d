/* Out of memory: every allocation of libpopmetrics is made to fail in turn (the test is linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free, which reroutes the library's calls
 * through the wrappers below). A model or renderer must then return NULL (or a complete result when
 * it could do without that allocation), never crash, and never leak: the wrappers count live
 * blocks, which must be back to zero once the result is freed. */
#include "test_metrics_common.h"
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

static long countdown = -1; /* fail when it reaches 0; -1: never */
static long nallocs, live;

static int should_fail(void) {
  nallocs++;
  if (countdown > 0 && --countdown == 0) return 1;
  return 0;
}

void *__wrap_malloc(size_t n) {
  void *p;
  if (should_fail()) return NULL;
  p = __real_malloc(n);
  if (p) live++;
  return p;
}

void *__wrap_calloc(size_t n, size_t s) {
  void *p;
  if (should_fail()) return NULL;
  p = __real_calloc(n, s);
  if (p) live++;
  return p;
}

void *__wrap_realloc(void *q, size_t n) {
  void *p;
  if (should_fail()) return NULL;
  p = __real_realloc(q, n);
  if (p && !q) live++;
  return p;
}

void __wrap_free(void *p) {
  if (p) live--;
  __real_free(p);
}

/* A run with a bit of everything (values do not matter here). */
static pm_location_input L[9];
static pm_omp_region_input REG[2];
static pm_codelet_input COD[3] = {{"gemm", 0, 40, 30, 4}, {"gemm", 1, 6, 5, 6}, {"potrf", 0, 4, 0, 2}};
static const double IDLE[2] = {0.5, 1}, USEFUL[2] = {4, 3}, PL[2] = {8, 7};
static pm_run_input IN;

static void setup_run(void) {
  int i;
  for (i = 0; i < 4; i++) {
    L[i] = tm_loc(i / 2, PM_LOC_THREAD, 5 + i);
    L[i].tl_cue = 5 + i;
    L[i].node = i / 2;
    L[i].in_parallel = 6;
    L[i].omp_useful = 4;
    L[i].counters.has_instructions = L[i].counters.has_cycles = L[i].counters.has_fp = 1;
    L[i].counters.instructions = L[i].counters.cycles = 100;
    L[i].counters.fp_by_width[1] = 10;
  }
  L[0].calls_mpi = L[2].calls_mpi = 1;
  L[0].mpi = 1;
  L[0].serial_useful = L[2].serial_useful = 1;
  L[4] = tm_loc(0, PM_LOC_WORKER, 4);
  L[4].exec = 44;
  L[5] = tm_loc(1, PM_LOC_WORKER, 4);
  L[6] = tm_loc(1, PM_LOC_ACCEL, 6);
  L[6].exec = 6;
  L[7] = tm_loc(0, PM_LOC_PROGRESS, 0);
  L[8] = tm_loc(1, PM_LOC_DEVICE, 0);
  L[8].kernel = 3;
  REG[0] = (pm_omp_region_input){"a", 0, 2, 6, IDLE, USEFUL};
  REG[1] = (pm_omp_region_input){"b", 1, 2, 6, IDLE, USEFUL};
  IN = tm_run(L, 9, 2, 10.0);
  IN.nnodes = 2;
  IN.has_critical_path = 1;
  IN.g_cue = 9;
  IN.g_coo = 9.5;
  IN.g_com = 9;
  IN.pl_cue = PL;
  IN.omp_regions = REG;
  IN.nomp_regions = 2;
  IN.codelets = COD;
  IN.ncodelets = 3;
  IN.nworker_types = 2;
  IN.vector_width_max = 256;
}

typedef void *(*producer)(void);

static pm_metric *(*current_model)(const pm_run_input *);
static void *run_model(void) { return current_model(&IN); }

static void *run_scaling(void) {
  static const pm_scaling_run r[2] = {{4, 1, 100, 360, 0.9, 1, 4e11, 2e11}, {8, 1, 50, 400, 0.9, 1, 4.4e11, 2.5e11}};
  return pm_model_scaling(r, 2, 1, 0, PM_SCALING_AUTO);
}

static pm_metric *TREES[2];
static void *run_text(void) {
  static const char *hdr[2] = {"a", "b"};
  return pm_render_text_string((const pm_metric *const *)TREES, 2, hdr, 100);
}

static void *run_json(void) { return pm_render_json_string(TREES[0], PM_JSON_PRETTY); }

static int WIDTH_RESULT;
static void *run_fit(void) {
  WIDTH_RESULT = (int)pm_render_text_columns_fit((const pm_metric *const *)TREES, 2, NULL, 100);
  return NULL;
}

static void *run_defaults(void) {
  (void)pm_models_default(&IN);
  return NULL;
}

static void *run_area_bound(void) {
  double T;
  const char *why;
  (void)pm_task_area_bound(COD, 3, 2, 1, &T, &why);
  return NULL;
}

static int count_nodes(const pm_metric *m) {
  size_t i;
  int n = 1;
  for (i = 0; i < m->nchildren; i++) n += count_nodes(m->children[i]);
  return n;
}

/* Fails allocation k = 1, 2, ... until the producer runs without reaching k; returns the number of
 * allocations a successful run makes. is_tree: the result is a pm_metric (else a malloc'd string
 * or nothing). */
static long exhaust(producer f, int is_tree, int must_succeed) {
  long k, base, n;
  int nodes = 0;
  void *r;
  countdown = -1;
  nallocs = 0;
  base = live;
  r = f();
  if (must_succeed) assert_non_null(r);
  if (is_tree) {
    nodes = count_nodes(r);
    pm_metric_free(r);
  } else
    free(r);
  assert_int_equal(live, base);
  n = nallocs;
  for (k = 1; k <= n + 1; k++) {
    long before = live;
    countdown = k;
    r = f();
    countdown = -1;
    if (is_tree) {
      if (r) { /* a result, when there is one, is complete */
        assert_true(pm_metric_ok(r));
        assert_int_equal(count_nodes(r), nodes);
      }
      pm_metric_free(r);
    } else {
      free(r);
    }
    assert_int_equal(live, before);
  }
  return n;
}

static void test_models(void **state) {
  static pm_metric *(*const models[8])(const pm_run_input *) = {
      pm_model_basic, pm_model_multiplicative, pm_model_additive, pm_model_critical_path,
      pm_model_talp,  pm_model_task,           pm_model_io,       pm_model_vectorization};
  int m;
  (void)state;
  setup_run();
  for (m = 0; m < 8; m++) {
    long n;
    current_model = models[m];
    n = exhaust(run_model, 1, 1);
    assert_true(n > 10);
  }
  assert_true(exhaust(run_scaling, 1, 1) > 10);
  exhaust(run_defaults, 0, 0);
  exhaust(run_area_bound, 0, 0);
}

/* A failed allocation inside a model returns NULL (not a partial tree). */
static void test_null_on_failure(void **state) {
  pm_metric *t;
  (void)state;
  setup_run();
  countdown = 1;
  t = pm_model_basic(&IN);
  countdown = -1;
  assert_null(t);
  countdown = 3; /* a string of the root */
  t = pm_model_task(&IN);
  countdown = -1;
  assert_null(t);
}

static void test_renderers(void **state) {
  (void)state;
  setup_run();
  TREES[0] = pm_model_talp(&IN);
  TREES[1] = pm_model_basic(NULL); /* other rows (row insertion) and n/a footnotes */
  assert_true(exhaust(run_text, 0, 1) > 10);
  assert_true(exhaust(run_json, 0, 1) > 0);
  exhaust(run_fit, 0, 0);
  pm_metric_free(TREES[0]);
  pm_metric_free(TREES[1]);
}

/* Direct tree API under failure. */
static void test_tree_api(void **state) {
  pm_metric *m, *c;
  long k, base = live;
  (void)state;
  for (k = 1; k <= 5; k++) { /* pm_metric_new makes 5 allocations */
    countdown = k;
    m = pm_metric_new("x", "X", "u", "d");
    countdown = -1;
    assert_null(m);
  }
  m = pm_metric_new("x", "X", "u", "d");
  countdown = 1;
  pm_metric_set_na(m, "reason"); /* the copy fails: no n/a without a reason */
  countdown = -1;
  assert_int_equal(m->state, PM_METRIC_HEADING);
  assert_false(pm_metric_ok(m));
  pm_metric_free(m);
  m = pm_metric_new("x", "X", "u", "d");
  countdown = 1;
  pm_metric_set_warning(m, "w");
  countdown = -1;
  assert_null(m->warning);
  assert_false(pm_metric_ok(m));
  pm_metric_free(m);
  m = pm_metric_new("x", "X", "u", "d");
  c = pm_metric_new("y", "Y", "", "");
  countdown = 1; /* growing the children array fails: the child is freed */
  assert_null(pm_metric_add(m, c));
  countdown = -1;
  assert_false(pm_metric_ok(m));
  pm_metric_free(m);
  assert_int_equal(live, base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models),
      cmocka_unit_test(test_null_on_failure),
      cmocka_unit_test(test_renderers),
      cmocka_unit_test(test_tree_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
