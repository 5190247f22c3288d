/* Core accounting with the virtual clock: every expected value below is derived by hand from the
 * event stream fed to the core, in nanoseconds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <stdio.h>
#include <math.h>
#include <time.h>
#include <string.h>
#include "pm_location.h"
#include "pm_cacheline.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include "popmeter.h"

#define T0 1000000000ull /* the virtual clock starts at 1 s */

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  return 0;
}

/* Stream: t=0 activate (useful) | +100 enter MPI_Send (p2p) | +30 exit | +200 enter MPI_Barrier
 * (coll) | +70 exit | +50 end.  useful = 100 + 200 + 50 = 350, p2p = 30, coll = 70. */
static void test_states_exact(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  assert_non_null(L);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_region_id bar = pm_region_register("MPI_Barrier", PM_PARADIGM_MPI, PM_ROLE_BARRIER);
  pm_clock_advance(100);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(30);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(200);
  pm_call_enter(L, bar, PM_STATE_MPI_COLL, pm_clock_now());
  pm_clock_advance(70);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(50);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 350);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_P2P], 30);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_COLL], 70);
  assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
  /* call paths: root(main) + MPI_Send + MPI_Barrier, exclusive times per node */
  assert_int_equal(pm_loc_node_count(L), 3);
  assert_int_equal(pm_loc_node(L, 0)->time[PM_STATE_USEFUL], 350);
  assert_int_equal(pm_loc_node(L, 1)->region, send);
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_P2P], 30);
  assert_int_equal(pm_loc_node(L, 1)->visits, 1);
  assert_int_equal(pm_loc_node(L, 2)->time[PM_STATE_MPI_COLL], 70);
  /* critical-path clocks: cue = useful = 350; com = all but MPI = 350; coo = all but runtime = 450 */
  assert_int_equal(pm_cp_global(L).cue, 350);
  assert_int_equal(pm_cp_global(L).com, 350);
  assert_int_equal(pm_cp_global(L).coo, 450);
}

/* Nested user regions and repeated calls: region "solve" entered twice, MPI_Send inside it 3 times.
 * t: +10 enter solve | +5 send(+2) | +5 send(+2) | +1 exit solve | +10 enter solve | +3 send(+4)
 * | +6 exit solve | +20 end.
 * root useful = 10 + 10 + 20 = 40; solve useful = 5+5+1 + 3+6 = 20; send p2p = 2+2+4 = 8. */
static void test_callpath_nesting(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id solve = pm_region_register("solve", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  uint64_t steps_solve1[] = {5, 5};
  pm_clock_advance(10);
  pm_region_enter(L, solve, pm_clock_now());
  for (int i = 0; i < 2; i++) {
    pm_clock_advance(steps_solve1[i]);
    pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
    pm_clock_advance(2);
    pm_call_exit(L, pm_clock_now());
  }
  pm_clock_advance(1);
  pm_region_exit(L, pm_clock_now());
  pm_clock_advance(10);
  pm_region_enter(L, solve, pm_clock_now());
  pm_clock_advance(3);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(4);
  pm_call_exit(L, pm_clock_now());
  pm_clock_advance(6);
  pm_region_exit(L, pm_clock_now());
  pm_clock_advance(20);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_loc_node_count(L), 3);
  pm_cpnode *root = pm_loc_node(L, 0), *s = pm_loc_node(L, 1), *snd = pm_loc_node(L, 2);
  assert_int_equal(s->region, solve);
  assert_int_equal(s->parent, 0);
  assert_int_equal(snd->parent, 1);
  assert_int_equal(root->time[PM_STATE_USEFUL], 40);
  assert_int_equal(s->time[PM_STATE_USEFUL], 20);
  assert_int_equal(s->visits, 2);
  assert_int_equal(snd->visits, 3);
  assert_int_equal(snd->time[PM_STATE_MPI_P2P], 8);
  assert_int_equal(L->depth, 0);
}

/* Children entered by turns from one node (an MPI_Irecv / MPI_Isend / MPI_Waitall loop), which its
 * last-child entry misses every time, under two parents, with more distinct (node, region) pairs
 * than the location's cache of children holds (2 x 40 > PM_CHILD_CACHE: entries collide and are
 * replaced). Stream: 3 rounds; in each, under parent A then parent B, each of the 40 calls for
 * 1 ns with 2 ns of parent time before it. Each call node: 3 visits, 3 ns; A and B: 3 visits,
 * 240 ns useful each; 2 + 80 nodes under the root. */
static void test_callpath_children_by_turns(void **state) {
  (void)state;
  enum { NCALLS = 40, ROUNDS = 3 };
  _Static_assert(2 * NCALLS > PM_CHILD_CACHE, "more pairs than the cache holds");
  pm_loc *L = pm_loc_self();
  pm_region_id parent[2] = {pm_region_register("phase_a", PM_PARADIGM_USER, PM_ROLE_FUNCTION),
                            pm_region_register("phase_b", PM_PARADIGM_USER, PM_ROLE_FUNCTION)};
  pm_region_id call[NCALLS];
  for (int c = 0; c < NCALLS; c++) {
    char name[32];
    snprintf(name, sizeof name, "call_%d", c);
    call[c] = pm_region_register(name, PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  }
  for (int round = 0; round < ROUNDS; round++)
    for (int p = 0; p < 2; p++) {
      pm_region_enter(L, parent[p], pm_clock_now());
      for (int c = 0; c < NCALLS; c++) {
        pm_clock_advance(2);
        pm_call_enter(L, call[c], PM_STATE_MPI_P2P, pm_clock_now());
        pm_clock_advance(1);
        pm_call_exit(L, pm_clock_now());
      }
      pm_region_exit(L, pm_clock_now());
    }
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_loc_node_count(L), 1 + 2 + 2 * NCALLS);
  int seen[2][NCALLS] = {{0}};
  for (uint32_t i = 1; i < pm_loc_node_count(L); i++) {
    pm_cpnode *n = pm_loc_node(L, i);
    if (n->parent == 0) {
      assert_true(n->region == parent[0] || n->region == parent[1]);
      assert_int_equal(n->visits, ROUNDS);
      assert_int_equal(n->time[PM_STATE_USEFUL], ROUNDS * NCALLS * 2);
      continue;
    }
    pm_cpnode *up = pm_loc_node(L, n->parent);
    int p = up->region == parent[1];
    assert_true(up->parent == 0 && (p || up->region == parent[0]));
    int c = 0;
    while (c < NCALLS && call[c] != n->region) c++;
    assert_true(c < NCALLS);
    seen[p][c]++;
    assert_int_equal(n->visits, ROUNDS);
    assert_int_equal(n->time[PM_STATE_MPI_P2P], ROUNDS);
  }
  for (int p = 0; p < 2; p++)
    for (int c = 0; c < NCALLS; c++) assert_int_equal(seen[p][c], 1);
  assert_int_equal(L->depth, 0);
}

