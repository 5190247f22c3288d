/*
 * test_solver_common.h — the solver unit tests' common prologue: a generated matrix, analysed with
 * the default options but the tile size (and, where built in, the ordering).
 */
#ifndef TEST_SOLVER_COMMON_H
#define TEST_SOLVER_COMMON_H

#include "mfs.h"

/* Generates spec into *A and analyses it with tile size nb (<= 0: the default) and ordering ord (< 0,
 * or not built in: the default ordering); fails the test on any error. */
/* The generated matrix spec (into A) analysed under options o. */
static inline mfs_symbolic *analyze_spec_with(const char *spec, const mfs_options *o, mfs_matrix *A) {
  mfs_error err;
  assert_int_equal(mfs_matrix_generate(spec, A, &err), MFS_OK);
  mfs_symbolic *S;
  if (mfs_analyze(A, o, &S, &err) != MFS_OK) fail_msg("%s: %s", spec, err.msg);
  return S;
}

/* The same with the default options but the ordering (when built in) and the tile size (> 0). */
static inline mfs_symbolic *analyze_spec(const char *spec, int ord, int nb, mfs_matrix *A) {
  mfs_options o;
  mfs_options_default(&o);
  if (ord >= 0 && mfs_ordering_available((mfs_ordering)ord)) o.ordering = (mfs_ordering)ord;
  if (nb > 0) o.nb = nb;
  return analyze_spec_with(spec, &o, A);
}

#endif
