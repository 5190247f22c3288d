/* Fixed-size object pools with per-thread caches (see pm_slab.h). */
#include "pm_slab.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void pm_spin_wait(pm_spin *s) {
  for (unsigned n = 1;; n++) {
    while (__atomic_load_n(&s->v, __ATOMIC_RELAXED)) {
      if (++n % 128 == 0)
        sched_yield(); /* the holder may have been preempted */
      else
        __builtin_ia32_pause();
    }
    if (!__atomic_exchange_n(&s->v, 1, __ATOMIC_ACQUIRE)) return;
  }
}

/* A thread's free objects: the list it allocates from and frees to (cur, fewer than
 * PM_SLAB_BATCH objects once a free returns), and at most one complete batch beside it (full). The
 * last object of each list is known, so a batch changes hands without a walk over its objects:
 * they were freed over the last hundred-odd tasks, and a walk of 64 dependent loads was most of a
 * free's cost. Every list ends with NULL. */
typedef struct {
  void *head, *tail; /* tail: valid while n > 0 */
  uint32_t n;
} free_list;
typedef struct {
  free_list cur;
  void *full, *full_tail; /* a batch of PM_SLAB_BATCH objects, or NULL */
  uint64_t epoch;
} cache;
static __thread cache tls_cache[PM_SLAB_MAX] __attribute__((tls_model("initial-exec")));
static int next_id;

void pm_slab_init(pm_slab *s, size_t size, size_t per_chunk) {
  memset(s, 0, sizeof *s);
  if (size < 3 * sizeof(void *)) size = 3 * sizeof(void *); /* a batch's first object: next, batch link, tail */
  s->size = (size + 15) & ~(size_t)15;
  s->per_chunk = per_chunk ? per_chunk : 256;
}

static size_t chunk_bytes(const pm_slab *s) { return s->size * s->per_chunk; }

/* Called with the lock held: a new chunk becomes the bump region (its objects are handed out in
 * address order, without a pass over the chunk to link them). */
