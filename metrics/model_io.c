/* File I/O (D8.2 §2.2; docs/metrics.md §7.1).
 *
 * Locations: threads, task workers and accelerator workers (N of them).
 *   File I/O efficiency = avg(useful) / avg(useful + io) = sum useful / sum (useful + io)
 *   I/O share           = sum io / (N * R), in percent
 * The share carries a warning above 5 % (BasicAnalysis rule): that much I/O biases load balance and
 * communication efficiency, whose denominators then include I/O waiting. Both use the raw useful
 * time: with io_as_useful the other models count I/O as useful, but here I/O is what is measured. */
#include "popmetrics.h"
#include "pm_model_util.h"

#define PM_IO_WARN_PERCENT 5.0

pm_metric *pm_model_io(const pm_run_input *in) {
  pm_metric *root, *share_n;
  pm_val eff, share;
  const char *why = pm__input_problem(in);
  int i, n = 0;
  double useful = 0.0, io = 0.0;

  root = pm__root("io", "File I/O", "Cost of file I/O (POSIX and MPI-IO) relative to useful work.");
  if (!root) return NULL;
  if (!why) {
    for (i = 0; i < in->nlocations; i++) {
      const pm_location_input *l = &in->loc[i];
      if (!pm__is_compute(l)) continue;
      useful += l->useful;
      io += l->io;
      n++;
    }
    if (n == 0) why = PM_NA_NO_COMPUTE;
  }
  if (why) {
    eff = share = pm_v_na(why);
  } else {
    eff = pm_v_div(pm_v(useful), pm_v(useful + io), "no useful or I/O time measured");
    share = pm_v_div(pm_v(100.0 * io), pm_v(n * in->runtime), PM_NA_ZERO_RUNTIME);
  }
  pm__leaf(root, "io_eff", "File I/O efficiency", "", "Useful time divided by useful plus file I/O time.", eff);
  share_n = pm__leaf(root, "io_share", "I/O share", "%", "Share of all thread time spent in file I/O.", share);
  if (!share.na && share.v > PM_IO_WARN_PERCENT)
    pm_metric_set_warning(share_n, "I/O share above 5 %: it biases load balance and "
                                   "communication efficiency");
  return pm__finish(root);
}
