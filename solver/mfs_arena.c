/*
 * mfs_arena.c — memory for front tiles.
 *
 * Why not malloc: fronts are big, so glibc serves them with mmap and returns them with munmap, and
 * every reuse of a contribution block then pays a page fault per 4 KiB page (measured: on this
 * virtual machine page faults took 60 % of a 3D factorization). An arena reserves address space once
 * (MAP_NORESERVE: untouched pages cost nothing) and recycles freed ranges itself, so each page is
 * faulted in at most once per factorization.
 *
 * It does not ask for transparent huge pages (MADV_HUGEPAGE). On virtual machines with free page
 * reporting (virtio-balloon: free blocks of 2 MiB and more are handed back to the host, which
 * discards their memory), a huge page is exactly such a block, and its first touch costs a host
 * fault on all of it; 4 KiB pages mostly come from smaller free blocks the guest kept backed.
 * Paired one-core runs, the hint against none, both orders: lap3d:60 -0.45 / -0.54 s of ~5.5 s
 * without it, lap3d:50 -0.08 / -0.23 of ~2.1, lap3d27:40 -0.09 / -0.10 of ~0.9; 2 processes x 1
 * worker lap3d:50 -0.14 of ~1.4; 1 process x 2 workers no change. Where the kernel uses huge pages
 * for every mapping (THP "always"), the arena still gets them where they are free to take (the
 * base is 2 MiB aligned), without the direct compaction a hinted fault may wait for.
 *
 * Nothing is populated up front: a page is faulted in by the first task that writes it (the init of
 * the front it belongs to zeroes the front), on the worker that runs that task, overlapped with the
 * other workers' operations, and a CB range freed and reused later is not faulted again. Faulting
 * the predicted footprint in before the first operation (MADV_POPULATE_WRITE, huge pages) cost
 * 0.6-1.9 s of set-up on lap3d:50 on these virtual machines, where the hypervisor takes freed memory
 * back, and saved the operations less: one core, interleaved, 3.78 / 4.25 / 3.96 s with it against
 * 3.05 / 4.27 / 4.04 s without. CHOLMOD, too, takes its faults where it first writes.
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

mfs_status arena__create(mfs_arena *a, size_t reserve) {
  memset(a, 0, sizeof *a);
  pthread_mutex_init(&a->lock, NULL);
  if (reserve == 0) reserve = HUGE_PAGE;
  reserve = (reserve + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  /* reserve one huge page more so that the base is 2 MiB aligned (THP "always" can back it) */
  void *p = mmap(NULL, reserve + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return MFS_ERR_NOMEM;
  a->map = p;
  a->maplen = reserve + HUGE_PAGE;
  a->base = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  a->reserve = reserve;
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

/* The leading bytes of [off, off + len) that an earlier allocation may have written: what lies
 * above the old high-water mark was never handed out, so it is still the kernel's zero pages. */
static void set_dirty(size_t *dirty, size_t off, size_t len, size_t old_hwm) {
  if (dirty) *dirty = off >= old_hwm ? 0 : old_hwm - off < len ? old_hwm - off : len;
}

void *arena__alloc(mfs_arena *a, size_t len, size_t *dirty) {
  if (!a->map || len == 0) return NULL;
  pthread_mutex_lock(&a->lock);
  size_t old_hwm = a->hwm;
  size_t off = arena__alloc_off(a, len);
  if (off != ARENA_FAIL && a->hwm > old_hwm) mem__account((int64_t)(a->hwm - old_hwm));
  pthread_mutex_unlock(&a->lock);
  if (off == ARENA_FAIL) return NULL;
  set_dirty(dirty, off, len, old_hwm);
  return a->base + off;
}

int arena__owns(const mfs_arena *a, const void *p) {
  return a->map && (const char *)p >= a->base && (const char *)p < a->base + a->reserve;
}

void arena__free(mfs_arena *a, void *p, size_t len) {
  pthread_mutex_lock(&a->lock);
  arena__free_off(a, (size_t)((char *)p - a->base), len);
  pthread_mutex_unlock(&a->lock);
}

void *arena__alloc_capped(mfs_arena *a, size_t len, size_t cap, int *over_cap, size_t *dirty) {
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
  if (off == ARENA_FAIL) return NULL;
  set_dirty(dirty, off, len, old_hwm);
  return a->base + off;
}
