/* The clock: CLOCK_MONOTONIC nanoseconds, read through the TSC when that is cheaper and as good, or
 * a virtual clock moved by hand in tests.
 *
 * Every event costs one or more timestamps, and a vDSO clock_gettime takes 35-45 ns on the
 * development VM against 21-23 ns for rdtsc. When the kernel itself keeps CLOCK_MONOTONIC on an
 * invariant TSC (clocksource "tsc", CPU flags constant_tsc and nonstop_tsc: synchronised across
 * cores, constant rate), popmeter converts the TSC itself: clock = ns0 + (tsc - tsc0) * mult / 2^32
 * from an anchor block. A block is valid for PM_TSC_INTERVAL_NS; the first reader past it
 * re-anchors (the others go on extrapolating meanwhile): it reads CLOCK_MONOTONIC, starts the new
 * block where the old one ends (no step), at the rate measured over the last interval, corrected
 * so that the offset to CLOCK_MONOTONIC closes over the next interval (at most PM_TSC_MAX_SLEW).
 * An offset beyond PM_TSC_MAX_GAP (a paused VM) is closed by a step forward, never backward. So
 * the clock follows CLOCK_MONOTONIC within microseconds, NTP adjustments included, and the
 * CUPTI and trace offsets that assume CLOCK_MONOTONIC hold. POPMETER_CLOCK=monotonic keeps
 * clock_gettime. */
#include "pm_core.h"
#include <stdio.h>
#include <string.h>

int pm_clock_is_virtual = 0;
uint64_t pm_clock_virtual_ns = 0;
static uint64_t virtual_off_cpu; /* tests: virtual time spent off the CPU */
const pm_tsc_block *pm_clock_tsc = NULL;

void pm_clock_use_virtual(uint64_t start_ns) {
  __atomic_store_n(&pm_clock_virtual_ns, start_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&virtual_off_cpu, 0, __ATOMIC_RELAXED);
  pm_clock_is_virtual = 1;
}

void pm_clock_advance(uint64_t ns) { __atomic_fetch_add(&pm_clock_virtual_ns, ns, __ATOMIC_RELAXED); }

void pm_clock_advance_off_cpu(uint64_t ns) {
  __atomic_fetch_add(&virtual_off_cpu, ns, __ATOMIC_RELAXED);
  pm_clock_advance(ns);
}

