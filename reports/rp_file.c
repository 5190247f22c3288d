/* Output directories and files of the report. The files are written the way every popmeter output
 * is (lib/base/pm_file.h): through a temporary, published whole, never over an existing file unless
 * --force; a reader never sees half a report. */
#define _GNU_SOURCE
#include "rp_output.h"
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_one(const char *dir, int last, char *err, size_t errlen) {
  struct stat st;
  if (mkdir(dir, 0755) == 0) return 0;
  if (errno != EEXIST) {
    snprintf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
    return -1;
  }
  /* intermediate components may be symlinks (a user's layout); the output directory itself not */
  if ((last ? lstat(dir, &st) : stat(dir, &st)) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s exists and is not a directory", dir);
    return -1;
  }
  return 0;
}

int rp_make_dirs(const char *dir, char *err, size_t errlen) {
  char p[PATH_MAX];
  size_t i, n = strlen(dir);
  if (n == 0 || n >= sizeof p) {
    snprintf(err, errlen, "invalid output directory '%s'", dir);
    return -1;
  }
  memcpy(p, dir, n + 1);
  while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
  for (i = 1; i < n; i++) {
    if (p[i] != '/') continue;
    p[i] = '\0';
    if (make_one(p, 0, err, errlen) != 0) return -1;
    p[i] = '/';
  }
  return make_one(p, 1, err, errlen);
}

int rp_file_open(rp_file *of, const char *dir, const char *name, int force, char *err, size_t errlen) {
  char path[PATH_MAX];
  if (rp_path(path, sizeof path, "%s/%s", dir, name) != 0) {
    snprintf(err, errlen, "%s/%s: path too long", dir, name);
    return -1;
  }
  return pm_afile_open(of, path, force, err, errlen);
}

int rp_file_close(rp_file *of, char *err, size_t errlen) { return pm_afile_commit(of, err, errlen); }
void rp_file_abort(rp_file *of) { pm_afile_abort(of); }

int rp_path(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  int len;
  va_start(ap, fmt);
  len = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return len < 0 || (size_t)len >= n ? -1 : 0;
}

char *rp_read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n + 1)) != NULL) {
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    } else {
      buf[n] = '\0';
      *len = (size_t)n;
    }
  }
  fclose(f);
  return buf;
}
