/* Per-codelet / per-tag task statistics and outlier tests (see pm_task_stats.h). */
#include "pm_task_stats.h"
#include "pm_taskgraph.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------ P-square (7) */
static const double p2_p[7] = {0.0, 0.125, 0.25, 0.5, 0.75, 0.875, 1.0};

void pm_p2_add(pm_p2 *e, double x) {
  if (e->n < 7) { /* keep the first samples sorted */
    int i = (int)e->n++;
    while (i > 0 && e->q[i - 1] > x) {
      e->q[i] = e->q[i - 1];
      i--;
    }
    e->q[i] = x;
    if (e->n == 7)
      for (int k = 0; k < 7; k++) e->pos[k] = k + 1;
    return;
  }
  int k;
  if (x < e->q[0]) {
    e->q[0] = x;
    k = 0;
  } else if (x >= e->q[6]) {
    e->q[6] = x;
    k = 5;
  } else
    for (k = 0; k < 5 && !(x < e->q[k + 1]); k++) {}
  for (int i = k + 1; i < 7; i++) e->pos[i] += 1;
  e->n++;
  for (int i = 1; i < 6; i++) {
    double want = 1.0 + (double)(e->n - 1) * p2_p[i], d = want - e->pos[i];
    if ((d >= 1 && e->pos[i + 1] - e->pos[i] > 1) || (d <= -1 && e->pos[i - 1] - e->pos[i] < -1)) {
      double s = d > 0 ? 1.0 : -1.0;
      double np = e->pos[i + 1], n0 = e->pos[i], nm = e->pos[i - 1];
      double qp = e->q[i] + s / (np - nm) *
                                ((n0 - nm + s) * (e->q[i + 1] - e->q[i]) / (np - n0) +
                                 (np - n0 - s) * (e->q[i] - e->q[i - 1]) / (n0 - nm));
      if (!(e->q[i - 1] < qp && qp < e->q[i + 1])) { /* parabolic estimate out of order: linear */
        int j = i + (int)s;
        qp = e->q[i] + s * (e->q[j] - e->q[i]) / (e->pos[j] - e->pos[i]);
      }
      e->q[i] = qp;
      e->pos[i] += s;
    }
  }
}

