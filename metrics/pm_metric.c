/* Metric tree: construction, lookup, freeing. See pm_metric.h for the contract.
 * Allocation failures never abort: they mark the tree (pm_metric_ok() turns false) so that a model
 * can drop the whole result instead of returning a half-built tree. */
#include "pm_metric.h"
#include "pm_util.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_safe_div(double num, double den, double *out) {
  double q;
  if (den == 0.0 || !isfinite(num) || !isfinite(den)) {
    *out = 0.0;
    return 0;
  }
  q = num / den;
  if (!isfinite(q)) { /* overflow of a huge numerator by a tiny denominator */
    *out = 0.0;
    return 0;
  }
  *out = q;
  return 1;
}

int pm_metric_id_valid(const char *id) {
  if (!id || !*id) return 0;
  for (; *id; id++)
    if (!((*id >= 'a' && *id <= 'z') || (*id >= '0' && *id <= '9') || *id == '_')) return 0;
  return 1;
}

pm_metric *pm_metric_new(const char *id, const char *name, const char *unit, const char *description) {
  pm_metric *m;
  if (!pm_metric_id_valid(id) || !name || !*name) return NULL;
  m = pm__calloc(1, sizeof *m);
  if (!m) return NULL;
  m->id = pm__strdup(id);
  m->name = pm__strdup(name);
  m->unit = pm__strdup(unit ? unit : "");
  m->description = pm__strdup(description ? description : "");
  if (!m->id || !m->name || !m->unit || !m->description) {
    pm_metric_free(m);
    return NULL;
  }
  return m;
}

pm_metric *pm_metric_add(pm_metric *parent, pm_metric *child) {
  if (!parent) {
    pm_metric_free(child);
    return NULL;
  }
  if (!child) {
    parent->alloc_failed_ = 1;
    return NULL;
  }
  if (parent->nchildren == parent->cap_) {
    size_t ncap = parent->cap_ ? 2 * parent->cap_ : 4;
    pm_metric **nc = pm__realloc(parent->children, ncap * sizeof *nc);
    if (!nc) {
      parent->alloc_failed_ = 1;
      pm_metric_free(child);
      return NULL;
    }
    parent->children = nc;
    parent->cap_ = ncap;
  }
  parent->children[parent->nchildren++] = child;
  child->parent = parent;
  return child;
}

pm_metric *pm_metric_add_new(pm_metric *parent, const char *id, const char *name, const char *unit,
                             const char *description) {
  if (!parent) return NULL;
  return pm_metric_add(parent, pm_metric_new(id, name, unit, description));
}

/* Replaces *slot by a copy of s; on failure marks the node failed and keeps a NULL slot. */
static void set_string(pm_metric *m, char **slot, const char *s) {
  free(*slot);
  *slot = NULL;
  if (!s) return;
  *slot = pm__strdup(s);
  if (!*slot) m->alloc_failed_ = 1;
}

void pm_metric_set_value(pm_metric *m, double value) {
  if (!m) return;
  if (!isfinite(value)) {
    pm_metric_set_na(m, "non-finite result (inconsistent input)");
    return;
  }
  set_string(m, &m->na_reason, NULL);
  m->state = PM_METRIC_VALUE;
  m->value = value;
}

void pm_metric_set_na(pm_metric *m, const char *reason) {
  if (!m) return;
  m->state = PM_METRIC_NA;
  m->value = 0.0;
  set_string(m, &m->na_reason, (reason && *reason) ? reason : "not available");
  if (!m->na_reason) /* keep the invariant "na_reason non-NULL when n/a": fall back to heading */
    m->state = PM_METRIC_HEADING;
}

void pm_metric_set_na_fmt(pm_metric *m, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  if (!m) return;
  if (!fmt) {
    pm_metric_set_na(m, NULL);
    return;
  }
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pm_metric_set_na(m, buf);
}

void pm_metric_set_warning(pm_metric *m, const char *warning) {
  if (m) set_string(m, &m->warning, warning);
}

void pm_metric_set_combine(pm_metric *m, pm_combine combine) {
  if (m) m->combine = combine;
}

void pm_metric_set_may_exceed_one(pm_metric *m, int flag) {
  if (m) m->may_exceed_one = flag != 0;
}

int pm_metric_ok(const pm_metric *m) {
  size_t i;
  if (!m || m->alloc_failed_) return 0;
  for (i = 0; i < m->nchildren; i++)
    if (!pm_metric_ok(m->children[i])) return 0;
  return 1;
}

void pm_metric_free(pm_metric *m) {
  size_t i;
  if (!m) return;
  for (i = 0; i < m->nchildren; i++) pm_metric_free(m->children[i]);
  free(m->children);
  free(m->id);
  free(m->name);
  free(m->unit);
  free(m->description);
  free(m->na_reason);
  free(m->warning);
  free(m);
}

/* Child of m whose id equals the len bytes at s. */
static pm_metric *child_by_id(const pm_metric *m, const char *s, size_t len) {
  size_t i;
  for (i = 0; i < m->nchildren; i++) {
    const char *id = m->children[i]->id;
    if (strlen(id) == len && memcmp(id, s, len) == 0) return m->children[i];
  }
  return NULL;
}

pm_metric *pm_metric_find(const pm_metric *root, const char *path) {
  const pm_metric *cur = root;
  const char *p = path;
  int first = 1;
  if (!root || !path) return NULL;
  while (*p) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    pm_metric *next = child_by_id(cur, p, len);
    if (!next && first && strlen(root->id) == len && memcmp(root->id, p, len) == 0)
      next = (pm_metric *)root; /* "basic/pe": the root's own id as first component */
    if (!next) return NULL;
    cur = next;
    first = 0;
    p += len;
    if (*p == '/') p++;
  }
  return (pm_metric *)cur;
}

int pm_metric_get(const pm_metric *m, double *value) {
  if (!m || m->state != PM_METRIC_VALUE) return 0;
  if (value) *value = m->value;
  return 1;
}

int pm_metric_get_path(const pm_metric *root, const char *path, double *value) {
  return pm_metric_get(pm_metric_find(root, path), value);
}

const char *pm_combine_name(pm_combine c) {
  switch (c) {
  case PM_COMBINE_PRODUCT: return "product";
  case PM_COMBINE_ADDITIVE: return "additive";
  default: return "none";
  }
}
