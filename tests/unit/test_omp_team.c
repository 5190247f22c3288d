/* The OpenMP accounting layer (lib/omp/pm_omp*.c) with the virtual clock: states, contexts,
 * region aggregates and critical-path clocks after fork, barriers, join and tasks. Two team
 * members are driven from this one thread: the master is the test thread's location, the worker a
 * virtual location (the layer takes the location explicitly). Every expected value is derived by
 * hand from the event sequence in the comment above the test, in nanoseconds after T0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_omp_internal.h"
#include "omp_region_name.h"

#define T0 1000000000ull

/* Code addresses that identify regions (named through the executable's symbol table). */
volatile int omp_test_sink;
void omp_test_region_a(void) { omp_test_sink = 1; }
enum { REGION_A_LINE = __LINE__ - 1 };
void omp_test_region_b(void) { omp_test_sink = 2; }
#define REGION_A omp_region_name("omp_test_region_a", "test_omp_team.c", REGION_A_LINE)

static pm_loc *L0, *L1;

static void at(uint64_t t) { /* sets the virtual clock to T0 + t */
  pm_clock_advance(T0 + t - pm_clock_now());
}
static uint64_t now(void) { return pm_clock_now(); }

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1);
  L0 = pm_loc_self();
  L1 = pm_loc_create_virtual(PM_ROLE_THREAD, NULL);
  assert_non_null(L0);
  assert_non_null(L1);
  pm_state_set(L1, PM_STATE_IDLE, now()); /* a pooled worker: idle until its first region */
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  return 0;
}

static pm_omp_rstat *region_of(const void *code) { return pm_omp_region_get(code); }

/* 100: the master forks region A for 2 threads; both members begin (*f0, *f1). */
static pm_omp_team *fork_two_at_100(pm_omp_frame **f0, pm_omp_frame **f1) {
  at(100);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  *f0 = pm_omp_implicit_begin(L0, t, 0, 2, now());
  *f1 = pm_omp_implicit_begin(L1, t, 1, 2, now());
  return t;
}

/* GOMP-style region (join barrier unobserved by the worker):
 *   0 activate | 200 fork | 210 both begin | 310 master ends (join wait) | 410 worker ends
 *   | 415 join | 500 finalize (closes the worker's frame at 415, idle afterwards).
 * master: serial useful 200 + 85, parallel runtime 10, useful 100, sync_wait 100 + 5
 * worker: serial idle 210 + 85, parallel useful 200, sync_wait 5 (410 -> 415)
 * region: span 215, useful [100, 200], idle [10 + 105, 0 + 5]
 * cue: master 200 at the fork; worker 200 + 200 = 400; master max(300, 400) + 85 = 485. */
static void test_fork_join_lazy_close(void **state) {
  (void)state;
  at(200);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  assert_non_null(t);
  at(210);
  pm_omp_frame *f0 = pm_omp_implicit_begin(L0, t, 0, 2, now());
  pm_omp_frame *f1 = pm_omp_implicit_begin(L1, t, 1, 2, now());
  assert_non_null(f0);
  assert_non_null(f1);
  assert_string_equal(L1->name, "OpenMP thread 1");
  at(310);
  pm_omp_implicit_end(L0, f0, 1, now());
  at(410);
  pm_omp_implicit_end(L1, f1, 1, now());
  assert_int_equal(pm_state_get(L1), PM_STATE_SYNC_WAIT);
  at(415);
  pm_omp_join(L0, t, now());
  assert_int_equal(pm_state_get(L0), PM_STATE_USEFUL);
  assert_int_equal(L0->ctx, PM_CTX_SERIAL);
  at(500);
  pm_omp_finalize(now());
  pm_loc_flush(L0, now());
  pm_loc_flush(L1, now());

  assert_int_equal(L0->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 285);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 10);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 100);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 105);
  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_IDLE], 295);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 200);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 5);
  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0);
  assert_int_equal(L1->ctx, PM_CTX_SERIAL);
  assert_int_equal(pm_state_get(L1), PM_STATE_IDLE);
  assert_int_equal(L0->depth, 0);
  assert_int_equal(L1->depth, 0);

  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_string_equal(r->name, REGION_A);
  assert_string_equal(pm_region_name(r->rid), REGION_A);
  assert_int_equal(r->instances, 1);
  assert_int_equal(r->nthreads, 2);
  assert_int_equal(r->span, 215);
  assert_int_equal(r->useful[0], 100);
  assert_int_equal(r->useful[1], 200);
  assert_int_equal(r->idle[0], 115);
  assert_int_equal(r->idle[1], 5);

  assert_int_equal(pm_cp_process(L1).cue, 400);
  assert_int_equal(pm_cp_process(L0).cue, 485);
  assert_int_equal(pm_cp_global(L0).cue, 485);
  /* com counts waits and runtime too: master 415 at the join (>= the worker's 210 + 200), +85 */
  assert_int_equal(pm_cp_process(L0).com, 500);
}

/* The node of L for region r (the first one), or NULL. */
static const pm_cpnode *node_of(const pm_loc *L, pm_region_id r) {
  for (uint32_t i = 0; i < pm_loc_node_count(L); i++)
    if (pm_loc_node(L, i)->region == r) return pm_loc_node(L, i);
  return NULL;
}

