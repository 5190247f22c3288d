/* The scaling study: loading runs, grouping them into configurations, the reference, strong or
 * weak scaling (declared, or pm_scaling_detect of docs/metrics.md §8.2), and every run's and
 * configuration's trees. Bad inputs are recorded as problems naming the file and left out, so a
 * partial study still reports what it has. */
#define _GNU_SOURCE
#include "rp_study.h"
#include "pm_profile_input.h"
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *prog_name = "popmeter-report";

void rp_study_set_prog(const char *prog) { prog_name = prog; }

void rp_study_init(rp_study *s) { memset(s, 0, sizeof *s); }

const char *rp_mode_name(pm_scaling_mode m) { return m == PM_SCALING_WEAK ? "weak" : "strong"; }

/* Appends the formatted message to list (n entries); the message, or NULL when out of memory. */
static const char *append(char ***list, int *n, const char *fmt, va_list ap) {
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0) return NULL;
  char **w = realloc(*list, (size_t)(*n + 1) * sizeof *w);
  if (!w) {
    free(msg);
    return NULL;
  }
  *list = w;
  w[(*n)++] = msg;
  return msg;
}

void rp_study_problem(rp_study *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *msg = append(&s->problems, &s->nproblems, fmt, ap);
  va_end(ap);
  if (msg) fprintf(stderr, "%s: %s\n", prog_name, msg);
}

void rp_study_note(rp_study *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  append(&s->notes, &s->nnotes, fmt, ap);
  va_end(ap);
}

int rp_resolve_run(const char *arg, char *path, size_t n, char *err, size_t errlen) {
  struct stat st;
  if (stat(arg, &st) != 0) {
    snprintf(err, errlen, "%s: %s", arg, strerror(errno));
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(path, n, "%s%spopmeter.json", arg, arg[0] && arg[strlen(arg) - 1] == '/' ? "" : "/");
    if (stat(path, &st) != 0) {
      snprintf(err, errlen, "%s: no popmeter.json in this directory (not a popmeter run?)", arg);
      return -1;
    }
  } else {
    snprintf(path, n, "%s", arg);
  }
  return 0;
}

int rp_study_add_profile(rp_study *s, const char *path, pm_profile *p) {
  if (s->nruns == s->caprun) {
    int cap = s->caprun ? 2 * s->caprun : 16;
    rp_run *w = realloc(s->runs, (size_t)cap * sizeof *w);
    if (!w) return -1;
    s->runs = w;
    s->caprun = cap;
  }
  memset(&s->runs[s->nruns], 0, sizeof *s->runs);
  s->runs[s->nruns].path = strdup(path);
  if (!s->runs[s->nruns].path) return -1;
  s->runs[s->nruns].prof = p;
  s->nruns++;
  return 0;
}

int rp_study_load(rp_study *s, const char *arg) {
  char path[PATH_MAX], err[1024];
  pm_profile *p;
  if (rp_resolve_run(arg, path, sizeof path, err, sizeof err) != 0) {
    rp_study_problem(s, "%s", err);
    return -1;
  }
  /* the reader's message already starts with the path */
  if (!(p = pm_profile_read_file(path, err, sizeof err))) {
    rp_study_problem(s, "%s", err);
    return -1;
  }
  if (rp_study_add_profile(s, path, p) != 0) {
    pm_profile_free(p);
    rp_study_problem(s, "%s: out of memory", path);
    return -1;
  }
  return 0;
}

int rp_study_prepare(rp_study *s, char *err, size_t errlen) {
  int i;
  if (s->prepared) return 0;
  for (i = 0; i < s->nruns; i++)
    if (rp_run_prepare(&s->runs[i]) != 0) {
      snprintf(err, errlen, "%s: out of memory", s->runs[i].path);
      return -1;
    }
  s->prepared = 1;
  return 0;
}

/* The study's application is the one most runs measured (ties: the first given); the others are
 * mismatched inputs. */
