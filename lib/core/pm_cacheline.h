/* Hints for the cache lines that carry clocks from one core to another.
 *
 * A clock handed over through memory (an MPI rank's slot in shared memory, an OpenMP member's team
 * slot) costs two cross-core transfers on the event's path: the writer's store needs the line back
 * from the core that last read it, and the reader's load finds it in the writer's private cache.
 * Both stalls land inside the event (measured on the development VM, a Xeon with CLDEMOTE: an
 * MPI_Allreduce of one double on 2 ranks +355 ns with neither hint, +300 with the first, +234
 * with both; MPI_Barrier +147 -> +37).
 *
 * pm_line_prefetch_write: asks for the line in the exclusive state now, where a write to it will
 *   come later (the next slot of a ring): the transfer from the last reader happens off the path.
 * pm_line_demote: after writing a line another core will read, moves it from this core's private
 *   caches to the shared one, where the reader's miss is served without a snoop of this core.
 * Both are hints: no effect on the values, a no-op where the CPU lacks them (CLDEMOTE is a NOP
 * encoding on older x86 processors). */
#ifndef PM_CACHELINE_H
#define PM_CACHELINE_H

static inline void pm_line_prefetch_write(const void *p) {
#if defined(__x86_64__)
  __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

static inline void pm_line_demote(const void *p) {
#if defined(__x86_64__)
  __asm__ volatile("cldemote %0" ::"m"(*(const char *)p));
#else
  (void)p;
#endif
}

#endif
