/* Atomic output files (pm_file.h). */
#define _GNU_SOURCE
#include "pm_file.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static int fail(char *err, size_t n, const char *fmt, ...) {
  if (err && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int pm_afile_open(pm_afile *a, const char *path, int overwrite, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  a->overwrite = overwrite;
  if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path)
    return fail(err, errlen, "%s: path too long", path);
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  for (int k = 0; k < 100; k++) {
    snprintf(a->tmp, sizeof a->tmp, "%.*s.%s.%ld.%d.tmp", dirlen, path, slash ? slash + 1 : path, (long)getpid(), k);
    int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return fail(err, errlen, "cannot create %s: %s", a->tmp, strerror(errno));
    if (!(a->f = fdopen(fd, "wb"))) {
      int e = errno;
      close(fd);
      unlink(a->tmp);
      return fail(err, errlen, "cannot open %s: %s", a->tmp, strerror(e));
    }
    return 0;
  }
  return fail(err, errlen, "cannot create a temporary file next to %s", path);
}

void pm_afile_abort(pm_afile *a) {
  if (a->f) fclose(a->f);
  a->f = NULL;
  if (a->tmp[0]) unlink(a->tmp);
  a->tmp[0] = '\0';
}

/* Without overwrite, link() publishes the file only if its name is free (atomically, unlike a test
 * followed by rename); file systems without hard links fall back to test + rename. */
static int publish(pm_afile *a, char *err, size_t errlen) {
  if (a->overwrite) {
    if (rename(a->tmp, a->path) == 0) return 0;
    return fail(err, errlen, "cannot replace %s: %s", a->path, strerror(errno));
  }
  if (link(a->tmp, a->path) == 0) {
    unlink(a->tmp);
    return 0;
  }
  if (errno == EEXIST) return fail(err, errlen, "%s already exists; not overwritten", a->path);
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS && errno != EMLINK)
    return fail(err, errlen, "cannot create %s: %s", a->path, strerror(errno));
  if (access(a->path, F_OK) == 0 || errno != ENOENT)
    return fail(err, errlen, "%s already exists; not overwritten", a->path);
  if (rename(a->tmp, a->path) == 0) return 0;
  return fail(err, errlen, "cannot create %s: %s", a->path, strerror(errno));
}

int pm_afile_commit(pm_afile *a, char *err, size_t errlen) {
  if (!a->f) return fail(err, errlen, "%s: not open", a->path);
  int e = 0;
  if (fflush(a->f) != 0 || ferror(a->f)) e = errno ? errno : EIO;
  if (!e && fsync(fileno(a->f)) != 0) e = errno;
  if (fclose(a->f) != 0 && !e) e = errno;
  a->f = NULL;
  int rc = e ? fail(err, errlen, "writing %s failed: %s", a->path, strerror(e)) : publish(a, err, errlen);
  if (rc != 0) unlink(a->tmp);
  a->tmp[0] = '\0';
  return rc;
}
