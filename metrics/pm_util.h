/* Internal helpers of libpopmetrics (not part of the public API): allocation wrappers (one place
 * to reason about out-of-memory), a growable string buffer for the renderers and the write-out of
 * what they built. */
#ifndef PM_UTIL_H
#define PM_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

void *pm__malloc(size_t n);
void *pm__calloc(size_t n, size_t size);
void *pm__realloc(void *p, size_t n);
char *pm__strdup(const char *s);

/* Growable string. After any allocation failure oom is set and further appends are ignored. */
typedef struct {
  char *s;
  size_t len, cap;
  int oom;
} pm_sb;

void pm_sb_init(pm_sb *b);
void pm_sb_free(pm_sb *b);
void pm_sb_putn(pm_sb *b, const char *s, size_t n);
void pm_sb_puts(pm_sb *b, const char *s);
void pm_sb_putc(pm_sb *b, char c);
void pm_sb_pad(pm_sb *b, char c, size_t n); /* n copies of c */
void pm_sb_printf(pm_sb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the string over to the caller (malloc'd, NUL-terminated); NULL if oom. Resets b. */
char *pm_sb_take(pm_sb *b);

/* Writes s (a malloc'd string, NULL: a failure already) to out and frees it. 0, or -1 when s is
 * NULL or the write failed. */
int pm__put_taken(FILE *out, char *s);

/* Display width of a UTF-8 string: the number of code points (continuation bytes not counted). */
size_t pm_utf8_width(const char *s);
/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes there are not valid UTF-8. */
size_t pm_utf8_seq(const unsigned char *s);
/* Byte length of the longest prefix of s that is at most w code points. */
size_t pm_utf8_prefix(const char *s, size_t w);

/* Formats v with two decimals, '.' as decimal separator whatever the locale, never "-0.00". */
void pm_format_2f(double v, char *buf, size_t size);

#endif
