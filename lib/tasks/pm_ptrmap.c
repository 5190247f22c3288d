/* Striped pointer map (see pm_ptrmap.h). */
#include "pm_ptrmap.h"
#include <stdlib.h>
#include <string.h>

static inline uint64_t hash(const void *key) {
  uint64_t x = (uint64_t)(uintptr_t)key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33; /* murmur3 finaliser: pointers are aligned */
  return x;
}
static inline pm_ptrmap_stripe *stripe_of(pm_ptrmap *m, uint64_t h) { return &m->s[h & (PM_PTRMAP_STRIPES - 1)]; }
static inline uint32_t home(const pm_ptrmap_stripe *s, uint64_t h) { return (uint32_t)(h >> 6) & (s->cap - 1); }

void pm_ptrmap_init(pm_ptrmap *m) { memset(m, 0, sizeof *m); }

/* Probe for key: its slot index, or the empty slot where it would go. Needs cap > 0. */
static uint32_t find(const pm_ptrmap_stripe *s, const void *key, uint64_t h) {
  uint32_t i = home(s, h);
  while (s->slot[i].key && s->slot[i].key != key) i = (i + 1) & (s->cap - 1);
  return i;
}

static int grow(pm_ptrmap_stripe *s) {
  uint32_t ncap = s->cap ? s->cap * 2 : 16;
  pm_ptrmap_slot *old = s->slot, *n = calloc(ncap, sizeof *n);
  if (!n) return -1;
  uint32_t ocap = s->cap;
  s->slot = n;
  s->cap = ncap;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].key) s->slot[find(s, old[i].key, hash(old[i].key))] = old[i];
  free(old);
  return 0;
}

/* Called with the lock held. */
static int insert(pm_ptrmap_stripe *s, const void *key, void *val, uint64_t h) {
  if ((s->n + 1) * 2 > s->cap && grow(s) != 0) return -1;
  uint32_t i = find(s, key, h);
  if (!s->slot[i].key) s->n++;
  s->slot[i] = (pm_ptrmap_slot){key, val};
  return 0;
}

int pm_ptrmap_put(pm_ptrmap *m, const void *key, void *val) {
  uint64_t h = hash(key);
  pm_ptrmap_stripe *s = stripe_of(m, h);
  pm_spin_lock(&s->lock);
  int rc = insert(s, key, val, h);
  pm_spin_unlock(&s->lock);
  return rc;
}

void *pm_ptrmap_get(pm_ptrmap *m, const void *key) {
  uint64_t h = hash(key);
  pm_ptrmap_stripe *s = stripe_of(m, h);
  void *v = NULL;
  pm_spin_lock(&s->lock);
  if (s->cap) v = s->slot[find(s, key, h)].val;
  pm_spin_unlock(&s->lock);
  return v;
}

void *pm_ptrmap_get_or_make(pm_ptrmap *m, const void *key, void *(*make)(void *arg), void *arg,
                            void (*hold)(void *val)) {
  uint64_t h = hash(key);
  pm_ptrmap_stripe *s = stripe_of(m, h);
  void *v = NULL;
  pm_spin_lock(&s->lock);
  if (s->cap) v = s->slot[find(s, key, h)].val;
  if (!v && (v = make(arg)) != NULL && insert(s, key, v, h) != 0) v = NULL; /* make's object leaks on OOM */
  if (v && hold) hold(v);
  pm_spin_unlock(&s->lock);
  return v;
}

/* Called with the lock held: removes key if present and (val == NULL or it maps to val). */
static void *remove_locked(pm_ptrmap_stripe *s, const void *key, uint64_t h, const void *val) {
  void *v = NULL;
  if (s->cap) {
    uint32_t i = find(s, key, h);
    if (s->slot[i].key && (!val || s->slot[i].val == val)) {
      v = s->slot[i].val;
      /* backward-shift deletion: move later members of the probe run into the hole */
      uint32_t mask = s->cap - 1, j = i;
      for (;;) {
        s->slot[i].key = NULL;
        s->slot[i].val = NULL;
        for (;;) {
          j = (j + 1) & mask;
          if (!s->slot[j].key) goto done;
          uint32_t k = home(s, hash(s->slot[j].key));
          /* slot j may move into i when its home is not cyclically in (i, j] */
          if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
          break;
        }
        s->slot[i] = s->slot[j];
        i = j;
      }
    done:
      s->n--;
    }
  }
  return v;
}

void *pm_ptrmap_take(pm_ptrmap *m, const void *key) {
  uint64_t h = hash(key);
  pm_ptrmap_stripe *s = stripe_of(m, h);
  pm_spin_lock(&s->lock);
  void *v = remove_locked(s, key, h, NULL);
  pm_spin_unlock(&s->lock);
  return v;
}

int pm_ptrmap_take_if(pm_ptrmap *m, const void *key, const void *val) {
  uint64_t h = hash(key);
  pm_ptrmap_stripe *s = stripe_of(m, h);
  pm_spin_lock(&s->lock);
  void *v = remove_locked(s, key, h, val);
  pm_spin_unlock(&s->lock);
  return v != NULL;
}

void pm_ptrmap_foreach(pm_ptrmap *m, void (*fn)(const void *key, void *val, void *arg), void *arg) {
  for (int k = 0; k < PM_PTRMAP_STRIPES; k++) {
    pm_ptrmap_stripe *s = &m->s[k];
    for (uint32_t i = 0; i < s->cap; i++)
      if (s->slot[i].key) fn(s->slot[i].key, s->slot[i].val, arg);
  }
}

uint64_t pm_ptrmap_size(pm_ptrmap *m) {
  uint64_t n = 0;
  for (int k = 0; k < PM_PTRMAP_STRIPES; k++) n += __atomic_load_n(&m->s[k].n, __ATOMIC_RELAXED);
  return n;
}

void pm_ptrmap_destroy(pm_ptrmap *m) {
  for (int k = 0; k < PM_PTRMAP_STRIPES; k++) free(m->s[k].slot);
  memset(m, 0, sizeof *m);
}
