/* Object pools (lib/tasks/pm_slab.c): zeroed and uninitialised allocation, reuse through the
 * calling thread's cache, live counts, and a pool destroyed and used again. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zeroed_and_uninit),
      cmocka_unit_test(test_grow_and_destroy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
