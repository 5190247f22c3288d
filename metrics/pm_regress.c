/* Linear regression and its prediction interval (pm_regress.h). */
#include "pm_regress.h"
#include <math.h>

void pm_reg_add(pm_reg *r, double x, double y) {
  r->n++;
  double dx = x - r->mx, dy = y - r->my;
  r->mx += dx / (double)r->n;
  r->my += dy / (double)r->n;
  r->sxx += dx * (x - r->mx);
  r->sxy += dx * (y - r->my);
  r->syy += dy * (y - r->my);
}

double pm_t975(double dof) {
  static const double t[31] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                               2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return INFINITY;
  if (dof <= 30) return t[(int)dof];
  const double z = 1.959963985; /* Cornish-Fisher expansion around the normal quantile */
  return z + (z * z * z + z) / (4 * dof) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * dof * dof);
}

int pm_reg_band(const pm_reg *r, double x, double *fit, double *half) {
  if (r->n < 3) return 0;
  double n = (double)r->n;
  if (r->sxx <= 1e-12 * n) { /* one flops value: prediction interval around the mean */
    double s2 = r->syy / (n - 1);
    *fit = r->my;
    *half = pm_t975(n - 1) * sqrt(s2 * (1 + 1 / n));
    return 1;
  }
  double b = r->sxy / r->sxx, a = r->my - b * r->mx;
  double sse = r->syy - b * r->sxy;
  if (sse < 0) sse = 0;
  double s2 = sse / (n - 2);
  *fit = a + b * x;
  *half = pm_t975(n - 2) * sqrt(s2 * (1 + 1 / n + (x - r->mx) * (x - r->mx) / r->sxx));
  return 1;
}

int pm_reg_upper(const pm_reg *r, double x, double *upper) {
  double fit, half;
  if (!pm_reg_band(r, x, &fit, &half)) return 0;
  *upper = fit + half;
  return 1;
}