double pm_p2_quantile(const pm_p2 *e, int which) {
  static const int marker[5] = {0, 2, 3, 4, 6};
  static const double prob[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
  if (which < 0 || which > 4 || e->n == 0) return 0.0;
  if (e->n > 7) return e->q[marker[which]];
  double h = (double)(e->n - 1) * prob[which];
  int lo = (int)h;
  if (lo >= (int)e->n - 1) return e->q[e->n - 1];
  return e->q[lo] + (h - lo) * (e->q[lo + 1] - e->q[lo]);
}

/* ------------------------------------------------------------------------------ codelet registry */
#define MAX_CODELETS 4096
typedef struct {
  char *name;
  uint32_t hash;
  pm_region_id region;
} codelet;
static codelet codelets[MAX_CODELETS];
static uint32_t ncodelets;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

uint32_t pm_ts_codelet(const char *name, pm_region_id region) {
  if (!name) name = "(unnamed codelet)";
  pthread_mutex_lock(&reg_lock);
  uint32_t i;
  for (i = 0; i < ncodelets; i++)
    if (!strcmp(codelets[i].name, name)) break;
  if (i == ncodelets) {
    char *copy = ncodelets < MAX_CODELETS ? strdup(name) : NULL;
    if (!copy) {
      i = ncodelets ? ncodelets - 1 : 0;
    } /* full: the last one absorbs the rest */
    else {
      codelets[i] = (codelet){copy, pm_tg_name_hash(name), region};
      __atomic_store_n(&ncodelets, i + 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&reg_lock);
  return i;
}
uint32_t pm_ts_ncodelets(void) { return __atomic_load_n(&ncodelets, __ATOMIC_ACQUIRE); }
const char *pm_ts_codelet_name(uint32_t id) { return id < pm_ts_ncodelets() ? codelets[id].name : "?"; }
uint32_t pm_ts_codelet_hash(uint32_t id) { return id < pm_ts_ncodelets() ? codelets[id].hash : 0; }
pm_region_id pm_ts_codelet_region(uint32_t id) { return id < pm_ts_ncodelets() ? codelets[id].region : PM_REGION_NONE; }

/* ------------------------------------------------------------------------- per-thread tables */
typedef struct {
  pm_ts_outlier o;
  uint64_t t_start;
} top_entry;
typedef struct {
  uint64_t count, with_flops, with_pred, out_iqr, out_reg, with_waits;
  double total, min, max, flops, predicted, bytes, wait_deps, wait_sched;
  pm_p2 p2;
  pm_reg reg;
  int ntop;
  top_entry top[PM_TS_TOP];
} cell;
typedef struct {
  uint64_t tag, count;
  double total, min, max, flops;
} tag_cell;

struct pm_ts_thread {
  struct pm_ts_thread *next;
  int worker_type, location;
  uint32_t ncells;
  cell *cells;
  uint32_t tag_cap, ntags; /* open addressing: tag_slot holds index + 1 into tags */
  uint32_t *tag_slot;
  tag_cell *tags;
  uint64_t tags_dropped;
};

static __thread pm_ts_thread *tls_self __attribute__((tls_model("initial-exec")));
static __thread uint64_t tls_epoch __attribute__((tls_model("initial-exec")));
static uint64_t epoch;
static pm_ts_thread *threads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;

pm_ts_thread *pm_ts_self(int worker_type, int location) {
  if (PM_LIKELY(tls_self && tls_epoch == __atomic_load_n(&epoch, __ATOMIC_RELAXED))) return tls_self;
  pm_ts_thread *T = calloc(1, sizeof *T);
  if (!T) return NULL;
  T->worker_type = worker_type;
  T->location = location;
  pthread_mutex_lock(&threads_lock);
  T->next = threads;
  __atomic_store_n(&threads, T, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&threads_lock);
  tls_self = T;
  tls_epoch = __atomic_load_n(&epoch, __ATOMIC_RELAXED);
  return T;
}

static cell *cell_of(pm_ts_thread *T, uint32_t c) {
  if (c >= T->ncells) {
    uint32_t n = T->ncells ? T->ncells : 8;
    while (n <= c) n *= 2;
    cell *x = realloc(T->cells, n * sizeof *x);
    if (!x) return NULL;
    memset(x + T->ncells, 0, (n - T->ncells) * sizeof *x);
    T->cells = x;
    T->ncells = n;
  }
  return &T->cells[c];
}

static inline uint32_t tag_hash(uint64_t t) {
  t ^= t >> 31;
  t *= 0x9E3779B97F4A7C15ull;
  return (uint32_t)(t >> 32);
}

static tag_cell *tag_of(pm_ts_thread *T, uint64_t tag) {
  if (T->tag_cap) {
    for (uint32_t j = tag_hash(tag) & (T->tag_cap - 1);; j = (j + 1) & (T->tag_cap - 1)) {
      uint32_t s = T->tag_slot[j];
      if (!s) break;
      if (T->tags[s - 1].tag == tag) return &T->tags[s - 1];
    }
  }
  if (T->ntags >= PM_TS_MAX_TAGS) return NULL;
  if ((T->ntags + 1) * 2 > T->tag_cap) {
    uint32_t cap = T->tag_cap ? 2 * T->tag_cap : 64;
    uint32_t *slot = calloc(cap, sizeof *slot);
    tag_cell *tags = realloc(T->tags, (cap / 2) * sizeof *tags);
    if (!slot || !tags) {
      free(slot);
      if (tags) T->tags = tags;
      return NULL;
    }
    T->tags = tags;
    for (uint32_t i = 0; i < T->ntags; i++) {
      uint32_t j = tag_hash(T->tags[i].tag) & (cap - 1);
      while (slot[j]) j = (j + 1) & (cap - 1);
      slot[j] = i + 1;
    }
    free(T->tag_slot);
    T->tag_slot = slot;
    T->tag_cap = cap;
  }
  uint32_t j = tag_hash(tag) & (T->tag_cap - 1);
  while (T->tag_slot[j]) j = (j + 1) & (T->tag_cap - 1);
  T->tags[T->ntags] = (tag_cell){tag, 0, 0, 0, 0, 0};
  T->tag_slot[j] = ++T->ntags;
  return &T->tags[T->ntags - 1];
}

static void keep_top(pm_ts_thread *T, cell *c, double d, double threshold, const pm_ts_sample *s, int kind) {
  /* the worst outliers are those furthest above their threshold (ratio) */
  double r = threshold > 0 ? d / threshold : d;
  int slot = c->ntop < PM_TS_TOP ? c->ntop++ : -1;
  if (slot < 0) {
    slot = 0;
    for (int i = 1; i < PM_TS_TOP; i++)
      if (c->top[i].o.duration / c->top[i].o.threshold < c->top[slot].o.duration / c->top[slot].o.threshold) slot = i;
    if (c->top[slot].o.duration / c->top[slot].o.threshold >= r) return;
  }
  c->top[slot] = (top_entry){{d, threshold, 0, s->tag, s->has_tag, kind, T->location}, s->t_start};
}

int pm_ts_record(pm_ts_thread *T, uint32_t codelet, const pm_ts_sample *s) {
  cell *c = T ? cell_of(T, codelet) : NULL;
  if (!c) return 0;
  double d = (double)s->duration * 1e-9;
  int flagged = 0;
  if (c->count == 0 || d < c->min) c->min = d;
  if (d > c->max) c->max = d;
  c->count++;
  c->total += d;
  c->bytes += (double)s->bytes;
  if (s->predicted_us > 0 && isfinite(s->predicted_us)) {
    c->predicted += s->predicted_us * 1e-6;
    c->with_pred++;
  }
  if (s->has_waits) {
    c->with_waits++;
    c->wait_deps += (double)s->wait_deps * 1e-9;
    c->wait_sched += (double)s->wait_sched * 1e-9;
  }
  /* outlier tests against the estimates of the earlier tasks */
  if (c->p2.n >= PM_TS_WARMUP) {
    double q1 = pm_p2_quantile(&c->p2, 1), q3 = pm_p2_quantile(&c->p2, 3), thr = q3 + 1.5 * (q3 - q1);
    if (d > thr) {
      c->out_iqr++;
      flagged |= 1;
      keep_top(T, c, d, thr, s, 0);
    }
  }
  pm_p2_add(&c->p2, d);
  if (s->flops > 0 && d > 0) {
    double x = log(s->flops), y = log(d), up;
    c->flops += s->flops;
    c->with_flops++;
    if (c->reg.n >= PM_TS_WARMUP && pm_reg_upper(&c->reg, x, &up) && y > up) {
      c->out_reg++;
      flagged |= 2;
      if (!(flagged & 1)) keep_top(T, c, d, exp(up), s, 1);
    }
    pm_reg_add(&c->reg, x, y);
  }
  if (s->has_tag) {
    tag_cell *t = tag_of(T, s->tag);
    if (!t)
      T->tags_dropped++;
    else {
      if (t->count == 0 || d < t->min) t->min = d;
      if (d > t->max) t->max = d;
      t->count++;
      t->total += d;
      t->flops += s->flops > 0 ? s->flops : 0;
    }
  }
  return flagged;
}

/* ------------------------------------------------------------------------------------ collect */
static int by_tag(const void *a, const void *b) {
  uint64_t x = ((const pm_ts_tag_result *)a)->tag, y = ((const pm_ts_tag_result *)b)->tag;
  return (x > y) - (x < y);
}

int pm_ts_collect(pm_ts_results *r, uint64_t t0) {
  memset(r, 0, sizeof *r);
  uint32_t nc = pm_ts_ncodelets();
  size_t ntags = 0;
  for (pm_ts_thread *T = __atomic_load_n(&threads, __ATOMIC_ACQUIRE); T; T = T->next) ntags += T->ntags;
  /* one slot per (codelet, worker type) */
  pm_ts_codelet_result *res = calloc(2 * (size_t)nc + 1, sizeof *res);
  pm_ts_tag_result *tags = calloc(ntags + 1, sizeof *tags);
  double *qw = calloc(2 * (size_t)nc + 1, sizeof *qw);
  if (!res || !tags || !qw) {
    free(res);
    free(tags);
    free(qw);
    return -1;
  }
  size_t nt = 0;
  for (pm_ts_thread *T = threads; T; T = T->next) {
    int type = T->worker_type ? 1 : 0;
    for (uint32_t c = 0; c < T->ncells && c < nc; c++) {
      cell *x = &T->cells[c];
      if (!x->count) continue;
      pm_ts_codelet_result *o = &res[2 * c + type];
      if (o->count == 0 || x->min < o->min) o->min = x->min;
      if (x->max > o->max) o->max = x->max;
      o->codelet = c;
      o->worker_type = type;
      o->count += x->count;
      o->with_flops += x->with_flops;
      o->with_prediction += x->with_pred;
      o->outliers_iqr += x->out_iqr;
      o->outliers_reg += x->out_reg;
      o->total += x->total;
      o->flops += x->flops;
      o->predicted += x->predicted;
      o->bytes += x->bytes;
      o->with_waits += x->with_waits;
      o->wait_deps += x->wait_deps;
      o->wait_sched += x->wait_sched;
      o->q1 += pm_p2_quantile(&x->p2, 1) * (double)x->count;
      o->q3 += pm_p2_quantile(&x->p2, 3) * (double)x->count;
      qw[2 * c + type] += (double)x->count;
      for (int k = 0; k < x->ntop; k++) {
        pm_ts_outlier e = x->top[k].o;
        e.start = x->top[k].t_start > t0 ? (double)(x->top[k].t_start - t0) * 1e-9 : 0;
        double re = e.duration / e.threshold;
        if (o->ntop < PM_TS_TOP) {
          o->top[o->ntop++] = e;
          continue;
        }
        int w = 0;
        for (int i = 1; i < PM_TS_TOP; i++)
          if (o->top[i].duration / o->top[i].threshold < o->top[w].duration / o->top[w].threshold) w = i;
        if (o->top[w].duration / o->top[w].threshold < re) o->top[w] = e;
      }
    }
    for (uint32_t i = 0; i < T->ntags; i++) {
      tag_cell *t = &T->tags[i];
      tags[nt++] = (pm_ts_tag_result){t->tag, t->count, t->total, t->min, t->max, t->flops};
    }
    r->tags_dropped += T->tags_dropped;
  }
  int n = 0;
  for (uint32_t i = 0; i < 2 * nc; i++) {
    if (!res[i].count) continue;
    res[i].q1 /= qw[i];
    res[i].q3 /= qw[i];
    res[n++] = res[i];
  }
  free(qw);
  r->ncodelets = n;
  r->codelet = res;
  qsort(tags, nt, sizeof *tags, by_tag);
  size_t m = 0;
  for (size_t i = 0; i < nt; i++) {
    if (m && tags[m - 1].tag == tags[i].tag) {
      pm_ts_tag_result *a = &tags[m - 1];
      if (tags[i].min < a->min) a->min = tags[i].min;
      if (tags[i].max > a->max) a->max = tags[i].max;
      a->count += tags[i].count;
      a->total += tags[i].total;
      a->flops += tags[i].flops;
    } else {
      tags[m++] = tags[i];
    }
  }
  r->ntags = (int)m;
  r->tag = tags;
  return 0;
}

void pm_ts_results_free(pm_ts_results *r) {
  free(r->codelet);
  free(r->tag);
  memset(r, 0, sizeof *r);
}

void pm_ts_reset(void) {
  pthread_mutex_lock(&threads_lock);
  while (threads) {
    pm_ts_thread *n = threads->next;
    free(threads->cells);
    free(threads->tag_slot);
    free(threads->tags);
    free(threads);
    threads = n;
  }
  __atomic_add_fetch(&epoch, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&threads_lock);
  pthread_mutex_lock(&reg_lock);
  for (uint32_t i = 0; i < ncodelets; i++) free(codelets[i].name);
  __atomic_store_n(&ncodelets, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&reg_lock);
}
