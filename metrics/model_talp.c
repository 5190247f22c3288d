/* TALP-style model (DLB "hybrid v2"; docs/metrics.md §5), for comparability with TALP output.
 *
 * Host part over the compute locations (threads, workers, accelerator workers; C of them, C_p per
 * process, C_n per node). M_loc = mpi + mpi_worker_idle (the MPI thread's time in MPI plus the idle
 * of the other threads meanwhile).
 *   M = sum M_loc / C,  M_p = sum_{loc in p} M_loc / C_p,  M_n likewise per node
 *   MPI PE = (R - M)/R = MPI LB * MPI CommE,  MPI CommE = (R - min_p M_p)/R,
 *   MPI LB = (R - M)/(R - min_p M_p) = LB in * LB out,
 *   LB in = (R - min_n M_n)/(R - min_p M_p),  LB out = (R - M)/(R - min_n M_n)
 * LB in/out need node indices (nnodes > 0 and every compute location's node in range).
 * Minima are true minima (a process with no MPI time counts).
 *
 * OpenMP part, needs omp_regions with per-thread idle: for each region with n threads and idle w_j,
 *   sched += n * min_j w_j,  lb += sum_j (w_j - min_j w_j);
 *   ser = sum over the non-master threads (PM_LOC_THREAD, not the first thread of their process) of
 *         max(0, R - in_parallel - mpi_worker_idle): their time outside parallel regions that is
 *         not already counted as MPI.
 *   A' = sum (useful + mpi + mpi_worker_idle + gpu_runtime)  (MPI as in M)
 *   OMP PE = A'/(A'+ser+lb+sched) = Serialization * LB * Scheduling with the TALP order
 *   Ser = A'/(A'+ser), LB = (A'+ser)/(A'+ser+lb), Sched = (A'+ser+lb)/(A'+ser+lb+sched).
 * Device offload = (useful + ser+lb+sched)/(useful + ser+lb+sched + gpu_runtime) (the OpenMP terms
 * are 0 without regions); n/a when there is neither a device stream nor device runtime time.
 *
 * Device part over PM_LOC_DEVICE locations (G of them), memcpy_g = memcpy - memcpy_overlapped
 * (not overlapped with kernels, >= 0):
 *   Device PE = sum kernel / (R*G) = LB_dev * CommE_dev * Orchestration
 *   LB_dev = sum kernel / (G * max kernel), CommE_dev = max kernel / max(kernel + memcpy_g),
 *   Orchestration = max(kernel + memcpy_g) / R. */
#include "popmetrics.h"
#include "pm_model_util.h"
#include "pm_util.h"
#include <stdlib.h>

typedef struct {
  pm_val pe, comme, lb, lbin, lbout;
} talp_mpi;

typedef struct {
  pm_val pe, ser, lb, sched;
  double notuseful; /* ser + lb + sched (0 when no regions) */
} talp_omp;

/* MPI part. Returns 0 on allocation failure. */
static int mpi_part(const pm_run_input *in, const pm_procs *pp, int C, talp_mpi *o) {
  double R = in->runtime, sum = 0.0, minp = 0.0, minn = 0.0;
  double *mp = pm__calloc((size_t)in->nprocesses, sizeof *mp);
  double *mn = NULL;
  int *cn = NULL;
  int i, first, nodes_ok = in->nnodes > 0;
  if (!mp) return 0;
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    if (!pm__is_compute(l)) continue;
    mp[l->process] += l->mpi + l->mpi_worker_idle;
    sum += l->mpi + l->mpi_worker_idle;
    if (l->node < 0 || l->node >= in->nnodes) nodes_ok = 0;
  }
  first = 1;
  for (i = 0; i < in->nprocesses; i++) {
    if (pp->nloc[i] == 0) continue;
    if (first || mp[i] / pp->nloc[i] < minp) minp = mp[i] / pp->nloc[i];
    first = 0;
  }
  pm_val vR = pm_v(R), RM = pm_v(R - sum / C), Rp = pm_v(R - minp);
  o->pe = pm_v_div(RM, vR, PM_NA_ZERO_RUNTIME);
  o->comme = pm_v_div(Rp, vR, PM_NA_ZERO_RUNTIME);
  o->lb = pm_v_div(RM, Rp, "every process spent the whole run in MPI");
  if (!nodes_ok) {
    o->lbin = o->lbout = pm_v_na("node indices not measured");
  } else {
    mn = pm__calloc((size_t)in->nnodes, sizeof *mn);
    cn = pm__calloc((size_t)in->nnodes, sizeof *cn);
    if (!mn || !cn) {
      free(mp);
      free(mn);
      free(cn);
      return 0;
    }
    for (i = 0; i < in->nlocations; i++) {
      const pm_location_input *l = &in->loc[i];
      if (!pm__is_compute(l)) continue;
      mn[l->node] += l->mpi + l->mpi_worker_idle;
      cn[l->node]++;
    }
    first = 1;
    for (i = 0; i < in->nnodes; i++) {
      if (cn[i] == 0) continue;
      if (first || mn[i] / cn[i] < minn) minn = mn[i] / cn[i];
      first = 0;
    }
    pm_val Rn = pm_v(R - minn);
    o->lbin = pm_v_div(Rn, Rp, "every process spent the whole run in MPI");
    o->lbout = pm_v_div(RM, Rn, "every node spent the whole run in MPI");
  }
  free(mp);
  free(mn);
  free(cn);
  return 1;
}

