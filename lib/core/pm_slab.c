/* Fixed-size object pools (see pm_slab.h). */
#include "pm_slab.h"
#include <stdlib.h>
#include <string.h>

void pm_slab_init(pm_slab *s, size_t size, size_t per_chunk) {
  memset(s, 0, sizeof *s);
  if (size < sizeof(void *)) size = sizeof(void *);
  s->size = (size + 15) & ~(size_t)15;
  s->per_chunk = per_chunk ? per_chunk : 256;
}

/* Called with the lock held: adds one chunk to the free list. */
static int grow(pm_slab *s) {
  if (s->nchunks == s->cap_chunks) {
    size_t ncap = s->cap_chunks ? s->cap_chunks * 2 : 16;
    void **n = realloc(s->chunks, ncap * sizeof *n);
    if (!n) return -1;
    s->chunks = n;
    s->cap_chunks = ncap;
  }
  char *c = malloc(s->size * s->per_chunk);
  if (!c) return -1;
  s->chunks[s->nchunks++] = c;
  for (size_t i = s->per_chunk; i-- > 0;) {   /* lowest addresses handed out first */
    void *o = c + i * s->size;
    *(void **)o = s->free_list;
    s->free_list = o;
  }
  return 0;
}

void *pm_slab_alloc(pm_slab *s) {
  pm_spin_lock(&s->lock);
  if (!s->free_list && grow(s) != 0) { pm_spin_unlock(&s->lock); return NULL; }
  void *o = s->free_list;
  s->free_list = *(void **)o;
  if (++s->live > s->high_water) s->high_water = s->live;
  pm_spin_unlock(&s->lock);
  memset(o, 0, s->size);
  return o;
}

void pm_slab_free(pm_slab *s, void *obj) {
  if (!obj) return;
  pm_spin_lock(&s->lock);
  *(void **)obj = s->free_list;
  s->free_list = obj;
  s->live--;
  pm_spin_unlock(&s->lock);
}

void pm_slab_destroy(pm_slab *s) {
  for (size_t i = 0; i < s->nchunks; i++) free(s->chunks[i]);
  free(s->chunks);
  size_t size = s->size, per = s->per_chunk;
  memset(s, 0, sizeof *s);
  s->size = size;
  s->per_chunk = per;
}
