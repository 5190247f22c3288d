/* pm_quantity_set (popmeter.h): quantities the program tracks over time, as bounded series.
 *
 * Each name gets PM_QUANTITY_BINS bins of equal width, starting at its first value. A bin holds the
 * envelope of the step function the values draw: the value current when the bin began (carried
 * from the previous bin) and every value set in it, so a bin with no call holds the current value
 * and a short peak is never lost. When a value falls beyond the last bin, neighbouring bins are
 * merged pairwise (min of mins, max of maxes, the later last) and the width doubles: the memory
 * stays fixed however long the run, at a resolution of at least run length / PM_QUANTITY_BINS x 2.
 * One mutex per series: a program sets a quantity at its own pace (mfsolve: each allocation). */
#include "popmeter.h"
#include "pm_published.h"
#include "pm_lifecycle.h"
#include "pm_profile_published.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define PM_API __attribute__((visibility("default")))

typedef struct {
  char name[64];
  pthread_mutex_t lock;
  uint64_t t0, w; /* clock at the start of bin 0, bin width (ns) */
  int nb;         /* bins begun */
  double cur;     /* the current value (NaN before the first) */
  uint64_t samples;
  pm_prof_bin bin[PM_QUANTITY_BINS];
} series;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static series table[PM_QUANTITY_MAX];
static int nseries; /* published with release order: entries below it are complete */
static int full_warned;

/* The series of name, registered on first use; NULL when the table is full. */
static series *lookup(const char *name) {
  char key[64];
  snprintf(key, sizeof key, "%s", name ? name : "(null)");
  int n = __atomic_load_n(&nseries, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (!strcmp(table[i].name, key)) return &table[i];
  pthread_mutex_lock(&reg_lock);
  series *s = NULL;
  for (int i = 0; i < nseries && !s; i++)
    if (!strcmp(table[i].name, key)) s = &table[i];
  if (!s && nseries < PM_QUANTITY_MAX) {
    s = &table[nseries];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", key);
    pthread_mutex_init(&s->lock, NULL);
    s->cur = NAN;
    __atomic_store_n(&nseries, nseries + 1, __ATOMIC_RELEASE);
  } else if (!s && !full_warned) {
    full_warned = 1;
    pm_warn("pm_quantity_set(\"%s\"): more than %d quantities; later names are not kept", key, PM_QUANTITY_MAX);
  }
  pthread_mutex_unlock(&reg_lock);
  return s;
}

static void halve(series *s) {
  for (int i = 0; 2 * i < s->nb; i++) {
    pm_prof_bin a = s->bin[2 * i];
    if (2 * i + 1 < s->nb) {
      const pm_prof_bin *b = &s->bin[2 * i + 1];
      a.min = fmin(a.min, b->min);
      a.max = fmax(a.max, b->max);
      a.last = b->last;
    }
    s->bin[i] = a;
  }
  s->nb = (s->nb + 1) / 2;
  s->w *= 2;
}

void pm_quantity_set_at(const char *name, double value, uint64_t now) {
  if (!isfinite(value)) return;
  series *s = lookup(name);
  if (!s) return;
  pthread_mutex_lock(&s->lock);
  if (s->samples++ == 0) {
    s->t0 = now;
    s->w = PM_QUANTITY_BIN0_NS;
  }
  uint64_t d = now > s->t0 ? now - s->t0 : 0; /* another thread's clock may read just before t0 */
  while (d / s->w >= PM_QUANTITY_BINS) halve(s);
  int idx = (int)(d / s->w);
  for (; s->nb <= idx; s->nb++) /* bins begun since: the value then current */
    s->bin[s->nb] = (pm_prof_bin){s->cur, s->cur, s->cur};
  pm_prof_bin *b = &s->bin[idx];
  b->min = isnan(b->min) ? value : fmin(b->min, value);
  b->max = isnan(b->max) ? value : fmax(b->max, value);
  b->last = value;
  s->cur = value;
  pthread_mutex_unlock(&s->lock);
}

PM_API void pm_quantity_set(const char *name, double value) {
  if (pm_core_is_active()) pm_quantity_set_at(name, value, pm_clock_now());
}

int pm_quantity_to_profile(pm_prof_published **out, uint64_t t_start) {
  int n = __atomic_load_n(&nseries, __ATOMIC_ACQUIRE), rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    series *s = &table[i];
    pthread_mutex_lock(&s->lock);
    pm_prof_series p = {.process = 0,
                        .start = ((double)s->t0 - (double)t_start) * 1e-9,
                        .clock = s->t0,
                        .bin = (double)s->w * 1e-9,
                        .samples = s->samples,
                        .nbins = s->nb,
                        .bins = s->bin};
    snprintf(p.name, sizeof p.name, "%s", s->name);
    if (s->samples) rc = pm_prof_series_add(out, &p);
    pthread_mutex_unlock(&s->lock);
  }
  return rc;
}

void pm_quantity_reset(void) {
  pthread_mutex_lock(&reg_lock);
  for (int i = 0; i < nseries; i++) pthread_mutex_destroy(&table[i].lock);
  __atomic_store_n(&nseries, 0, __ATOMIC_RELEASE);
  full_warned = 0;
  pthread_mutex_unlock(&reg_lock);
}
