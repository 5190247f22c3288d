/* Simple linear regression with its 95 % prediction interval, computed online (Welford's update):
 * the task model's outlier test fits log(duration) ~ log(flops) per codelet during the run
 * (lib/tasks/pm_task_stats.c), and `popmeter view` draws the same fit and band over every task of a
 * trace (view/). One formula for both, so that the page marks the outliers the run counted. */
#ifndef PM_REGRESS_H
#define PM_REGRESS_H
#include <stdint.h>

typedef struct {
  uint64_t n;
  double mx, my, sxx, sxy, syy;
} pm_reg;
void pm_reg_add(pm_reg *r, double x, double y);
/* The 95 % prediction interval of y at x: fit +- half; 0 when n < 3 (no interval). With one x value
 * (sxx ~ 0) the interval is around the mean of y. */
int pm_reg_band(const pm_reg *r, double x, double *fit, double *half);
/* Upper bound of that interval at x (returns 0 when n < 3). */
int pm_reg_upper(const pm_reg *r, double x, double *upper);
double pm_t975(double dof); /* Student t quantile 0.975 */
#endif
