#include "pm_profile_input.h"
#include "pm_profile_tasks.h"
#include "pm_profile_counters.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pm_loc_kind kind_of(int role) {
  switch (role) {
  case PM_ROLE_WORKER: return PM_LOC_WORKER;
  case PM_ROLE_ACCEL_WORKER: return PM_LOC_ACCEL;
  case PM_ROLE_PROGRESS: return PM_LOC_PROGRESS;
  case PM_ROLE_DEVICE: return PM_LOC_DEVICE;
  default: return PM_LOC_THREAD;
  }
}

/* What lies on the task critical path, resolved from the profile (pm_prof_tasks_cp), with the
 * storage its names point into. */
struct pm_prof_task_cp_store {
  pm_prof_task_cp cp;
  pm_cp_part_input parts[PM_PROF_COMP_N + 1];
  pm_cp_part_input ranks[PM_PROF_CP_MAXRANKS];
};
static int task_cp_input(const pm_profile *p, pm_run_input_buf *buf) {
  if (!p->tasks) return 0;
  struct pm_prof_task_cp_store *st = calloc(1, sizeof *st);
  if (!st) return -1;
  buf->cp = st;
  if (!pm_prof_tasks_cp(p, &st->cp)) return 0;
  pm_run_input *in = &buf->in;
  for (int i = 0; i < st->cp.nparts; i++) /* the remainder is named "(other codelets)", rank -1 */
    st->parts[i] = (pm_cp_part_input){st->cp.part[i].name, st->cp.part[i].rank, st->cp.part[i].time};
  for (int i = 0; i < st->cp.nranks; i++)
    st->ranks[i] = (pm_cp_part_input){NULL, st->cp.rank[i].rank, st->cp.rank[i].time};
  in->ncp_parts = st->cp.nparts;
  in->cp_parts = st->parts;
  in->ncp_ranks = st->cp.nranks;
  in->cp_ranks = st->ranks;
  in->cp_coo = st->cp.len.coo;
  in->cp_coo_mpi = st->cp.coo_mpi;
  return 0;
}

int pm_profile_to_input(const pm_profile *p, int io_as_useful, pm_run_input_buf *buf) {
  memset(buf, 0, sizeof *buf);
  buf->loc = calloc((size_t)p->nlocations + 1, sizeof *buf->loc);
  buf->pl_cue = calloc((size_t)p->nprocesses + 1, sizeof *buf->pl_cue);
  if (!buf->loc || !buf->pl_cue) {
    pm_run_input_buf_free(buf);
    return -1;
  }
  pm_run_input *in = &buf->in;
  in->runtime = p->runtime;
  in->nprocesses = p->nprocesses;
  in->nnodes = p->nnodes;
  in->nlocations = p->nlocations;
  in->loc = buf->loc;
  in->has_critical_path = p->has_critical_path;
  in->cue_io_useful = p->cp_io_useful;
  in->pl_cue = buf->pl_cue;
  in->nworker_types = 0;
  in->io_as_useful = io_as_useful;
  int has_cpu_worker = 0, has_accel = 0;
  for (int i = 0; i < p->nlocations; i++) {
    const pm_prof_location *l = &p->loc[i];
    pm_location_input *x = &buf->loc[i];
    x->process = l->process;
    x->node = p->proc[l->process].node;
    x->kind = kind_of(l->role);
    x->useful = pm_prof_loc_class(l, PM_CLASS_USEFUL);
    x->mpi = pm_prof_loc_class(l, PM_CLASS_MPI);
    x->io = pm_prof_loc_class(l, PM_CLASS_IO);
    x->runtime = pm_prof_loc_class(l, PM_CLASS_RUNTIME);
    x->idle = pm_prof_loc_class(l, PM_CLASS_IDLE);
    x->gpu_runtime = pm_prof_loc_class(l, PM_CLASS_DEVICE);
    x->calls_mpi = x->mpi > 0 || l->polls > 0;
    for (int s = 0; s < PM_STATE_COUNT; s++) x->in_parallel += l->time[PM_CTX_PARALLEL][s];
    x->serial_useful = l->time[PM_CTX_SERIAL][PM_STATE_USEFUL];
    x->omp_useful = l->time[PM_CTX_PARALLEL][PM_STATE_USEFUL];
    x->tl_cue = x->useful;
    if (x->kind == PM_LOC_WORKER || x->kind == PM_LOC_ACCEL) x->exec = x->useful;
    pm_prof_counters_input(p->counters, i, &x->counters); /* hardware counters over useful time */
    has_cpu_worker |= x->kind == PM_LOC_WORKER;
    has_accel |= x->kind == PM_LOC_ACCEL;
    if (x->kind == PM_LOC_DEVICE) {
      /* a device stream: kernels are its useful time, copies/memsets its device time; it is not a
       * host thread, so it blocks in no runtime call and carries no critical path */
      x->kernel = x->useful;
      x->memcpy = x->gpu_runtime;
      x->memcpy_overlapped = l->dev.memcpy_overlapped;
      x->gpu_runtime = 0;
      continue;
    }
    if (l->cp_global.cue > in->g_cue) in->g_cue = l->cp_global.cue;
    if (l->cp_global.com > in->g_com) in->g_com = l->cp_global.com;
    if (l->cp_global.coo > in->g_coo) in->g_coo = l->cp_global.coo;
    if (l->cp_process.cue > buf->pl_cue[l->process]) buf->pl_cue[l->process] = l->cp_process.cue;
  }
  in->nworker_types = has_cpu_worker + has_accel;
  in->vector_width_max = p->counters ? p->counters->vector_width_max : 0;
  /* OpenMP parallel regions: per-region additive efficiency, TALP's OpenMP split */
  if (p->nomp_regions > 0) {
    buf->omp = calloc((size_t)p->nomp_regions, sizeof *buf->omp);
    if (!buf->omp) {
      pm_run_input_buf_free(buf);
      return -1;
    }
    for (int i = 0; i < p->nomp_regions; i++) {
      const pm_prof_omp_region *r = &p->omp_region[i];
      buf->omp[i] = (pm_omp_region_input){r->name, r->process, r->nthreads, r->span, r->thread_idle, r->thread_useful};
    }
    in->nomp_regions = p->nomp_regions;
    in->omp_regions = buf->omp;
  }
  /* task runtime: codelet totals (area bound, locality) and the task-DAG critical path (CPB) */
  if (pm_prof_tasks_input(p, &buf->codelets, &in->ncodelets, &in->cp_bound, &in->task_runtime_unobserved) != 0) {
    pm_run_input_buf_free(buf);
    return -1;
  }
  in->codelets = buf->codelets;
  if (task_cp_input(p, buf) != 0) {
    pm_run_input_buf_free(buf);
    return -1;
  }
  return 0;
}

