/* Shared helpers of the libpopmetrics unit tests (see test_metrics_common.h). */
#include "test_metrics_common.h"
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tm_assert_double(double a, double b, double eps, const char *expr, const char *file, int line) {
  if (!(fabs(a - b) <= eps)) {
    print_error("%s = %.17g, expected %.17g (tolerance %g)\n", expr, a, b, eps);
    _fail(file, line);
  }
}

double tm_get(const pm_metric *root, const char *path, const char *file, int line) {
  const pm_metric *m = pm_metric_find(root, path);
  if (!m) {
    print_error("no node at path \"%s\"\n", path);
    _fail(file, line);
  }
  if (m->state != PM_METRIC_VALUE) {
    print_error("node \"%s\" has no value (%s)\n", path, m->state == PM_METRIC_NA ? m->na_reason : "heading");
    _fail(file, line);
  }
  return m->value;
}

const char *tm_na(const pm_metric *root, const char *path, const char *file, int line) {
  const pm_metric *m = pm_metric_find(root, path);
  if (!m) {
    print_error("no node at path \"%s\"\n", path);
    _fail(file, line);
  }
  if (m->state != PM_METRIC_NA) {
    print_error("node \"%s\" is not n/a (value %.17g)\n", path, m->value);
    _fail(file, line);
  }
  return m->na_reason;
}

static void collect_ids(const pm_metric *m, const char **ids, int *n) {
  size_t i;
  ids[(*n)++] = m->id;
  for (i = 0; i < m->nchildren; i++) collect_ids(m->children[i], ids, n);
}

static void check_node(const pm_metric *m, int bounded01, tm_counts *c) {
  size_t i;
  c->nodes++;
  assert_true(pm_metric_id_valid(m->id));
  assert_non_null(m->name);
  assert_true(m->name[0] != '\0');
  if (m->state == PM_METRIC_VALUE) {
    c->values++;
    if (!isfinite(m->value)) {
      print_error("%s is not finite\n", m->id);
      fail();
    }
    if (bounded01 && m->unit[0] == '\0') {
      if (!(m->value >= -1e-12 && m->value <= 1.0 + 1e-12)) {
        print_error("%s = %.17g outside [0, 1]\n", m->id, m->value);
        fail();
      }
      c->bounded++;
    }
  } else if (m->state == PM_METRIC_NA) {
    assert_non_null(m->na_reason);
    assert_true(m->na_reason[0] != '\0');
  }
  if (m->nchildren > 0 && m->state == PM_METRIC_VALUE &&
      (m->combine == PM_COMBINE_PRODUCT || m->combine == PM_COMBINE_ADDITIVE)) {
    double prod = 1.0, ineff = 0.0, tol = 1e-12 * (fabs(m->value) > 1.0 ? fabs(m->value) : 1.0);
    int all = 1;
    for (i = 0; i < m->nchildren; i++) {
      const pm_metric *ch = m->children[i];
      if (ch->state != PM_METRIC_VALUE) {
        all = 0;
        break;
      }
      prod *= ch->value;
      ineff += 1.0 - ch->value;
    }
    if (all && m->combine == PM_COMBINE_PRODUCT) {
      if (!(fabs(prod - m->value) <= tol)) {
        print_error("%s = %.17g but the product of its children is %.17g\n", m->id, m->value, prod);
        fail();
      }
      c->products++;
    }
    if (all && m->combine == PM_COMBINE_ADDITIVE) {
      if (!(fabs(ineff - (1.0 - m->value)) <= 1e-12)) {
        print_error("1 - %s = %.17g but the children's inefficiencies sum to %.17g\n", m->id, 1.0 - m->value, ineff);
        fail();
      }
      c->additives++;
    }
  }
  for (i = 0; i < m->nchildren; i++) {
    assert_ptr_equal(m->children[i]->parent, m);
    check_node(m->children[i], bounded01, c);
  }
}

