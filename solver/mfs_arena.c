/*
 * mfs_arena.c — memory for front tiles.
 *
 * Why not malloc: fronts are big, so glibc serves them with mmap and returns them with munmap, and
 * every reuse of a contribution block then pays a page fault per 4 KiB page (measured: on this
 * virtual machine page faults took 60 % of a 3D factorization). An arena reserves address space once
 * (MAP_NORESERVE: untouched pages cost nothing), asks for transparent huge pages, and recycles freed
 * ranges itself, so each page is faulted in at most once per factorization.
 *
 * The part the analysis predicts will be used is populated up front (see arena__create), in huge
 * pages unless they prove too slow to fault in here (see populate_adaptive).
 *
 * Placement is first fit over an address-ordered list of free extents, with coalescing. The offset
 * logic works without memory too (base == NULL): the analysis replays the sequential executor's
 * allocations through the very same code, so its memory prediction includes fragmentation.
 *
 * Committed memory (the high-water mark of the arena) is what the tracked counters see.
 */
#include "mfs_arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void arena__init_sim(mfs_arena *a) {
  memset(a, 0, sizeof *a);
  a->reserve = SIZE_MAX;
}

static int populate_threads = 1;

void arena__set_populate_threads(int n) {
  populate_threads = n < 1 ? 1 : n > ARENA_MAX_POPULATE_THREADS ? ARENA_MAX_POPULATE_THREADS : n;
}

/* Huge pages make the operations 1.5-1.9x faster on these VMs (measured, 2 workers: lap3d:40 0.27
 * against 0.41 s, lap2d:1000 0.46-0.49 against 0.84-0.93 s; a TLB miss is a nested page walk in a
 * VM). But where the hypervisor has taken the guest's free memory back, faulting in a huge page
 * costs milliseconds (1-4 ms per MB measured, against 0.15-0.3 ms per MB in 4 KiB pages, which the
 * guest often has at hand), and identical runs vary tenfold. So when the caller gave the operations'
 * expected time, population goes in steps, timed: once huge pages for everything would cost more
 * set-up than 4 KiB pages would cost the operations, the rest is populated in 4 KiB pages; and if
 * those prove no faster (the guest had none at hand either), the rest goes back to huge pages. */
#define ARENA_STEP (8 * HUGE_PAGE)
static double budget_ops_s, budget_bytes;
static double huge_s, huge_bytes, small_s, small_bytes; /* population so far, timed */
static int small_pages, decided;

void arena__set_huge_page_budget(double ops_s, double total_bytes) {
  budget_ops_s = ops_s > 0 ? ops_s : 0;
  budget_bytes = total_bytes > 0 ? total_bytes : 0;
  huge_s = huge_bytes = small_s = small_bytes = 0;
  small_pages = decided = 0;
}

int arena__small_pages(void) { return small_pages; }

int arena__huge_pages_too_slow(double huge_s_per_byte, double small_s_per_byte, double bytes, double ops_s) {
  return (huge_s_per_byte - small_s_per_byte) * bytes > ARENA_SMALL_PAGE_SLOWDOWN * ops_s;
}

/* 4 KiB pages for what remains, when huge pages at the rate seen so far would cost the set-up more
 * than 4 KiB pages (at their rate: assumed 0.15 ms per MB until measured) cost the operations. */
static int huge_pages_too_slow(void) {
  return arena__huge_pages_too_slow(huge_s / huge_bytes, small_bytes > 0 ? small_s / small_bytes : 1.5e-10,
                                    budget_bytes, budget_ops_s);
}

#ifdef MADV_POPULATE_WRITE
typedef struct {
  char *p;
  size_t len;
} populate_slice;

static void *populate_slice_run(void *arg) {
  populate_slice *s = arg;
  madvise(s->p, s->len, MADV_POPULATE_WRITE);
  return NULL;
}

/* Faults in [p, p + len) on populate_threads threads, in slices of whole huge pages. Why threads:
 * where the hypervisor has taken back the guest's free memory (free page reporting hands back whole
 * 2 MiB blocks, exactly what a huge page needs), each huge page costs milliseconds of host faults,
 * and those proceed in parallel on the cores the executor's workers are about to use (measured:
 * 600 MB in 0.98-1.23 s on one thread, 0.61-0.65 s on two). A thread that cannot be started leaves
 * its slice to the caller. */