/* Two instances of one GOMP-style region in a row: the worker passes from the first to the
 * second in its region's node (pm_call_pass), with the times, visits and clocks of leaving and
 * entering it again:
 *   100 fork | 110 both begin | 200 master ends | 250 worker ends | 260 join
 *   | 300 fork | 320 both begin (the worker's first frame closes at the join, 260) | 400 worker
 *   ends | 420 master ends | 430 join | 500 finalize (the worker's frame closes at 430).
 * worker: serial idle 110 + 60 + 70 = 240, parallel useful 140 + 80 = 220, sync_wait 10 + 30 = 40;
 *   its region node: 2 visits, 220 useful; implicit barrier node: 2 visits, 40 sync_wait; root:
 *   240 idle; three nodes in all.
 * region: span 160 + 130 = 290, useful [90 + 100, 220], idle [10 + 60 + 20 + 10, 10 + 30].
 * cue: master 100 at the 1st fork; worker 100 + 140 = 240; master max(190, 240) = 240 at the
 *   join, 280 at the 2nd fork; worker max(240, 280) + 80 = 360; master 280 + 100 = 380, max(380,
 *   360) = 380 at the join, + 70 = 450. */
static void test_worker_passes_between_instances(void **state) {
  (void)state;
  const uint64_t fork_at[2] = {100, 300}, begin_at[2] = {110, 320}, end0[2] = {200, 420}, end1[2] = {250, 400},
                 join_at[2] = {260, 430};
  pm_omp_team *t = NULL;
  for (int k = 0; k < 2; k++) {
    at(fork_at[k]);
    t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
    assert_non_null(t);
    at(begin_at[k]);
    pm_omp_frame *f0 = pm_omp_implicit_begin(L0, t, 0, 2, now());
    pm_omp_frame *f1 = pm_omp_implicit_begin(L1, t, 1, 2, now());
    assert_non_null(f0);
    assert_non_null(f1);
    assert_int_equal(L1->ctx, PM_CTX_PARALLEL);
    assert_int_equal(pm_state_get(L1), PM_STATE_USEFUL);
    assert_int_equal(L1->depth, 1);
    at(end0[k] < end1[k] ? end0[k] : end1[k]);
    pm_omp_implicit_end(end0[k] < end1[k] ? L0 : L1, end0[k] < end1[k] ? f0 : f1, 1, now());
    at(end0[k] < end1[k] ? end1[k] : end0[k]);
    pm_omp_implicit_end(end0[k] < end1[k] ? L1 : L0, end0[k] < end1[k] ? f1 : f0, 1, now());
    at(join_at[k]);
    pm_omp_join(L0, t, now());
  }
  at(500);
  pm_omp_finalize(now());
  pm_loc_flush(L0, now());
  pm_loc_flush(L1, now());

  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_IDLE], 240);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 220);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_IDLE], 0);
  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0);
  assert_int_equal(L1->depth, 0);
  assert_int_equal(L1->ctx, PM_CTX_SERIAL);
  assert_int_equal(pm_state_get(L1), PM_STATE_IDLE);
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  const pm_cpnode *rn = node_of(L1, r->rid), *bn = node_of(L1, pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER));
  assert_non_null(rn);
  assert_non_null(bn);
  assert_int_equal(pm_loc_node_count(L1), 3);
  assert_int_equal(rn->visits, 2);
  assert_int_equal(rn->time[PM_STATE_USEFUL], 220);
  assert_int_equal(rn->time[PM_STATE_IDLE], 0);
  assert_int_equal(bn->visits, 2);
  assert_int_equal(bn->time[PM_STATE_SYNC_WAIT], 40);
  assert_int_equal(pm_loc_node(L1, 0)->time[PM_STATE_IDLE], 240);

  assert_int_equal(r->instances, 2);
  assert_int_equal(r->span, 290);
  assert_int_equal(r->useful[0], 190);
  assert_int_equal(r->useful[1], 220);
  assert_int_equal(r->idle[0], 100);
  assert_int_equal(r->idle[1], 40);
  assert_int_equal(pm_cp_process(L1).cue, 360);
  assert_int_equal(pm_cp_process(L0).cue, 450);
  assert_int_equal(pm_cp_global(L0).cue, 450);
}

/* Two barriers in a row, the worker slow to leave the first (parity of the slot halves):
 *   100 fork, both begin | 150 worker arrives (cue 150) | 200 master arrives (cue 200), leaves:
 *   max(200, 150) = 200 | 230 master arrives at the 2nd barrier (cue 230, other half)
 *   | 240 worker leaves the 1st: must see 200, not the master's 230 | 260 worker arrives (cue
 *   200 + 20 = 220) | 260 both leave: max(230, 220) = 230 | 270 both end | 270 join.
 * worker sync_wait 150->240 = 90; master sync_wait 200->200 + 230->260 = 30. */
static void test_barrier_parity(void **state) {
  (void)state;
  pm_region_id bar = pm_omp_region(PM_OMP_R_BARRIER);
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  at(150);
  pm_omp_barrier_enter(L1, bar, PM_STATE_SYNC_WAIT, now());
  at(200);
  pm_omp_barrier_enter(L0, bar, PM_STATE_SYNC_WAIT, now());
  pm_omp_barrier_exit(L0, now());
  assert_int_equal(pm_cp_process(L0).cue, 200);
  at(230);
  pm_omp_barrier_enter(L0, bar, PM_STATE_SYNC_WAIT, now());
  at(240);
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(pm_cp_process(L1).cue, 200);
  assert_int_equal(f1->epoch, 1);
  at(260);
  pm_omp_barrier_enter(L1, bar, PM_STATE_SYNC_WAIT, now());
  pm_omp_barrier_exit(L0, now());
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(pm_cp_process(L0).cue, 230);
  assert_int_equal(pm_cp_process(L1).cue, 230);
  assert_int_equal(pm_cp_global(L1).cue, 230);
  at(270);
  pm_omp_implicit_end(L0, f0, 1, now());
  pm_omp_implicit_end(L1, f1, 1, now());
  pm_omp_join(L0, t, now());
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 90);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 30);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 140); /* 100->200, 200->230, 260->270 */
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 80);  /* 100->150, 240->260, 260->270 */
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_int_equal(r->idle[0], 30);
  assert_int_equal(r->idle[1], 90);
  assert_int_equal(r->useful[0] + r->useful[1], 220);
}