/* One poll timed with both clocks: `cost` ns in the call. */
static void timed_poll(pm_loc *L, pm_region_id r, uint64_t cost) {
  uint64_t s = pm_clock_now();
  pm_clock_advance(cost);
  pm_poll(L, r, s, pm_clock_now());
}

/* Polls: counted and timed per call path as MPI (mpi_sync), no state change, no visit. A busy loop:
 * 1000 polls of 3 ns, each followed by 7 ns of the loop (a gap of at most PM_POLL_GAP_NS: part of
 * the run), then 10 ns. The run is [0, 9993]: 3 + 999 x (7 + 3) ns of polling; 17 ns useful. */
static void test_polls(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  uint64_t t0 = pm_clock_now();
  for (int i = 0; i < 1000; i++) {
    timed_poll(L, test, 3);
    assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
    pm_clock_advance(7);
  }
  pm_clock_advance(10);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_clock_now() - t0, 10010);
  assert_int_equal(L->polls, 1000);
  assert_int_equal(pm_loc_node(L, 1)->polls, 1000);
  assert_int_equal(pm_loc_node(L, 1)->visits, 0);
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_SYNC], 9993);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 9993);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 17);
  assert_int_equal(pm_loc_node(L, 0)->time[PM_STATE_USEFUL], 17);
  /* the critical-path clocks: polling is MPI time (cue 0, com 0, coo counts it) */
  assert_int_equal(pm_cp_global(L).cue, 17);
  assert_int_equal(pm_cp_global(L).com, 17);
  assert_int_equal(pm_cp_global(L).coo, 10010);
}

/* Computation between polls stays useful: 3 x (5000 ns of work, a poll of 4 ns): the gaps are
 * longer than the polls and than PM_POLL_GAP_NS, so only the 12 ns of the polls are MPI. */
static void test_polls_between_work(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id probe = pm_region_register("MPI_Iprobe", PM_PARADIGM_MPI, PM_ROLE_FUNCTION);
  for (int i = 0; i < 3; i++) {
    pm_clock_advance(5000);
    timed_poll(L, probe, 4);
  }
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 12);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 15000);
}

/* Slow polls (progress made inside them): 3 polls of 2000 ns, 1500 ns apart. A gap no longer than
 * the poll is the loop around it: the whole [0, 9000] is polling. */
static void test_polls_slow(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  for (int i = 0; i < 3; i++) {
    if (i) pm_clock_advance(1500);
    timed_poll(L, test, 2000);
  }
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 9000);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0);
}

/* A transition ends a run of polls: poll [0, 10], a transition at 20, poll [30, 40]: the gap
 * [10, 30] is not polling (20 ns MPI, 20 ns useful). */
static void test_polls_run_ends(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  timed_poll(L, test, 10);
  pm_clock_advance(10);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_clock_advance(10);
  timed_poll(L, test, 10);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 20);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 20);
}

/* One poll the way the MPI wrappers time it: start from pm_poll_start (the clock, or
 * PM_POLL_UNTIMED inside a run), `cost` ns in the call, end from pm_poll_end (the clock, or
 * PM_POLL_UNTIMED for every other poll of a run). Returns how many of the two were not read. */
static int wrapped_poll(pm_loc *L, pm_region_id r, uint64_t cost) {
  uint64_t s = pm_poll_start(L);
  pm_clock_advance(cost);
  uint64_t e = pm_poll_end(L, s);
  pm_poll(L, r, s, e);
  return (s == PM_POLL_UNTIMED) + (e == PM_POLL_UNTIMED);
}

/* Polls [0,3] [10,13] [20,23] on L, the way test_polls_run_left_for_work and
 * test_polls_run_left_after_unread_poll start: the first two read both clocks and make a run (10 ns
 * per poll with its loop), the third reads none. */
static void run_ending_unread(pm_loc *L, pm_region_id r) {
  for (int i = 0; i < 3; i++) {
    if (i) pm_clock_advance(7);
    assert_int_equal(wrapped_poll(L, r, 3), i == 2 ? 2 : 0);
  }
}

/* The busy loop of test_polls through pm_poll_start / pm_poll_end: the first poll is timed exactly
 * (3), the second too and joins the run (gap 7 + 3), the other 998 read no start, and every other
 * one of them no end either (499): each [end, end two polls later] = 20. The same 9993 ns of
 * polling as with two clock reads per poll, 17 ns useful. */
static void test_polls_fewer_clocks_in_runs(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  int untimed = 0;
  for (int i = 0; i < 1000; i++) {
    untimed += wrapped_poll(L, test, 3);
    pm_clock_advance(7);
  }
  pm_clock_advance(10);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(untimed, 998 + 499);
  assert_int_equal(L->polls, 1000);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 9993);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 17);
}

/* A run left for computation without a transition: polls [0,3] [10,13] (a run: 10 ns per poll with
 * its loop) and [20,23] (no clock read), 5000 ns of work, a poll [5023,5026] read at its end only
 * (span 5013 does not fit two polls of a run whose timed poll took 3 ns: it is charged those 3,
 * the poll without a clock a poll of the run, 10, and the run ends), 5000 ns of work, a poll
 * [10026,10030] timed exactly again (4). MPI: 3 + 10 + 10 + 3 + 4 = 30 of 10030 ns, as with a
 * clock read per poll; the work stays useful. */
static void test_polls_run_left_for_work(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  uint64_t t0 = pm_clock_now();
  run_ending_unread(L, test);
  pm_clock_advance(5000);
  assert_int_equal(wrapped_poll(L, test, 3), 1);
  pm_clock_advance(5000);
  assert_int_equal(wrapped_poll(L, test, 4), 0);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_clock_now() - t0, 10030);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 30);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 10000);
}