/* A run's work per codelet name: its tasks, or its user regions (see pm_profile_input_references). */
static int codelets_of(const pm_profile *p, pm_codelet_input **out, int *n) {
  *out = NULL;
  *n = 0;
  if (p->tasks && p->tasks->ncodelets) {
    pm_codelet_input *c = calloc((size_t)p->tasks->ncodelets, sizeof *c);
    if (!c) return -1;
    for (int i = 0; i < p->tasks->ncodelets; i++) {
      const pm_prof_codelet *x = &p->tasks->codelet[i];
      c[i] = (pm_codelet_input){x->name, x->worker_type, x->total, 0, (int64_t)x->count};
    }
    *out = c;
    *n = p->tasks->ncodelets;
    return 0;
  }
  /* inclusive time per call path: children follow their parents, so one backward pass sums them */
  double *incl = calloc((size_t)p->ncnodes + 1, sizeof *incl);
  uint64_t *visits = calloc((size_t)p->ncnodes + 1, sizeof *visits);
  pm_codelet_input *c = calloc((size_t)p->nregions + 1, sizeof *c);
  if (!incl || !visits || !c) {
    free(incl);
    free(visits);
    free(c);
    return -1;
  }
  for (int i = 0; i < p->nvalues; i++) {
    const pm_prof_value *v = &p->val[i];
    for (int s = 0; s < PM_STATE_COUNT; s++)
      if (s != PM_STATE_OFF && s != PM_STATE_TOOL) incl[v->cnode] += v->time[s];
    visits[v->cnode] += v->visits;
  }
  for (int i = p->ncnodes - 1; i >= 0; i--)
    if (p->cnode[i].parent >= 0) incl[p->cnode[i].parent] += incl[i];
  for (int r = 0; r < p->nregions; r++) c[r] = (pm_codelet_input){p->reg[r].name, 0, 0, 0, 0};
  for (int i = 0; i < p->ncnodes; i++) {
    int r = p->cnode[i].region;
    if (p->reg[r].paradigm != PM_PARADIGM_USER) continue;
    int nested = 0; /* a region inside itself: its time is in the outer one already */
    for (int a = p->cnode[i].parent; a >= 0 && !nested; a = p->cnode[a].parent) nested = p->cnode[a].region == r;
    if (!nested) c[r].exec += incl[i];
    c[r].count += (int64_t)visits[i];
  }
  free(incl);
  free(visits);
  *out = c;
  *n = p->nregions;
  return 0;
}

int pm_profile_input_references(pm_run_input_buf *buf, const pm_profile *one, const pm_profile *seq) {
  if (one && codelets_of(one, &buf->ref_one, &buf->in.nref_one) != 0) return -1;
  if (seq && codelets_of(seq, &buf->ref_seq, &buf->in.nref_seq) != 0) return -1;
  buf->in.ref_one = buf->ref_one;
  buf->in.ref_seq = buf->ref_seq;
  return 0;
}

static int task_workers(const pm_profile *p) {
  int n = 0;
  for (int i = 0; i < p->nlocations; i++)
    n += p->loc[i].role == PM_ROLE_WORKER || p->loc[i].role == PM_ROLE_ACCEL_WORKER;
  return n;
}

int pm_profile_references_check(const pm_profile *one, const pm_profile *seq, char *err, size_t n) {
  int w = task_workers(one);
  if (!one->tasks || !one->tasks->ncodelets || w != 1) {
    snprintf(err, n,
             "the one-worker reference ran %s on %d task worker%s: it must be the task-based run on exactly one "
             "worker (a program that runs sequentially on one thread needs its task runtime asked for, "
             "e.g. mfsolve --executor starpu)",
             one->tasks && one->tasks->ncodelets ? "tasks" : "no task", w, w == 1 ? "" : "s");
    return -1;
  }
  if ((w = task_workers(seq)) != 0) {
    snprintf(err, n,
             "the sequential reference ran on %d task worker%s: it must run the kernels without the runtime "
             "(e.g. mfsolve --executor seq)",
             w, w == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

void pm_run_input_buf_free(pm_run_input_buf *buf) {
  free(buf->ref_one);
  free(buf->ref_seq);
  free(buf->loc);
  free(buf->pl_cue);
  free(buf->omp);
  free(buf->codelets);
  free(buf->cp);
  memset(buf, 0, sizeof *buf);
}