/* An explicit barrier of the two-member team: the master arrives at a, the worker at b, both
 * leave at b. */
static void master_then_worker_pass(uint64_t a, uint64_t b) {
  pm_region_id bar = pm_omp_region(PM_OMP_R_BARRIER);
  at(a);
  pm_omp_barrier_enter(L0, bar, PM_STATE_SYNC_WAIT, now());
  at(b);
  pm_omp_barrier_enter(L1, bar, PM_STATE_SYNC_WAIT, now());
  pm_omp_barrier_exit(L0, now());
  pm_omp_barrier_exit(L1, now());
}

/* A member owes its clocks the barrier's exchange from its exit until they are read; the exchange
 * counts from the exit, whatever merges come between (paths: process clocks' cue).
 *   100 fork, both begin | barrier 1: 200 master arrives (path 200), 300 worker arrives (300),
 *   both leave | 310 the master's clocks are read | barrier 2: 315 master arrives (315), 400
 *   worker arrives (400), both leave | 420 a message brings the master a path of 405 | 440 read.
 * 310: the barrier's 300 + 10 of own work since = 310 (merged at the read: 300).
 * 440: the barrier's 400 + 40 = 440; the message's 405 + 20 = 425: 440 (the barrier merged at the
 * read, after the message: max(425, 400) = 425). */
static void test_barrier_exchange_owed(void **state) {
  (void)state;
  pm_omp_frame *f0, *f1;
  fork_two_at_100(&f0, &f1);
  master_then_worker_pass(200, 300);
  assert_non_null(L0->cp_pending); /* owed, not read yet */
  at(310);
  pm_state_set(L0, PM_STATE_USEFUL, now());
  assert_int_equal(pm_cp_process(L0).cue, 310);
  assert_null(L0->cp_pending);
  master_then_worker_pass(315, 400);
  at(420);
  pm_state_set(L0, PM_STATE_USEFUL, now());
  pm_cp_clock msg = {405, 405, 405};
  pm_cp_merge_process(L0, msg);
  assert_non_null(L0->cp_pending); /* a merge does not read the clocks */
  at(440);
  pm_state_set(L0, PM_STATE_USEFUL, now());
  assert_int_equal(pm_cp_process(L0).cue, 440);
  assert_int_equal(pm_cp_process(L0).cue, 440); /* a second read owes nothing */
}

/* The finalizer reads the clocks of other threads' locations: it sees the exchange they owe
 * without applying it (the owner may be writing its owed record). Times as in
 * test_barrier_exchange_owed: the barrier's 300 + 10 of own work = 310. */
static void test_peek_leaves_owed_exchange(void **state) {
  (void)state;
  pm_omp_frame *f0, *f1;
  fork_two_at_100(&f0, &f1);
  master_then_worker_pass(200, 300);
  at(310);
  pm_state_set(L0, PM_STATE_USEFUL, now());
  pm_cp_clock poff = L0->cp_poff, goff = L0->cp_goff, process, global;
  pm_loc_cp_peek(L0, &process, &global);
  assert_int_equal(process.cue, 310);
  assert_int_equal(global.cue, 310);
  assert_non_null(L0->cp_pending);
  assert_memory_equal(&poff, &L0->cp_poff, sizeof poff);
  assert_memory_equal(&goff, &L0->cp_goff, sizeof goff);
  assert_int_equal(pm_cp_process(L0).cue, 310); /* the owner's read applies it */
  assert_null(L0->cp_pending);
  pm_loc_cp_peek(L0, &process, &global); /* nothing owed: the clocks themselves */
  assert_int_equal(process.cue, 310);
}

/* OMPT order (libomp): the worker's join barrier ends only at the next fork.
 *   0 fork, both begin | 100 worker enters the join barrier (runtime), 101 waits | 300 master
 *   enters, 301 waits, 302 wait ends, 303 leaves (normal exit), ends its implicit task, 305 join
 *   | 700 next fork: the worker's late wait end (ignored) and barrier exit close its frame at 305,
 *   its implicit-task end is a no-op, its new implicit task begins.
 * worker: parallel runtime 1, sync_wait 101 -> 305 = 204; serial idle 305 -> 700 = 395. */
/* The region of the two tests below, in OMPT order, up to the master's implicit-task end at 303:
 * returns the team, *f1 the worker's frame (in its join barrier). */