/* n polls of 3 ns, each followed by 7 ns of loop, through pm_poll_start / pm_poll_end. */
static void busy_polls(pm_loc *L, pm_region_id r, int n) {
  for (int i = 0; i < n; i++) {
    wrapped_poll(L, r, 3);
    pm_clock_advance(7);
  }
}

/* A poll of a run preempted inside: `off` ns off the CPU, then `cost` ns in the call. */
static void preempted_poll(pm_loc *L, pm_region_id r, uint64_t cost, uint64_t off) {
  uint64_t s = pm_poll_start(L);
  pm_clock_advance_off_cpu(off);
  pm_clock_advance(cost);
  pm_poll(L, r, s, pm_poll_end(L, s));
}

/* A busy loop preempted (a loaded machine): 6000 polls of 3 ns with 7 ns of loop (60 us: the run
 * takes its CPU-time reference after PM_POLL_REF_NS), then a poll preempted inside for 1 ms (it
 * reads no clock; the span closing at the next poll, 1,000,020 ns, does not fit the run, and the
 * thread was off the CPU for 1 ms of it: all polling), then 2 ms off the CPU in the loop before the
 * next poll (timed exactly, the run having ended: its gap, 2,000,007 ns, likewise), then 1000 polls.
 * [0, 3,070,030]: all polling but the last loop and 10 ns after it, as without the preemptions. */
static void test_polls_preempted(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  uint64_t t0 = pm_clock_now();
  busy_polls(L, test, 6000);
  preempted_poll(L, test, 3, 1000000);
  pm_clock_advance(7);
  while (L->poll_run) busy_polls(L, test, 1); /* the poll that closes the preempted span ends the run */
  pm_clock_advance_off_cpu(2000000);
  busy_polls(L, test, 1000);
  pm_clock_advance(10);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_clock_now() - t0, 3070030);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 3070013);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 17);
}

/* Computation between the polls of a run stays useful even when preempted during it: 6000 polls as
 * above (the last one read its end), 5000 ns of work and 1000 off the CPU, then polls 6001 (no
 * clock) and 6002 (its end): the span [end of 6000, end of 6002] = 7 + 6000 + 3 + 7 + 3 = 6020 does
 * not fit, and its 1000 ns off the CPU are less than half of what the polls do not explain: it is
 * charged 3 (the timed poll) + 10 (a poll of the run with its loop); then poll 6003, exact, 3 + its
 * gap 7, and 7 + 10 after it. MPI 3 + 5999 x 10 + 13 + 10 = 60,016 of 66,040. */
static void test_polls_preempted_work(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  uint64_t t0 = pm_clock_now();
  busy_polls(L, test, 6000);
  pm_clock_advance(5000);
  pm_clock_advance_off_cpu(1000);
  busy_polls(L, test, 3);
  pm_clock_advance(10);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_clock_now() - t0, 66040);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 60016);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 6024);
}

/* Slow polls (test_polls_slow) through pm_poll_start / pm_poll_end, 4 of 2000 ns, 1500 ns apart:
 * exact 2000, then 1500 + 2000 (the run starts), then one span of 7000 for two polls (<= 2 x (2000
 * + 2000); the first of them read no clock): all of [0, 12500]. A transition ends the run: the
 * next poll reads its start again. */
static void test_polls_slow_run_and_transition(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  int untimed = 0;
  for (int i = 0; i < 4; i++) {
    if (i) pm_clock_advance(1500);
    untimed += wrapped_poll(L, test, 2000);
  }
  assert_int_equal(untimed, 3);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  assert_int_equal(wrapped_poll(L, test, 2000), 0);
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 12500 + 2000);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0);
}

/* A run left by a transition right after a poll that read no clock: polls [0,3] [10,13] (a run, 10
 * ns per poll with its loop), [20,23] (no clock), 7 ns of work, a transition at 30: the poll without
 * a clock is charged a poll of the run (10: [13,23]), the 7 ns stay useful. MPI 23, useful 7. */
static void test_polls_run_left_after_unread_poll(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_loc_flush(L, pm_clock_now());
  uint64_t useful0 = L->time[PM_CTX_SERIAL][PM_STATE_USEFUL];
  run_ending_unread(L, test);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 0); /* nothing charged before a transition */
  pm_clock_advance(7);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 23);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL] - useful0, 7);
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_SYNC], 23);
  assert_int_equal(L->polls, 3);
  /* the run is over: the next poll reads both clocks */
  pm_clock_advance(100);
  assert_int_equal(wrapped_poll(L, test, 5), 0);
}

/* A run alternating two calls: MPI_Test [0,3], MPI_Iprobe [10,13] (the run: 10), MPI_Test [20,23]
 * (no clock), MPI_Iprobe [30,33]: the span [13,33] holds both, each node gets half. MPI_Test 3 + 10,
 * MPI_Iprobe 10 + 10: all of [0,33]. */
static void test_polls_unread_poll_of_another_call(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_region_id probe = pm_region_register("MPI_Iprobe", PM_PARADIGM_MPI, PM_ROLE_FUNCTION);
  for (int i = 0; i < 4; i++) {
    if (i) pm_clock_advance(7);
    assert_int_equal(wrapped_poll(L, i % 2 ? probe : test, 3), i == 2 ? 2 : i == 3 ? 1 : 0);
  }
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 33);
  assert_int_equal(pm_loc_node(L, 1)->region, test);
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_SYNC], 13);
  assert_int_equal(pm_loc_node(L, 2)->region, probe);
  assert_int_equal(pm_loc_node(L, 2)->time[PM_STATE_MPI_SYNC], 20);
}

/* A transition right after polls charges them first: the state it leaves gets only the rest. */
static void test_polls_then_transition(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Iprobe", PM_PARADIGM_MPI, PM_ROLE_FUNCTION);
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_clock_advance(5); /* useful */
  timed_poll(L, test, 20);
  pm_clock_advance(5); /* useful */
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(8);
  pm_call_exit(L, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 10);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_SYNC], 20);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_P2P], 8);
  assert_int_equal(pm_loc_node(L, 0)->time[PM_STATE_USEFUL], 10);
}

