/* Hints for the cache lines that carry clocks from one core to another.
 *
 * A clock handed over through memory (an MPI rank's slot in shared memory) costs two cross-core
 * transfers on the event's path: the writer's store needs the line back from the core that last
 * read it, and the reader's load finds it in the writer's private cache. Both stalls land inside
 * the event (measured on the development VM, a Xeon with both instructions: an MPI_Allreduce of
 * one double on 2 ranks -118 ns with the first hint, -78 more with the second; MPI_Barrier -32 and
 * -93). Where the writer reads its own line back soon (OpenMP team slots, task records), demoting
 * it costs more than it saves: measured slower there, not used.
 *
 * pm_line_prefetch_write: asks for the line in the exclusive state now, where a write to it will
 *   come later (the next slot of a ring): the transfer from the last reader happens off the path.
 * pm_line_demote: after writing a line another core will read, moves it from this core's private
 *   caches to the shared one, where the reader's miss is served without a snoop of this core.
 * Both are hints: no effect on any value. PREFETCHW and CLDEMOTE are used where CPUID reports them
 * (pm_cacheline_detect, at activation; until then and elsewhere: an ordinary prefetch, nothing). */
#ifndef PM_CACHELINE_H
#define PM_CACHELINE_H
#include "pm_vocabulary.h"

PM_HIDDEN extern int pm_line_has_prefetchw, pm_line_has_cldemote;
PM_HIDDEN void pm_cacheline_detect(void);

static inline void pm_line_prefetch_write(const void *p) {
#if defined(__x86_64__)
  if (PM_LIKELY(pm_line_has_prefetchw)) {
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
    return;
  }
#endif
  __builtin_prefetch(p, 1, 3);
}

static inline void pm_line_demote(const void *p) {
#if defined(__x86_64__)
  if (PM_LIKELY(pm_line_has_cldemote)) __asm__ volatile("cldemote %0" ::"m"(*(const char *)p));
#else
  (void)p;
#endif
}

#endif