static int pick_application(rp_study *s) {
  int i, j, best = -1, bestn = 0, kept = 0;
  for (i = 0; i < s->nruns; i++) {
    int n = 0;
    for (j = 0; j < s->nruns; j++) n += strcmp(s->runs[i].prof->app, s->runs[j].prof->app) == 0;
    if (n > bestn) {
      best = i;
      bestn = n;
    }
  }
  if (best < 0) return 0;
  snprintf(s->app, sizeof s->app, "%s", s->runs[best].prof->app);
  for (i = 0; i < s->nruns; i++) {
    if (strcmp(s->runs[i].prof->app, s->app) == 0) {
      kept++;
      continue;
    }
    s->runs[i].dropped = 1;
    rp_study_problem(s, "%s: application '%s' differs from the study's '%s' (%s): left out", s->runs[i].path,
                     s->runs[i].prof->app, s->app, s->runs[best].path);
  }
  return kept;
}

static int cmp_cfg(const void *a, const void *b) {
  const rp_config *x = a, *y = b;
  long nx = (long)x->nprocesses * x->nthreads, ny = (long)y->nprocesses * y->nthreads;
  if (nx != ny) return (nx > ny) - (nx < ny);
  return (x->nprocesses > y->nprocesses) - (x->nprocesses < y->nprocesses);
}

static int find_cfg(const rp_study *s, int np, int nt) {
  int c;
  for (c = 0; c < s->ncfg; c++)
    if (s->cfg[c].nprocesses == np && s->cfg[c].nthreads == nt) return c;
  return -1;
}

/* Repeats: runs with the same processes x threads (diff: every run is its own configuration). */
static int group(rp_study *s) {
  int i, c;
  s->cfg = calloc((size_t)s->nruns + 1, sizeof *s->cfg);
  if (!s->cfg) return -1;
  for (i = 0; i < s->nruns; i++) {
    rp_run *r = &s->runs[i];
    if (r->dropped) continue;
    c = s->diff ? -1 : find_cfg(s, r->sr.nprocesses, r->sr.nthreads);
    if (c < 0) {
      c = s->ncfg++;
      s->cfg[c].nprocesses = r->sr.nprocesses;
      s->cfg[c].nthreads = r->sr.nthreads;
      s->cfg[c].runs = calloc((size_t)s->nruns, sizeof *s->cfg[c].runs);
      if (!s->cfg[c].runs) return -1;
      if (s->diff)
        snprintf(s->cfg[c].label, sizeof s->cfg[c].label, "%c %dx%d", c < 26 ? 'A' + c : '?', r->sr.nprocesses,
                 r->sr.nthreads);
      else
        snprintf(s->cfg[c].label, sizeof s->cfg[c].label, "%dx%d", r->sr.nprocesses, r->sr.nthreads);
    }
    s->cfg[c].runs[s->cfg[c].nruns++] = i;
  }
  if (!s->diff) qsort(s->cfg, (size_t)s->ncfg, sizeof *s->cfg, cmp_cfg);
  for (c = 0; c < s->ncfg; c++)
    for (i = 0; i < s->cfg[c].nruns; i++) s->runs[s->cfg[c].runs[i]].cfg = c;
  return 0;
}

/* --reference: a configuration label ("4x2", or "A"/"B" in a diff) or the path of one of the runs. */
static int pick_reference(rp_study *s, const char *ref, char *err, size_t errlen) {
  char path[PATH_MAX], real[PATH_MAX], e[512], other[PATH_MAX];
  int c, i;
  s->ref = 0;
  if (!ref) return 0;
  for (c = 0; c < s->ncfg; c++) {
    const char *l = s->cfg[c].label;
    if (strcmp(l, ref) == 0 || (s->diff && strlen(ref) == 1 && l[0] == ref[0]) ||
        (s->diff && strcmp(l + 2, ref) == 0)) {
      s->ref = c;
      return 0;
    }
  }
  if (rp_resolve_run(ref, path, sizeof path, e, sizeof e) == 0 && realpath(path, real)) {
    for (i = 0; i < s->nruns; i++)
      if (!s->runs[i].dropped && realpath(s->runs[i].path, other) && strcmp(other, real) == 0) {
        s->ref = s->runs[i].cfg;
        return 0;
      }
  }
  snprintf(err, errlen, "reference '%s' is neither a configuration of the study nor one of its runs", ref);
  return -1;
}

