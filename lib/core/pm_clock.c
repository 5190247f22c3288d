/* The clock: CLOCK_MONOTONIC (vDSO, ~26 ns here) or, for tests, a virtual clock moved by hand. */
#include "pm_core.h"

int pm_clock_is_virtual = 0;
uint64_t pm_clock_virtual_ns = 0;

void pm_clock_use_virtual(uint64_t start_ns) {
  __atomic_store_n(&pm_clock_virtual_ns, start_ns, __ATOMIC_RELAXED);
  pm_clock_is_virtual = 1;
}

void pm_clock_advance(uint64_t ns) { __atomic_fetch_add(&pm_clock_virtual_ns, ns, __ATOMIC_RELAXED); }
