/* The name popmeter gives a parallel region identified by the entry of function fn, defined at
 * line `line` of file (lib/omp/pm_symbol*.c): "fn @file:line" with libdw (the tests are built with
 * debug information, as automake's default CFLAGS have -g), "fn" without it. */
#ifndef OMP_REGION_NAME_H
#define OMP_REGION_NAME_H
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <stdio.h>

static inline const char *omp_region_name(const char *fn, const char *file, int line) {
  static char names[4][160];
  static unsigned k;
  char *b = names[k++ & 3]; /* a few names can be in use at once (one assertion) */
#ifdef PM_HAVE_LIBDW
  snprintf(b, sizeof names[0], "%s @%s:%d", fn, file, line);
#else
  (void)file;
  (void)line;
  snprintf(b, sizeof names[0], "%s", fn);
#endif
  return b;
}
#endif
