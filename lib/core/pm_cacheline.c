/* Which cache-line hints the CPU has (pm_cacheline.h). */
#include "pm_cacheline.h"
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int pm_line_has_prefetchw = 0, pm_line_has_cldemote = 0;

/* Called during activation, before pm_core_active is published: every event's reader sees it. */
void pm_cacheline_detect(void) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  /* PREFETCHW: CPUID.80000001H:ECX.PRFCHW[bit 8]; CLDEMOTE: CPUID.(EAX=07H, ECX=0):ECX[bit 25] */
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) pm_line_has_prefetchw = (c >> 8) & 1;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) pm_line_has_cldemote = (c >> 25) & 1;
#endif
}
