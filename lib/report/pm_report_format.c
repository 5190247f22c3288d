#include "pm_report_format.h"
#include <math.h>
#include <stdio.h>

const char *pm_fmt_time(double s, char *buf, size_t n) {
  if (s >= 100)
    snprintf(buf, n, "%.0f s", s);
  else if (s >= 1)
    snprintf(buf, n, "%.2f s", s);
  else if (s >= 1e-3)
    snprintf(buf, n, "%.2f ms", s * 1e3);
  else
    snprintf(buf, n, "%.2f us", s * 1e6);
  return buf;
}

const char *pm_fmt_bytes(double b, char *buf, size_t n) {
  if (b >= 1e9)
    snprintf(buf, n, "%.2f GB", b * 1e-9);
  else if (b >= 1e6)
    snprintf(buf, n, "%.2f MB", b * 1e-6);
  else if (b >= 1e3)
    snprintf(buf, n, "%.2f kB", b * 1e-3);
  else
    snprintf(buf, n, "%.0f B", b);
  return buf;
}

double pm_pct(double part, double whole) {
  double x = 100.0 * part / whole;
  return whole > 0 && isfinite(x) ? x : 0.0;
}
