/* Human-readable quantities for the end-of-run table: one formatting rule for every section. */
#ifndef PM_REPORT_FORMAT_H
#define PM_REPORT_FORMAT_H
#include <stddef.h>
/* "123 s", "1.23 s", "12.34 ms", "5.00 us"; returns buf. */
const char *pm_fmt_time(double seconds, char *buf, size_t n);
/* 100 * part / whole, or 0 when that is not a finite number (a zero or denormal whole). */
double pm_pct(double part, double whole);
/* "1.23 GB", "4.56 MB", "7.89 kB", "12 B" (decimal units); returns buf. */
const char *pm_fmt_bytes(double bytes, char *buf, size_t n);
#endif
