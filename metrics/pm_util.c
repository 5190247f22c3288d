/* Internal helpers: allocation wrappers, string buffer, UTF-8 width, locale-proof number format. */
#include "pm_util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *pm__malloc(size_t n) { return malloc(n ? n : 1); }

void *pm__calloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }

void *pm__realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }

/* Own strdup so that every allocation of the library goes through malloc (tests inject failures). */
char *pm__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = pm__malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

int pm__put_taken(FILE *out, char *s) {
  size_t n;
  int rc;
  if (!s) return -1;
  n = strlen(s);
  rc = fwrite(s, 1, n, out) == n ? 0 : -1;
  free(s);
  return rc;
}

void pm_sb_init(pm_sb *b) {
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

void pm_sb_free(pm_sb *b) {
  free(b->s);
  pm_sb_init(b);
}

/* Makes room for n more bytes plus the terminating NUL. */
static int sb_reserve(pm_sb *b, size_t n) {
  size_t need, ncap;
  char *ns;
  if (b->oom) return 0;
  need = b->len + n + 1;
  if (need <= b->cap) return 1;
  ncap = b->cap ? b->cap : 256;
  while (ncap < need) ncap *= 2;
  ns = pm__realloc(b->s, ncap);
  if (!ns) {
    b->oom = 1;
    return 0;
  }
  b->s = ns;
  b->cap = ncap;
  return 1;
}

void pm_sb_putn(pm_sb *b, const char *s, size_t n) {
  if (!sb_reserve(b, n)) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void pm_sb_puts(pm_sb *b, const char *s) { pm_sb_putn(b, s, strlen(s)); }

void pm_sb_putc(pm_sb *b, char c) { pm_sb_putn(b, &c, 1); }

void pm_sb_pad(pm_sb *b, char c, size_t n) {
  if (!sb_reserve(b, n)) return;
  memset(b->s + b->len, c, n);
  b->len += n;
  b->s[b->len] = '\0';
}

void pm_sb_printf(pm_sb *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    pm_sb_putn(b, small, (size_t)n);
    return;
  }
  if (!sb_reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *pm_sb_take(pm_sb *b) {
  char *s;
  if (b->oom) {
    pm_sb_free(b);
    return NULL;
  }
  if (!b->s) pm_sb_putn(b, "", 0);
  if (b->oom) {
    pm_sb_free(b);
    return NULL;
  }
  s = b->s;
  pm_sb_init(b);
  return s;
}

size_t pm_utf8_width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++;
  return w;
}

size_t pm_utf8_prefix(const char *s, size_t w) {
  size_t i = 0, n = 0;
  while (s[i]) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (n == w) break;
      n++;
    }
    i++;
  }
  return i;
}

void pm_format_2f(double v, char *buf, size_t size) {
  char *p;
  /* Huge values would need hundreds of digits in %f: switch to exponent notation there. */
  snprintf(buf, size, (v >= 1e15 || v <= -1e15) ? "%.2e" : "%.2f", v);
  /* The application may have called setlocale(): force '.' as the decimal separator. */
  for (p = buf; *p; p++)
    if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e')) *p = '.';
  if (strcmp(buf, "-0.00") == 0) /* rounding noise such as 1 - (1 + 1e-17) */
    snprintf(buf, size, "0.00");
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid: an overlong form, a code point
 * out of range or a surrogate. Shared by the JSON renderer and the report writers. */
size_t pm_utf8_seq(const unsigned char *s) {
  size_t n, i;
  unsigned cp;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF) {
    n = 2;
    cp = s[0] & 0x1F;
  } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
    n = 3;
    cp = s[0] & 0x0F;
  } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
    n = 4;
    cp = s[0] & 0x07;
  } else {
    return 0;
  }
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0; /* overlong form, out of range, or a surrogate */
  return n;
}