/* Bytes go to the call path entered last. */
static void test_bytes(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_call_exit(L, pm_clock_now());
  pm_add_sent(L, 800, 1);
  pm_add_received(L, 16, 2);
  assert_int_equal(L->bytes_sent, 800);
  assert_int_equal(L->msgs_received, 2);
  assert_int_equal(pm_loc_node(L, 1)->bytes_sent, 800);
  assert_int_equal(pm_loc_node(L, 1)->bytes_received, 16);
  assert_int_equal(pm_loc_node(L, 0)->bytes_sent, 0);
  /* a collective's bytes are kept apart: bytes_sent / bytes_received stay point-to-point */
  pm_region_id bcast = pm_region_register("MPI_Bcast", PM_PARADIGM_MPI, PM_ROLE_COLLECTIVE);
  pm_call_enter(L, bcast, PM_STATE_MPI_COLL, pm_clock_now());
  pm_call_exit(L, pm_clock_now());
  pm_add_collective(L, 300, 40);
  assert_int_equal(L->coll_bytes_out, 300);
  assert_int_equal(L->coll_bytes_in, 40);
  assert_int_equal(L->bytes_sent, 800);
  assert_int_equal(pm_loc_node(L, 2)->coll_bytes_out, 300);
  assert_int_equal(pm_loc_node(L, 2)->coll_bytes_in, 40);
  assert_int_equal(pm_loc_node(L, 2)->bytes_sent, 0);
  assert_int_equal(pm_loc_node(L, 2)->bytes_received, 0);
}

/* OpenMP context split: 40 serial useful, then 60 in a parallel region (useful 50 + sync 10). */
static void test_parallel_context(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_clock_advance(40);
  pm_ctx_set(L, PM_CTX_PARALLEL, pm_clock_now());
  pm_clock_advance(50);
  pm_state_set(L, PM_STATE_SYNC_WAIT, pm_clock_now());
  pm_clock_advance(10);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_ctx_set(L, PM_CTX_SERIAL, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 40);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 50);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 10);
  /* COO weights runtime/sync waits 0: 40 + 50 = 90; COM counts them: 100 */
  assert_int_equal(pm_cp_process(L).coo, 90);
  assert_int_equal(pm_cp_process(L).com, 100);
}

/* The node of L for region r (the first one), or NULL. */
static const pm_cpnode *node_of(const pm_loc *L, pm_region_id r) {
  for (uint32_t i = 0; i < pm_loc_node_count(L); i++)
    if (pm_loc_node(L, i)->region == r) return pm_loc_node(L, i);
  return NULL;
}

/* A member passing from one instance of region R to the next in R's node (pm_call_pass):
 *   0 idle | 50 parallel, enter R (useful) | 120 enter B (sync_wait) | 140 enter C (runtime)
 *   | pass at 200, left at 170 | 260 enter B | pass at 300, left at 280 | 300 useful | pass at
 *   350, "left" at 290: before the last transition (300), from which the interval then starts
 *   | 400 serial, leave R.
 * serial idle (root) 50 + 30 + 20 + 50 = 150; R: useful 70 + 60 + 50 = 180, 4 visits; B:
 * sync_wait 20 + 20 = 40, 2 visits; C: runtime 30, 1 visit. cue = the useful time, 180. */