static pm_omp_team *region_until_master_ends(pm_omp_frame **f1) {
  pm_region_id ib = pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  pm_omp_frame *f0 = pm_omp_implicit_begin(L0, t, 0, 2, now());
  *f1 = pm_omp_implicit_begin(L1, t, 1, 2, now());
  at(100);
  pm_omp_barrier_enter(L1, ib, PM_STATE_RUNTIME, now());
  at(101);
  pm_omp_wait(L1, 1, now());
  at(300);
  pm_omp_barrier_enter(L0, ib, PM_STATE_RUNTIME, now());
  at(301);
  pm_omp_wait(L0, 1, now());
  at(302);
  pm_omp_wait(L0, 0, now());
  at(303);
  pm_omp_barrier_exit(L0, now());
  pm_omp_implicit_end(L0, f0, 0, now());
  return t;
}

static void test_ompt_late_join(void **state) {
  (void)state;
  pm_omp_frame *f1;
  pm_omp_team *t = region_until_master_ends(&f1);
  at(305);
  pm_omp_join(L0, t, now());
  assert_int_equal(pm_omp_join_time(f1), T0 + 305);
  at(700);
  pm_omp_team *t2 = pm_omp_fork(L0, (const void *)omp_test_region_b, 2, now());
  /* the fork line alone answers (the team object is reused): the master's record set aside */
  assert_ptr_equal(t2, t);
  uint64_t kept = t->joins[1].gen;
  t->joins[1].gen = 0;
  assert_int_equal(pm_omp_join_time(f1), T0 + 305);
  t->joins[1].gen = kept;
  pm_omp_wait(L1, 0, now());
  assert_int_equal(pm_state_get(L1), PM_STATE_SYNC_WAIT); /* ignored: the exit closes */
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(f1->status, PM_OMP_CLOSED);
  pm_omp_implicit_end(L1, f1, 0, now());
  pm_omp_frame *g1 = pm_omp_implicit_begin(L1, t2, 1, 2, now());
  assert_non_null(g1);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 1);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 204);
  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_IDLE], 395);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 100);
  /* master: runtime before its begin 0, barrier 300->301 and 302->303, after its end 303->305 */
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 4);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 1);
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_int_equal(r->idle[1], 1 + 204); /* worker: runtime + wait from its arrival to the join */
  assert_int_equal(r->idle[0], 5);
  assert_int_equal(r->span, 305);
  /* second region: both end, join */
  pm_omp_frame *g0 = pm_omp_implicit_begin(L0, t2, 0, 2, now());
  at(710);
  pm_omp_implicit_end(L0, g0, 1, now());
  pm_omp_implicit_end(L1, g1, 1, now());
  pm_omp_join(L0, t2, now());
  assert_int_equal(region_of((const void *)omp_test_region_b)->instances, 1);
  assert_int_equal(region_of((const void *)omp_test_region_a)->instances, 1);
}

/* The master enters its join barrier at 150 (pm_omp_join_barrier_enter), the worker arrives at 400
 * (in state s), the master leaves at 401. */
static void join_barrier_150_to_401(pm_region_id ib, pm_state s) {
  at(150);
  pm_omp_join_barrier_enter(L0, ib, now());
  at(400);
  pm_omp_barrier_enter(L1, ib, s, now());
  at(401);
  pm_omp_join_barrier_exit(L0, now());
}

/* The master's join barrier without a clock exchange (libomp names it with the region's code
 * address): the join merges the worker's arrival at the barrier's end, as the exchange would.
 *   100 fork, both begin | 150 the master arrives at its join barrier | 400 the worker arrives
 *   (cue: the fork's 100 + useful 300 = 400) | 401 the master leaves (own cue: 100 serial + 50 = 150)
 *   | 410 it ends its implicit task (useful 401 -> 410) | 420 join
 * master cue: 400 at the barrier's end, + 9 = 409 (merged at its own clock of the join instead:
 * max(159, 400) = 400, the 9 ns after the barrier lost). com counts waits and runtime: the
 * master's own 420 beats the worker's 400 (idle 100 + useful 300).
 * master sync_wait 150 -> 401 = 251, runtime 410 -> 420 = 10; span 320. */
static void test_master_join_barrier(void **state) {
  (void)state;
  pm_region_id ib = pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER);
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  at(150);
  assert_int_equal(pm_omp_is_join_barrier(L0, (const void *)omp_test_region_a), 1);
  assert_int_equal(pm_omp_is_join_barrier(L0, (const void *)omp_test_region_b), 0); /* a loop's */
  assert_int_equal(pm_omp_is_join_barrier(L0, NULL), 0);
  assert_int_equal(pm_omp_is_join_barrier(L1, (const void *)omp_test_region_a), 0); /* a worker's */
  join_barrier_150_to_401(ib, PM_STATE_RUNTIME);
  at(410);
  pm_omp_implicit_end(L0, f0, 0, now());
  at(420);
  pm_omp_join(L0, t, now());
  assert_int_equal(pm_cp_process(L0).cue, 409);
  assert_int_equal(pm_cp_global(L0).cue, 409);
  assert_int_equal(pm_cp_process(L0).com, 420);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 251);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 10);
  assert_int_equal(L0->depth, 0);
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_int_equal(r->span, 320);
  assert_int_equal(r->useful[0], 59);
  assert_int_equal(r->useful[1], 300);
  at(500); /* the next fork closes the worker's frame at the join */
  pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(f1->status, PM_OMP_CLOSED);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 0);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 20); /* 400 -> 420 */
}

/* The time the OMPT adapter gives the end of an implicit task: the master's own join barrier's
 * end when it has done nothing since and no observer reads counters at its charges, else the clock.
 *   100 fork, both begin | 150 the master arrives at its join barrier | 400 the worker arrives |
 *   401 the master leaves | 410: the master's end time is 401 (the worker's: 410; with an
 *   observer: 410) | 412 a transition on the master | 415: its end time is 415 (401 would run its
 *   clock backwards) */
