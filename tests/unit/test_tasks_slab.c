/* Object pools (lib/tasks/pm_slab.c): zeroed and uninitialised allocation, reuse through the
 * calling thread's cache, live counts, a pool destroyed and used again, and objects passed from
 * one thread to another in batches. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <string.h>
#include "pm_slab.h"

static int all_bytes(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

/* A freed object comes back first (the thread's cache is a stack): pm_slab_alloc returns it
 * zeroed, pm_slab_alloc_uninit as it was left but for its first word (the free list's link). */
static void test_zeroed_and_uninit(void **state) {
  (void)state;
  static pm_slab s;
  pm_slab_init(&s, 100, 8);
  assert_int_equal(s.size, 112); /* rounded up to 16 bytes */
  unsigned char *a = pm_slab_alloc(&s);
  assert_non_null(a);
  assert_true(all_bytes(a, 100, 0));
  memset(a, 0xab, 100);
  pm_slab_free(&s, a);
  unsigned char *b = pm_slab_alloc(&s);
  assert_ptr_equal(b, a);
  assert_true(all_bytes(b, 100, 0));
  memset(b, 0xcd, 100);
  pm_slab_free(&s, b);
  unsigned char *c = pm_slab_alloc_uninit(&s);
  assert_ptr_equal(c, a);
  assert_true(all_bytes(c + sizeof(void *), 100 - sizeof(void *), 0xcd)); /* the first word linked it */
  assert_int_equal(pm_slab_live(&s), 1);
  pm_slab_free(&s, c);
  assert_int_equal(pm_slab_live(&s), 0);
  pm_slab_destroy(&s);
}

/* More objects than a chunk holds, all distinct and live at once; after the pool is destroyed
 * the same pool hands out fresh objects (the thread's cache of the old chunks is dropped). */
static void test_grow_and_destroy(void **state) {
  (void)state;
  static pm_slab s;
  enum { N = 50 };
  void *o[N];
  pm_slab_init(&s, 32, 8);
  for (int i = 0; i < N; i++) {
    o[i] = pm_slab_alloc_uninit(&s);
    assert_non_null(o[i]);
    memset(o[i], i, 32);
  }
  for (int i = 0; i < N; i++) assert_true(all_bytes(o[i], 32, (unsigned char)i));
  assert_int_equal(pm_slab_live(&s), N);
  for (int i = 0; i < N; i++) pm_slab_free(&s, o[i]);
  assert_int_equal(pm_slab_live(&s), 0);
  pm_slab_destroy(&s);
  void *n = pm_slab_alloc(&s);
  assert_non_null(n);
  assert_true(all_bytes(n, 32, 0));
  assert_int_equal(pm_slab_live(&s), 1);
  pm_slab_free(&s, n);
  pm_slab_destroy(&s);
}

/* Objects freed on one thread and allocated on another go through the global list in whole
 * batches, each handed over as it is. Thread A takes 200 objects: four refills of PM_SLAB_BATCH
 * (64) from a fresh pool, 56 left in its cache. It frees them in order a[0] .. a[199]; its list (a
 * stack) completes a batch of 64 at the frees of a[7] (a[7..0] over the 56 cached), a[71], a[135]
 * and a[199]; each complete batch becomes its spare and the spare before it goes to the global
 * list as one unit: there, a[135..72] on top of a[71..8] on top of the first. A keeps a[199..136].
 * Thread B, its cache empty, takes 128: the top batch then the next, b[i] = a[135 - i]; each
 * usable in full (a batch's links in its first object's first three words are gone once handed
 * out). Live: 256 taken from the chunks, A's spare and the first batch free: 128, B's. */
enum { A_OBJECTS = 200, B_OBJECTS = 2 * PM_SLAB_BATCH, OBJ_SIZE = 48 };
static pm_slab cross;
static void *a_objs[A_OBJECTS], *b_objs[B_OBJECTS];

static void *take_on_b(void *arg) {
  (void)arg;
  for (int i = 0; i < B_OBJECTS; i++) {
    b_objs[i] = pm_slab_alloc_uninit(&cross);
    if (b_objs[i]) memset(b_objs[i], 0x5a, OBJ_SIZE);
  }
  return NULL;
}

static void test_batches_across_threads(void **state) {
  (void)state;
  pm_slab_init(&cross, OBJ_SIZE, 64);
  for (int i = 0; i < A_OBJECTS; i++) assert_non_null(a_objs[i] = pm_slab_alloc(&cross));
  for (int i = 0; i < A_OBJECTS; i++) pm_slab_free(&cross, a_objs[i]);
  pthread_t b;
  assert_int_equal(pthread_create(&b, NULL, take_on_b, NULL), 0);
  assert_int_equal(pthread_join(b, NULL), 0);
  for (int i = 0; i < B_OBJECTS; i++) {
    assert_ptr_equal(b_objs[i], a_objs[A_OBJECTS - PM_SLAB_BATCH - 1 - i]);
    assert_true(all_bytes(b_objs[i], OBJ_SIZE, 0x5a));
  }
  assert_int_equal(cross.high_water, 256); /* A's four refills, its cache included */
  assert_int_equal(pm_slab_live(&cross), B_OBJECTS);
  pm_slab_destroy(&cross);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zeroed_and_uninit),
      cmocka_unit_test(test_grow_and_destroy),
      cmocka_unit_test(test_batches_across_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
