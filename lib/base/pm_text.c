/* Clean text for every output (see pm_text.h). */
#include "pm_text.h"
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 character at s (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), or 0 when s does not start one. Control characters count as 0 too. */
static size_t char_len(const unsigned char *s) {
  unsigned c = s[0];
  if (c < 0x20 || c == 0x7f) return 0;
  if (c < 0x80) return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
  if (c >= 0xc2 && c <= 0xdf)
    n = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else
    return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < n; k++)
    if (s[k] < 0x80 || s[k] > 0xbf) return 0;
  return n;
}

size_t pm_text_clean(char *dst, size_t size, const char *src) {
  static const char hex[] = "0123456789ABCDEF";
  if (size == 0) return 0;
  const unsigned char *s = (const unsigned char *)src;
  size_t out = 0;
  while (*s) {
    size_t n = char_len(s);
    size_t need = n ? n : 4;
    if (out + need > size - 1) break;
    if (n) {
      memcpy(dst + out, s, n);
      s += n;
    } else {
      dst[out] = '\\';
      dst[out + 1] = 'x';
      dst[out + 2] = hex[*s >> 4];
      dst[out + 3] = hex[*s & 15];
      s++;
    }
    out += need;
  }
  dst[out] = '\0';
  return out;
}

int pm_text_is_clean(const char *src) {
  const unsigned char *s = (const unsigned char *)src;
  while (*s) {
    size_t n = char_len(s);
    if (!n) return 0;
    s += n;
  }
  return 1;
}

char *pm_text_clean_dup(const char *src) {
  size_t size = 4 * strlen(src) + 1; /* every byte escaped at worst */
  char *d = malloc(size);
  if (d) pm_text_clean(d, size, src);
  return d;
}

void pm_text_clean_field(char *field, size_t size) {
  if (size == 0) return;
  field[size - 1] = '\0';
  if (pm_text_is_clean(field)) return;
  char copy[4096]; /* the profile's fields are at most 1 KiB */
  if (size > sizeof copy) size = sizeof copy;
  memcpy(copy, field, size);
  copy[size - 1] = '\0';
  pm_text_clean(field, size, copy);
}

int pm_text_clean_heap(char **s) {
  if (!*s || pm_text_is_clean(*s)) return 0;
  char *d = pm_text_clean_dup(*s);
  if (!d) return -1;
  free(*s);
  *s = d;
  return 0;
}
