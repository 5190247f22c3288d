/* The output directory: created safely (never through a planted symlink, never mixing two runs).
 * Its files are written atomically (lib/base/pm_file.h). */
#ifndef PM_OUTPUT_H
#define PM_OUTPUT_H
#include <stdio.h>
#include <stddef.h>
/* Chooses and creates the output directory from POPMETER_OUTPUT (or the default name built from
 * app and start time), with suffix appended (e.g. ".rank3" when ranks report separately). When it is unusable, falls back to a fresh directory under $TMPDIR (or /tmp)
 * and says so. Writes the path into dir; returns 0, or -1 when no directory could be made. */
int pm_output_prepare(const char *requested, const char *app, const char *start_time, int overwrite, const char *suffix,
                      char *dir, size_t len);
#endif