static int grow(pm_slab *s) {
  if (s->nchunks == s->cap_chunks) {
    size_t ncap = s->cap_chunks ? s->cap_chunks * 2 : 16;
    void **n = realloc(s->chunks, ncap * sizeof *n);
    if (!n) return -1;
    s->chunks = n;
    s->cap_chunks = ncap;
  }
  /* Pages pre-faulted in one call: a page fault per page costs microseconds in a VM, and a
   * chunk's pages are all touched soon. */
  char *c = mmap(NULL, chunk_bytes(s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (c == MAP_FAILED) return -1;
  s->chunks[s->nchunks++] = c;
  s->bump = c;
  s->bump_end = c + chunk_bytes(s);
  s->nfree += s->per_chunk;
  return 0;
}

static cache *cache_of(pm_slab *s) {
  int id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
  if (PM_UNLIKELY(id == 0)) {
    pm_spin_lock(&s->lock);
    if (s->id == 0 && next_id < PM_SLAB_MAX) s->id = ++next_id;
    id = s->id;
    pm_spin_unlock(&s->lock);
    if (id == 0) return NULL; /* more pools than cache slots: no cache */
  }
  cache *c = &tls_cache[id - 1];
  uint64_t e = __atomic_load_n(&s->epoch, __ATOMIC_RELAXED);
  if (PM_UNLIKELY(c->epoch != e)) { /* pool destroyed since */
    memset(c, 0, sizeof *c);
    c->epoch = e;
  }
  return c;
}

static uint64_t total(const pm_slab *s) { return (uint64_t)s->nchunks * s->per_chunk; }

/* Called with the lock held: n objects leave the global list. */
static void note_taken(pm_slab *s, uint64_t n) {
  s->nfree -= n;
  if (total(s) - s->nfree > s->high_water) s->high_water = total(s) - s->nfree;
}

/* Called with the lock held: one object off the global list (growing it if needed), or NULL. */
static void *take_locked(pm_slab *s) {
  void *x;
  if (s->free_list) {
    x = s->free_list;
    s->free_list = *(void **)x;
  } else {
    if (s->bump == s->bump_end && grow(s) != 0) return NULL;
    x = s->bump;
    s->bump += s->size;
  }
  note_taken(s, 1);
  return x;
}

/* Links of a batch's first object: [0] the next object, [1] the next batch, [2] its last object. */
#define BATCH_NEXT(b) (((void **)(b))[1])
#define BATCH_TAIL(b) (((void **)(b))[2])

/* Fills this thread's (empty) list from the global one: a whole batch another cache gave back when
 * there is one, else objects one at a time. */
static void refill(pm_slab *s, free_list *l) {
  pm_spin_lock(&s->lock);
  if (s->batches) {
    void *b = s->batches;
    s->batches = BATCH_NEXT(b);
    note_taken(s, PM_SLAB_BATCH);
    pm_spin_unlock(&s->lock);
    *l = (free_list){b, BATCH_TAIL(b), PM_SLAB_BATCH};
    return;
  }
  for (unsigned k = 0; k < PM_SLAB_BATCH; k++) {
    void *x = take_locked(s);
    if (!x) break;
    *(void **)x = l->head;
    if (!l->head) l->tail = x;
    l->head = x;
    l->n++;
  }
  pm_spin_unlock(&s->lock);
}

/* Gives a complete batch (first .. last, PM_SLAB_BATCH objects ending in NULL) to the global list. */
static void give_batch(pm_slab *s, void *first, void *last) {
  BATCH_TAIL(first) = last;
  pm_spin_lock(&s->lock);
  BATCH_NEXT(first) = s->batches;
  s->batches = first;
  s->nfree += PM_SLAB_BATCH;
  pm_spin_unlock(&s->lock);
}

void *pm_slab_alloc(pm_slab *s) {
  void *o = pm_slab_alloc_uninit(s);
  if (o) memset(o, 0, s->size);
  return o;
}

void *pm_slab_alloc_uninit(pm_slab *s) {
  cache *c = cache_of(s);
  void *o = NULL;
  if (PM_LIKELY(c != NULL)) {
    free_list *l = &c->cur;
    if (PM_UNLIKELY(!l->n)) {
      if (c->full) {
        *l = (free_list){c->full, c->full_tail, PM_SLAB_BATCH};
        c->full = NULL;
      } else {
        refill(s, l);
      }
    }
    if ((o = l->head) != NULL) {
      l->head = *(void **)o;
      l->n--;
      /* the next allocation reads that object's link: often a line another thread wrote */
      if (l->head) __builtin_prefetch(l->head, 1);
    }
  } else {
    pm_spin_lock(&s->lock);
    o = take_locked(s);
    pm_spin_unlock(&s->lock);
  }
  return o;
}

void pm_slab_free(pm_slab *s, void *obj) {
  if (!obj) return;
  cache *c = cache_of(s);
  if (PM_UNLIKELY(!c)) {
    pm_spin_lock(&s->lock);
    *(void **)obj = s->free_list;
    s->free_list = obj;
    s->nfree++;
    pm_spin_unlock(&s->lock);
    return;
  }
  free_list *l = &c->cur;
  *(void **)obj = l->head;
  if (!l->n) l->tail = obj;
  l->head = obj;
  if (++l->n < PM_SLAB_BATCH) return;
  /* a complete batch: it becomes the spare, the previous spare goes to the global list */
  if (c->full) give_batch(s, c->full, c->full_tail);
  c->full = l->head;
  c->full_tail = l->tail;
  *l = (free_list){NULL, NULL, 0};
}

uint64_t pm_slab_live(pm_slab *s) {
  cache *c = s->nchunks ? cache_of(s) : NULL;
  if (c) {
    if (c->full) give_batch(s, c->full, c->full_tail);
    c->full = NULL;
    free_list *l = &c->cur;
    if (l->n) {
      pm_spin_lock(&s->lock);
      *(void **)l->tail = s->free_list;
      s->free_list = l->head;
      s->nfree += l->n;
      pm_spin_unlock(&s->lock);
    }
    *l = (free_list){NULL, NULL, 0};
  }
  pm_spin_lock(&s->lock);
  uint64_t live = total(s) - s->nfree;
  pm_spin_unlock(&s->lock);
  return live;
}

void pm_slab_destroy(pm_slab *s) {
  for (size_t i = 0; i < s->nchunks; i++) munmap(s->chunks[i], chunk_bytes(s));
  free(s->chunks);
  s->chunks = NULL;
  s->nchunks = s->cap_chunks = 0;
  s->free_list = s->batches = NULL;
  s->bump = s->bump_end = NULL;
  s->nfree = 0;
  s->high_water = 0;
  __atomic_add_fetch(&s->epoch, 1, __ATOMIC_RELAXED); /* keeps size, per_chunk and id */
}