static void test_implicit_end_time(void **state) {
  (void)state;
  pm_region_id ib = pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER);
  pm_omp_frame *f0, *f1;
  fork_two_at_100(&f0, &f1);
  at(150);
  assert_int_equal(pm_omp_implicit_end_time(L0, f0) - T0, 150); /* not in its join barrier yet */
  join_barrier_150_to_401(ib, PM_STATE_SYNC_WAIT);
  at(410);
  assert_int_equal(pm_omp_implicit_end_time(L0, f0) - T0, 401);
  assert_int_equal(pm_omp_implicit_end_time(L1, f1) - T0, 410);
  L0->nobs = 1; /* as if counters observed the location (read only here: no transition follows) */
  assert_int_equal(pm_omp_implicit_end_time(L0, f0) - T0, 410);
  L0->nobs = 0;
  at(412);
  pm_state_set(L0, PM_STATE_USEFUL, now());
  at(415);
  assert_int_equal(pm_omp_implicit_end_time(L0, f0) - T0, 415);
}

/* The same, libomp reporting the worker's exit from that barrier before the master's join (it may,
 * for a team it frees), the worker then ending its implicit task:
 *   100 fork, both begin | 150 the master arrives | 400 the worker arrives (cue 400) | 401 the master
 *   leaves (own cue 150) | 402 the worker leaves (no join yet: an ordinary exit), useful again
 *   | 405 it ends its implicit task (cue 403) | 410 the master ends its own | 420 join
 * master cue: the worker's arrival, 400, at the barrier's end, + 9 = 409; its 403 at the end of its
 * task, merged at the join, does not win (merged at the barrier's end instead: 403 + 9 = 412). */
static void test_master_join_barrier_early_exit(void **state) {
  (void)state;
  pm_region_id ib = pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER);
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  join_barrier_150_to_401(ib, PM_STATE_SYNC_WAIT);
  at(402);
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(f1->status, PM_OMP_RUNNING); /* not a late end: the master has not joined */
  at(405);
  pm_omp_implicit_end(L1, f1, 0, now());
  assert_int_equal(pm_cp_process(L1).cue, 403);
  at(410);
  pm_omp_implicit_end(L0, f0, 0, now());
  at(420);
  pm_omp_join(L0, t, now());
  assert_int_equal(pm_cp_process(L0).cue, 409);
  assert_int_equal(pm_cp_global(L0).cue, 409);
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_int_equal(r->useful[1], 303); /* 100 -> 400 and 402 -> 405 */
}

/* The same after an explicit barrier, which the master leaves owing its exchange: its arrival at
 * the join barrier applies it, before the worker, leaving that barrier early, publishes into the
 * slot half the exchange reads (its implicit-task end is barrier number 2: half 0, barrier 0's).
 *   100 fork, both begin | 110 the master arrives at barrier 0 (cue 110) | 120 the worker arrives
 *   (cue 120), both leave | 150 the master arrives at its join barrier (cue 120 + 30 = 150) | then
 *   as above: 400 the worker arrives (cue 400), 401 the master leaves, 402 the worker leaves,
 *   405 it ends its implicit task (cue 403) | 410 the master ends its own | 420 join
 * master cue: 400 at the join barrier's end + 9 = 409, com 420, as above. (The exchange of
 * barrier 0 read at the join instead finds the worker's 403 there and merges it at the master's
 * own cue of barrier 0's exit, 110: 403 + (150 - 120) + 9 = 442.) */
static void test_master_join_barrier_early_exit_after_barrier(void **state) {
  (void)state;
  pm_region_id ib = pm_omp_region(PM_OMP_R_IMPLICIT_BARRIER);
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  master_then_worker_pass(110, 120);
  join_barrier_150_to_401(ib, PM_STATE_SYNC_WAIT);
  at(402);
  pm_omp_barrier_exit(L1, now());
  at(405);
  pm_omp_implicit_end(L1, f1, 0, now());
  at(410);
  pm_omp_implicit_end(L0, f0, 0, now());
  at(420);
  pm_omp_join(L0, t, now());
  assert_int_equal(pm_cp_process(L0).cue, 409);
  assert_int_equal(pm_cp_process(L0).com, 420);
}

/* A member beyond the team's slots (cap 4: a fork for 2 that 5 members join) publishes nothing, but
 * its arrival still applies the exchange it owes, before the others can write that half again.
 *   100 fork, all begin (cue 100) | 200 all arrive at barrier 0 (cue 200) and leave | 300 all arrive
 *   at barrier 1 (cue 300); members 0-3 leave | 1000 members 0-3 arrive at barrier 2 (half 0,
 *   barrier 0's), then member 4's exit from barrier 1 is reported
 * member 4: barrier 1's arrivals, 300 (it waited since, no own cue): 300. (Barrier 0's exchange read
 * only now finds barrier 2's 1000 and merges it at its own cue of barrier 0's exit, 200:
 * 1000 + 100 = 1100.) */
