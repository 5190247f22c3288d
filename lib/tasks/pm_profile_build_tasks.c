/* Builds the task-runtime part of this process's profile (pm_profile_tasks.h) from the task graph,
 * the codelet statistics and the data-movement aggregates. Nothing is added for a process that
 * ran no task. */
#include "pm_lifecycle.h"
#include "pm_profile_tasks.h"
#include "pm_task_comm.h"
#include "pm_task_stats.h"
#include "pm_taskgraph.h"
#include "pm_tasks.h"
#include <stdlib.h>
#include <string.h>

#define NS 1e-9
static pm_prof_cp cp_s(pm_cp_clock c) { return (pm_prof_cp){c.cue * NS, c.com * NS, c.coo * NS}; }

static void fill_proc(pm_prof_taskproc *q, const pm_tg_summary *s, const pm_ts_results *r, const pm_tc_snapshot *tc) {
  q->process = 0;
  q->tasks = s->tasks;
  q->bodyless = s->bodyless;
  q->dag_pl = cp_s(s->max.dag_pl);
  q->dag_g = cp_s(s->max.dag_g);
  q->coo_mpi = s->max.coo_mpi * NS;
  for (uint32_t i = 0; i < s->max.comp.n && i < PM_PROF_COMP_N; i++) {
    uint64_t key = s->max.comp.e[i].key;
    q->comp[q->ncomp++] = (pm_prof_cp_part){(int)(key >> 32), (uint32_t)key, s->max.comp.e[i].ns * NS};
  }
  q->comp_other = s->max.comp.other * NS;
  q->clocks_sent = pm_tc_clock_count(PM_TC_CLOCK_SENT);
  q->clocks_received = pm_tc_clock_count(PM_TC_CLOCK_RECEIVED);
  q->clocks_lost = pm_tc_clock_count(PM_TC_CLOCK_LOST);
  q->peak_tasks = s->peak_tasks;
  q->tags_dropped = r->tags_dropped;
  q->handles_untracked = tc->handles_untracked;
  q->runtime_unobserved = !pm_tg_runtime_observed();
}

static void fill_codelet(pm_prof_codelet *c, const pm_ts_codelet_result *x) {
  snprintf(c->name, sizeof c->name, "%s", pm_ts_codelet_name(x->codelet));
  c->process = 0;
  c->worker_type = x->worker_type;
  c->hash = pm_ts_codelet_hash(x->codelet);
  c->count = x->count;
  c->with_flops = x->with_flops;
  c->with_prediction = x->with_prediction;
  c->outliers_iqr = x->outliers_iqr;
  c->outliers_reg = x->outliers_reg;
  c->total = x->total;
  c->min = x->min;
  c->max = x->max;
  c->flops = x->flops;
  c->predicted = x->predicted;
  c->bytes = x->bytes;
  c->q1 = x->q1;
  c->q3 = x->q3;
  c->with_waits = x->with_waits;
  c->wait_deps = x->wait_deps;
  c->wait_sched = x->wait_sched;
  c->ntop = x->ntop < PM_PROF_TOP ? x->ntop : PM_PROF_TOP;
  for (int j = 0; j < c->ntop; j++) {
    const pm_ts_outlier *o = &x->top[j];
    c->top[j] = (pm_prof_outlier){o->duration, o->threshold, o->start, o->tag, o->has_tag, o->kind, o->location};
  }
}

static int tasks_to_profile(pm_profile *p, uint64_t t_start) {
  pm_tg_summary s;
  pm_tg_get_summary(&s);
  if (s.tasks == 0 && s.bodyless == 0) return 0;
  pm_ts_results r;
  pm_tc_snapshot tc;
  if (pm_ts_collect(&r, t_start) != 0) return -1;
  if (pm_tc_snapshot_get(&tc) != 0) {
    pm_ts_results_free(&r);
    return -1;
  }
  int rc = -1;
  pm_prof_tasks *t = calloc(1, sizeof *t);
  if (!t) goto out;
  int ntr = 0;
  for (int i = 0; i < tc.nnodes; i++) ntr += tc.node[i].kind[0] != '\0';
  t->taskproc = calloc(1, sizeof *t->taskproc);
  t->codelet = calloc((size_t)r.ncodelets + 1, sizeof *t->codelet);
  t->tag = calloc((size_t)r.ntags + 1, sizeof *t->tag);
  t->transfer = calloc((size_t)ntr + 1, sizeof *t->transfer);
  t->mpicomm = calloc((size_t)tc.npeers + 1, sizeof *t->mpicomm);
  t->mpihandle = calloc((size_t)tc.nhandles + 1, sizeof *t->mpihandle);
  if (!t->taskproc || !t->codelet || !t->tag || !t->transfer || !t->mpicomm || !t->mpihandle) goto out;
  t->ntaskprocs = 1;
  fill_proc(&t->taskproc[0], &s, &r, &tc);
  for (int i = 0; i < r.ncodelets; i++) fill_codelet(&t->codelet[t->ncodelets++], &r.codelet[i]);
  for (int i = 0; i < r.ntags; i++) {
    const pm_ts_tag_result *g = &r.tag[i];
    t->tag[t->ntags++] = (pm_prof_tag){0, g->tag, g->count, g->total, g->min, g->max, g->flops};
  }
  for (int i = 0; i < tc.nnodes; i++) {
    if (!tc.node[i].kind[0]) continue; /* a memory node no worker of ours uses */
    pm_prof_transfer *x = &t->transfer[t->ntransfers++];
    x->process = 0;
    x->node = i;
    snprintf(x->kind, sizeof x->kind, "%s", tc.node[i].kind);
    x->count = tc.node[i].count;
    x->bytes = tc.node[i].bytes;
  }
  for (int i = 0; i < tc.npeers; i++)
    t->mpicomm[t->nmpicomms++] =
        (pm_prof_mpicomm){0, tc.peer[i].peer, tc.peer[i].dir, tc.peer[i].count, tc.peer[i].bytes, tc.peer[i].time};
  for (int i = 0; i < tc.nhandles; i++)
    t->mpihandle[t->nmpihandles++] = (pm_prof_mpihandle){
        0, tc.handle[i].peer, tc.handle[i].dir, tc.handle[i].data_tag, tc.handle[i].count, tc.handle[i].bytes};
  pm_prof_tasks_free(p->tasks);
  p->tasks = t;
  t = NULL;
  rc = 0;
out:
  pm_prof_tasks_free(t);
  pm_ts_results_free(&r);
  pm_tc_snapshot_free(&tc);
  return rc;
}

/* The task model as a module (pm_module.h): its part of the process profile. */
const pm_module pm_tasks_module = {.name = "tasks", .order = PM_ORDER_TASKS, .to_profile = tasks_to_profile};