static const pm_scaling_run **gather(const rp_study *s, const rp_config *c, int region, int *n) {
  const pm_scaling_run **v = calloc((size_t)c->nruns + 1, sizeof *v);
  int i;
  *n = 0;
  for (i = 0; v && i < c->nruns; i++) {
    const rp_run *r = &s->runs[c->runs[i]];
    if (region < 0)
      v[(*n)++] = &r->sr;
    else if (r->reg[region].present)
      v[(*n)++] = &r->reg[region].sr;
  }
  return v;
}

static int medians(rp_study *s) {
  int c, g, n;
  for (c = 0; c < s->ncfg; c++) {
    rp_config *cf = &s->cfg[c];
    const pm_scaling_run **v = gather(s, cf, -1, &n);
    if (!v) return -1;
    cf->median = rp_scaling_run_median(v, n);
    free(v);
    cf->rmedian = calloc((size_t)s->nregions + 1, sizeof *cf->rmedian);
    cf->rpresent = calloc((size_t)s->nregions + 1, sizeof *cf->rpresent);
    if (!cf->rmedian || !cf->rpresent) return -1;
    for (g = 0; g < s->nregions; g++) {
      if (!(v = gather(s, cf, g, &n))) return -1;
      cf->rpresent[g] = n > 0;
      if (n) cf->rmedian[g] = rp_scaling_run_median(v, n);
      free(v);
    }
  }
  return 0;
}

/* The one place the models are asked for scalability: run r against the reference's median. */
static pm_metric *scaling_of(const pm_scaling_run *ref, const pm_scaling_run *run, pm_scaling_mode mode) {
  pm_scaling_run pair[2] = {*ref, *run};
  return pm_model_scaling(pair, 2, 1, 0, mode);
}

static void region_not_in_reference(pm_metric *t) {
  static const char *const paths[] = {"ge", "ge/compscal", "speedup"};
  unsigned i;
  for (i = 0; i < sizeof paths / sizeof *paths; i++) {
    pm_metric *m = pm_metric_find(t, paths[i]);
    if (m) pm_metric_set_na(m, "region not entered in the reference run");
  }
}

/* The run's task model with the reference runs (metrics/model_task.c); NULL without references,
 * or for a run without tasks (its task efficiency is then n/a, and so shown). */
static pm_metric *task_model(const rp_run *r, const rp_options *o) {
  pm_run_input_buf buf;
  pm_metric *t = NULL;
  if (!o->ref_one || !o->ref_seq || pm_profile_to_input(r->prof, 0, &buf) != 0) return NULL;
  if (pm_profile_input_references(&buf, o->ref_one, o->ref_seq) == 0) t = pm_model_task(&buf.in);
  pm_run_input_buf_free(&buf);
  return t;
}

static int run_trees(rp_study *s, const rp_options *o) {
  const rp_config *ref = &s->cfg[s->ref];
  int i, g;
  for (i = 0; i < s->nruns; i++) {
    rp_run *r = &s->runs[i];
    pm_metric *sc, *task;
    if (r->dropped) continue;
    if (!(sc = scaling_of(&ref->median, &r->sr, s->mode))) return -1;
    task = task_model(r, o);
    r->tree = rp_tree_scaling(sc, r->basic, r->sr.runtime, task);
    pm_metric_free(task);
    pm_metric_free(sc);
    if (!r->tree) return -1;
    for (g = 0; g < s->nregions; g++) {
      rp_region_run *rr = &r->reg[g];
      pm_scaling_run none = {.nprocesses = ref->nprocesses, .nthreads = ref->nthreads};
      if (!rr->present) continue;
      if (!(sc = scaling_of(ref->rpresent[g] ? &ref->rmedian[g] : &none, &rr->sr, s->mode))) return -1;
      rr->tree = rp_tree_region(s->regions[g].name, sc, rr->basic, rr->sr.runtime);
      pm_metric_free(sc);
      if (!rr->tree) return -1;
      if (!ref->rpresent[g]) region_not_in_reference(rr->tree);
    }
  }
  return 0;
}

