/* Names a code address for reports (parallel regions): the function containing it and, when the
 * program has debug information and libdw is built in, its source line. */
#ifndef PM_SYMBOL_H
#define PM_SYMBOL_H
#include <stddef.h>
#include "pm_core.h"
/* Writes "function @file.c:LINE" (with DWARF line information; GCC's outlined "f._omp_fn.N" is
 * named after f), else "function" (addr is its entry) or "function+0xOFF", or "object+0xOFF" when
 * no symbol is known. Returns 1 when a function name was found. Not for hot paths: may read the
 * object file. */
PM_HIDDEN int pm_symbol_name(const void *addr, char *buf, size_t n);
PM_HIDDEN void pm_symbol_reset(void);
#endif
