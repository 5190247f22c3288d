/* Shared helpers of the libpopmetrics unit tests (test_metrics_*.c): exact value assertions that
 * report the caller's line, tree invariant checks, render checks and a seeded PRNG. */
#ifndef TEST_METRICS_COMMON_H
#define TEST_METRICS_COMMON_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "popmetrics.h"

#define TOL 1e-12

/* cmocka 1.1.5 only has a float comparison: this one is double and prints 17 digits. */
void tm_assert_double(double a, double b, double eps, const char *expr, const char *file, int line);
#define assert_double_equal(a, b, eps) tm_assert_double((a), (b), (eps), #a, __FILE__, __LINE__)

/* Value of the node at path; fails the test (at the caller's line) when missing or not a value. */
double tm_get(const pm_metric *root, const char *path, const char *file, int line);
/* n/a reason of the node at path; fails when missing or not n/a. */
const char *tm_na(const pm_metric *root, const char *path, const char *file, int line);
#define VAL(root, path) tm_get((root), (path), __FILE__, __LINE__)
#define NA(root, path) tm_na((root), (path), __FILE__, __LINE__)
#define ASSERT_VAL(root, path, expect) assert_double_equal(VAL(root, path), (expect), TOL)
#define ASSERT_NA(root, path, reason) assert_string_equal(NA(root, path), (reason))

/* Walks a tree and asserts: values finite, n/a nodes have a reason, ids valid and unique;
 * PRODUCT parents equal the product of their children and ADDITIVE parents' inefficiency the sum of
 * the children's (when all are values; tolerance 1e-12 relative to max(1,|value|)); with
 * bounded01, every efficiency (unit "") lies in [0, 1]. Counts the checks that were made. */
typedef struct {
  int nodes, values, products, additives, bounded;
} tm_counts;
tm_counts tm_check_tree(const pm_metric *root, int bounded01);
/* Renders the tree as text and JSON; asserts neither contains a nan/inf token, and that the JSON
 * parses (jansson) and carries exactly the tree's values. */
void tm_check_render(const pm_metric *root);
/* 1 when s contains a token "nan", "inf" or "infinity" (any case). */
int tm_has_nonfinite_token(const char *s);

/* xorshift64* PRNG: deterministic across platforms. */
typedef struct {
  uint64_t s;
} tm_rng;
void tm_seed(tm_rng *r, uint64_t seed);
uint64_t tm_next(tm_rng *r);
double tm_unif(tm_rng *r, double a, double b); /* [a, b) */
int tm_int(tm_rng *r, int lo, int hi);         /* [lo, hi] */

/* A location with the given process, kind and useful time (everything else 0, node 0). */
pm_location_input tm_loc(int process, pm_loc_kind kind, double useful);
/* A run input over locs with R, P processes, 1 node, no critical path. */
pm_run_input tm_run(const pm_location_input *locs, int n, int nprocesses, double runtime);

#endif