static void test_member_beyond_cap_settles(void **state) {
  (void)state;
  pm_region_id bar = pm_omp_region(PM_OMP_R_BARRIER);
  pm_loc *W[5] = {L0, L1};
  for (int i = 2; i < 5; i++) {
    W[i] = pm_loc_create_virtual(PM_ROLE_THREAD, NULL);
    assert_non_null(W[i]);
    pm_state_set(W[i], PM_STATE_IDLE, now());
  }
  at(100);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  assert_int_equal(t->cap, 4);
  for (int i = 0; i < 5; i++) assert_non_null(pm_omp_implicit_begin(W[i], t, (uint32_t)i, 5, now()));
  at(200);
  for (int i = 0; i < 5; i++) pm_omp_barrier_enter(W[i], bar, PM_STATE_SYNC_WAIT, now());
  for (int i = 0; i < 5; i++) pm_omp_barrier_exit(W[i], now());
  at(300);
  for (int i = 0; i < 5; i++) pm_omp_barrier_enter(W[i], bar, PM_STATE_SYNC_WAIT, now());
  for (int i = 0; i < 4; i++) pm_omp_barrier_exit(W[i], now());
  at(1000);
  for (int i = 0; i < 4; i++) pm_omp_barrier_enter(W[i], bar, PM_STATE_SYNC_WAIT, now());
  pm_omp_barrier_exit(W[4], now());
  assert_int_equal(pm_cp_process(W[4]).cue, 300);
}

/* A worker whose exit from a barrier is handled after the master joined and forked the team again
 * (libomp reports a worker's join-barrier exit late; when the master had not recorded the join
 * yet, the exit looks ordinary): its owed exchange and its publishes must not touch the next
 * instance's slots. One thread cannot interleave that, so the test makes the master's fork by hand
 * (gen + 1) and the new instance's master arrive at barrier 0 (its slot's half 0, cue 5000).
 *   100 fork, both begin | 150 the master arrives at barrier 0, 200 the worker (cue 200) | the
 *   master leaves | the team's next instance: gen + 1, the master's half 0 = 5000 | 300 the
 *   worker's exit: its cue stays 200 (the exchange of an instance that is over is dropped; read
 *   anyway it would give 5000) | 310 it ends its implicit task: its slot keeps the old instance */
static void test_stale_frame_leaves_next_instance_alone(void **state) {
  (void)state;
  pm_region_id bar = pm_omp_region(PM_OMP_R_BARRIER);
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  uint64_t old_gen = t->gen;
  at(150);
  pm_omp_barrier_enter(L0, bar, PM_STATE_SYNC_WAIT, now());
  at(200);
  pm_omp_barrier_enter(L1, bar, PM_STATE_SYNC_WAIT, now());
  pm_omp_barrier_exit(L0, now());
  t->gen = old_gen + 1;
  t->slot[0].cp[0].c.p.cue = 5000;
  at(300);
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(pm_cp_process(L1).cue, 200);
  at(310);
  pm_omp_implicit_end(L1, f1, 1, now());
  assert_int_equal(t->slot[1].arrived, old_gen);
  assert_int_equal(t->slot[1].t_arrive - T0, 200);
}

/* A worker that sits out the next instances of its team (they run on the master alone) still
 * learns its join time, from the master's record of its last instance, not from the fork line.
 *   0 fork (2), both begin | 100 worker enters the join barrier, 101 waits | 300 master enters,
 *   301-302 waits, 303 leaves, ends its implicit task | 305 join | 400 fork (1), 410 end, 420 join | 500 fork (1),
 *   510 end, 520 join | 600 the worker's thread ends: its frame closes at 305.
 * worker: parallel runtime 1, sync_wait 101 -> 305 = 204; serial idle 305 -> 600 = 295. */
static void test_join_time_after_instances_without_worker(void **state) {
  (void)state;
  pm_omp_frame *f1;
  pm_omp_team *t = region_until_master_ends(&f1);
  assert_int_equal(pm_omp_join_time(f1), 0); /* not joined yet */
  at(305);
  pm_omp_join(L0, t, now());
  for (uint64_t k = 0; k < 2; k++) { /* two instances on the master alone, the same team object */
    at(400 + 100 * k);
    assert_ptr_equal(pm_omp_fork(L0, (const void *)omp_test_region_a, 1, now()), t);
    pm_omp_frame *g0 = pm_omp_implicit_begin(L0, t, 0, 1, now());
    at(410 + 100 * k);
    pm_omp_implicit_end(L0, g0, 0, now());
    at(420 + 100 * k);
    pm_omp_join(L0, t, now());
  }
  assert_int_equal(t->gen, f1->gen + 2); /* the fork line holds the join of instance gen - 1 only */
  assert_int_equal(pm_omp_join_time(f1), T0 + 305);
  at(600);
  pm_omp_thread_end(L1, now());
  assert_int_equal(f1->status, PM_OMP_CLOSED);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 1);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 204);
  pm_state_set(L1, pm_state_get(L1), now());
  assert_int_equal(L1->time[PM_CTX_SERIAL][PM_STATE_IDLE], 295);
  assert_int_equal(region_of((const void *)omp_test_region_a)->instances, 3);
}

/* A task record goes back to the thread that created it, also when another thread ran the task:
 * a creator whose tasks others run reuses its records instead of taking a new slab (64 records)
 * for every 64 tasks while the records pile up on the runners' lists. The creator's local list
 * holds at most 63 records, so its record comes back within 64 creations. */
static void test_task_record_returns_to_creator(void **state) {
  (void)state;
  pm_omp_task *a = pm_omp_task_new(L0, 0, now());
  assert_non_null(a);
  pm_omp_task_switch(L1, NULL, 0, a, now()); /* the worker runs it and completes it */
  at(10);
  pm_omp_task_switch(L1, a, 1, NULL, now());
  int back = 0;
  for (int i = 0; i < 64 && !back; i++) back = pm_omp_task_new(L0, 0, now()) == a;
  assert_true(back);
}

