/* The output directory and its files: created safely (O_NOFOLLOW, never overwritten silently). */
#ifndef PM_OUTPUT_H
#define PM_OUTPUT_H
#include <stdio.h>
#include <stddef.h>
/* Chooses and creates the output directory from POPMETER_OUTPUT (or the default name built from
 * app and start time), with suffix appended (e.g. ".rank3" when ranks report separately). When it is unusable, falls back to a fresh directory under $TMPDIR (or /tmp)
 * and says so. Writes the path into dir; returns 0, or -1 when no directory could be made. */
int pm_output_prepare(const char *requested, const char *app, const char *start_time, int overwrite, const char *suffix,
                      char *dir, size_t len);
/* Opens dir/name for writing: a new file (O_EXCL|O_NOFOLLOW), or, with overwrite, a replacement
 * (written to a temporary name; pm_output_close renames it into place). */
typedef struct {
  FILE *f;
  char path[4096];
  char tmp[4096];
} pm_output_file;
int pm_output_open(pm_output_file *of, const char *dir, const char *name, int overwrite);
int pm_output_close(pm_output_file *of); /* 0 when everything was written */
#endif