static double stat_over(const rp_study *s, const rp_config *c, int stat, double *buf,
                        double (*get)(const rp_run *, int), int arg) {
  int i;
  for (i = 0; i < c->nruns; i++) buf[i] = get(&s->runs[c->runs[i]], arg);
  return rp_stat(buf, c->nruns, stat);
}
static double get_runtime(const rp_run *r, int a) {
  (void)a;
  return r->sr.runtime;
}
static double get_g_cue(const rp_run *r, int a) {
  (void)a;
  return r->g_cue;
}
static double get_max_useful(const rp_run *r, int a) {
  (void)a;
  return r->max_useful;
}
static double get_rank_pe(const rp_run *r, int p) { return r->rank_pe[p]; }

static int config_summaries(rp_study *s) {
  int c, i, g, k, n;
  for (c = 0; c < s->ncfg; c++) {
    rp_config *cf = &s->cfg[c];
    pm_metric **t = calloc((size_t)cf->nruns + 1, sizeof *t);   /* the runs' trees */
    pm_metric **rt = calloc((size_t)cf->nruns + 1, sizeof *rt); /* one region's trees */
    double *buf = calloc((size_t)cf->nruns + 1, sizeof *buf);
    if (!t || !rt || !buf) goto oom;
    cf->has_cp = 1;
    for (i = 0; i < cf->nruns; i++) {
      t[i] = s->runs[cf->runs[i]].tree;
      cf->has_cp &= s->runs[cf->runs[i]].has_cp;
    }
    for (k = 0; k < RP_NSTATS; k++) {
      cf->tree[k] = rp_tree_summary(t, cf->nruns, k);
      cf->rtree[k] = calloc((size_t)s->nregions + 1, sizeof *cf->rtree[k]);
      cf->rank_pe[k] = calloc((size_t)cf->nprocesses + 1, sizeof *cf->rank_pe[k]);
      if (!cf->tree[k] || !cf->rtree[k] || !cf->rank_pe[k]) goto oom;
      cf->runtime[k] = stat_over(s, cf, k, buf, get_runtime, 0);
      cf->g_cue[k] = stat_over(s, cf, k, buf, get_g_cue, 0);
      cf->max_useful[k] = stat_over(s, cf, k, buf, get_max_useful, 0);
      for (i = 0; i < cf->nprocesses; i++) cf->rank_pe[k][i] = stat_over(s, cf, k, buf, get_rank_pe, i);
      for (g = 0; g < s->nregions; g++) {
        for (i = n = 0; i < cf->nruns; i++)
          if (s->runs[cf->runs[i]].reg[g].present) rt[n++] = s->runs[cf->runs[i]].reg[g].tree;
        if (n && !(cf->rtree[k][g] = rp_tree_summary(rt, n, k))) goto oom;
      }
    }
    free(t);
    free(rt);
    free(buf);
    continue;
  oom:
    free(t);
    free(rt);
    free(buf);
    return -1;
  }
  return 0;
}

static void region_ranking_data(rp_study *s) {
  int g, i;
  for (g = 0; g < s->nregions; g++) {
    rp_region *rg = &s->regions[g];
    rg->ref_time = s->cfg[s->ref].rpresent[g] ? s->cfg[s->ref].rmedian[g].runtime : 0.0;
    rg->time_max = 0.0;
    for (i = 0; i < s->nruns; i++)
      if (!s->runs[i].dropped && s->runs[i].reg[g].present && s->runs[i].reg[g].sr.runtime > rg->time_max)
        rg->time_max = s->runs[i].reg[g].sr.runtime;
  }
}