/* One switch ends a task and starts the next: the ended task's end clock is taken before the next
 * task's inputs are merged.
 *   100 fork, both begin | 100 worker enters a barrier (cue 100) | 110 master creates A (cue 110)
 *   | 150 master creates B (cue 150) | 160 worker runs A: max(100, 110) = 110 | 170 A ends and B
 *   starts: A's end 120 (150 if B's creation clock were merged first), the worker's cue 150 | 180 B
 *   ends: 160, the worker waits again. Worker: useful 10 + 10, sync_wait 60 (100 -> 160). */
static void test_task_switch_ends_then_starts(void **state) {
  (void)state;
  pm_omp_frame *f0, *f1;
  fork_two_at_100(&f0, &f1);
  pm_omp_barrier_enter(L1, pm_omp_region(PM_OMP_R_BARRIER), PM_STATE_SYNC_WAIT, now());
  at(110);
  pm_omp_task *a = pm_omp_task_new(L0, 1, now()); /* with dependences: retired, not recycled, at its end */
  at(150);
  pm_omp_task *b = pm_omp_task_new(L0, 1, now());
  at(160);
  pm_omp_task_switch(L1, NULL, 0, a, now());
  assert_int_equal(pm_cp_process(L1).cue, 110);
  at(170);
  pm_omp_task_switch(L1, a, 1, b, now());
  assert_int_equal(a->end.p.cue, 120);
  assert_int_equal(pm_cp_process(L1).cue, 150);
  assert_int_equal(pm_state_get(L1), PM_STATE_USEFUL);
  at(180);
  pm_omp_task_switch(L1, b, 1, NULL, now());
  assert_int_equal(b->end.p.cue, 160);
  assert_int_equal(pm_state_get(L1), PM_STATE_SYNC_WAIT);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 20);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 60);
}

/* Tasks with a dependence, run from barrier waits.
 *   100 fork, both begin | 100 worker enters a barrier (cue 100) | 110 master creates A (cue 110)
 *   | 120 master creates B, edge A -> B | 125 master enters the barrier (cue 125) | 130 worker runs
 *   A: max(100, 110) = 110 | 180 A completes: end 160 | 190 master runs B: max(125, 120, 160) =
 *   160 | 200 B completes: end 170 | 210 both leave the barrier: the tasks' 170 reaches the worker.
 * worker: useful 0 + 50 (A), sync_wait 30 + 30; master: useful 25 + 10 (B), sync_wait 65 + 10. */
static void test_task_dependence(void **state) {
  (void)state;
  pm_region_id bar = pm_omp_region(PM_OMP_R_BARRIER);
  at(100);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  pm_omp_implicit_begin(L0, t, 0, 2, now());
  pm_omp_implicit_begin(L1, t, 1, 2, now());
  pm_omp_barrier_enter(L1, bar, PM_STATE_SYNC_WAIT, now());
  at(110);
  pm_omp_task *a = pm_omp_task_new(L0, 1, now());
  at(120);
  pm_omp_task *b = pm_omp_task_new(L0, 1, now());
  pm_omp_task_depend(a, b);
  at(125);
  pm_omp_barrier_enter(L0, bar, PM_STATE_SYNC_WAIT, now());
  at(130);
  pm_omp_task_switch(L1, NULL, 0, a, now());
  assert_int_equal(pm_state_get(L1), PM_STATE_USEFUL);
  assert_int_equal(pm_cp_process(L1).cue, 110);
  at(180);
  pm_omp_task_switch(L1, a, 1, NULL, now());
  assert_int_equal(pm_state_get(L1), PM_STATE_SYNC_WAIT);
  assert_int_equal(a->end.p.cue, 160);
  at(190);
  pm_omp_task_switch(L0, NULL, 0, b, now());
  assert_int_equal(pm_cp_process(L0).cue, 160);
  at(200);
  pm_omp_task_switch(L0, b, 1, NULL, now());
  assert_int_equal(pm_cp_process(L0).cue, 170);
  at(210);
  pm_omp_barrier_exit(L0, now());
  pm_omp_barrier_exit(L1, now());
  assert_int_equal(pm_cp_process(L1).cue, 170);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 50);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 60);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 35);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 75);
}

/* A GOMP task body runs as a call: 100 fork, both begin | 110 master: creation context (cue 110)
 * | 115 master enters a taskwait | 150 worker runs the body (its cue 150 already exceeds 110)
 * | 190 body ends: cue 190, to the team | 200 master leaves the taskwait: merges 190. */
static void test_task_body_taskwait(void **state) {
  (void)state;
  at(100);
  pm_omp_team *t = pm_omp_fork(L0, (const void *)omp_test_region_a, 2, now());
  pm_omp_implicit_begin(L0, t, 0, 2, now());
  pm_omp_implicit_begin(L1, t, 1, 2, now());
  at(110);
  pm_omp_cp2 c = pm_omp_task_context(L0, now());
  assert_int_equal(c.p.cue, 110);
  at(115);
  pm_omp_taskwait_enter(L0, pm_omp_region(PM_OMP_R_TASKWAIT), now());
  at(150);
  pm_state prev = pm_omp_task_body_begin(L1, &c, now());
  assert_int_equal(prev, PM_STATE_USEFUL);
  at(190);
  pm_omp_task_body_end(L1, prev, now());
  at(200);
  pm_omp_taskwait_exit(L0, now());
  assert_int_equal(pm_cp_process(L0).cue, 190);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_SYNC_WAIT], 85);
  assert_int_equal(pm_state_get(L0), PM_STATE_USEFUL);
}

