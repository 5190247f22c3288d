/* Model selection: names, parsing of a user list (POPMETER_MODELS, --models), the default set for a
 * run, and dispatch.
 *
 * Default set (pm_models_default), from what the run contains:
 *   always                      basic, critical-path, io (they apply to any run; critical-path shows
 *                               n/a with its reason when no critical path was measured)
 *   a process with >= 2 application threads (PM_LOC_THREAD)          + multiplicative, additive
 *   task workers (PM_LOC_WORKER / PM_LOC_ACCEL)                      + task, and + multiplicative
 *                               when a process has >= 2 compute locations (BSC's X covers workers)
 *   device streams (PM_LOC_DEVICE) or device runtime time            + talp (its device part)
 *   a compute location with instruction or FP counters               + vectorization */
#include "popmetrics.h"
#include "pm_model_util.h"
#include "pm_util.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  unsigned bit;
  const char *name;
  pm_metric *(*fn)(const pm_run_input *);
} models[PM_MODEL_COUNT] = {
    {PM_MODEL_BASIC, "basic", pm_model_basic},
    {PM_MODEL_MULTIPLICATIVE, "multiplicative", pm_model_multiplicative},
    {PM_MODEL_ADDITIVE, "additive", pm_model_additive},
    {PM_MODEL_CRITICAL_PATH, "critical-path", pm_model_critical_path},
    {PM_MODEL_TALP, "talp", pm_model_talp},
    {PM_MODEL_TASK, "task", pm_model_task},
    {PM_MODEL_IO, "io", pm_model_io},
    {PM_MODEL_VECTORIZATION, "vectorization", pm_model_vectorization},
};

const char *pm_model_name(unsigned model) {
  int i;
  for (i = 0; i < PM_MODEL_COUNT; i++)
    if (models[i].bit == model) return models[i].name;
  return NULL;
}

pm_metric *pm_model_compute(unsigned model, const pm_run_input *in) {
  int i;
  for (i = 0; i < PM_MODEL_COUNT; i++)
    if (models[i].bit == model) return models[i].fn(in);
  return NULL;
}

static void copy_bad(char *bad, size_t badsize, const char *s, size_t n) {
  if (!bad || badsize == 0) return;
  if (n > badsize - 1) n = badsize - 1;
  memcpy(bad, s, n);
  bad[n] = '\0';
}

/* Case-insensitive comparison of the n bytes at s with the NUL-terminated name. */
static int token_is(const char *s, size_t n, const char *name) {
  size_t i;
  if (strlen(name) != n) return 0;
  for (i = 0; i < n; i++)
    if (tolower((unsigned char)s[i]) != name[i]) return 0;
  return 1;
}

int pm_models_parse(const char *list, unsigned *mask, char *bad, size_t badsize) {
  unsigned m = 0;
  const char *p = list;
  if (!list || !mask) {
    copy_bad(bad, badsize, "", 0);
    return -1;
  }
  for (;;) {
    const char *end = strchr(p, ',');
    const char *a = p, *b = end ? end : p + strlen(p);
    int i, found = 0;
    while (a < b && isspace((unsigned char)*a)) a++;
    while (b > a && isspace((unsigned char)b[-1])) b--;
    if (token_is(a, (size_t)(b - a), "all")) {
      m |= PM_MODELS_ALL;
      found = 1;
    }
    for (i = 0; !found && i < PM_MODEL_COUNT; i++)
      if (token_is(a, (size_t)(b - a), models[i].name)) {
        m |= models[i].bit;
        found = 1;
      }
    if (!found) { /* also an empty name: "basic,,io" or "" */
      copy_bad(bad, badsize, a, (size_t)(b - a));
      return -1;
    }
    if (!end) break;
    p = end + 1;
  }
  *mask = m;
  return 0;
}

unsigned pm_models_default(const pm_run_input *in) {
  unsigned m = PM_MODEL_BASIC | PM_MODEL_CRITICAL_PATH | PM_MODEL_IO;
  int *thr, *comp;
  int i, threads = 0, multi = 0, workers = 0, devices = 0, counters = 0;
  if (!in || in->nlocations <= 0 || !in->loc) return m;
  thr = pm__calloc((size_t)(in->nprocesses > 0 ? in->nprocesses : 1), sizeof *thr);
  comp = pm__calloc((size_t)(in->nprocesses > 0 ? in->nprocesses : 1), sizeof *comp);
  for (i = 0; i < in->nlocations; i++) {
    const pm_location_input *l = &in->loc[i];
    int p = l->process;
    int inrange = thr && comp && p >= 0 && p < in->nprocesses;
    if (l->kind == PM_LOC_DEVICE || l->gpu_runtime > 0.0) devices = 1;
    if (!pm__is_compute(l)) continue;
    if (pm__is_worker(l)) workers = 1;
    if (l->counters.has_instructions || l->counters.has_fp) counters = 1;
    if (inrange && l->kind == PM_LOC_THREAD && ++thr[p] == 2) threads = 1;
    if (inrange && ++comp[p] == 2) multi = 1;
  }
  free(thr);
  free(comp);
  if (threads) m |= PM_MODEL_MULTIPLICATIVE | PM_MODEL_ADDITIVE;
  if (workers) m |= PM_MODEL_TASK | (multi ? PM_MODEL_MULTIPLICATIVE : 0u);
  if (devices) m |= PM_MODEL_TALP;
  if (counters) m |= PM_MODEL_VECTORIZATION;
  return m;
}
