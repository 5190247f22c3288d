/* The synthetic task run of view_synth.h.
 *
 * Tasks are dealt to the worker that frees up first (ranks x workers lanes, in time order). A task's
 * codelet c has flops log-uniform over two decades from 10^(4 + c/2), a duration of flops / (1 + c/2)
 * GFlop/s with a log-normal spread (sigma 0.15), one in a hundred 3 to 8 times slower, at least
 * 1 us; gaps of 0.5 to 5 us between tasks. Its tag is its front, fronts following each other in
 * time (a postorder). Its critical-path clock starts from the previous task of its worker, and one
 * time in four from the last task of another worker, if ended: the generator keeps the predecessor
 * that gave the maximum, so the path is known. Every msg_every tasks, a 512 KiB message from the
 * task's rank to the next one (progress threads). popmeter.json carries what popmeter would: the
 * locations' times, per-codelet and per-tag statistics, the tree of fronts, a memory series. */
#define _GNU_SOURCE
#include "view_synth.h"
#include "otf2_flush.h"
#include "pm_profile.h"
#include "pm_profile_published.h"
#include "pm_profile_tasks.h"
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vs_codelet_names[VS_CODELETS_MAX] = {"syn_potrf", "syn_trsm", "syn_syrk",    "syn_gemm",
                                                       "syn_asm",   "syn_init", "syn_cleanup", "syn_extra"};
#define T0 1000000000000ull /* the trace's first timestamp */

static uint64_t rng;
static double unif(void) { /* xorshift64*, in [0, 1) */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}
static double gauss(void) { return sqrt(-2 * log(1 - unif())) * cos(6.283185307179586 * unif()); }

typedef struct {
  uint64_t t_send, t_recv;
  int from, to;
} vs_msg;
static vs_msg *msgs;

int vs_generate(const vs_params *p, vs_run *r) {
  memset(r, 0, sizeof *r);
  r->p = *p;
  rng = 0x9e3779b97f4a7c15ull ^ p->seed;
  int L = p->ranks * p->workers;
  uint64_t *next = calloc((size_t)L, sizeof *next), *last_end = calloc((size_t)L, sizeof *last_end);
  size_t *last = malloc(sizeof *last * (size_t)L), *pred = malloc(sizeof *pred * (p->tasks ? p->tasks : 1));
  r->task = calloc(p->tasks ? p->tasks : 1, sizeof *r->task);
  free(msgs);
  msgs = calloc(p->msg_every ? p->tasks / (size_t)p->msg_every + 1 : 1, sizeof *msgs);
  if (!next || !last_end || !last || !pred || !r->task || !msgs) goto oom;
  for (int l = 0; l < L; l++) {
    next[l] = 2000000 + (uint64_t)(unif() * 100000);
    last[l] = SIZE_MAX;
  }
  const uint64_t app = 1000000; /* the application threads' useful time before the first tasks */
  for (size_t i = 0; i < p->tasks; i++) {
    int l = 0;
    for (int k = 1; k < L; k++)
      if (next[k] < next[l]) l = k;
    vs_task *t = &r->task[i];
    t->codelet = (int)(unif() * p->codelets);
    t->flops = pow(10, 4 + t->codelet / 2.0 + 2 * unif());
    double d = t->flops / (1e9 * (1 + t->codelet / 2.0)) * exp(0.15 * gauss()) * (unif() < 0.01 ? 3 + 5 * unif() : 1);
    t->start = next[l];
    t->end = t->start + (uint64_t)fmax(1000, d * 1e9);
    next[l] = t->end + 500 + (uint64_t)(unif() * 4500);
    t->rank = l / p->workers;
    t->worker = l % p->workers;
    t->tag = (uint64_t)((double)i * p->fronts / (double)p->tasks);
    uint64_t back = 10000 + (uint64_t)(unif() * 2e6);
    t->submit = t->start > back ? t->start - back : 0;
    t->ready = t->start - (uint64_t)(unif() * fmin(200000, (double)(t->start - t->submit)));
    t->pop = t->start - (uint64_t)(unif() * fmin(2000, (double)(t->start - t->ready)));
    /* the critical-path clock and its predecessor */
    t->cp_in = app;
    pred[i] = SIZE_MAX;
    if (last[l] != SIZE_MAX && r->task[last[l]].cp_out > t->cp_in)
      t->cp_in = r->task[last[l]].cp_out, pred[i] = last[l];
    int o = (int)(unif() * L);
    if (unif() < 0.25 && last[o] != SIZE_MAX && last_end[o] <= t->start && r->task[last[o]].cp_out > t->cp_in)
      t->cp_in = r->task[last[o]].cp_out, pred[i] = last[o];
    t->cp_out = t->cp_in + (t->end - t->start);
    last[l] = i;
    last_end[l] = t->end;
    if (t->end > r->span) r->span = t->end;
    if (p->msg_every && p->ranks > 1 && i % (size_t)p->msg_every == 0) {
      uint64_t ts = t->end + 1000;
      msgs[r->nmsgs++] = (vs_msg){ts, ts + 20000 + 524288, t->rank, (t->rank + 1) % p->ranks};
      if (ts + 20000 + 524288 > r->span) r->span = ts + 20000 + 524288;
    }
  }
  /* the path: from the largest cp_out back through the predecessors */
  size_t end = 0, n = 0;
  for (size_t i = 1; i < p->tasks; i++)
    if (r->task[i].cp_out > r->task[end].cp_out) end = i;
  for (size_t i = end; p->tasks && i != SIZE_MAX; i = pred[i]) n++;
  if (!(r->cp_chain = malloc(sizeof *r->cp_chain * (n ? n : 1)))) goto oom;
  r->ncp = n;
  for (size_t i = end; p->tasks && i != SIZE_MAX; i = pred[i]) r->cp_chain[--n] = i;
  free(next);
  free(last_end);
  free(last);
  free(pred);
  return 0;
oom:
  free(next);
  free(last_end);
  free(last);
  free(pred);
  vs_free(r);
  return -1;
}