/* A task created inside a timed creation call (the GOMP wrapper's "omp task create" node): entering
 * the node at 110 charges the master's 10 useful ns, so the creation clocks are those of a context
 * taken at 110 (cue 110), and the call's own 5 ns (110 -> 115) are runtime, not useful. */
static void test_task_create_enter(void **state) {
  (void)state;
  pm_omp_frame *f0, *f1;
  fork_two_at_100(&f0, &f1);
  at(110);
  pm_omp_cp2 c = pm_omp_task_create_enter(L0, pm_omp_region(PM_OMP_R_TASK_CREATE), now());
  assert_int_equal(c.p.cue, 110);
  assert_int_equal(c.g.cue, 110);
  assert_int_equal(pm_state_get(L0), PM_STATE_RUNTIME);
  at(115);
  pm_call_exit(L0, now());
  assert_int_equal(pm_state_get(L0), PM_STATE_USEFUL);
  assert_int_equal(L0->time[PM_CTX_PARALLEL][PM_STATE_RUNTIME], 5);
  assert_int_equal(pm_cp_process(L0).cue, 110);
}

/* A worker that runs a task after its implicit task ended (from libgomp's join barrier): the
 * region's statistics count the body as its useful time, not as waiting.
 *   100 fork, both begin | 150 worker ends | 160-190 it runs a task body | 200 master ends | 210 join
 * worker: useful 50 + 30 = 80, idle 10 (150->160) + 20 (190->210) = 30; master: useful 100, idle 10. */
static void test_task_in_join_wait(void **state) {
  (void)state;
  pm_omp_frame *f0, *f1;
  pm_omp_team *t = fork_two_at_100(&f0, &f1);
  pm_omp_cp2 c = pm_omp_task_context(L0, now());
  at(150);
  pm_omp_implicit_end(L1, f1, 1, now());
  at(160);
  pm_state prev = pm_omp_task_body_begin(L1, &c, now());
  assert_int_equal(prev, PM_STATE_SYNC_WAIT);
  at(190);
  pm_omp_task_body_end(L1, prev, now());
  at(200);
  pm_omp_implicit_end(L0, f0, 1, now());
  at(210);
  pm_omp_join(L0, t, now());
  pm_omp_rstat *r = region_of((const void *)omp_test_region_a);
  assert_int_equal(r->useful[1], 80);
  assert_int_equal(r->idle[1], 30);
  assert_int_equal(r->useful[0], 100);
  assert_int_equal(r->idle[0], 10);
  assert_int_equal(L1->time[PM_CTX_PARALLEL][PM_STATE_USEFUL], 80);
}

/* Nesting beyond PM_OMP_MAX_NEST: the inner regions are not measured, and the frames of the
 * enclosing ones stay consistent (every begin is matched by an end). */
static void test_nesting_overflow(void **state) {
  (void)state;
  pm_omp_team *t[PM_OMP_MAX_NEST + 2];
  pm_omp_frame *f[PM_OMP_MAX_NEST + 2];
  int n = 0;
  for (; n < PM_OMP_MAX_NEST + 2; n++) {
    at(10 * (uint64_t)(n + 1));
    t[n] = pm_omp_fork(L0, (const void *)omp_test_region_b, 1, now());
    f[n] = pm_omp_implicit_begin(L0, t[n], 0, 1, now());
  }
  assert_null(t[PM_OMP_MAX_NEST]);
  assert_null(f[PM_OMP_MAX_NEST]);
  assert_non_null(f[PM_OMP_MAX_NEST - 1]);
  while (n-- > 0) {
    pm_omp_implicit_end(L0, f[n], 1, now());
    if (t[n]) pm_omp_join(L0, t[n], now());
  }
  assert_int_equal(L0->depth, 0);
  assert_int_equal(L0->ctx, PM_CTX_SERIAL);
  assert_int_equal(region_of((const void *)omp_test_region_b)->instances, PM_OMP_MAX_NEST);
  pm_omp_thread *th = pm_omp_thread_of(L0);
  assert_int_equal(th->depth, 0);
  assert_int_equal(th->overflow, 0);
  assert_int_equal(th->forks, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fork_join_lazy_close, setup, teardown),
      cmocka_unit_test_setup_teardown(test_worker_passes_between_instances, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_parity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_exchange_owed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_peek_leaves_owed_exchange, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ompt_late_join, setup, teardown),
      cmocka_unit_test_setup_teardown(test_master_join_barrier, setup, teardown),
      cmocka_unit_test_setup_teardown(test_implicit_end_time, setup, teardown),
      cmocka_unit_test_setup_teardown(test_master_join_barrier_early_exit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_master_join_barrier_early_exit_after_barrier, setup, teardown),
      cmocka_unit_test_setup_teardown(test_member_beyond_cap_settles, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stale_frame_leaves_next_instance_alone, setup, teardown),
      cmocka_unit_test_setup_teardown(test_join_time_after_instances_without_worker, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_record_returns_to_creator, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_dependence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_body_taskwait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_switch_ends_then_starts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_create_enter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_task_in_join_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nesting_overflow, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