static void test_call_pass(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id r = pm_region_register("R", PM_PARADIGM_OPENMP, PM_ROLE_FUNCTION);
  pm_region_id b = pm_region_register("B", PM_PARADIGM_OPENMP, PM_ROLE_BARRIER);
  pm_region_id c = pm_region_register("C", PM_PARADIGM_OPENMP, PM_ROLE_FUNCTION);
  pm_state_set(L, PM_STATE_IDLE, T0);
  pm_ctx_set(L, PM_CTX_PARALLEL, T0 + 50);
  pm_call_enter(L, r, PM_STATE_USEFUL, T0 + 50);
  pm_call_enter(L, b, PM_STATE_SYNC_WAIT, T0 + 120);
  pm_call_enter(L, c, PM_STATE_RUNTIME, T0 + 140);
  /* nothing to keep, or more than the stack holds: refused, nothing changed */
  assert_int_equal(
      pm_call_pass(L, 0, T0 + 170, PM_CTX_SERIAL, PM_STATE_IDLE, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 200), 0);
  assert_int_equal(
      pm_call_pass(L, 4, T0 + 170, PM_CTX_SERIAL, PM_STATE_IDLE, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 200), 0);
  assert_int_equal(L->depth, 3);
  assert_int_equal(L->t_last, T0 + 140);
  assert_int_equal(
      pm_call_pass(L, 1, T0 + 170, PM_CTX_SERIAL, PM_STATE_IDLE, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 200), 1);
  assert_int_equal(L->depth, 1);
  assert_int_equal(L->ctx, PM_CTX_PARALLEL);
  assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
  pm_call_enter(L, b, PM_STATE_SYNC_WAIT, T0 + 260);
  assert_int_equal(
      pm_call_pass(L, 1, T0 + 280, PM_CTX_SERIAL, PM_STATE_IDLE, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 300), 1);
  /* the same again with the leave before the last transition: only the time after it is idle */
  pm_state_set(L, PM_STATE_USEFUL, T0 + 300);
  assert_int_equal(
      pm_call_pass(L, 1, T0 + 290, PM_CTX_SERIAL, PM_STATE_IDLE, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 350), 1);
  pm_ctx_set(L, PM_CTX_SERIAL, T0 + 400);
  pm_call_exit(L, T0 + 400);
  pm_loc_flush(L, T0 + 400);
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_IDLE], 150);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 180);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 30);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_IDLE], 0);
  assert_int_equal(pm_loc_node_count(L), 4);
  const pm_cpnode *root = pm_loc_node(L, 0), *nr = node_of(L, r), *nb = node_of(L, b), *nc = node_of(L, c);
  assert_non_null(nr);
  assert_non_null(nb);
  assert_non_null(nc);
  assert_int_equal(root->time[PM_STATE_IDLE], 150);
  assert_int_equal(nr->visits, 4);
  assert_int_equal(nr->time[PM_STATE_USEFUL], 180);
  assert_int_equal(nb->visits, 2);
  assert_int_equal(nb->time[PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(nc->visits, 1);
  assert_int_equal(nc->time[PM_STATE_RUNTIME], 30);
  assert_int_equal(pm_cp_process(L).cue, 180);
}

/* A team's join in one step (pm_call_unwind): popping to a depth, then the context and the state,
 * at one instant:
 *   0 serial useful | 10 parallel, enter R (runtime) | 30 useful | 100 enter B (sync_wait)
 *   | 160 unwind to depth 0, serial useful | 200 parallel, enter R again (runtime)
 *   | 230 unwind to depth 1 (nothing to pop), parallel useful | 260 unwind to 0, serial idle | 300.
 * root: serial useful 10 + 40 = 50, serial idle 40; R: runtime 20 + 30 = 50, useful 70 + 30 = 100,
 * 2 visits (the node the unwind returned to is R's parent: R is found again, not made twice);
 * B: sync_wait 60, 1 visit. */
static void test_call_unwind(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id r = pm_region_register("R", PM_PARADIGM_OPENMP, PM_ROLE_FUNCTION);
  pm_region_id b = pm_region_register("B", PM_PARADIGM_OPENMP, PM_ROLE_BARRIER);
  pm_ctx_set(L, PM_CTX_PARALLEL, T0 + 10);
  pm_call_enter(L, r, PM_STATE_RUNTIME, T0 + 10);
  pm_state_set(L, PM_STATE_USEFUL, T0 + 30);
  pm_call_enter(L, b, PM_STATE_SYNC_WAIT, T0 + 100);
  pm_call_unwind(L, 0, PM_CTX_SERIAL, PM_STATE_USEFUL, T0 + 160);
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->cur, 0);
  assert_int_equal(L->ctx, PM_CTX_SERIAL);
  assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
  pm_ctx_set(L, PM_CTX_PARALLEL, T0 + 200);
  pm_call_enter(L, r, PM_STATE_RUNTIME, T0 + 200);
  pm_call_unwind(L, 1, PM_CTX_PARALLEL, PM_STATE_USEFUL, T0 + 230);
  assert_int_equal(L->depth, 1);
  assert_int_equal(pm_loc_node(L, L->cur)->region, r);
  pm_call_unwind(L, 0, PM_CTX_SERIAL, PM_STATE_IDLE, T0 + 260);
  pm_loc_flush(L, T0 + 300);
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 50);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_IDLE], 40);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 50);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 100);
  assert_int_equal(L->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 60);
  assert_int_equal(pm_loc_node_count(L), 3);
  const pm_cpnode *root = pm_loc_node(L, 0), *nr = node_of(L, r), *nb = node_of(L, b);
  assert_non_null(nr);
  assert_non_null(nb);
  assert_int_equal(root->time[PM_STATE_USEFUL], 50);
  assert_int_equal(root->time[PM_STATE_IDLE], 40);
  assert_int_equal(nr->visits, 2);
  assert_int_equal(nr->time[PM_STATE_RUNTIME], 50);
  assert_int_equal(nr->time[PM_STATE_USEFUL], 100);
  assert_int_equal(nb->visits, 1);
  assert_int_equal(nb->time[PM_STATE_SYNC_WAIT], 60);
  assert_int_equal(pm_cp_process(L).cue, 150); /* useful: 50 + 100 */
}

/* Lamport merge: the clock becomes the componentwise max. */
static void test_cp_merge(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_clock_advance(100);
  pm_loc_flush(L, pm_clock_now());
  pm_cp_merge_global(L, (pm_cp_clock){500, 50, 700});
  pm_cp_clock g = pm_cp_global(L), p = pm_cp_process(L);
  assert_int_equal(g.cue, 500);
  assert_int_equal(g.com, 100);
  assert_int_equal(g.coo, 700);
  assert_int_equal(p.cue, 100); /* the process clock is untouched by a global merge */
  pm_clock_advance(10);
  pm_loc_flush(L, pm_clock_now());
  g = pm_cp_global(L);
  assert_int_equal(g.cue, 510);
}

/* The wait credit of a merge at the end of an MPI call (pm_cp_merge_global_call): the location
 * computes 100 ns (com 100), then three receives of 50 ns each at the MPI_Recv call path:
 *  - sender's com 400: an ideal network waits 300 > 50 ns: the whole call is waiting (50);
 *  - sender's com 420, own com now 400: 20 ns of the 50 are waiting, 30 transfer;
 *  - sender's com 100, behind: nothing is waiting, 50 ns transfer.
 * Waiting 70 of 150 ns of MPI time: transfer 80 ns; the clock ends at the sender's 420 (+0 in MPI). */
static void test_cp_wait_credit(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id recv = pm_region_register("MPI_Recv", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  static const uint64_t sender_com[3] = {400, 420, 100};
  pm_clock_advance(100);
  for (int i = 0; i < 3; i++) {
    uint64_t t0 = pm_clock_now();
    pm_call_enter(L, recv, PM_STATE_MPI_P2P, t0);
    pm_clock_advance(50);
    pm_call_exit(L, pm_clock_now());
    pm_cp_merge_global_call(L, (pm_cp_clock){0, sender_com[i], 0}, pm_clock_now() - t0);
  }
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_P2P], 150);
  assert_int_equal(pm_loc_node(L, 1)->mpi_wait, 70);
  assert_int_equal(pm_loc_node(L, 0)->mpi_wait, 0);
  assert_int_equal(pm_cp_global(L).com, 420);
  pm_profile *p = pm_profile_build_process(T0, pm_clock_now());
  assert_non_null(p);
  assert_int_equal(p->has_mpi_transfer, 1);
  assert_double_equal(p->val[1].mpi_transfer, 80e-9, 1e-18);
  assert_double_equal(p->val[0].mpi_transfer, 0.0, 0.0);
  pm_profile_free(p);
}

/* A run of polls completed by the last one (pm_cp_merge_global_poll): 10 ns of work, then 5 polls
 * of 4 ns with gaps of 1 ns (the loop: counted as polling), so the run spans 5 x 4 + 4 x 1 = 24 ns
 * of MPI; the sender's com is 30 ahead of the own 10: the ideal wait 20 of the 24 ns is waiting. */