void vs_free(vs_run *r) {
  free(r->task);
  free(r->cp_chain);
  free(msgs);
  msgs = NULL;
  memset(r, 0, sizeof *r);
}

/* --------------------------------------------------------------------------------- the trace */
enum { S_EMPTY, S_MACHINE, S_NODE, S_MAIN, S_PROGRESS, S_WORLD, S_MPILOCS, S_SUBMIT, S_FIXED };
/* popmeter's numbering (docs/trace.md): the process's first thread is location rank, the others
 * (k << 32) | rank with k = its location index + 1 */
static uint64_t loc_id(const vs_params *p, int rank, int thread) {
  (void)p;
  return (thread == 0 ? 0 : (uint64_t)(thread + 1) << 32) | (uint64_t)rank;
}

static int by_time(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The events of one location; returns the number written. */
static uint64_t write_location(OTF2_Archive *a, const vs_run *r, int rank, int thread, OTF2_AttributeList *al) {
  const vs_params *p = &r->p;
  OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, loc_id(p, rank, thread));
  if (thread >= 1 && thread <= p->workers) { /* a worker: its task bodies */
    for (size_t i = 0; i < p->tasks; i++) {
      const vs_task *t = &r->task[i];
      if (t->rank != rank || t->worker != thread - 1) continue;
      OTF2_EvtWriter_Enter(w, NULL, T0 + t->start, (OTF2_RegionRef)t->codelet);
      OTF2_AttributeList_AddUint64(al, PM_TT_TAG, t->tag);
      OTF2_AttributeList_AddDouble(al, PM_TT_FLOPS, t->flops);
      OTF2_AttributeList_AddUint64(al, PM_TT_SUBMIT, T0 + t->submit);
      OTF2_AttributeList_AddUint64(al, PM_TT_READY, T0 + t->ready);
      OTF2_AttributeList_AddUint64(al, PM_TT_POP, T0 + t->pop);
      OTF2_AttributeList_AddUint64(al, PM_TT_CP_IN, t->cp_in);
      OTF2_AttributeList_AddUint64(al, PM_TT_CP_OUT, t->cp_out);
      OTF2_EvtWriter_Leave(w, al, T0 + t->end, (OTF2_RegionRef)t->codelet);
    }
  } else if (thread == 0) { /* main: the submissions, 1 us each unless the next one comes sooner */
    size_t n = 0;
    uint64_t *s = malloc(sizeof *s * (p->tasks ? p->tasks : 1));
    for (size_t i = 0; s && i < p->tasks; i++)
      if (r->task[i].rank == rank) s[n++] = r->task[i].submit;
    if (s) qsort(s, n, sizeof *s, by_time);
    for (size_t i = 0; s && i < n; i++) {
      uint64_t e = s[i] + 1000;
      if (i + 1 < n && e > s[i + 1]) e = s[i + 1];
      OTF2_EvtWriter_Enter(w, NULL, T0 + s[i], (OTF2_RegionRef)p->codelets);
      OTF2_EvtWriter_Leave(w, NULL, T0 + e, (OTF2_RegionRef)p->codelets);
    }
    free(s);
  } else { /* the progress thread: messages sent (kind 0) and received (kind 1), in time order */
    size_t n = 0;
    uint64_t(*e)[3] = malloc(sizeof *e * (2 * r->nmsgs + 1));
    for (size_t i = 0; e && i < r->nmsgs; i++) {
      if (msgs[i].from == rank) e[n][0] = msgs[i].t_send, e[n][1] = 0, e[n++][2] = (uint64_t)msgs[i].to;
      if (msgs[i].to == rank) e[n][0] = msgs[i].t_recv, e[n][1] = 1, e[n++][2] = (uint64_t)msgs[i].from;
    }
    if (e) qsort(e, n, sizeof *e, by_time);
    for (size_t i = 0; e && i < n; i++) {
      if (e[i][1] == 0)
        OTF2_EvtWriter_MpiSend(w, NULL, T0 + e[i][0], (uint32_t)e[i][2], 0, 7, 524288);
      else
        OTF2_EvtWriter_MpiRecv(w, NULL, T0 + e[i][0], (uint32_t)e[i][2], 0, 7, 524288);
    }
    free(e);
  }
  uint64_t n = 0;
  OTF2_EvtWriter_GetNumberOfEvents(w, &n);
  OTF2_Archive_CloseEvtWriter(a, w);
  return n;
}

