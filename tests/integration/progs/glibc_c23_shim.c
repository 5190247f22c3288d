/* Debian 13's static StarPU 1.4 (the tool-interface test bed, tools/setup-starpu14.sh) was compiled
 * against glibc 2.38, whose headers redirect strtol & co. and the scanf family to C23 entry points
 * that Debian 12's glibc 2.36 lacks. These forward them to the older functions, whose behaviour is
 * the same for what StarPU parses (decimal and hexadecimal numbers without a 0b prefix). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

long __isoc23_strtol(const char *s, char **end, int base);
unsigned long __isoc23_strtoul(const char *s, char **end, int base);
long long __isoc23_strtoll(const char *s, char **end, int base);
unsigned long long __isoc23_strtoull(const char *s, char **end, int base);
int __isoc23_sscanf(const char *s, const char *fmt, ...);
int __isoc23_fscanf(FILE *f, const char *fmt, ...);

long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
long long __isoc23_strtoll(const char *s, char **end, int base) { return strtoll(s, end, base); }
unsigned long long __isoc23_strtoull(const char *s, char **end, int base) { return strtoull(s, end, base); }
int __isoc23_sscanf(const char *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsscanf(s, fmt, ap);
  va_end(ap);
  return n;
}
int __isoc23_fscanf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vfscanf(f, fmt, ap);
  va_end(ap);
  return n;
}
