/* CubeLib-compatible tar member writer (layout explained in pm_tar.h). */
#include "pm_tar.h"
#include <errno.h>
#include <string.h>

static const unsigned char zeros[PM_TAR_BLOCK];

uint64_t pm_tar_span(uint64_t size) {
  /* Not ((size + 511) / 512) * 512: CubeLib always skips at least one block past the data start
   * + size/512 blocks, so an exact multiple of 512 gets a whole extra zero block. */
  return size == 0 ? 0 : (size / PM_TAR_BLOCK + 1) * PM_TAR_BLOCK;
}

/* An octal field of width w: w-1 digits, then NUL (as cubew and GNU tar write them). */
static void octal(unsigned char *field, size_t w, uint64_t v) {
  field[w - 1] = '\0';
  for (size_t i = w - 1; i-- > 0; v >>= 3) field[i] = (unsigned char)('0' + (v & 7));
}

int pm_tar_header(unsigned char b[PM_TAR_BLOCK], const char *name, uint64_t size, uint64_t mtime) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n > PM_TAR_MAX_NAME) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (size > PM_TAR_MAX_SIZE) {
    errno = EFBIG;
    return -1;
  }
  if (mtime > PM_TAR_MAX_SIZE) mtime = 0; /* same field width; a clock past 2242 is not worth an error */
  memset(b, 0, PM_TAR_BLOCK);
  memcpy(b, name, n);           /* name[100] */
  octal(b + 100, 8, 0600);      /* mode */
  octal(b + 108, 8, 0);         /* uid */
  octal(b + 116, 8, 0);         /* gid */
  octal(b + 124, 12, size);     /* size */
  octal(b + 136, 12, mtime);    /* mtime */
  b[156] = '0';                 /* typeflag: regular file */
  memcpy(b + 257, "ustar", 6);  /* magic "ustar\0" */
  memcpy(b + 263, "00", 2);     /* version */
  memcpy(b + 265, "nouser", 6); /* uname */
  memcpy(b + 297, "users", 5);  /* gname */
  /* checksum: sum of all bytes with the checksum field counted as eight spaces; written as six
   * octal digits, NUL, space */
  memset(b + 148, ' ', 8);
  unsigned sum = 0;
  for (int i = 0; i < PM_TAR_BLOCK; i++) sum += b[i];
  octal(b + 148, 7, sum);
  b[155] = ' ';
  return 0;
}

int pm_tar_write_header(FILE *f, const char *name, uint64_t size, uint64_t mtime) {
  unsigned char b[PM_TAR_BLOCK];
  if (pm_tar_header(b, name, size, mtime) != 0) return -1;
  return fwrite(b, 1, sizeof b, f) == sizeof b ? 0 : -1;
}

int pm_tar_write_padding(FILE *f, uint64_t size) {
  size_t pad = (size_t)(pm_tar_span(size) - size);
  return pad == 0 || fwrite(zeros, 1, pad, f) == pad ? 0 : -1;
}

int pm_tar_write_member(FILE *f, const char *name, const void *data, uint64_t size, uint64_t mtime) {
  if (pm_tar_write_header(f, name, size, mtime) != 0) return -1;
  if (size && fwrite(data, 1, (size_t)size, f) != (size_t)size) return -1;
  return pm_tar_write_padding(f, size);
}

int pm_tar_write_end(FILE *f) {
  return fwrite(zeros, 1, sizeof zeros, f) == sizeof zeros && fwrite(zeros, 1, sizeof zeros, f) == sizeof zeros ? 0
                                                                                                                : -1;
}