int rp_study_compute(rp_study *s, const rp_options *o, char *err, size_t errlen) {
  pm_scaling_run *med;
  int c, i;
  s->diff = o->diff;
  if (s->nruns == 0) {
    snprintf(err, errlen, "no readable run");
    return -1;
  }
  if (rp_study_prepare(s, err, errlen) != 0) return -1;
  if (pick_application(s) == 0) {
    snprintf(err, errlen, "no readable run");
    return -1;
  }
  if (group(s) != 0) goto oom;
  if (pick_reference(s, o->reference, err, errlen) != 0) return -1;
  rp_study_compare_work(s);
  if (rp_study_collect_regions(s) != 0) goto oom;
  for (i = 0; i < s->nruns; i++)
    if (!s->runs[i].dropped && rp_run_regions(&s->runs[i], s->regions, s->nregions) != 0) goto oom;
  if (medians(s) != 0) goto oom;
  s->mode_declared = o->mode != PM_SCALING_AUTO;
  s->mode = o->mode;
  if (!s->mode_declared) {
    if (!(med = calloc((size_t)s->ncfg, sizeof *med))) goto oom;
    for (c = 0; c < s->ncfg; c++) med[c] = s->cfg[c].median;
    /* Detection compares the most different size with the base of the study: the smallest
     * configuration (sorted first), whatever the reference; measured from a larger reference, a
     * smaller run of a strong-scaling study holds more work per location and would read as weak.
     * A comparison of two runs has no such order: there the reference is the base. */
    s->mode = pm_scaling_detect(med, s->ncfg, s->diff ? s->ref : 0);
    free(med);
  }
  if (run_trees(s, o) != 0 || config_summaries(s) != 0) goto oom;
  region_ranking_data(s);
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
  return -1;
}

void rp_study_free(rp_study *s) {
  int i, k, g;
  for (i = 0; i < s->nruns; i++) {
    rp_run_free_derived(&s->runs[i], s->nregions);
    pm_profile_free(s->runs[i].prof);
    free(s->runs[i].path);
  }
  for (i = 0; i < s->ncfg; i++) {
    rp_config *c = &s->cfg[i];
    for (k = 0; k < RP_NSTATS; k++) {
      pm_metric_free(c->tree[k]);
      for (g = 0; c->rtree[k] && g < s->nregions; g++) pm_metric_free(c->rtree[k][g]);
      free(c->rtree[k]);
      free(c->rank_pe[k]);
    }
    free(c->runs);
    free(c->rmedian);
    free(c->rpresent);
  }
  for (g = 0; g < s->nregions; g++) free(s->regions[g].name);
  for (i = 0; i < s->nproblems; i++) free(s->problems[i]);
  free(s->problems);
  for (i = 0; i < s->nnotes; i++) free(s->notes[i]);
  free(s->notes);
  free(s->regions);
  free(s->cfg);
  free(s->runs);
  memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------------------- region ranking */
static int region_ge(const rp_study *s, int cfg, int g, double *v) {
  const pm_metric *t = s->cfg[cfg].rtree[RP_MEDIAN] ? s->cfg[cfg].rtree[RP_MEDIAN][g] : NULL;
  return t && pm_metric_get_path(t, "ge", v);
}

int rp_region_first_below(const rp_study *s, int region, double threshold) {
  int c;
  double v;
  for (c = 0; c < s->ncfg; c++)
    if (region_ge(s, c, region, &v) && v < threshold) return c;
  return -1;
}

static const rp_study *rank_study; /* qsort has no context argument */

static int by_time(const void *a, const void *b) {
  const rp_region *x = &rank_study->regions[*(const int *)a];
  const rp_region *y = &rank_study->regions[*(const int *)b];
  if (x->ref_time != y->ref_time) return (x->ref_time < y->ref_time) - (x->ref_time > y->ref_time);
  return (x->time_max < y->time_max) - (x->time_max > y->time_max);
}

static int by_last_ge(const void *a, const void *b) {
  int last = rank_study->ncfg - 1, ga = *(const int *)a, gb = *(const int *)b;
  double x, y;
  int hx = region_ge(rank_study, last, ga, &x), hy = region_ge(rank_study, last, gb, &y);
  if (hx != hy) return hy - hx;
  if (hx && x != y) return (x > y) - (x < y);
  return by_time(a, b);
}

int rp_regions_ranked(const rp_study *s, int *order, int max) {
  int g, n = 0;
  if (s->ncfg == 0) return 0;
  for (g = 0; g < s->nregions; g++)
    if (s->regions[g].time_max > 0.0) order[n++] = g;
  rank_study = s;
  qsort(order, (size_t)n, sizeof *order, by_time);
  if (max > 0 && n > max) n = max;
  qsort(order, (size_t)n, sizeof *order, by_last_ge);
  rank_study = NULL;
  return n;
}
