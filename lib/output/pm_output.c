#define _GNU_SOURCE
#include "pm_output.h"
#include "pm_lifecycle.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir that accepts an existing directory (not a symlink to one: O_NOFOLLOW spirit). */
static int make_dir(const char *path) {
  if (mkdir(path, 0755) == 0) return 0;
  if (errno != EEXIST) return -1;
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return -1;
  }
  return access(path, W_OK | X_OK);
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
  if (make_dir(dir) == 0) {
    if (strcmp(dir, base) != 0) pm_warn("%s already holds a popmeter.json; writing into %s instead", base, dir);
    return 0;
  }
  int e = errno;
  const char *tmp = getenv("TMPDIR");
  char fallback[4096];
  snprintf(fallback, sizeof fallback, "%s/popmeter-%s-%ld", tmp && tmp[0] ? tmp : "/tmp", app, (long)getpid());
  if (make_dir(fallback) == 0) {
    pm_warn("cannot use output directory %s (%s); writing into %s instead", dir, strerror(e), fallback);
    snprintf(dir, len, "%s", fallback);
    return 0;
  }
  pm_error("cannot create output directory %s (%s), nor %s; no files written", dir, strerror(e), fallback);
  return -1;
}

int pm_output_open(pm_output_file *of, const char *dir, const char *name, int overwrite) {
  memset(of, 0, sizeof *of);
  snprintf(of->path, sizeof of->path, "%s/%s", dir, name);
  const char *target = of->path;
  if (overwrite) {
    snprintf(of->tmp, sizeof of->tmp, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
    target = of->tmp;
  }
  int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    pm_error("cannot create %s: %s", target, strerror(errno));
    return -1;
  }
  of->f = fdopen(fd, "w");
  if (!of->f) {
    close(fd);
    pm_error("cannot open %s: %s", target, strerror(errno));
    return -1;
  }
  return 0;
}

int pm_output_close(pm_output_file *of) {
  if (!of->f) return -1;
  int bad = ferror(of->f);
  if (fclose(of->f) != 0) bad = 1;
  of->f = NULL;
  if (bad) {
    pm_error("writing %s failed (disk full?)", of->tmp[0] ? of->tmp : of->path);
    return -1;
  }
  if (of->tmp[0] && rename(of->tmp, of->path) != 0) {
    pm_error("cannot replace %s: %s", of->path, strerror(errno));
    return -1;
  }
  return 0;
}
