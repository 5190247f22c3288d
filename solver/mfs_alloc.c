/*
 * mfs_alloc.c — tracked allocation. The numeric phase reports its measured memory high-water mark
 * next to the analysis' prediction, so every byte libmfsolve allocates goes through here. Counters
 * are atomic because a task-based executor frees and allocates fronts from several workers.
 *
 * Large blocks (the analysis' O(n) and O(nnz) arrays) are mapped directly with transparent huge
 * pages requested and populated in one call: first-touch page faults cost ~5 ms per MB with
 * 4 KiB pages on the virtual machines this runs on, and glibc's malloc would map these blocks with
 * small pages and fault them in one by one.
 */
#include "mfs_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* The header keeps the requested size (and, for mapped blocks, the mapping); 64 bytes keeps the
 * payload cache-line aligned. */
#define HDR 64
#define BIG_BLOCK ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

typedef struct {
  size_t bytes; /* requested */
  void *map;    /* mapping start, NULL for heap blocks */
  size_t maplen;
} header;

static _Atomic int64_t mem_cur;
static _Atomic int64_t mem_hwm;

void mem__account(int64_t delta) {
  int64_t now = atomic_fetch_add_explicit(&mem_cur, delta, memory_order_relaxed) + delta;
  pub__memory(now);
  if (delta <= 0) return;
  int64_t old = atomic_load_explicit(&mem_hwm, memory_order_relaxed);
  while (now > old &&
         !atomic_compare_exchange_weak_explicit(&mem_hwm, &old, now, memory_order_relaxed, memory_order_relaxed)) {}
}

int64_t mfs_mem_current(void) { return atomic_load(&mem_cur); }
int64_t mfs_mem_peak(void) { return atomic_load(&mem_hwm); }
void mfs_mem_reset_peak(void) { atomic_store(&mem_hwm, atomic_load(&mem_cur)); }

/* Maps len + HDR bytes so that the payload starts on a 2 MiB boundary (THP can back all of it). */
static void *map_big(size_t bytes) {
  size_t maplen = bytes + HDR + HUGE_PAGE;
  char *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  char *payload = (char *)(((uintptr_t)m + HDR + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
  madvise(payload, bytes, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
  madvise(payload, bytes, MADV_POPULATE_WRITE); /* the arrays are written in full right away */
#endif
  header *h = (header *)(payload - HDR);
  h->bytes = bytes;
  h->map = m;
  h->maplen = maplen;
  return payload;
}

void *mem__alloc(size_t bytes) {
  void *raw;
  if (bytes > SIZE_MAX - HDR - HUGE_PAGE) return NULL;
  if (bytes >= BIG_BLOCK) {
    void *p = map_big(bytes);
    if (p) {
      mem__account((int64_t)bytes);
      return p;
    }
  }
  if (posix_memalign(&raw, HDR, bytes + HDR) != 0) return NULL;
  header *h = raw;
  h->bytes = bytes;
  h->map = NULL;
  mem__account((int64_t)bytes);
  return (char *)raw + HDR;
}

void *mem__calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = mem__alloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void mem__free(void *p) {
  if (!p) return;
  header *h = (header *)((char *)p - HDR);
  mem__account(-(int64_t)h->bytes);
  if (h->map)
    munmap(h->map, h->maplen);
  else
    free(h);
}

void *mem__realloc(void *p, size_t bytes) {
  if (!p) return mem__alloc(bytes);
  size_t old = ((header *)((char *)p - HDR))->bytes;
  void *q = mem__alloc(bytes);
  if (!q) return NULL;
  memcpy(q, p, old < bytes ? old : bytes);
  mem__free(p);
  return q;
}

double time__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
