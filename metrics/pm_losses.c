/* Where the time went: additive losses in seconds (pm_losses.h, docs/metrics.md §10). */
#include "pm_losses.h"
#include "pm_model_util.h"
#include <stdlib.h>
#include <string.h>

static double pos(double x) { return x > 0 ? x : 0; }

/* Per process: the largest t and the sum of useful time over its compute locations. */
typedef struct {
  int n;
  double max, sum;
} proc_acc;

static void process_extremes(const proc_acc *acc, int nproc, pm_time_losses *out) {
  out->busiest = out->least_busy = -1;
  for (int p = 0; p < nproc; p++) {
    if (!acc[p].n) continue;
    if (out->busiest < 0 || acc[p].sum > out->busiest_useful) {
      out->busiest = p;
      out->busiest_useful = acc[p].sum;
    }
    if (out->least_busy < 0 || acc[p].sum < out->least_busy_useful) {
      out->least_busy = p;
      out->least_busy_useful = acc[p].sum;
    }
  }
}

int pm_losses_compute(const pm_run_input *in, pm_time_losses *out) {
  memset(out, 0, sizeof *out);
  out->busiest = out->least_busy = -1;
  if (pm__input_problem(in)) return 0;
  proc_acc *acc = calloc((size_t)in->nprocesses, sizeof *acc);
  if (!acc) return 0;
  /* the critical path splits the losses only when it counted as useful what the losses do */
  int cp = in->has_critical_path && !pm__cue_mismatch(in);
  int T = 0;
  double sum = 0, C = 0;
  for (int i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    if (!pm__is_compute(l)) continue;
    double t = cp ? l->tl_cue : pm__useful(in, l);
    proc_acc *a = &acc[l->process];
    if (!a->n || t > a->max) a->max = t;
    a->n++;
    a->sum += pm__useful(in, l);
    sum += t;
    if (!T || t > C) C = t;
    T++;
  }
  if (T == 0) {
    free(acc);
    return 0;
  }
  double A = sum / T, B = 0, P = 0;
  int first = 1;
  for (int p = 0; p < in->nprocesses; p++) {
    if (!acc[p].n) continue;
    B += acc[p].n * acc[p].max;
    if (in->pl_cue && (first || in->pl_cue[p] > P)) P = in->pl_cue[p];
    first = 0;
  }
  B /= T;
  double R = in->runtime;
  out->runtime = R;
  out->avg_useful = A;
  out->max_useful = C;
  out->seconds[PM_LOSS_LB_THREADS] = pos(B - A);
  out->seconds[PM_LOSS_LB_PROCESSES] = pos(C - B);
  if (cp) {
    if (!in->pl_cue) P = C; /* no process-local paths: serialization is all "across processes" */
    out->has_split = 1;
    out->seconds[PM_LOSS_SER_THREADS] = pos(P - C);
    out->seconds[PM_LOSS_SER_PROCESSES] = pos(in->g_cue - P);
    out->seconds[PM_LOSS_TRANSFER_MPI] = pos(in->g_coo - in->g_cue);
    out->seconds[PM_LOSS_TRANSFER_RUNTIME] = pos(R - in->g_coo);
  } else {
    out->seconds[PM_LOSS_COMMUNICATION] = pos(R - C);
  }
  process_extremes(acc, in->nprocesses, out);
  free(acc);
  out->valid = 1;
  return 1;
}