static void test_cp_wait_credit_polls(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id test = pm_region_register("MPI_Test", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_clock_advance(10);
  for (int i = 0; i < 5; i++) {
    if (i) pm_clock_advance(1);
    timed_poll(L, test, 4);
  }
  pm_cp_merge_global_poll(L, (pm_cp_clock){0, 30, 0}, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_loc_node(L, 1)->time[PM_STATE_MPI_SYNC], 24);
  assert_int_equal(pm_loc_node(L, 1)->mpi_wait, 20);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 10);
  assert_int_equal(pm_cp_global(L).com, 30);
}

/* Re-anchoring the TSC clock (pm_clock_tsc_next). Block: 0.5 ns per tick (mult 2^31) from tsc
 * 1000 / 5000 ns; the next anchor 2e8 ticks later, where the block reads 5000 + 1e8 ns:
 *  - CLOCK_MONOTONIC agrees: same rate, no correction, valid for 100 ms = 2e8 ticks;
 *  - it is 10 us ahead: measured rate x (1 + 1e-4), corrected by 1e-4 more to close the offset over
 *    the next 100 ms, no step;
 *  - 2 ms ahead (a paused VM): step forward to it, measured rate, no correction;
 *  - 1 ms behind: no step back, measured rate x 0.99 slowed by the largest correction, 500 ppm. */
static void test_clock_tsc_anchor(void **state) {
  (void)state;
  const double R = 2147483648.0; /* 2^31 */
  pm_tsc_block b = {.tsc0 = 1000, .ns0 = 5000, .mult = 2147483648u, .valid = 200000000, .mono0 = 5000}, n;
  uint64_t t = 1000 + 200000000ull;
  assert_int_equal(pm_clock_tsc_next(&b, t, 5000 + 100000000ull, &n), 5000 + 100000000ull);
  assert_int_equal(n.mult, 2147483648u);
  assert_int_equal(n.valid, 200000000u);
  assert_int_equal(n.tsc0, t);
  assert_int_equal(n.mono0, 5000 + 100000000ull);
  assert_int_equal(pm_clock_tsc_next(&b, t, 5000 + 100010000ull, &n), 5000 + 100000000ull);
  assert_true(llabs((long long)n.mult - (long long)(R * 1.0001 * 1.0001)) <= 1);
  assert_int_equal(pm_clock_tsc_next(&b, t, 5000 + 102000000ull, &n), 5000 + 102000000ull);
  assert_true(llabs((long long)n.mult - (long long)(R * 1.02)) <= 1);
  assert_int_equal(pm_clock_tsc_next(&b, t, 5000 + 99000000ull, &n), 5000 + 100000000ull);
  assert_true(llabs((long long)n.mult - (long long)(R * 0.99 * (1 - 500e-6))) <= 1);
}

/* A calibration 100 ppm too fast converges on the true rate (0.5 ns per tick): after ten anchors
 * the clock is within 100 ns of CLOCK_MONOTONIC, and it never ran backwards. */
static void test_clock_tsc_converges(void **state) {
  (void)state;
  pm_tsc_block b = {.tsc0 = 0, .ns0 = 0, .mult = (uint64_t)(2147483648.0 * 1.0001), .valid = 200000000, .mono0 = 0}, n;
  uint64_t last = 0;
  long long off = 0;
  for (int k = 1; k <= 10; k++) {
    uint64_t t = (uint64_t)k * 200000000ull, mono = t / 2;
    uint64_t ns = pm_clock_tsc_next(&b, t, mono, &n);
    assert_true(ns >= last);
    last = ns;
    off = (long long)mono - (long long)ns;
    b = n;
  }
  assert_true(llabs(off) < 100);
}

/* A reading of pm_clock_now between two CLOCK_MONOTONIC reads: the tightest of 20 tries (a loaded
 * machine may preempt any one); *mono is the middle of its window, *win the window's width. */
static uint64_t clock_pair(uint64_t *mono, uint64_t *win) {
  uint64_t best = 0;
  *win = UINT64_MAX;
  for (int k = 0; k < 20; k++) {
    uint64_t a = pm_clock_monotonic(), p = pm_clock_now(), b = pm_clock_monotonic();
    if (b - a < *win) {
      *win = b - a;
      *mono = a + (b - a) / 2;
      best = p;
    }
  }
  return best;
}

/* The real clock (through the TSC where the machine has one the kernel trusts, else clock_gettime):
 * 20 ms sleeps measure the same on it and on CLOCK_MONOTONIC within 100 ppm plus the read windows
 * plus 2 us, and a million reads never go back. */
static void test_clock_tsc_real(void **state) {
  (void)state;
  pm_clock_is_virtual = 0; /* the other tests' virtual clock */
  pm_clock_tsc_start(1);
  for (int i = 0; i < 5; i++) {
    uint64_t m0, m1, w0, w1, p0 = clock_pair(&m0, &w0);
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    uint64_t p1 = clock_pair(&m1, &w1);
    double dm = (double)(m1 - m0), dp = (double)(p1 - p0);
    assert_true(fabs(dp - dm) <= 100e-6 * dm + (double)(w0 + w1) + 2000.0);
  }
  uint64_t last = pm_clock_now();
  for (int i = 0; i < 1000000; i++) {
    uint64_t t = pm_clock_now();
    assert_true(t >= last);
    last = t;
  }
}

/* The cache-line hints are used where the CPU has them: what CPUID told popmeter agrees with the
 * kernel's flags ("3dnowprefetch" is PREFETCHW's bit, "cldemote" CLDEMOTE's), and the hints leave the
 * memory they touch as it was. */
static int cpu_flag(const char *flag) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return -1;
  char line[8192];
  int found = -1;
  while (found < 0 && fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5)) {
      found = 0;
      for (char *w = strtok(strchr(line, ':') + 1, " \n"); w; w = strtok(NULL, " \n"))
        if (!strcmp(w, flag)) found = 1;
    }
  fclose(f);
  return found;
}
static void test_cacheline_hints(void **state) {
  (void)state;
  pm_cacheline_detect();
#if defined(__x86_64__)
  int pw = cpu_flag("3dnowprefetch"), cd = cpu_flag("cldemote");
  if (pw < 0 || cd < 0) skip();
  assert_int_equal(pm_line_has_prefetchw, pw);
  assert_int_equal(pm_line_has_cldemote, cd);
#endif
  uint64_t line[16] __attribute__((aligned(64)));
  for (int i = 0; i < 16; i++) line[i] = 1000u + (unsigned)i;
  pm_line_prefetch_write(line);
  pm_line_demote(line + 8);
  for (int i = 0; i < 16; i++) assert_int_equal(line[i], 1000u + (unsigned)i);
}

