/* view/: the page of one run, as the popmeter launcher's `popmeter view` writes it (vw_main.c; vw.h
 * says how the page is made). */
#ifndef PM_VIEW_H
#define PM_VIEW_H
#include <stddef.h>

/* Tasks and states drawn one by one at most, by default (shorter ones are merged into bins). */
#define PM_VIEW_BUDGET 250000
/* Writes the page of the run whose popmeter.json is json, in directory dir (its trace:
 * dir/traces.otf2), to out (NULL: dir/view.html), replacing an existing file only with force.
 * Prints one line saying what was written, errors on stderr. 0 written, 1 error. */
int pm_view_write(const char *json, const char *dir, const char *out, int force, size_t budget);
#endif
