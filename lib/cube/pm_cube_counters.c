/* Hardware-counter metrics of profile.cubex ("counters when present", docs/cube.md).
 *
 * One root metric per event the run counted, after the fixed table: UINT64, EXCLUSIVE along the
 * call tree, the useful-time count at each call path and location; uniq_name is the event name
 * with characters outside [A-Za-z0-9_:] turned into '_' (PAPI_TOT_INS stays PAPI_TOT_INS). Each is a
 * root, as Score-P writes PAPI counters: CubeLib reads a parent's value as including its children,
 * which no sum of different events satisfies. With an instructions and a cycles event, a derived
 * "counters_ipc" (instructions / cycles per call path) follows them. */
#include "pm_cube_internal.h"
#include "pm_profile_counters.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *own(pm_cube_counter_metrics *cm, char *s) {
  if (!s) return NULL;
  char **q = realloc(cm->owned, sizeof *q * (size_t)(cm->nowned + 1));
  if (!q) {
    free(s);
    return NULL;
  }
  cm->owned = q;
  return cm->owned[cm->nowned++] = s;
}

static char *dup_printf(const char *fmt, const char *a, const char *b) {
  int n = snprintf(NULL, 0, fmt, a, b);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s) snprintf(s, (size_t)n + 1, fmt, a, b);
  return s;
}

static int uniq_taken(const pm_cube_counter_metrics *cm, const char *u) {
  for (int i = 0; i < pm_cube_nmetrics; i++)
    if (!strcmp(pm_cube_metrics[i].uniq, u)) return 1;
  for (int i = 0; i < cm->n; i++)
    if (!strcmp(cm->m[i].uniq, u)) return 1;
  return 0;
}

/* The event's uniq_name: CubePL and the tools need [A-Za-z0-9_:]; unique in the file. */
static char *uniq_of(pm_cube_counter_metrics *cm, const char *event) {
  size_t n = strlen(event);
  char *u = malloc(n + 16);
  if (!u) return NULL;
  for (size_t i = 0; i <= n; i++) {
    unsigned char ch = (unsigned char)event[i];
    u[i] = ch == '\0' || isalnum(ch) || ch == '_' || ch == ':' ? (char)ch : '_';
  }
  for (int k = 2; uniq_taken(cm, u); k++) snprintf(u + n, 16, "_%d", k);
  return own(cm, u);
}

int pm_cube_counter_metrics_build(const pm_profile *p, pm_cube_counter_metrics *cm) {
  memset(cm, 0, sizeof *cm);
  const pm_prof_counters *c = p->counters;
  if (!c) return 0;
  cm->m = calloc((size_t)c->nevents + 2, sizeof *cm->m);
  if (!cm->m) return -1;
  const char *ins = NULL, *cyc = NULL;
  for (int e = 0; e < c->nevents; e++) {
    const pm_prof_event *x = &c->event[e];
    if (!x->counted) continue;
    pm_cube_metric_def *m = &cm->m[cm->n];
    m->uniq = uniq_of(cm, x->name);
    m->disp = own(cm, strdup(x->name));
    m->uom = "#";
    m->descr = own(cm, dup_printf("Hardware counter %s (%s), counted over useful time.", x->name,
                                  pm_ctr_kind_name((pm_ctr_kind)x->kind)));
    if (!m->uniq || !m->disp || !m->descr) {
      pm_cube_counter_metrics_free(cm);
      return -1;
    }
    m->parent = -1;
    m->type = PM_CUBE_EXCLUSIVE;
    m->dtype = PM_CUBE_UINT64;
    m->src = PM_CUBE_SRC_COUNTER;
    m->count_offset = (size_t)e;
    if (x->kind == PM_CTR_INSTRUCTIONS && !ins) ins = m->uniq;
    if (x->kind == PM_CTR_CYCLES && !cyc) cyc = m->uniq;
    cm->n++;
  }
  if (ins && cyc) {
    pm_cube_metric_def *m = &cm->m[cm->n];
    m->uniq = "counters_ipc";
    m->disp = "IPC";
    m->uom = "";
    m->descr = "Instructions per cycle over useful time at this call path (inclusive), all selected locations.";
    m->parent = -1;
    m->type = PM_CUBE_POSTDERIVED;
    m->dtype = PM_CUBE_DOUBLE;
    m->src = PM_CUBE_SRC_DERIVED;
    m->cubepl = own(cm, dup_printf("metric::%s(i) / metric::%s(i)", ins, cyc));
    if (!m->cubepl || uniq_taken(cm, m->uniq)) {
      pm_cube_counter_metrics_free(cm);
      return m->cubepl ? 0 : -1;
    }
    cm->n++;
  }
  return 0;
}

void pm_cube_counter_metrics_free(pm_cube_counter_metrics *cm) {
  for (int i = 0; i < cm->nowned; i++) free(cm->owned[i]);
  free(cm->owned);
  free(cm->m);
  memset(cm, 0, sizeof *cm);
}

uint64_t pm_cube_counter_of(const pm_profile *p, const pm_cube_metric_def *m, int value_index) {
  const pm_prof_counters *c = p->counters;
  if (!c || value_index < 0 || value_index >= c->nval || (int)m->count_offset >= c->nevents) return 0;
  return c->val[(size_t)value_index * (size_t)c->nevents + m->count_offset];
}