static void populate_range(char *p, size_t len) {
  int n = populate_threads;
  size_t pages = len / HUGE_PAGE;
  if ((size_t)n > pages) n = (int)pages;
  if (n < 1) n = 1;
  populate_slice slice[ARENA_MAX_POPULATE_THREADS];
  pthread_t tid[ARENA_MAX_POPULATE_THREADS];
  int started[ARENA_MAX_POPULATE_THREADS] = {0};
  size_t per = (pages + (size_t)n - 1) / (size_t)n * HUGE_PAGE, off = 0;
  for (int i = 0; i < n; i++) {
    slice[i].p = p + off;
    slice[i].len = i == n - 1 ? len - off : per;
    off += slice[i].len;
    if (i > 0) started[i] = pthread_create(&tid[i], NULL, populate_slice_run, &slice[i]) == 0;
  }
  populate_slice_run(&slice[0]);
  for (int i = 1; i < n; i++) {
    if (started[i])
      pthread_join(tid[i], NULL);
    else
      populate_slice_run(&slice[i]);
  }
}
#endif

#ifdef MADV_POPULATE_WRITE
/* Populates [base, base + len) as the budget decides (see huge_pages_too_slow). */
static void populate_adaptive(mfs_arena *a, size_t len) {
  size_t done = 0;
#ifdef MADV_NOHUGEPAGE
  if (small_pages) madvise(a->base, a->reserve, MADV_NOHUGEPAGE);
  while (done < len && budget_ops_s > 0 && !decided) {
    size_t n = len - done < ARENA_STEP ? len - done : ARENA_STEP;
    double t0 = time__now();
    populate_range(a->base + done, n);
    double dt = time__now() - t0;
    done += n;
    if (!small_pages) {
      huge_s += dt;
      huge_bytes += (double)n;
      if (huge_pages_too_slow()) {
        small_pages = 1;
        madvise(a->base + done, a->reserve - done, MADV_NOHUGEPAGE);
      }
    } else {
      small_s += dt;
      small_bytes += (double)n;
      if (small_bytes >= (double)ARENA_STEP) { /* one step of 4 KiB pages decides */
        decided = 1;
        if (huge_pages_too_slow()) continue;
        small_pages = 0; /* no faster: huge pages again */
        madvise(a->base + done, a->reserve - done, MADV_HUGEPAGE);
      }
    }
  }
#endif
  if (len > done) populate_range(a->base + done, len - done);
}
#endif

