/* The clock of the "floor" tools (bench_ompt_null.c built timed, bench_gomp_floor.c): the cheapest
 * one, the time stamp counter where there is one (what popmeter reads too), else CLOCK_MONOTONIC.
 * Header-only: the tools are built by plain compiler rules. */
#ifndef BENCH_FLOOR_STAMP_H
#define BENCH_FLOOR_STAMP_H
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t floor_stamp(void) { return __rdtsc(); }
#else
#include <time.h>
static inline uint64_t floor_stamp(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#endif
#endif