/* OpenMP part; thr gives the master thread of each process. */
static void omp_part(const pm_run_input *in, const pm_procs *thr, talp_omp *o) {
  double R = in->runtime, ser = 0.0, lb = 0.0, sched = 0.0, A = 0.0;
  int i, r, j;
  o->notuseful = 0.0;
  if (in->nomp_regions <= 0 || !in->omp_regions) {
    o->pe = o->ser = o->lb = o->sched = pm_v_na("no OpenMP parallel regions measured");
    return;
  }
  for (r = 0; r < in->nomp_regions; r++) {
    const pm_omp_region_input *g = &in->omp_regions[r];
    double wmin = 0.0;
    if (g->nthreads <= 0) continue;
    if (!g->thread_idle) {
      o->pe = o->ser = o->lb = o->sched = pm_v_na("no per-thread idle time in parallel regions");
      return;
    }
    for (j = 0; j < g->nthreads; j++)
      if (j == 0 || g->thread_idle[j] < wmin) wmin = g->thread_idle[j];
    sched += wmin * g->nthreads;
    for (j = 0; j < g->nthreads; j++) lb += g->thread_idle[j] - wmin;
  }
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    if (!pm__is_compute(l)) continue;
    A += l->useful + l->mpi + l->mpi_worker_idle + l->gpu_runtime;
    if (l->kind == PM_LOC_THREAD && thr->master[l->process] != i) {
      double out = R - l->in_parallel - l->mpi_worker_idle;
      if (out > 0.0) ser += out;
    }
  }
  pm_val a = pm_v(A), as = pm_v(A + ser), asl = pm_v(A + ser + lb), all = pm_v(A + ser + lb + sched);
  const char *z = "no active thread time";
  o->pe = pm_v_div(a, all, z);
  o->ser = pm_v_div(a, as, z);
  o->lb = pm_v_div(as, asl, z);
  o->sched = pm_v_div(asl, all, z);
  o->notuseful = ser + lb + sched;
}