mfs_status arena__create(mfs_arena *a, size_t reserve, size_t populate) {
  memset(a, 0, sizeof *a);
  pthread_mutex_init(&a->lock, NULL);
  if (reserve == 0) reserve = HUGE_PAGE;
  reserve = (reserve + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  /* reserve one huge page more so the base can be aligned for THP */
  void *p = mmap(NULL, reserve + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return MFS_ERR_NOMEM;
  a->map = p;
  a->maplen = reserve + HUGE_PAGE;
  a->base = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  a->reserve = reserve;
#ifdef MADV_HUGEPAGE
  madvise(a->base, reserve, MADV_HUGEPAGE); /* a hint: harmless where THP is off */
#endif
#ifdef MADV_POPULATE_WRITE
  /* Fault in what the analysis says will be used with MADV_POPULATE_WRITE (populate_range):
     * measured ~30x faster than taking the faults one by one on these virtual machines (it also gets the huge pages that
     * faulting often does not). Older kernels answer EINVAL and the pages fault in as used. */
  if (populate > reserve) populate = reserve;
  populate_adaptive(a, (populate + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
#else
  (void)populate;
#endif
  return MFS_OK;
}

void arena__destroy(mfs_arena *a) {
  if (a->map) {
    munmap(a->map, a->maplen);
    mem__account(-(int64_t)a->hwm);
    pthread_mutex_destroy(&a->lock);
  }
  free(a->ext);
  memset(a, 0, sizeof *a);
}

static int ext_insert(mfs_arena *a, int at, size_t off, size_t len) {
  if (a->next == a->cap) {
    int cap = a->cap ? 2 * a->cap : 64;
    arena_extent *e = realloc(a->ext, (size_t)cap * sizeof *e);
    if (!e) return 0;
    a->ext = e;
    a->cap = cap;
  }
  memmove(a->ext + at + 1, a->ext + at, (size_t)(a->next - at) * sizeof *a->ext);
  a->ext[at] = (arena_extent){off, len};
  a->next++;
  return 1;
}

static void ext_remove(mfs_arena *a, int at) {
  memmove(a->ext + at, a->ext + at + 1, (size_t)(a->next - at - 1) * sizeof *a->ext);
  a->next--;
}

size_t arena__alloc_off(mfs_arena *a, size_t len) {
  for (int t = 0; t < a->next; t++) { /* first fit */
    if (a->ext[t].len < len) continue;
    size_t off = a->ext[t].off;
    a->ext[t].off += len;
    a->ext[t].len -= len;
    if (a->ext[t].len == 0) ext_remove(a, t);
    a->used += len;
    return off;
  }
  if (len > a->reserve - a->top) return ARENA_FAIL;
  size_t off = a->top;
  a->top += len;
  a->used += len;
  if (a->top > a->hwm) a->hwm = a->top;
  return off;
}

void arena__free_off(mfs_arena *a, size_t off, size_t len) {
  a->used -= len;
  if (off + len == a->top) { /* give the top back, with any free extent now ending there */
    a->top = off;
    while (a->next > 0 && a->ext[a->next - 1].off + a->ext[a->next - 1].len == a->top) {
      a->top = a->ext[a->next - 1].off;
      a->next--;
    }
    return;
  }
  int lo = 0, hi = a->next; /* first extent after off */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (a->ext[mid].off < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  int merge_prev = lo > 0 && a->ext[lo - 1].off + a->ext[lo - 1].len == off;
  int merge_next = lo < a->next && off + len == a->ext[lo].off;
  if (merge_prev && merge_next) {
    a->ext[lo - 1].len += len + a->ext[lo].len;
    ext_remove(a, lo);
  } else if (merge_prev) {
    a->ext[lo - 1].len += len;
  } else if (merge_next) {
    a->ext[lo].off = off;
    a->ext[lo].len += len;
  } else if (!ext_insert(a, lo, off, len)) {
    /* no memory for bookkeeping: the range is lost until the arena is destroyed, which
         * wastes space but stays correct */
  }
}

void *arena__alloc(mfs_arena *a, size_t len) {
  if (!a->map || len == 0) return NULL;
  pthread_mutex_lock(&a->lock);
  size_t old_hwm = a->hwm;
  size_t off = arena__alloc_off(a, len);
  if (off != ARENA_FAIL && a->hwm > old_hwm) mem__account((int64_t)(a->hwm - old_hwm));
  pthread_mutex_unlock(&a->lock);
  return off == ARENA_FAIL ? NULL : a->base + off;
}

int arena__owns(const mfs_arena *a, const void *p) {
  return a->map && (const char *)p >= a->base && (const char *)p < a->base + a->reserve;
}

void arena__free(mfs_arena *a, void *p, size_t len) {
  pthread_mutex_lock(&a->lock);
  arena__free_off(a, (size_t)((char *)p - a->base), len);
  pthread_mutex_unlock(&a->lock);
}

void *arena__alloc_capped(mfs_arena *a, size_t len, size_t cap, int *over_cap) {
  *over_cap = 0;
  if (!a->map || len == 0) return NULL;
  pthread_mutex_lock(&a->lock);
  int fits = 0;
  for (int t = 0; t < a->next && !fits; t++) fits = a->ext[t].len >= len; /* a hole first fit would use */
  if (!fits && (a->top > cap || len > cap - a->top)) {
    pthread_mutex_unlock(&a->lock);
    *over_cap = 1;
    return NULL;
  }
  size_t old_hwm = a->hwm;
  size_t off = arena__alloc_off(a, len);
  if (off != ARENA_FAIL && a->hwm > old_hwm) mem__account((int64_t)(a->hwm - old_hwm));
  pthread_mutex_unlock(&a->lock);
  return off == ARENA_FAIL ? NULL : a->base + off;
}
