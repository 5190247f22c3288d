/* CUPTI clock -> host clock (see cuda_module.h). The caller serialises access. */
#include "cuda_module.h"
#include <string.h>

void pm_cuda_clock_init(pm_cuda_clock *c) { memset(c, 0, sizeof *c); }

void pm_cuda_clock_add(pm_cuda_clock *c, uint64_t cupti, uint64_t host) {
  if (c->n > 0 && cupti <= c->pt[c->n - 1].cupti) {
    if (host <= c->pt[c->n - 1].host) return; /* an older pair, late (two threads): nothing new */
    c->n = 0;                                 /* CUPTI's clock stepped back: start afresh */
  }
  if (c->n == PM_CUDA_SYNC_MAX) {
    memmove(c->pt, c->pt + 1, sizeof c->pt[0] * (PM_CUDA_SYNC_MAX - 1));
    c->n--;
  }
  c->pt[c->n++] = (pm_cuda_sync_pt){cupti, host};
}

/* host of a + (t - a.cupti) shifted by the pair's offset */
static uint64_t by_offset(pm_cuda_sync_pt a, uint64_t t) {
  if (t >= a.cupti) return a.host + (t - a.cupti);
  uint64_t back = a.cupti - t;
  return back < a.host ? a.host - back : 0;
}

uint64_t pm_cuda_clock_to_host(const pm_cuda_clock *c, uint64_t t) {
  if (c->identity || c->n == 0) return t;
  if (t <= c->pt[0].cupti) return by_offset(c->pt[0], t);
  if (t >= c->pt[c->n - 1].cupti) return by_offset(c->pt[c->n - 1], t);
  unsigned lo = 0, hi = c->n - 1; /* pt[lo].cupti < t < pt[hi].cupti */
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) / 2;
    if (c->pt[mid].cupti <= t)
      lo = mid;
    else
      hi = mid;
  }
  pm_cuda_sync_pt a = c->pt[lo], b = c->pt[hi];
  if (b.host <= a.host) return a.host; /* host clock did not advance: no slope */
  /* a.host + (t - a.cupti) * (b.host - a.host) / (b.cupti - a.cupti), exact in 128 bits */
  unsigned __int128 num = (unsigned __int128)(t - a.cupti) * (b.host - a.host);
  return a.host + (uint64_t)(num / (b.cupti - a.cupti));
}
