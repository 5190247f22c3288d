/* The verdict on one read of another rank's collective clock slot (lib/adapters/mpi/
 * mpi_cpslot_verdict.h), for this rank's collective of epoch 300 (ring of 256: the slot's previous
 * epoch was 44, its next will be 556). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include "mpi_cpslot_verdict.h"

static void test_this_epoch_whole_is_merged(void **state) {
  (void)state;
  assert_int_equal(pm_cpslot_verdict_of(300, 0, 300), PM_CPSLOT_MERGE);
}

/* The owner had not entered (a root of a rooted collective may enter after this rank left): its
 * old epoch, a fresh slot, or the slot being written -- even when its entry tears the read. */
static void test_owner_not_entered_is_absent(void **state) {
  (void)state;
  assert_int_equal(pm_cpslot_verdict_of(44, 0, 300), PM_CPSLOT_ABSENT);
  assert_int_equal(pm_cpslot_verdict_of(44, 1, 300), PM_CPSLOT_ABSENT);
  assert_int_equal(pm_cpslot_verdict_of(0, 1, 300), PM_CPSLOT_ABSENT);
  assert_int_equal(pm_cpslot_verdict_of(299, 1, 300), PM_CPSLOT_ABSENT);
  assert_int_equal(pm_cpslot_verdict_of(PM_CPSLOT_BUSY, 0, 300), PM_CPSLOT_ABSENT);
  assert_int_equal(pm_cpslot_verdict_of(PM_CPSLOT_BUSY, 1, 300), PM_CPSLOT_ABSENT);
}

/* The owner a ring of collectives ahead: this epoch's clocks were overwritten, before the read
 * (a later epoch) or during it (this epoch, torn). */
static void test_overwritten_is_lost(void **state) {
  (void)state;
  assert_int_equal(pm_cpslot_verdict_of(556, 0, 300), PM_CPSLOT_LOST);
  assert_int_equal(pm_cpslot_verdict_of(556, 1, 300), PM_CPSLOT_LOST);
  assert_int_equal(pm_cpslot_verdict_of(300, 1, 300), PM_CPSLOT_LOST);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_this_epoch_whole_is_merged),
      cmocka_unit_test(test_owner_not_entered_is_absent),
      cmocka_unit_test(test_overwritten_is_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