tm_counts tm_check_tree(const pm_metric *root, int bounded01) {
  tm_counts c = {0, 0, 0, 0, 0};
  const char *ids[4096];
  int n = 0, i, j;
  assert_non_null(root);
  check_node(root, bounded01, &c);
  assert_true(c.nodes <= 4096);
  collect_ids(root, ids, &n);
  for (i = 0; i < n; i++)
    for (j = i + 1; j < n; j++)
      if (strcmp(ids[i], ids[j]) == 0) {
        print_error("duplicate id %s\n", ids[i]);
        fail();
      }
  return c;
}

int tm_has_nonfinite_token(const char *s) {
  while (*s) {
    char tok[16];
    size_t n = 0;
    while (*s && !isalnum((unsigned char)*s)) s++;
    while (*s && isalnum((unsigned char)*s)) {
      if (n < sizeof tok - 1) tok[n++] = (char)tolower((unsigned char)*s);
      s++;
    }
    tok[n] = '\0';
    if (!strcmp(tok, "nan") || !strcmp(tok, "inf") || !strcmp(tok, "infinity")) return 1;
  }
  return 0;
}

/* The JSON object j describes exactly the node m. */
static void check_json_node(const json_t *j, const pm_metric *m) {
  const json_t *v = json_object_get(j, "value"), *ch = json_object_get(j, "children");
  size_t i;
  assert_true(json_is_object(j));
  assert_string_equal(json_string_value(json_object_get(j, "id")), m->id);
  assert_string_equal(json_string_value(json_object_get(j, "unit")), m->unit);
  assert_string_equal(json_string_value(json_object_get(j, "combine")), pm_combine_name(m->combine));
  assert_true(json_is_boolean(json_object_get(j, "may_exceed_one")));
  assert_int_equal(json_is_true(json_object_get(j, "may_exceed_one")), m->may_exceed_one);
  if (m->state == PM_METRIC_VALUE) {
    assert_true(json_is_number(v));
    if (json_number_value(v) != m->value) { /* %.17g must round-trip exactly */
      print_error("%s: JSON %.17g vs tree %.17g\n", m->id, json_number_value(v), m->value);
      fail();
    }
  } else {
    assert_true(json_is_null(v));
  }
  if (m->state == PM_METRIC_NA)
    assert_string_equal(json_string_value(json_object_get(j, "na_reason")), m->na_reason);
  else
    assert_null(json_object_get(j, "na_reason"));
  assert_true(json_is_array(ch));
  assert_int_equal(json_array_size(ch), m->nchildren);
  for (i = 0; i < m->nchildren; i++) check_json_node(json_array_get(ch, i), m->children[i]);
}

void tm_check_render(const pm_metric *root) {
  char *text, *js;
  json_t *j;
  json_error_t err;
  text = pm_render_text_string(&root, 1, NULL, 100);
  assert_non_null(text);
  assert_false(tm_has_nonfinite_token(text));
  free(text);
  js = pm_render_json_string(root, 0);
  assert_non_null(js);
  assert_false(tm_has_nonfinite_token(js));
  j = json_loads(js, 0, &err);
  if (!j) {
    print_error("JSON does not parse: %s (line %d)\n", err.text, err.line);
    fail();
  }
  check_json_node(j, root);
  json_decref(j);
  free(js);
}

void tm_seed(tm_rng *r, uint64_t seed) { r->s = seed ? seed : 0x9E3779B97F4A7C15ull; }

uint64_t tm_next(tm_rng *r) {
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

double tm_unif(tm_rng *r, double a, double b) {
  return a + (b - a) * ((double)(tm_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

int tm_int(tm_rng *r, int lo, int hi) { return lo + (int)(tm_next(r) % (uint64_t)(hi - lo + 1)); }

pm_location_input tm_loc(int process, pm_loc_kind kind, double useful) {
  pm_location_input l;
  memset(&l, 0, sizeof l);
  l.process = process;
  l.kind = kind;
  l.useful = useful;
  return l;
}

pm_run_input tm_run(const pm_location_input *locs, int n, int nprocesses, double runtime) {
  pm_run_input in;
  memset(&in, 0, sizeof in);
  in.loc = locs;
  in.nlocations = n;
  in.nprocesses = nprocesses;
  in.nnodes = 1;
  in.runtime = runtime;
  return in;
}
