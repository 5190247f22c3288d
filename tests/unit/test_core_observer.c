/* Location observers (the hook the trace writer and the counter sampler use): which callbacks run,
 * in which order, with which arguments, on a virtual-clock event stream written out below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_location.h"
#include "pm_lifecycle.h"

#define T0 1000000000ull

static char log_buf[65536];
static void logf_(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t n = strlen(log_buf);
  vsnprintf(log_buf + n, sizeof log_buf - n, fmt, ap);
  va_end(ap);
}
static int attached_data = 42;
static void o_attach(pm_loc *L, unsigned slot) {
  L->obs_data[slot] = &attached_data;
  logf_("A%u ", slot);
}
static void o_charge(pm_loc *L, unsigned slot, uint64_t now) {
  assert_ptr_equal(L->obs_data[slot], &attached_data);
  logf_("c%s+%llu ", pm_state_name((pm_state)L->state), (unsigned long long)(now - L->t_last));
}
static void o_enter(pm_loc *L, unsigned slot, pm_region_id r, pm_state s, uint32_t depth, uint64_t now) {
  (void)L;
  (void)slot;
  logf_("E%s/%s/%u@%llu ", pm_region_name(r), pm_state_name(s), depth, (unsigned long long)(now - T0));
}
static void o_leave(pm_loc *L, unsigned slot, uint32_t depth, uint64_t now) {
  (void)L;
  (void)slot;
  logf_("L%u@%llu ", depth, (unsigned long long)(now - T0));
}
static void o_state(pm_loc *L, unsigned slot, pm_state from, pm_state to, uint64_t now) {
  (void)L;
  (void)slot;
  logf_("S%s>%s@%llu ", pm_state_name(from), pm_state_name(to), (unsigned long long)(now - T0));
}
static void o_restart(pm_loc *L, unsigned slot, uint64_t now) {
  (void)L;
  (void)slot;
  logf_("R@%llu ", (unsigned long long)(now - T0));
}
static const pm_loc_observer full = {o_attach, o_charge, o_enter, o_leave, o_state, o_restart, NULL};
static const pm_loc_observer only_enter = {NULL, NULL, o_enter, NULL, NULL, NULL, NULL};

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  log_buf[0] = '\0';
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  return 0;
}

/* enter MPI_Send at +10 (p2p), leave at +15, state runtime at +20, state useful at +26, a state
 * set to the same state (no callback), flush at +30. Charges: useful 10 (enter), p2p 5 (leave),
 * useful 5 (runtime), runtime 6 (useful), useful 0 (same-state set), useful 4 (flush). */
static void test_callbacks_in_order(void **state) {
  (void)state;
  assert_int_equal(pm_loc_observer_add(&full), 0);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  assert_non_null(L);
  assert_int_equal(L->nobs, 1);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_clock_advance(10);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(5);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(5);
  pm_state_set(L, PM_STATE_RUNTIME, pm_clock_now());
  pm_clock_advance(6);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_clock_advance(4);
  pm_loc_flush(L, pm_clock_now());
  assert_string_equal(log_buf, "A0 cuseful+10 EMPI_Send/mpi_p2p/1@10 cmpi_p2p+5 L1@15 cuseful+5 Suseful>runtime@20 "
                               "cruntime+6 Sruntime>useful@26 cuseful+0 cuseful+4 ");
  /* the observer changes nothing in the accounting */
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 19);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_P2P], 5);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_RUNTIME], 6);
}

/* Two observers; a region nested deeper than PM_MAX_DEPTH is neither entered nor left for them,
 * and a window restart reaches the observer that asked for it. */
static void test_two_observers_depth_and_restart(void **state) {
  (void)state;
  assert_int_equal(pm_loc_observer_add(&only_enter), 0);
  assert_int_equal(pm_loc_observer_add(&full), 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  assert_int_equal(L->nobs, 2);
  assert_null(L->obs_data[0]);
  assert_ptr_equal(L->obs_data[1], &attached_data);
  pm_region_id r = pm_region_register("deep", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  for (int d = 0; d < PM_MAX_DEPTH + 2; d++) pm_region_enter(L, r, pm_clock_now());
  /* 2 observers x PM_MAX_DEPTH enters each */
  int enters = 0;
  for (const char *p = log_buf; (p = strstr(p, "Edeep/")) != NULL; p++) enters++;
  assert_int_equal(enters, 2 * PM_MAX_DEPTH);
  log_buf[0] = '\0';
  for (int d = 0; d < PM_MAX_DEPTH + 2; d++) pm_region_exit(L, pm_clock_now());
  int leaves = 0;
  for (const char *p = log_buf; (p = strstr(p, "L")) != NULL; p++) leaves++;
  assert_int_equal(leaves, PM_MAX_DEPTH);      /* only the full observer has a leave callback */
  assert_non_null(strstr(log_buf, "L128@0 ")); /* the deepest recorded level is left first */
  assert_non_null(strstr(log_buf, "L1@0 "));
  log_buf[0] = '\0';
  pm_clock_advance(7);
  pm_core_restart_window();
  assert_string_equal(log_buf, "R@7 ");
}

/* With an observer, a join in one step (pm_call_unwind) is taken step by step, so the observer sees
 * each leave and the state change: enter R (runtime) at +10, B (sync_wait) at +30, unwind to depth 0
 * into idle at +50: B's 20 ns charged, then the two leaves (deepest first) and the state change
 * from the one before R (useful) to idle, with empty charges between them. */
static void test_unwind_seen_step_by_step(void **state) {
  (void)state;
  assert_int_equal(pm_loc_observer_add(&full), 0);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  pm_region_id r = pm_region_register("R", PM_PARADIGM_OPENMP, PM_ROLE_FUNCTION);
  pm_region_id b = pm_region_register("B", PM_PARADIGM_OPENMP, PM_ROLE_BARRIER);
  pm_call_enter(L, r, PM_STATE_RUNTIME, T0 + 10);
  pm_call_enter(L, b, PM_STATE_SYNC_WAIT, T0 + 30);
  log_buf[0] = '\0';
  pm_call_unwind(L, 0, PM_CTX_SERIAL, PM_STATE_IDLE, T0 + 50);
  assert_string_equal(log_buf, "csync_wait+20 L2@50 cruntime+0 L1@50 cuseful+0 cuseful+0 Suseful>idle@50 ");
  assert_int_equal(L->depth, 0);
  assert_int_equal(pm_state_get(L), PM_STATE_IDLE);
}

/* An observer added after a location registered does not apply to it; a fifth one is refused. */
static void test_late_and_too_many(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  for (int k = 0; k < PM_MAX_OBSERVERS; k++) assert_int_equal(pm_loc_observer_add(&only_enter), k);
  assert_int_equal(pm_loc_observer_add(&only_enter), -1);
  assert_int_equal(L->nobs, 0);
  pm_region_enter(L, pm_region_register("r", PM_PARADIGM_USER, PM_ROLE_FUNCTION), pm_clock_now());
  assert_string_equal(log_buf, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_callbacks_in_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_two_observers_depth_and_restart, setup, teardown),
      cmocka_unit_test_setup_teardown(test_late_and_too_many, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unwind_seen_step_by_step, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
