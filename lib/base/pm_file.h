/* Output files written atomically: every popmeter output (popmeter.json, profile.cubex, the
 * reports' files) is written to a fresh temporary next to its final name (O_CREAT|O_EXCL|
 * O_NOFOLLOW: a planted symlink is never followed), flushed and synced, and only then published:
 * linked to its name, which never replaces an existing file, or renamed over it when overwriting
 * is asked for. On any failure (a full disk, an unwritable directory) the temporary is removed and
 * one message says which file and why: a reader sees the whole file or none. */
#ifndef PM_FILE_H
#define PM_FILE_H
#include <stdio.h>

typedef struct {
  FILE *f;         /* write here between open and commit */
  char path[4200]; /* the final name */
  char tmp[4300];  /* the temporary */
  int overwrite;
} pm_afile;

/* 0, or -1 with err ("cannot create DIR/.NAME...tmp: Permission denied"). */
int pm_afile_open(pm_afile *a, const char *path, int overwrite, char *err, size_t errlen);
/* Flushes, syncs, publishes; 0, or -1 with err ("writing PATH failed: No space left on device",
 * "PATH already exists; not overwritten"). The temporary never remains. */
int pm_afile_commit(pm_afile *a, char *err, size_t errlen);
/* Drops what was written (the writer failed on its own). */
void pm_afile_abort(pm_afile *a);
#endif
