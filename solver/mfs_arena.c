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
 * other workers' operations — in the task-based executor, a tiled front's fresh pages by the
 * submitting thread when it allocates them (mfs_factor_starpu.c: prefault) —, and a CB range freed
 * and reused later is not faulted again. Faulting
 * the predicted footprint in before the first operation (MADV_POPULATE_WRITE, huge pages) cost
 * 0.6-1.9 s of set-up on lap3d:50 on these virtual machines, where the hypervisor takes freed memory
 * back, and saved the operations less: one core, interleaved, 3.78 / 4.25 / 3.96 s with it against
 * 3.05 / 4.27 / 4.04 s without. CHOLMOD, too, takes its faults where it first writes.
 *
 * Two ends. A front's CB is taken while its children's CBs are still alive (the assembly reads
 * them), so in one stack it lands above them, and once they are freed it leaves a hole below that
 * a larger block (the next sibling's subtree) does not fit in: first fit in one stack committed
 * 256 MB for lap3d:60 where at most 220 MB were ever alive at once (lap3d:50: 148 for 118). The
 * window has two ends that grow towards each other, and the caller takes a front's CB from the end
 * of its depth's parity (mfs_cb_end): a parent and its children sit at opposite ends, so freeing
 * the children leaves no hole under the parent. Replaying the sequential order this way commits
 * exactly the live peak on the three test problems (the task-based executor, whose tasks free later
 * than any plan, takes one end: mfs_factor_starpu.c says why). Within each end, placement is first
 * fit over an ordered list of free extents, with coalescing. While the high end holds nothing, the
 * low end may grow past the window into the address space reserved behind it (a task-based run
 * that got ahead of its plan).
 *
 * The offset logic works without memory too (base == NULL): the analysis replays the executors'
 * allocations through the very same code, so its memory prediction includes fragmentation.
 * Memory the two ends touched (arena__touched: the window at most, unless the low end grew past it)
 * is what the tracked counters see.
 */
#include "mfs_arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define SIM_WINDOW (SIZE_MAX / 4) /* a simulation's window: never the limit */

void arena__init_sim(mfs_arena *a) {
  memset(a, 0, sizeof *a);
  a->window = a->reserve = SIM_WINDOW;
}

mfs_status arena__create(mfs_arena *a, size_t window, size_t extra) {
  memset(a, 0, sizeof *a);
  pthread_mutex_init(&a->lock, NULL);
  window = (window + 63) / 64 * 64; /* the high end's blocks stay 64-byte aligned */
  size_t reserve = (window + extra + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (reserve == 0) reserve = HUGE_PAGE;
  /* reserve one huge page more so that the base is 2 MiB aligned (THP "always" can back it) */
  void *p = mmap(NULL, reserve + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return MFS_ERR_NOMEM;
  a->map = p;
  a->maplen = reserve + HUGE_PAGE;
  a->base = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
  a->window = window;
  a->reserve = reserve;
  return MFS_OK;
}

/* The union of [0, low.hwm) and the high end's last high.hwm bytes of the window. */
size_t arena__touched(const mfs_arena *a) {
  size_t both = a->low.hwm + a->high.hwm, span = a->low.hwm > a->window ? a->low.hwm : a->window;
  return both < span ? both : span;
}

static void region_release(arena_region *r) {
  free(r->ext);
  memset(r, 0, sizeof *r);
}

void arena__destroy(mfs_arena *a) {
  if (a->map) {
    munmap(a->map, a->maplen);
    mem__account(-(int64_t)arena__touched(a));
    pthread_mutex_destroy(&a->lock);
  }
  region_release(&a->low);
  region_release(&a->high);
  memset(a, 0, sizeof *a);
}

static int ext_insert(arena_region *r, int at, size_t off, size_t len) {
  if (r->next == r->cap) {
    int cap = r->cap ? 2 * r->cap : 64;
    arena_extent *e = realloc(r->ext, (size_t)cap * sizeof *e);
    if (!e) return 0;
    r->ext = e;
    r->cap = cap;
  }
  memmove(r->ext + at + 1, r->ext + at, (size_t)(r->next - at) * sizeof *r->ext);
  r->ext[at] = (arena_extent){off, len};
  r->next++;
  return 1;
}

static void ext_remove(arena_region *r, int at) {
  memmove(r->ext + at, r->ext + at + 1, (size_t)(r->next - at - 1) * sizeof *r->ext);
  r->next--;
}

/* First fit in the region's holes, else on its top while the top stays within room bytes. */
static size_t region_alloc(arena_region *r, size_t len, size_t room) {
  for (int t = 0; t < r->next; t++) {
    if (r->ext[t].len < len) continue;
    size_t off = r->ext[t].off;
    r->ext[t].off += len;
    r->ext[t].len -= len;
    if (r->ext[t].len == 0) ext_remove(r, t);
    return off;
  }
  if (r->top > room || len > room - r->top) return ARENA_FAIL;
  size_t off = r->top;
  r->top += len;
  if (r->top > r->hwm) r->hwm = r->top;
  return off;
}

static void region_free(arena_region *r, size_t off, size_t len) {
  if (off + len == r->top) { /* give the top back, with any free extent now ending there */
    r->top = off;
    while (r->next > 0 && r->ext[r->next - 1].off + r->ext[r->next - 1].len == r->top) {
      r->top = r->ext[r->next - 1].off;
      r->next--;
    }
    return;
  }
  int lo = 0, hi = r->next; /* first extent after off */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (r->ext[mid].off < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  int merge_prev = lo > 0 && r->ext[lo - 1].off + r->ext[lo - 1].len == off;
  int merge_next = lo < r->next && off + len == r->ext[lo].off;
  if (merge_prev && merge_next) {
    r->ext[lo - 1].len += len + r->ext[lo].len;
    ext_remove(r, lo);
  } else if (merge_prev) {
    r->ext[lo - 1].len += len;
  } else if (merge_next) {
    r->ext[lo].off = off;
    r->ext[lo].len += len;
  } else if (!ext_insert(r, lo, off, len)) {
    /* no memory for bookkeeping: the range is lost until the arena is destroyed, which
         * wastes space but stays correct */
  }
}

/* What the window leaves to one end beside the other's top (none once the low end grew past it). */
static size_t room_beside(const mfs_arena *a, size_t other_top) {
  return other_top < a->window ? a->window - other_top : 0;
}

static size_t end_alloc_off(mfs_arena *a, size_t len, int end) {
  if (end == ARENA_HIGH) {
    size_t x = region_alloc(&a->high, len, room_beside(a, a->low.top));
    return x == ARENA_FAIL ? x : a->window - x - len;
  }
  return region_alloc(&a->low, len, room_beside(a, a->high.top));
}

/* In the window at the given end (its free room is what the other end leaves), else at the other
 * end, else ARENA_FAIL. Replaying the planned order, the given end always has room (the window is
 * that order's footprint); a task-based run frees later than planned and takes blocks in another
 * order, and a hole at the other end is better than waiting or going past the window. */
static size_t window_alloc_off(mfs_arena *a, size_t len, int end) {
  size_t off = end_alloc_off(a, len, end);
  return off != ARENA_FAIL ? off : end_alloc_off(a, len, end == ARENA_HIGH ? ARENA_LOW : ARENA_HIGH);
}

static void note_held(mfs_arena *a, size_t len) {
  a->used += len;
  if (a->low.top + a->high.top > a->hwm) a->hwm = a->low.top + a->high.top;
}

/* In the window; when past_window, else past it while the high end holds nothing. */
static size_t alloc_off(mfs_arena *a, size_t len, int end, int past_window) {
  size_t off = window_alloc_off(a, len, end);
  if (off == ARENA_FAIL && past_window && a->high.top == 0) off = region_alloc(&a->low, len, a->reserve);
  if (off == ARENA_FAIL) return ARENA_FAIL;
  note_held(a, len);
  return off;
}

size_t arena__alloc_off(mfs_arena *a, size_t len, int end) { return alloc_off(a, len, end, 1); }

/* Which end holds [off, off + len): the low end's blocks lie below its top, the high end's above it
 * (the two tops never cross). */
void arena__free_off(mfs_arena *a, size_t off, size_t len) {
  a->used -= len;
  if (off + len <= a->low.top)
    region_free(&a->low, off, len);
  else
    region_free(&a->high, a->window - off - len, len);
}

typedef struct {
  size_t low, high; /* high-water marks before an allocation */
} touched_marks;

static touched_marks marks_of(const mfs_arena *a) { return (touched_marks){a->low.hwm, a->high.hwm}; }

/* The leading bytes of [off, off + len) that an earlier allocation may have written, from the marks
 * before it: the low end touched the first m.low bytes, the high end the window's last m.high; a
 * block reaching into the latter counts as written in full (the rest is then zeroed too, which is
 * only slower). */
static size_t dirty_bytes(const mfs_arena *a, size_t off, size_t len, touched_marks m) {
  if (m.high && off + len > a->window - m.high) return len;
  return off >= m.low ? 0 : m.low - off < len ? m.low - off : len;
}

/* Takes [off, off + len) of the low end when it is free: inside one free extent, or from the top on
 * (the gap below it becomes a free extent) while the window's room beside the high end holds it. No
 * free extent ends at the top (region_free gives such a one back), so these are the only cases. */
static int region_take(arena_region *r, size_t off, size_t len, size_t room) {
  if (off >= r->top) {
    if (off > room || len > room - off) return 0;
    if (off > r->top && !ext_insert(r, r->next, r->top, off - r->top)) return 0;
    r->top = off + len;
    if (r->top > r->hwm) r->hwm = r->top;
    return 1;
  }
  int lo = 0, hi = r->next; /* the last extent starting at or below off */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (r->ext[mid].off <= off)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return 0;
  arena_extent e = r->ext[lo - 1];
  if (off + len > e.off + e.len) return 0;
  size_t after = e.off + e.len - (off + len);
  if (off > e.off) { /* the extent keeps its part below the block, and its part above becomes one */
    r->ext[lo - 1].len = off - e.off;
    if (after && !ext_insert(r, lo, off + len, after)) {
      r->ext[lo - 1].len = e.len;
      return 0;
    }
  } else if (after) {
    r->ext[lo - 1].off = off + len;
    r->ext[lo - 1].len = after;
  } else {
    ext_remove(r, lo - 1);
  }
  return 1;
}

/* First fit at or above floor in the low end's holes, else on its top (at floor at least), within
 * the window's room. */
static size_t region_alloc_above(arena_region *r, size_t len, size_t room, size_t floor) {
  for (int t = 0; t < r->next; t++) {
    arena_extent e = r->ext[t];
    if (e.off + e.len <= floor) continue;
    size_t from = e.off > floor ? e.off : floor;
    if (e.off + e.len - from >= len && region_take(r, from, len, room)) return from;
  }
  size_t from = r->top > floor ? r->top : floor;
  return region_take(r, from, len, room) ? from : ARENA_FAIL;
}

/* Where a block goes: at an end of the window (past it when past_window, while the high end holds
 * nothing), at offset `at` of the low end, or first fit at `at` or above in the low end. */
typedef struct {
  enum { AT_END, AT_OFFSET, AT_OR_ABOVE } how;
  int end, past_window;
  size_t at;
} placement;

static size_t place(mfs_arena *a, const placement *pl, size_t len) {
  if (pl->how == AT_END) return alloc_off(a, len, pl->end, pl->past_window);
  size_t room = room_beside(a, a->high.top), off = pl->at;
  if (pl->how == AT_OFFSET ? !region_take(&a->low, off, len, room)
                           : (off = region_alloc_above(&a->low, len, room, pl->at)) == ARENA_FAIL)
    return ARENA_FAIL;
  note_held(a, len);
  return off;
}

static void *alloc_block(mfs_arena *a, size_t len, placement pl, size_t *dirty) {
  if (!a->map || len == 0 || (pl.how != AT_END && pl.at == ARENA_FAIL)) return NULL;
  pthread_mutex_lock(&a->lock);
  touched_marks m = marks_of(a);
  size_t before = arena__touched(a);
  size_t off = place(a, &pl, len);
  size_t now = arena__touched(a);
  if (now > before) mem__account((int64_t)(now - before));
  pthread_mutex_unlock(&a->lock);
  if (off == ARENA_FAIL) return NULL;
  if (dirty) *dirty = dirty_bytes(a, off, len, m);
  return a->base + off;
}

void *arena__alloc(mfs_arena *a, size_t len, int end, size_t *dirty) {
  return alloc_block(a, len, (placement){AT_END, end, 1, 0}, dirty);
}

void *arena__alloc_at(mfs_arena *a, size_t off, size_t len, size_t *dirty) {
  return alloc_block(a, len, (placement){AT_OFFSET, ARENA_LOW, 0, off}, dirty);
}

void *arena__alloc_above(mfs_arena *a, size_t floor, size_t len, size_t *dirty) {
  return alloc_block(a, len, (placement){AT_OR_ABOVE, ARENA_LOW, 0, floor}, dirty);
}

void *arena__alloc_in_window(mfs_arena *a, size_t len, int end, int *over_window, size_t *dirty) {
  void *p = alloc_block(a, len, (placement){AT_END, end, 0, 0}, dirty);
  *over_window = !p && a->map && len > 0;
  return p;
}

int arena__owns(const mfs_arena *a, const void *p) {
  return a->map && (const char *)p >= a->base && (const char *)p < a->base + a->reserve;
}

void arena__free(mfs_arena *a, void *p, size_t len) {
  pthread_mutex_lock(&a->lock);
  arena__free_off(a, (size_t)((char *)p - a->base), len);
  pthread_mutex_unlock(&a->lock);
}
