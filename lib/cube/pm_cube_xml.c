/* Text buffer and XML escaping for the CUBE anchor. CubeLib reads the anchor with a flex scanner,
 * not an XML library: only the five predefined entities are understood, and a raw '<' in text ends
 * the element, so every name from the profile goes through pm_cube_buf_escaped. */
#include "pm_cube_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(pm_cube_buf *b, size_t extra) {
  if (b->failed) return -1;
  if (b->len + extra + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + extra + 1) cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->failed = 1;
    return -1;
  }
  b->s = s;
  b->cap = cap;
  return 0;
}

void pm_cube_buf_printf(pm_cube_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->failed = 1;
    return;
  }
  if (reserve(b, (size_t)n) != 0) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void pm_cube_buf_puts(pm_cube_buf *b, const char *s) {
  size_t n = strlen(s);
  if (reserve(b, n) != 0) return;
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

void pm_cube_buf_escaped(pm_cube_buf *b, const char *s) {
  for (; *s; s++) {
    const char *e = NULL;
    switch (*s) {
    case '<': e = "&lt;"; break;
    case '>': e = "&gt;"; break;
    case '&': e = "&amp;"; break;
    case '"': e = "&quot;"; break;
    case '\'': e = "&apos;"; break;
    default: break;
    }
    if (e) {
      pm_cube_buf_puts(b, e);
      continue;
    }
    if (reserve(b, 1) != 0) return;
    unsigned char c = (unsigned char)*s;
    b->s[b->len++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    b->s[b->len] = '\0';
  }
}

void pm_cube_buf_free(pm_cube_buf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}
