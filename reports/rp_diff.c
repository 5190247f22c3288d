/* Two-run comparison (popmeter-report --diff A B): the regions whose time changed between the
 * reference run A and the other run B. "Slowed down" and "sped up" follow the region's speedup
 * as computed by metrics/ (pm_model_scaling, A against B); regions entered in one run only are
 * listed as new or gone. */
#include "rp_output.h"
#include <math.h>
#include <stdlib.h>

const char *rp_diff_kind_name(rp_diff_kind k) {
  static const char *const names[] = {"slowed down", "sped up", "new", "gone"};
  return (unsigned)k < 4 ? names[k] : "?";
}

static int by_change(const void *a, const void *b) {
  const rp_diff_entry *x = a, *y = b;
  double dx = fabs(x->time_b - x->time_a), dy = fabs(y->time_b - y->time_a);
  if (x->kind != y->kind) return (int)x->kind - (int)y->kind;
  return (dx < dy) - (dx > dy);
}

int rp_diff_other(const rp_study *s) { return s->ref == s->ncfg - 1 ? 0 : s->ncfg - 1; }

int rp_diff_regions(const rp_study *s, double threshold, rp_diff_entry **out) {
  const rp_config *a, *b;
  rp_diff_entry *v;
  int g, n = 0;
  *out = NULL;
  if (s->ncfg < 2) return 0;
  a = &s->cfg[s->ref];
  b = &s->cfg[rp_diff_other(s)];
  if (!(v = calloc((size_t)s->nregions + 1, sizeof *v))) return -1;
  for (g = 0; g < s->nregions; g++) {
    rp_diff_entry e = {.region = g};
    double sp;
    e.time_a = a->rpresent[g] ? a->rmedian[g].runtime : 0.0;
    e.time_b = b->rpresent[g] ? b->rmedian[g].runtime : 0.0;
    if (e.time_a < RP_DIFF_MIN_SECONDS && e.time_b < RP_DIFF_MIN_SECONDS) continue;
    if (!a->rpresent[g] || !b->rpresent[g]) {
      e.kind = a->rpresent[g] ? RP_DIFF_GONE : RP_DIFF_NEW;
    } else {
      if (!b->rtree[RP_MEDIAN][g] || !pm_metric_get_path(b->rtree[RP_MEDIAN][g], "speedup", &sp)) continue;
      if (sp < 1.0 - threshold)
        e.kind = RP_DIFF_SLOWER;
      else if (sp > 1.0 + threshold)
        e.kind = RP_DIFF_FASTER;
      else
        continue;
      e.speedup = sp;
    }
    v[n++] = e;
  }
  qsort(v, (size_t)n, sizeof *v, by_change);
  *out = v;
  return n;
}
