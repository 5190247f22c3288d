#define _GNU_SOURCE
#include "pm_output.h"
#include "pm_lifecycle.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory the user named (or the default name), with any missing parents: an existing one
 * may be reached through a symlink the user made; it must be a writable directory. */
static int make_dirs(const char *path) {
  char p[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof p) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(p, path, n + 1);
  for (size_t i = 1; i < n; i++) {
    if (p[i] != '/') continue;
    p[i] = '\0';
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
    p[i] = '/';
  }
  if (mkdir(p, 0755) == 0) return 0;
  if (errno != EEXIST) return -1;
  struct stat st;
  if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return access(p, W_OK | X_OK);
}

/* The fallback under $TMPDIR, a directory anybody may write into: created here, exclusively (an
 * existing one, perhaps planted by another user, is never used), private to the user. */
static int make_private_dir(char *path, size_t len, const char *base) {
  for (int k = 0; k < 100; k++) {
    if (k)
      snprintf(path, len, "%s.%d", base, k);
    else
      snprintf(path, len, "%s", base);
    if (mkdir(path, 0700) == 0) return 0;
    if (errno != EEXIST) return -1;
  }
  return -1;
}

static int has_profile(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/popmeter.json", dir);
  return access(p, F_OK) == 0;
}

int pm_output_prepare(const char *requested, const char *app, const char *start_time, int overwrite, const char *suffix,
                      char *dir, size_t len) {
  char base[4096];
  if (!suffix) suffix = "";
  if (requested && requested[0]) {
    snprintf(base, sizeof base, "%s%s", requested, suffix);
  } else {
    char stamp[40];
    snprintf(stamp, sizeof stamp, "%s", start_time);
    for (char *c = stamp; *c; c++)
      if (*c == ':') *c = '-'; /* portable file names */
    snprintf(base, sizeof base, "popmeter-%s-%s%s", app, stamp, suffix);
  }
  /* never mix two runs in one directory unless asked to */
  snprintf(dir, len, "%s", base);
  for (int k = 1; k < 1000 && !overwrite && has_profile(dir); k++) snprintf(dir, len, "%s.%d", base, k);
  if (make_dirs(dir) == 0) {
    if (strcmp(dir, base) != 0) pm_warn("%s already holds a popmeter.json; writing into %s instead", base, dir);
    return 0;
  }
  int e = errno;
  const char *tmp = secure_getenv("TMPDIR");
  char base_tmp[4096], fallback[4200];
  snprintf(base_tmp, sizeof base_tmp, "%s/popmeter-%s-%ld", tmp && tmp[0] ? tmp : "/tmp", app, (long)getpid());
  if (make_private_dir(fallback, sizeof fallback, base_tmp) == 0) {
    pm_warn("cannot use output directory %s (%s); writing into %s instead", dir, strerror(e), fallback);
    snprintf(dir, len, "%s", fallback);
    return 0;
  }
  pm_error("cannot create output directory %s (%s), nor %s; no files written", dir, strerror(e), fallback);
  return -1;
}