/* Unbalanced exits are ignored; nesting beyond PM_MAX_DEPTH keeps accounting consistent. */
static void test_unbalanced_and_deep(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_call_exit(L, pm_clock_now());
  assert_int_equal(L->depth, 0);
  pm_region_id r = pm_region_register("rec", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  for (int i = 0; i < PM_MAX_DEPTH + 10; i++) {
    pm_clock_advance(1);
    pm_region_enter(L, r, pm_clock_now());
  }
  for (int i = 0; i < PM_MAX_DEPTH + 10; i++) {
    pm_clock_advance(1);
    pm_region_exit(L, pm_clock_now());
  }
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->cur, 0);
  pm_loc_flush(L, pm_clock_now());
  /* every nanosecond is accounted once: 2 * (PM_MAX_DEPTH + 10) in total, all useful */
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 2 * (PM_MAX_DEPTH + 10));
  uint64_t sum = 0;
  for (uint32_t i = 0; i < pm_loc_node_count(L); i++) sum += pm_loc_node(L, i)->time[PM_STATE_USEFUL];
  assert_int_equal(sum, 2 * (PM_MAX_DEPTH + 10));
}

/* Deeper than PM_MAX_DEPTH through the public API (pm_region_begin/end): 200 nested regions, an MPI
 * collective of 10 ns at the bottom, the 200 ends, then a collective of 5 ns at the top. The folded
 * levels keep their states: 15 ns of MPI, 400 ns useful; every end is taken, the stack unwinds to
 * the root and the last collective is on its own call path, not the deepest one. */
static void test_deeper_than_kept(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id coll = pm_region_register("MPI_Allreduce", PM_PARADIGM_MPI, PM_ROLE_COLLECTIVE);
  char names[200][8];
  for (int i = 0; i < 200; i++) {
    snprintf(names[i], sizeof names[i], "r%d", i);
    pm_clock_advance(1);
    pm_region_begin(names[i]);
  }
  assert_int_equal(L->depth, 200);
  pm_call_enter(L, coll, PM_STATE_MPI_COLL, pm_clock_now());
  pm_clock_advance(10);
  pm_call_exit(L, pm_clock_now());
  assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
  for (int i = 199; i >= 0; i--) {
    pm_clock_advance(1);
    pm_region_end(names[i]);
  }
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->cur, 0);
  pm_call_enter(L, coll, PM_STATE_MPI_COLL, pm_clock_now());
  pm_clock_advance(5);
  pm_call_exit(L, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_COLL], 15);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 400);
  /* the last collective: a child of the root */
  int found = 0;
  for (uint32_t i = 0; i < pm_loc_node_count(L); i++) {
    const pm_cpnode *n = pm_loc_node(L, i);
    if (n->region == coll && n->parent == 0) found = n->time[PM_STATE_MPI_COLL] == 5;
  }
  assert_true(found);
}

/* The region registry: past 65,529 distinct names (65,536 less one per paradigm), later ones share "(more regions)" of their
 * paradigm, counted; the profile carries the count through JSON. */
static void test_region_registry_full(void **state) {
  (void)state;
  char name[32];
  pm_region_id first_more = PM_REGION_NONE;
  uint32_t before = pm_region_count();
  for (int i = 0; i < 65529 - (int)before + 9; i++) {
    snprintf(name, sizeof name, "region%d", i);
    pm_region_id r = pm_region_register(name, PM_PARADIGM_USER, PM_ROLE_FUNCTION);
    assert_true(r != PM_REGION_NONE);
    if (strcmp(pm_region_name(r), "(more regions)") == 0 && first_more == PM_REGION_NONE) first_more = r;
  }
  assert_int_equal(pm_region_folded(), 9);
  assert_true(first_more != PM_REGION_NONE);
  assert_int_equal(pm_region_register("yet another", PM_PARADIGM_USER, PM_ROLE_FUNCTION), first_more);
  /* an existing name is still found, and another paradigm has its own "(more regions)" */
  assert_int_equal(strcmp(pm_region_name(pm_region_register("region0", PM_PARADIGM_USER, PM_ROLE_FUNCTION)), "region0"),
                   0);
  pm_region_id io = pm_region_register("new io", PM_PARADIGM_IO, PM_ROLE_FILE_IO);
  assert_true(io != first_more);
  assert_string_equal(pm_region_name(io), "(more regions)");
  assert_int_equal(pm_region_folded(), 11);
  pm_profile *p = pm_profile_build_process(pm_clock_now(), pm_clock_now());
  assert_non_null(p);
  assert_int_equal(p->regions_folded, 11);
  char *js = pm_profile_to_json_string(p), err[256];
  pm_profile *q = pm_profile_from_json_string(js, err, sizeof err);
  assert_non_null(q);
  assert_int_equal(q->regions_folded, 11);
  free(js);
  pm_profile_free(p);
  pm_profile_free(q);
}

/* An event stamped before the last transition (read before activation, skewed device clock)
 * charges nothing and does not move the location's time back: +100 useful, then an enter stamped
 * 50 ns in the past, then +30 in MPI: useful 100, p2p 30, total 130 = elapsed. */
static void test_time_never_backwards(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id r = pm_region_register("MPI_Init", PM_PARADIGM_MPI, PM_ROLE_FUNCTION);
  pm_clock_advance(100);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_call_enter(L, r, PM_STATE_MPI_P2P, pm_clock_now() - 50);
  pm_clock_advance(30);
  pm_call_exit(L, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 100);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_MPI_P2P], 30);
}

/* The public user-region API: a reused name buffer with new contents is a new region; times exact.
 * t: +10 begin "solve" | +20 end | +5 begin "io" (same buffer, rewritten) | +7 end | +3 begin
 * "solve" | +4 end.  solve: 2 visits, 24 ns; io: 1 visit, 7 ns; root: 10 + 5 + 3 = 18 ns. */
