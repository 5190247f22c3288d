/* Summaries of repeated runs: median with min and max (the issue asks for "median, with min-max":
 * the median resists one disturbed repeat, the range shows the noise). */
#include "rp_study.h"
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double rp_stat(double *v, int n, int stat) {
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  if (stat == RP_MIN) return v[0];
  if (stat == RP_MAX) return v[n - 1];
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Each field separately: the median run is a reference point, not one of the measured runs. */
pm_scaling_run rp_scaling_run_median(const pm_scaling_run *const *runs, int n) {
  pm_scaling_run m = {0};
  double *v;
  int i;
  if (n <= 0) return m;
  m = *runs[0];
  if (n == 1 || !(v = malloc((size_t)n * sizeof *v))) return m;
#define MEDIAN_OF(field)                           \
  do {                                             \
    for (i = 0; i < n; i++) v[i] = runs[i]->field; \
    m.field = rp_stat(v, n, RP_MEDIAN);            \
  } while (0)
  MEDIAN_OF(runtime);
  MEDIAN_OF(sum_useful);
  MEDIAN_OF(parallel_efficiency);
  for (i = 0; i < n; i++) m.has_counters = i == 0 ? runs[i]->has_counters : m.has_counters && runs[i]->has_counters;
  if (m.has_counters) {
    MEDIAN_OF(sum_instructions);
    MEDIAN_OF(sum_cycles);
  }
#undef MEDIAN_OF
  free(v);
  return m;
}