static int write_trace(const vs_run *r, const char *dir) {
  const vs_params *p = &r->p;
  OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
  if (!a) return -1;
  OTF2_Archive_SetFlushCallbacks(a, &otf2_flush_callbacks, NULL);
  OTF2_Archive_SetSerialCollectiveCallbacks(a);
  OTF2_Archive_OpenEvtFiles(a);
  int nthreads = p->workers + 2;
  uint64_t *nev = calloc((size_t)(p->ranks * nthreads), sizeof *nev);
  OTF2_AttributeList *al = OTF2_AttributeList_New();
  for (int rk = 0; nev && rk < p->ranks; rk++)
    for (int th = 0; th < nthreads; th++) nev[rk * nthreads + th] = write_location(a, r, rk, th, al);
  OTF2_AttributeList_Delete(al);
  OTF2_Archive_CloseEvtFiles(a);
  OTF2_Archive_OpenDefFiles(a);
  for (int rk = 0; rk < p->ranks; rk++)
    for (int th = 0; th < nthreads; th++)
      OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, loc_id(p, rk, th)));
  OTF2_Archive_CloseDefFiles(a);
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, T0, r->span + 1, OTF2_UNDEFINED_TIMESTAMP);
  /* strings: the fixed ones, then codelets, attribute names, location and group names */
  const char *fixed[S_FIXED] = {
      "", "machine", "node", "main", "StarPU-MPI progress", "MPI_COMM_WORLD", "MPI locations", "starpu_task_submit"};
  uint32_t s = 0;
  for (int i = 0; i < S_FIXED; i++) OTF2_GlobalDefWriter_WriteString(g, s++, fixed[i]);
  uint32_t s_cl = s, s_attr, s_cpu, s_rank;
  for (int c = 0; c < p->codelets; c++) OTF2_GlobalDefWriter_WriteString(g, s++, vs_codelet_names[c]);
  s_attr = s;
  for (int i = 0; i < PM_TT_NATTR; i++) OTF2_GlobalDefWriter_WriteString(g, s++, pm_task_attr_name(i));
  s_cpu = s;
  char name[64];
  for (int w = 0; w < p->workers; w++)
    snprintf(name, sizeof name, "CPU %d", w), OTF2_GlobalDefWriter_WriteString(g, s++, name);
  s_rank = s;
  for (int rk = 0; rk < p->ranks; rk++)
    snprintf(name, sizeof name, "MPI Rank %d", rk), OTF2_GlobalDefWriter_WriteString(g, s++, name);
  for (int i = 0; i < PM_TT_NATTR; i++)
    OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)i, s_attr + (uint32_t)i, S_EMPTY,
                                        i == PM_TT_FLOPS ? OTF2_TYPE_DOUBLE : OTF2_TYPE_UINT64);
  for (int c = 0; c < p->codelets; c++)
    OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)c, s_cl + (uint32_t)c, s_cl + (uint32_t)c, S_EMPTY,
                                     OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_UNKNOWN, OTF2_REGION_FLAG_NONE, S_EMPTY, 0,
                                     0);
  OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)p->codelets, S_SUBMIT, S_SUBMIT, S_EMPTY,
                                   OTF2_REGION_ROLE_WRAPPER, OTF2_PARADIGM_UNKNOWN, OTF2_REGION_FLAG_NONE, S_EMPTY, 0,
                                   0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_NODE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  uint64_t *mains = malloc(sizeof *mains * (size_t)p->ranks), *ranks = malloc(sizeof *ranks * (size_t)p->ranks);
  for (int rk = 0; rk < p->ranks; rk++) {
    OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)rk, s_rank + (uint32_t)rk,
                                            OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
    for (int th = 0; th < nthreads; th++)
      OTF2_GlobalDefWriter_WriteLocation(g, loc_id(p, rk, th),
                                         th == 0            ? S_MAIN
                                         : th <= p->workers ? s_cpu + (uint32_t)(th - 1)
                                                            : S_PROGRESS,
                                         OTF2_LOCATION_TYPE_CPU_THREAD, nev ? nev[rk * nthreads + th] : 0,
                                         (OTF2_LocationGroupRef)rk);
    mains[rk] = loc_id(p, rk, 0);
    ranks[rk] = (uint64_t)rk;
  }
  OTF2_GlobalDefWriter_WriteGroup(g, 0, S_MPILOCS, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, (uint32_t)p->ranks, mains);
  OTF2_GlobalDefWriter_WriteGroup(g, 1, S_EMPTY, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  (uint32_t)p->ranks, ranks);
  OTF2_GlobalDefWriter_WriteComm(g, 0, S_WORLD, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  free(mains);
  free(ranks);
  free(nev);
  return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}