static void test_user_regions(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  char name[16] = "solve";
  pm_clock_advance(10);
  pm_region_begin(name);
  pm_clock_advance(20);
  pm_region_end(name);
  strcpy(name, "io");
  pm_clock_advance(5);
  pm_region_begin(name);
  pm_clock_advance(7);
  pm_region_end(name);
  pm_clock_advance(3);
  pm_region_begin("solve");
  pm_clock_advance(4);
  pm_region_end("solve");
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(pm_loc_node_count(L), 3);
  pm_cpnode *solve = pm_loc_node(L, 1), *io = pm_loc_node(L, 2);
  assert_string_equal(pm_region_name(solve->region), "solve");
  assert_string_equal(pm_region_name(io->region), "io");
  assert_int_equal(solve->visits, 2);
  assert_int_equal(solve->time[PM_STATE_USEFUL], 24);
  assert_int_equal(io->visits, 1);
  assert_int_equal(io->time[PM_STATE_USEFUL], 7);
  assert_int_equal(pm_loc_node(L, 0)->time[PM_STATE_USEFUL], 18);
}

/* A user wait (pm_wait_begin/end) is synchronisation wait on its own call path, nested in a user
 * region, and the useful clock (cue) does not advance through it; the end restores useful.
 * t: +10 begin "submit" | +6 wait "memory" | +40 end wait | +4 end "submit".
 * useful 10 + 6 + 4 = 20 (cue 20), sync_wait 40 on "memory" (com counts it too: 60). */
static void test_user_wait(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_clock_advance(10);
  pm_region_begin("submit");
  pm_clock_advance(6);
  pm_wait_begin("memory");
  assert_int_equal(pm_state_get(L), PM_STATE_SYNC_WAIT);
  pm_clock_advance(40);
  pm_wait_end("memory");
  assert_int_equal(pm_state_get(L), PM_STATE_USEFUL);
  pm_clock_advance(4);
  pm_region_end("submit");
  pm_loc_flush(L, pm_clock_now());
  assert_int_equal(L->depth, 0);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 20);
  assert_int_equal(L->time[PM_CTX_SERIAL][PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(pm_loc_node_count(L), 3);
  pm_cpnode *submit = pm_loc_node(L, 1), *memory = pm_loc_node(L, 2);
  assert_string_equal(pm_region_name(memory->region), "memory");
  assert_int_equal(memory->parent, 1);
  assert_int_equal(memory->time[PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(memory->time[PM_STATE_USEFUL], 0);
  assert_int_equal(submit->time[PM_STATE_USEFUL], 10);
  assert_int_equal(pm_cp_process(L).cue, 20);
  assert_int_equal(pm_cp_process(L).com, 60);
}

/* Process profile from the live locations: window and exact seconds. */
static void test_profile_build(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_region_id send = pm_region_register("MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  pm_clock_advance(3000000);
  pm_call_enter(L, send, PM_STATE_MPI_P2P, pm_clock_now());
  pm_clock_advance(1000000);
  pm_call_exit(L, pm_clock_now());
  pm_loc_flush(L, pm_clock_now());
  pm_profile *p = pm_profile_build_process(T0, pm_clock_now());
  assert_non_null(p);
  assert_int_equal(p->nprocesses, 1);
  assert_int_equal(p->nlocations, 1);
  assert_double_equal(p->runtime, 0.004, 1e-15);
  assert_double_equal(p->loc[0].time[0][PM_STATE_USEFUL], 0.003, 1e-15);
  assert_double_equal(p->loc[0].time[0][PM_STATE_MPI_P2P], 0.001, 1e-15);
  assert_int_equal(p->ncnodes, 2);
  assert_int_equal(p->nvalues, 2);
  assert_string_equal(p->reg[p->cnode[1].region].name, "MPI_Send");
  assert_int_equal(p->loc[0].role, PM_ROLE_MAIN);
  pm_profile_free(p);
}

/* A second thread is its own location; its registration time is recorded. */
#include <pthread.h>
static void *worker(void *arg) {
  (void)arg;
  pm_loc *L = pm_loc_self();
  pm_state_set(L, PM_STATE_IDLE, pm_clock_now());
  return L;
}
static void test_threads(void **state) {
  (void)state;
  pm_loc *main_loc = pm_loc_self();
  pthread_t t;
  pm_clock_advance(500);
  pthread_create(&t, NULL, worker, NULL);
  void *ret;
  pthread_join(t, &ret);
  pm_loc *W = ret;
  assert_ptr_not_equal(W, main_loc);
  assert_int_equal(pm_loc_count(), 2);
  assert_int_equal(W->role, PM_ROLE_THREAD);
  assert_int_equal(W->t_registered, T0 + 500);
  assert_int_equal(W->closed, 1); /* thread exit closed it */
  assert_int_equal(pm_state_get(W), PM_STATE_OFF);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_states_exact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_callpath_nesting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_callpath_children_by_turns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_between_work, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_slow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_run_ends, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_run_left_after_unread_poll, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_unread_poll_of_another_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_then_transition, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_fewer_clocks_in_runs, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_preempted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_preempted_work, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_run_left_for_work, setup, teardown),
      cmocka_unit_test_setup_teardown(test_polls_slow_run_and_transition, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_parallel_context, setup, teardown),
      cmocka_unit_test_setup_teardown(test_call_pass, setup, teardown),
      cmocka_unit_test_setup_teardown(test_call_unwind, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cp_merge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cp_wait_credit, setup, teardown),
      cmocka_unit_test(test_clock_tsc_anchor),
      cmocka_unit_test(test_clock_tsc_converges),
      cmocka_unit_test(test_clock_tsc_real),
      cmocka_unit_test(test_cacheline_hints),
      cmocka_unit_test_setup_teardown(test_cp_wait_credit_polls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unbalanced_and_deep, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deeper_than_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_region_registry_full, setup, teardown),
      cmocka_unit_test_setup_teardown(test_time_never_backwards, setup, teardown),
      cmocka_unit_test_setup_teardown(test_user_regions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_user_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_profile_build, setup, teardown),
      cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
  };
  return cmocka_run_group_tests_name("core accounting", tests, NULL, NULL);
}