pm_metric *pm_model_talp(const pm_run_input *in) {
  pm_metric *root, *n;
  talp_mpi mpi;
  talp_omp omp;
  pm_val off, dpe, dlb, dce, dor;
  const char *why = pm__input_problem(in);
  pm_procs pp = {0, NULL, NULL}, thr = {0, NULL, NULL};
  int i, C = 0, G = 0;
  double useful = 0.0, gpur = 0.0, ksum = 0.0, kmax = 0.0, amax = 0.0;

  root = pm__root("talp", "TALP model (DLB hybrid v2)",
                  "TALP's hybrid MPI, OpenMP and device efficiencies, comparable with DLB output.");
  if (!root) return NULL;
  if (!why && (!pm__procs_init(&pp, in, pm__is_compute) || !pm__procs_init(&thr, in, pm__is_thread))) {
    pm__procs_free(&pp);
    pm__procs_free(&thr);
    pm_metric_free(root);
    return NULL;
  }
  if (!why) {
    for (i = 0; i < in->nlocations; i++) {
      const pm_location_input *l = &in->loc[i];
      if (l->kind == PM_LOC_DEVICE) {
        double mc = l->memcpy - l->memcpy_overlapped;
        double active = l->kernel + (mc > 0.0 ? mc : 0.0);
        ksum += l->kernel;
        if (G == 0 || l->kernel > kmax) kmax = l->kernel;
        if (G == 0 || active > amax) amax = active;
        G++;
      } else if (pm__is_compute(l)) {
        C++;
        useful += l->useful;
        gpur += l->gpu_runtime;
      }
    }
  }
  /* host part */
  if (why || C == 0) {
    pm_val na = pm_v_na(why ? why : PM_NA_NO_COMPUTE);
    mpi.pe = mpi.comme = mpi.lb = mpi.lbin = mpi.lbout = na;
    omp.pe = omp.ser = omp.lb = omp.sched = na;
    omp.notuseful = 0.0;
    off = na;
  } else {
    if (!mpi_part(in, &pp, C, &mpi)) {
      pm__procs_free(&pp);
      pm__procs_free(&thr);
      pm_metric_free(root);
      return NULL;
    }
    omp_part(in, &thr, &omp);
    if (G == 0 && gpur == 0.0)
      off = pm_v_na("no device activity measured");
    else
      off = pm_v_div(pm_v(useful + omp.notuseful), pm_v(useful + omp.notuseful + gpur),
                     "no useful, OpenMP or device runtime time");
  }
  /* device part */
  if (why || G == 0) {
    dpe = dlb = dce = dor = pm_v_na(why ? why : "no device streams measured");
  } else {
    pm_val R = pm_v(in->runtime);
    dpe = pm_v_div(pm_v(ksum), pm_v(in->runtime * G), PM_NA_ZERO_RUNTIME);
    dlb = pm_v_div(pm_v(ksum), pm_v(G * kmax), "no kernel time on the devices");
    dce = pm_v_div(pm_v(kmax), pm_v(amax), "no kernel or transfer time on the devices");
    dor = pm_v_div(pm_v(amax), R, PM_NA_ZERO_RUNTIME);
  }
  pm__procs_free(&pp);
  pm__procs_free(&thr);

  n = pm__leaf(root, "mpi_pe", "MPI parallel efficiency", "",
               "Average time outside MPI per CPU divided by the runtime.", mpi.pe);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm__leaf(n, "mpi_comme", "MPI communication efficiency", "",
           "Time outside MPI of the process least in MPI, divided by the runtime.", mpi.comme);
  n = pm__leaf(n, "mpi_lb", "MPI load balance", "", "Average time outside MPI relative to the process least in MPI.",
               mpi.lb);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm__leaf(n, "lb_in", "MPI load balance within nodes", "",
           "Time outside MPI of the node least in MPI relative to the process least in MPI.", mpi.lbin);
  pm__leaf(n, "lb_out", "MPI load balance across nodes", "",
           "Average time outside MPI relative to the node least in MPI.", mpi.lbout);
  n = pm__leaf(root, "omp_pe", "OpenMP parallel efficiency", "",
               "Active thread time not lost to OpenMP serialization, imbalance or scheduling.", omp.pe);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm__leaf(n, "omp_ser", "OpenMP serialization efficiency", "",
           "Loss from worker threads idling outside parallel regions.", omp.ser);
  pm__leaf(n, "omp_lb", "OpenMP load balance", "",
           "Loss from threads waiting for the slowest thread of a parallel region.", omp.lb);
  pm__leaf(n, "omp_sched", "OpenMP scheduling efficiency", "",
           "Loss from idle time every thread of a parallel region shares (runtime overhead).", omp.sched);
  pm__leaf(root, "offload", "Device offload efficiency", "",
           "Host time not blocked in device runtime calls, over host time.", off);
  n = pm__leaf(root, "device_pe", "Device parallel efficiency", "",
               "Kernel time of all devices divided by the runtime times the number of devices.", dpe);
  pm_metric_set_combine(n, PM_COMBINE_PRODUCT);
  pm__leaf(n, "dev_lb", "Device load balance", "",
           "Average kernel time of a device divided by the largest kernel time.", dlb);
  pm__leaf(n, "dev_comme", "Device communication efficiency", "",
           "Largest kernel time over the largest kernel plus non-overlapped transfer time.", dce);
  pm__leaf(n, "dev_orch", "Device orchestration efficiency", "",
           "Largest kernel plus transfer time of a device divided by the runtime.", dor);
  return pm__finish(root);
}