/* --------------------------------------------------------------------------- popmeter.json */
static uint32_t fnv(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void codelets_part(const vs_run *r, pm_prof_tasks *t) {
  const vs_params *p = &r->p;
  t->ncodelets = p->ranks * p->codelets;
  t->codelet = calloc((size_t)t->ncodelets, sizeof *t->codelet);
  double *d = malloc(sizeof *d * (p->tasks ? p->tasks : 1));
  for (int rk = 0; t->codelet && d && rk < p->ranks; rk++)
    for (int c = 0; c < p->codelets; c++) {
      pm_prof_codelet *x = &t->codelet[rk * p->codelets + c];
      snprintf(x->name, sizeof x->name, "%s", vs_codelet_names[c]);
      x->process = rk;
      x->hash = fnv(x->name);
      size_t n = 0;
      for (size_t i = 0; i < p->tasks; i++) {
        const vs_task *k = &r->task[i];
        if (k->rank != rk || k->codelet != c) continue;
        d[n++] = (double)(k->end - k->start) * 1e-9;
        x->flops += k->flops;
      }
      if (!n) continue;
      qsort(d, n, sizeof *d, cmp_double);
      x->count = x->with_flops = n;
      for (size_t i = 0; i < n; i++) x->total += d[i];
      x->min = d[0];
      x->max = d[n - 1];
      x->q1 = d[n / 4];
      x->q3 = d[3 * n / 4];
    }
  free(d);
}

static void tags_part(const vs_run *r, pm_prof_tasks *t) {
  const vs_params *p = &r->p;
  t->tag = calloc((size_t)p->fronts * (size_t)p->ranks + 1, sizeof *t->tag);
  for (size_t i = 0; t->tag && i < p->tasks; i++) {
    const vs_task *k = &r->task[i];
    pm_prof_tag *g = &t->tag[(size_t)k->tag * (size_t)p->ranks + (size_t)k->rank];
    double d = (double)(k->end - k->start) * 1e-9;
    if (!g->count) g->min = g->max = d;
    g->process = k->rank;
    g->tag = k->tag;
    g->count++;
    g->total += d;
    g->flops += k->flops;
    g->min = fmin(g->min, d);
    g->max = fmax(g->max, d);
  }
  int n = 0; /* only the (front, rank) pairs with tasks */
  for (size_t i = 0; t->tag && i < (size_t)p->fronts * (size_t)p->ranks; i++)
    if (t->tag[i].count) t->tag[n++] = t->tag[i];
  t->ntags = n;
}

/* The fronts as a tree in postorder: each front's parent is a later one (the last is the root). */
static void tree_part(const vs_run *r, pm_profile *prof) {
  const vs_params *p = &r->p;
  pm_prof_tag_node *nodes = calloc((size_t)p->fronts, sizeof *nodes);
  double *flops = calloc((size_t)p->fronts, sizeof *flops);
  if (!nodes || !flops) goto out;
  for (size_t i = 0; i < p->tasks; i++) flops[r->task[i].tag] += r->task[i].flops;
  for (int f = 0; f < p->fronts; f++) {
    int span = p->fronts - 1 - f, up = 1 + (int)(unif() * (span < 8 ? span : 8));
    nodes[f] = (pm_prof_tag_node){(uint64_t)f, f == p->fronts - 1 ? PM_PROF_TAG_NONE : (uint64_t)(f + up), f, flops[f],
                                  (int)((int64_t)f * p->ranks / p->fronts)};
  }
  pm_prof_tag_nodes_add(&prof->published, nodes, p->fronts);
out:
  free(nodes);
  free(flops);
}

static void memory_part(const vs_run *r, pm_profile *prof) {
  pm_prof_bin bins[1024];
  double v = 1e8;
  for (int rk = 0; rk < r->p.ranks; rk++) {
    for (int b = 0; b < 1024; b++) {
      double lo = v;
      v = fmax(1e7, v * (1 + 0.05 * gauss()));
      bins[b] = (pm_prof_bin){fmin(lo, v), fmax(lo, v) * 1.01, v};
    }
    pm_prof_series s = {"memory in use (bytes)",       rk,     0.001, T0 + 1000000,
                        (double)r->span * 1e-9 / 1024, 100000, 1024,  bins};
    pm_prof_series_add(&prof->published, &s);
  }
}

static int write_profile(const vs_run *r, const char *dir) {
  const vs_params *p = &r->p;
  pm_profile *prof = pm_profile_new();
  if (!prof) return -1;
  double span = (double)r->span * 1e-9;
  snprintf(prof->app, sizeof prof->app, "synthetic");
  snprintf(prof->command, sizeof prof->command, "synthetic: %zu tasks, %d ranks x %d workers", p->tasks, p->ranks,
           p->workers);
  snprintf(prof->start_time, sizeof prof->start_time, "2026-01-01T00:00:00");
  prof->has_critical_path = 1;
  prof->nprocesses = p->ranks;
  prof->proc = calloc((size_t)p->ranks, sizeof *prof->proc);
  int nthreads = p->workers + 2;
  prof->nlocations = p->ranks * nthreads;
  prof->loc = calloc((size_t)prof->nlocations, sizeof *prof->loc);
  prof->val = calloc((size_t)prof->nlocations, sizeof *prof->val);
  prof->tasks = calloc(1, sizeof *prof->tasks);
  double *busy = calloc((size_t)prof->nlocations, sizeof *busy);
  if (!prof->proc || !prof->loc || !prof->val || !prof->tasks || !busy) {
    free(busy);
    pm_profile_free(prof);
    return -1;
  }
  for (size_t i = 0; i < p->tasks; i++)
    busy[r->task[i].rank * nthreads + 1 + r->task[i].worker] += (double)(r->task[i].end - r->task[i].start) * 1e-9;
  int root = pm_profile_add_region(prof, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  pm_profile_add_cnode(prof, -1, root);
  for (int rk = 0; rk < p->ranks; rk++) {
    prof->proc[rk] = (pm_prof_process){.rank = rk, .pid = 1000 + rk, .window = span};
    snprintf(prof->proc[rk].host, sizeof prof->proc[rk].host, "node0");
    for (int th = 0; th < nthreads; th++) {
      int k = rk * nthreads + th;
      pm_prof_location *l = &prof->loc[k];
      l->process = rk;
      l->thread = th;
      l->role = th == 0 ? PM_ROLE_MAIN : th <= p->workers ? PM_ROLE_WORKER : PM_ROLE_PROGRESS;
      if (th == 0)
        snprintf(l->name, sizeof l->name, "main");
      else if (th <= p->workers)
        snprintf(l->name, sizeof l->name, "CPU %d", th - 1);
      else
        snprintf(l->name, sizeof l->name, "StarPU-MPI progress");
      double u = th == 0 ? 0.001 : busy[k];
      l->time[PM_CTX_SERIAL][PM_STATE_USEFUL] = u;
      l->time[PM_CTX_SERIAL][th <= p->workers ? PM_STATE_IDLE : PM_STATE_RUNTIME] = span - u;
      l->cp_global = l->cp_process = (pm_prof_cp){u, u, u};
      prof->val[k].cnode = 0;
      prof->val[k].location = k;
      prof->val[k].visits = 1;
      memcpy(prof->val[k].time, l->time[PM_CTX_SERIAL], sizeof prof->val[k].time);
    }
  }
  prof->nvalues = prof->nlocations;
  free(busy);
  pm_prof_tasks *t = prof->tasks;
  t->ntaskprocs = p->ranks;
  t->taskproc = calloc((size_t)(unsigned)p->ranks, sizeof *t->taskproc);
  for (int rk = 0; t->taskproc && rk < p->ranks; rk++) {
    pm_prof_taskproc *q = &t->taskproc[rk];
    q->process = rk;
    for (size_t i = 0; i < p->tasks; i++)
      if (r->task[i].rank == rk) {
        q->tasks++;
        double out = (double)r->task[i].cp_out * 1e-9;
        if (out > q->dag_g.cue) q->dag_g = q->dag_pl = (pm_prof_cp){out, out, out};
      }
  }
  codelets_part(r, t);
  tags_part(r, t);
  tree_part(r, prof);
  memory_part(r, prof);
  pm_profile_finish(prof);
  char *text = pm_profile_to_json_string(prof), path[4200];
  snprintf(path, sizeof path, "%s/popmeter.json", dir);
  FILE *f = text ? fopen(path, "w") : NULL;
  int rc = f && fputs(text, f) >= 0 ? 0 : -1;
  if (f && fclose(f) != 0) rc = -1;
  free(text);
  pm_profile_free(prof);
  return rc;
}

int vs_write(const vs_run *r, const char *dir) {
  if (write_trace(r, dir) != 0) {
    fprintf(stderr, "view_synth: cannot write the trace into %s\n", dir);
    return -1;
  }
  if (write_profile(r, dir) != 0) {
    fprintf(stderr, "view_synth: cannot write %s/popmeter.json\n", dir);
    return -1;
  }
  return 0;
}
