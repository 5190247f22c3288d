/* The tar layer of the checker: reads members the way CubeLib's TarReader does (next header at
 * pos + 512 + (size/512 + 1) * 512 when size > 0) and names the two ways a file can disagree with
 * it: standard-tar padding (the members after an exact multiple of 512 are lost to CubeLib) and
 * garbage where CubeLib expects padding or a header. */
#include "cubex_internal.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BLK 512

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

static int all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

/* An octal ustar field: digits, then NUL or space padding. Returns 0 and the value, or -1. */
static int octal(const unsigned char *f, size_t w, uint64_t *v) {
  size_t i = 0;
  *v = 0;
  while (i < w && f[i] == ' ') i++;
  if (i == w || f[i] < '0' || f[i] > '7') return -1;
  for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) *v = *v * 8 + (uint64_t)(f[i] - '0');
  for (; i < w; i++)
    if (f[i] != ' ' && f[i] != '\0') return -1;
  return 0;
}

static int is_header(const unsigned char *b) { return memcmp(b + 257, "ustar", 5) == 0; }

/* Validates one header block; fills name and size. */
static int header(const unsigned char *b, size_t pos, cx_member *m, char *err, size_t len) {
  if (!is_header(b)) return fail(err, len, "offset %zu: not a ustar header (magic missing)", pos);
  uint64_t sum, v;
  if (octal(b + 148, 8, &sum) != 0) return fail(err, len, "offset %zu: unreadable header checksum", pos);
  unsigned s = 0;
  for (int i = 0; i < BLK; i++) s += (i >= 148 && i < 156) ? ' ' : b[i];
  if (s != sum) return fail(err, len, "offset %zu: header checksum %llu, computed %u", pos, (unsigned long long)sum, s);
  if (b[124] & 0x80) return fail(err, len, "offset %zu: base-256 size field (not written by cubew)", pos);
  if (octal(b + 124, 12, &v) != 0) return fail(err, len, "offset %zu: unreadable size field", pos);
  if (b[156] == 'x' || b[156] == 'g')
    return fail(err, len,
                "offset %zu: PAX header (cubew uses it only for members of 8 GiB or more; not supported here)", pos);
  if (b[156] != '0' && b[156] != '\0')
    return fail(err, len, "offset %zu: member of type '%c', not a regular file", pos, b[156]);
  if (b[0] == '\0') return fail(err, len, "offset %zu: member without a name", pos);
  memcpy(m->name, b, 100);
  m->name[100] = '\0';
  m->off = pos + BLK;
  m->size = (size_t)v;
  return 0;
}

int cx_tar_scan(const unsigned char *buf, size_t size, cx_member **mem, int *nmem, char *err, size_t len) {
  *mem = NULL;
  *nmem = 0;
  if (size < BLK || !is_header(buf))
    return fail(
        err, len,
        "not a ustar archive: the first 512-byte block is no ustar header (CubeLib: \"Cannot determine what layout\")");
  int cap = 0;
  size_t pos = 0;
  for (;;) {
    if (pos + BLK > size) return fail(err, len, "archive truncated at offset %zu: no end-of-archive blocks", pos);
    if (all_zero(buf + pos, BLK)) break;
    if (*nmem == cap) {
      cap = cap ? 2 * cap : 16;
      cx_member *q = realloc(*mem, sizeof *q * (size_t)cap);
      if (!q) return fail(err, len, "out of memory");
      *mem = q;
    }
    cx_member *m = &(*mem)[*nmem];
    if (header(buf + pos, pos, m, err, len) != 0) return -1;
    if (m->size > size - m->off)
      return fail(err, len, "member %s truncated: %zu bytes announced, %zu present", m->name, m->size, size - m->off);
    size_t span = m->size == 0 ? 0 : (m->size / BLK + 1) * BLK; /* CubeLib's rule */
    size_t next = m->off + span;
    if (next > size) return fail(err, len, "member %s: archive ends inside its padding (truncated)", m->name);
    /* Standard tar puts the next header right after the data when the size is a multiple of 512;
     * CubeLib skips that block and then misses every later member. */
    if (m->size > 0 && m->size % BLK == 0 && is_header(buf + m->off + m->size))
      return fail(err, len,
                  "member %s (%zu bytes, a multiple of 512) is followed directly by the next header: "
                  "standard tar padding; CubeLib expects one more zero block and would not find the following members",
                  m->name, m->size);
    if (!all_zero(buf + m->off + m->size, span - m->size))
      return fail(err, len, "member %s: padding after the data is not zero", m->name);
    for (int i = 0; i < *nmem; i++)
      if (!strcmp((*mem)[i].name, m->name)) return fail(err, len, "member %s appears twice", m->name);
    (*nmem)++;
    pos = next;
  }
  if (pos + 2 * BLK > size || !all_zero(buf + pos + BLK, BLK))
    return fail(err, len, "the archive does not end with two zero blocks (truncated?)");
  if (!all_zero(buf + pos, size - pos)) return fail(err, len, "data after the end-of-archive blocks");
  if (*nmem == 0) return fail(err, len, "empty archive");
  return 0;
}