uint64_t pm_clock_thread_cpu(void) {
  if (pm_clock_is_virtual)
    return __atomic_load_n(&pm_clock_virtual_ns, __ATOMIC_RELAXED) -
           __atomic_load_n(&virtual_off_cpu, __ATOMIC_RELAXED);
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define PM_TSC_INTERVAL_NS 100000000ull /* 100 ms between anchors */
#define PM_TSC_MAX_SLEW 500e-6          /* rate correction per interval: at most 500 ppm */
#define PM_TSC_MAX_GAP 1000000ll        /* 1 ms: an offset beyond is stepped over (forward only) */
#define PM_TSC_RING 64                  /* blocks reused after 64 anchors (6.4 s): no reader is that slow */

/* Blocks live in a ring: a reader that loaded an old pointer still finds its block intact. */
static pm_tsc_block ring[PM_TSC_RING];
static unsigned ring_next;
static int anchoring; /* one re-anchoring thread at a time */

/* tsc converted with block b, for any distance (128-bit product; d may be "negative" when another
 * core's TSC read a few ticks before b's anchor) */
static uint64_t convert(const pm_tsc_block *b, uint64_t tsc) {
  int64_t d = (int64_t)(tsc - b->tsc0);
  unsigned __int128 m = (unsigned __int128)(d < 0 ? (uint64_t)-d : (uint64_t)d) * b->mult;
  uint64_t ns = (uint64_t)(m >> 32);
  return d < 0 ? b->ns0 - ns : b->ns0 + ns;
}

uint64_t pm_clock_tsc_next(const pm_tsc_block *b, uint64_t tsc, uint64_t mono, pm_tsc_block *out) {
  uint64_t ns = convert(b, tsc);
  int64_t off = (int64_t)(mono - ns); /* > 0: the TSC clock is behind CLOCK_MONOTONIC */
  double rate = (double)b->mult;      /* ns per tick, 32.32 */
  if (tsc > b->tsc0 && mono > b->mono0) rate = (double)(mono - b->mono0) * 4294967296.0 / (double)(tsc - b->tsc0);
  double corr = 0.0;
  if (off > PM_TSC_MAX_GAP) { /* far behind (the VM was paused): step forward */
    ns = mono;
  } else {
    corr = (double)off / (double)PM_TSC_INTERVAL_NS; /* close the offset over the next interval */
    if (corr > PM_TSC_MAX_SLEW) corr = PM_TSC_MAX_SLEW;
    if (corr < -PM_TSC_MAX_SLEW) corr = -PM_TSC_MAX_SLEW;
  }
  double mult = rate * (1.0 + corr);
  if (mult < 1.0) mult = 1.0;
  *out = (pm_tsc_block){.tsc0 = tsc,
                        .ns0 = ns,
                        .mult = (uint64_t)mult,
                        .valid = (uint64_t)((double)PM_TSC_INTERVAL_NS * 4294967296.0 / mult),
                        .mono0 = mono};
  return ns;
}

/* A TSC read and a CLOCK_MONOTONIC read taken together: the TSC in the middle of the tightest of
 * a few tries. A single try can be wide (the first clock_gettime of a process resolves its symbol,
 * a preemption): 5 us off in a 1 ms calibration is a 0.5 % rate error. */
static uint64_t read_pair(uint64_t *mono) {
  uint64_t best_t = 0, best_w = UINT64_MAX;
  for (int k = 0; k < 4; k++) {
    uint64_t m, a = __builtin_ia32_rdtsc();
    m = pm_clock_monotonic();
    uint64_t b = __builtin_ia32_rdtsc();
    if (b - a < best_w) {
      best_w = b - a;
      best_t = a + (b - a) / 2;
      *mono = m;
    }
  }
  return best_t;
}

static void publish(const pm_tsc_block *nb) {
  pm_tsc_block *slot = &ring[ring_next++ % PM_TSC_RING];
  *slot = *nb;
  __atomic_store_n(&pm_clock_tsc, slot, __ATOMIC_RELEASE);
}

uint64_t pm_clock_tsc_slow(const pm_tsc_block *b, uint64_t tsc) {
  /* before the anchor (this core's TSC read a little earlier than the anchoring one's), or someone
   * else is re-anchoring: extrapolate */
  if ((int64_t)(tsc - b->tsc0) < 0 || __atomic_exchange_n(&anchoring, 1, __ATOMIC_ACQUIRE)) return convert(b, tsc);
  if (__atomic_load_n(&pm_clock_tsc, __ATOMIC_ACQUIRE) == b) {
    uint64_t mono, t = read_pair(&mono);
    pm_tsc_block nb;
    pm_clock_tsc_next(b, t, mono, &nb);
    publish(&nb);
  }
  const pm_tsc_block *cur = __atomic_load_n(&pm_clock_tsc, __ATOMIC_ACQUIRE);
  __atomic_store_n(&anchoring, 0, __ATOMIC_RELEASE);
  uint64_t ns = convert(cur, tsc);
  uint64_t old = convert(b, tsc);
  return ns > old ? ns : old; /* this thread's last reading came from b: never go back from it */
}

/* The kernel keeps CLOCK_MONOTONIC on the TSC and the TSC is invariant. */
static int tsc_usable(void) {
  char cs[32] = "";
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return 0;
  int ok = fgets(cs, sizeof cs, f) != NULL && strcmp(cs, "tsc\n") == 0;
  fclose(f);
  if (!ok || !(f = fopen("/proc/cpuinfo", "r"))) return 0;
  char line[4096];
  int constant = 0, nonstop = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) != 0) continue;
    constant = strstr(line, " constant_tsc") != NULL;
    nonstop = strstr(line, " nonstop_tsc") != NULL;
    break;
  }
  fclose(f);
  return constant && nonstop;
}

int pm_clock_tsc_start(int allowed) {
#if defined(__x86_64__)
  if (!allowed || pm_clock_is_virtual || __atomic_load_n(&pm_clock_tsc, __ATOMIC_ACQUIRE) || !tsc_usable()) return 0;
  uint64_t m0, m1, t0 = read_pair(&m0), t1;
  do { /* 1 ms: the first rate within ~50 ppm; the first anchors correct it */
    t1 = read_pair(&m1);
  } while (m1 - m0 < 1000000);
  if (t1 <= t0) return 0;
  pm_tsc_block b = {.tsc0 = t0, .ns0 = m0, .mono0 = m0};
  b.mult = (uint64_t)((double)(m1 - m0) * 4294967296.0 / (double)(t1 - t0));
  if (b.mult == 0) return 0;
  pm_tsc_block nb;
  pm_clock_tsc_next(&b, t1, m1, &nb); /* starts at m1 with the measured rate */
  publish(&nb);
  return 1;
#else
  (void)allowed;
  return 0;
#endif
}
