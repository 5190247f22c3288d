/* Task-DAG critical path (lib/tasks/pm_taskgraph.c) with the virtual clock. Every expected value is
 * derived by hand from the event stream below, in nanoseconds after T0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_ptrmap.h"
#include "pm_taskgraph.h"

#define T0 1000000000ull
#define KA pm_tg_key(0, 1)
#define KB pm_tg_key(0, 2)
#define KC pm_tg_key(0, 3)

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_tg_reset();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_tg_reset();
  pm_core_reset_for_tests();
  return 0;
}

static void assert_cp(pm_cp_clock c, uint64_t cue, uint64_t com, uint64_t coo) {
  assert_int_equal(c.cue, cue);
  assert_int_equal(c.com, com);
  assert_int_equal(c.coo, coo);
}

static pm_tg_task *task_on(uintptr_t id, pm_tg_handle *h, int acc) {
  pm_tg_task *t = pm_tg_task_new((const void *)id);
  assert_non_null(t);
  t->flags |= PM_TG_HAS_BODY;
  if (h) {
    pm_tg_handle_ref(h);
    assert_int_equal(pm_tg_task_add_buf(t, h, acc, 8), 0);
  }
  return t;
}

/* The test's own reference to t dropped: unmapped (its key may be reused), then unreferenced. */
static void drop(pm_tg_task *t) {
  pm_tg_task_unmap(t);
  pm_tg_task_unref(t);
}

/* The graph's summary once a test dropped everything: no task record may be left. */
static pm_tg_summary summary_all_dropped(void) {
  pm_tg_summary s;
  pm_tg_get_summary(&s);
  assert_int_equal(s.live_tasks, 0);
  return s;
}

/* One body on worker W: pop at tp, start at ts, end at te (times after T0); the worker is idle
 * before the pop and after the end, like the StarPU adapter's timeline. */
static void run(pm_tg_task *t, pm_loc *W, pm_region_id r, uint64_t tp, uint64_t ts, uint64_t te, uint64_t key) {
  t->t_pop = T0 + tp;
  pm_state_set(W, PM_STATE_RUNTIME, T0 + tp);
  pm_call_enter(W, r, PM_STATE_USEFUL, T0 + ts);
  pm_tg_task_start(t, W, T0 + ts);
  pm_call_exit(W, T0 + te);
  pm_tg_task_end(t, W, T0 + te, key);
  pm_state_set(W, PM_STATE_IDLE, T0 + te);
}

/* Chain A -> B -> C on one handle (RW), A and C on worker W0, B on W1; submitted at t=0 by the
 * main thread (no own time yet: submission clock 0).
 *   W0: pop A 10, start 12, end 112 | W1: pop B 112, start 113, end 313 | W0: pop C 320, start 330, end 380
 * DAG: cue = 100 + 200 + 50 = 350; com adds the fetches 2 + 1 + 10 = 363; coo = 350.
 * Happens-before (worker clocks): A ends with W0 = {cue 100, com 112 (idle 10 + runtime 2 + body),
 * coo 100}; B: W1 at 113 has {0, 113, 0}, merges A -> {100, 113, 100}, ends {300, 313, 300};
 * C: W0 at 330 has {100, 330, 100}, merges B -> {300, 330, 300}, ends {350, 380, 350}. */
static void test_chain_exact(void **state) {
  (void)state;
  pm_loc *W0 = pm_loc_create_virtual(PM_ROLE_WORKER, "W0"), *W1 = pm_loc_create_virtual(PM_ROLE_WORKER, "W1");
  pm_state_set(W0, PM_STATE_IDLE, T0);
  pm_state_set(W1, PM_STATE_IDLE, T0);
  pm_region_id r = pm_region_register("cl", PM_PARADIGM_STARPU, PM_ROLE_TASK);
  pm_tg_handle *h = pm_tg_handle_get((void *)0x1000);
  pm_tg_task *A = task_on(0x10, h, PM_TG_ACC_WRITE), *B = task_on(0x20, h, PM_TG_ACC_WRITE),
             *C = task_on(0x30, h, PM_TG_ACC_WRITE);
  pm_tg_handle_put(h);
  pm_tg_thread th = {0};
  pm_tg_clk sub;
  pm_tg_thread_clock(&th, pm_loc_self(), 0, &sub);
  assert_int_equal(sub.dag_g.cue, 0);
  pm_tg_task_submit(A, &sub, T0);
  pm_tg_task_submit(B, &sub, T0);
  pm_tg_task_submit(C, &sub, T0);
  run(A, W0, r, 10, 12, 112, KA);
  assert_cp(A->clk->dag_g, 100, 102, 100);
  assert_cp(A->clk->hb_g, 100, 112, 100);
  run(B, W1, r, 112, 113, 313, KB);
  assert_cp(B->clk->dag_g, 300, 303, 300);
  assert_cp(B->clk->hb_g, 300, 313, 300);
  run(C, W0, r, 320, 330, 380, KC);
  assert_cp(C->clk->dag_g, 350, 363, 350);
  assert_cp(C->clk->dag_pl, 350, 363, 350);
  assert_cp(C->clk->hb_g, 350, 380, 350);
  assert_cp(pm_cp_global(W0), 350, 380, 350);
  /* what lies on the path: each task's body under its key, summing to the length */
  assert_int_equal(C->clk->comp.n, 3);
  assert_int_equal(C->clk->comp.e[0].key, KA);
  assert_int_equal(C->clk->comp.e[0].ns, 100);
  assert_int_equal(C->clk->comp.e[1].key, KB);
  assert_int_equal(C->clk->comp.e[1].ns, 200);
  assert_int_equal(C->clk->comp.e[2].key, KC);
  assert_int_equal(C->clk->comp.e[2].ns, 50);
  pm_tg_summary s;
  pm_tg_get_summary(&s);
  assert_int_equal(s.tasks, 3);
  assert_cp(s.max.dag_g, 350, 363, 350);
  assert_cp(s.max.hb_g, 350, 380, 350);
  pm_tg_task *all[3] = {A, B, C};
  for (int i = 0; i < 3; i++) drop(all[i]);
  summary_all_dropped();
}

/* DAG-only stream (no worker locations): A writes h [0,10]; B1 reads h, writes g1 [10,40];
 * B2 reads h, writes g2 [10,20]; C reads g1, g2 and writes h [40,45] -- it depends on A (last
 * writer) and on B1, B2 (readers of h since A, write after read): cue 45. A reader D of h after C
 * [45,47] sees C only: 47. The readers of h do not depend on each other: B2 = 20, not 50. */
static void test_readers_writers(void **state) {
  (void)state;
  pm_tg_handle *h = pm_tg_handle_get((void *)0x2000), *g1 = pm_tg_handle_get((void *)0x2001),
               *g2 = pm_tg_handle_get((void *)0x2002);
  pm_tg_task *A = task_on(1, h, PM_TG_ACC_WRITE), *B1 = task_on(2, h, PM_TG_ACC_READ),
             *B2 = task_on(3, h, PM_TG_ACC_READ), *C = task_on(4, h, PM_TG_ACC_WRITE),
             *D = task_on(5, h, PM_TG_ACC_READ);
  pm_tg_handle_ref(g1);
  pm_tg_task_add_buf(B1, g1, PM_TG_ACC_WRITE, 8);
  pm_tg_handle_ref(g2);
  pm_tg_task_add_buf(B2, g2, PM_TG_ACC_WRITE, 8);
  pm_tg_handle_ref(g1);
  pm_tg_task_add_buf(C, g1, PM_TG_ACC_READ, 8);
  pm_tg_handle_ref(g2);
  pm_tg_task_add_buf(C, g2, PM_TG_ACC_READ, 8);
  pm_tg_handle_put(h);
  pm_tg_handle_put(g1);
  pm_tg_handle_put(g2);
  pm_tg_task_start(A, NULL, T0);
  pm_tg_task_end(A, NULL, T0 + 10, KA);
  pm_tg_task_start(B1, NULL, T0 + 10);
  pm_tg_task_start(B2, NULL, T0 + 10);
  pm_tg_task_end(B2, NULL, T0 + 20, KB);
  pm_tg_task_end(B1, NULL, T0 + 40, KB);
  assert_int_equal(B2->clk->dag_g.cue, 20);
  assert_int_equal(B1->clk->dag_g.cue, 40);
  pm_tg_task_start(C, NULL, T0 + 40);
  pm_tg_task_end(C, NULL, T0 + 45, KC);
  assert_int_equal(C->clk->dag_g.cue, 45);
  assert_int_equal(C->clk->comp.n, 3); /* A 10 + B1 30 + C 5 */
  assert_int_equal(C->clk->comp.e[1].ns, 30);
  pm_tg_task_start(D, NULL, T0 + 45);
  pm_tg_task_end(D, NULL, T0 + 47, KA);
  assert_int_equal(D->clk->dag_g.cue, 47);
  pm_tg_task *all[] = {A, B1, B2, C, D};
  for (int i = 0; i < 5; i++) pm_tg_task_unref(all[i]);
}

/* Commuting writers C1 [10,30] and C2 [30,35] after A [0,10]: StarPU serialises them, but neither
 * depends on the other (C2 = 10 + 5 = 15). A reader R after them [35,36] depends on both: 31. */
static void test_commute(void **state) {
  (void)state;
  pm_tg_handle *h = pm_tg_handle_get((void *)0x3000);
  pm_tg_task *A = task_on(1, h, PM_TG_ACC_WRITE), *C1 = task_on(2, h, PM_TG_ACC_COMMUTE),
             *C2 = task_on(3, h, PM_TG_ACC_COMMUTE), *R = task_on(4, h, PM_TG_ACC_READ);
  pm_tg_handle_put(h);
  pm_tg_task_start(A, NULL, T0);
  pm_tg_task_end(A, NULL, T0 + 10, KA);
  pm_tg_task_start(C1, NULL, T0 + 10);
  pm_tg_task_end(C1, NULL, T0 + 30, KB);
  pm_tg_task_start(C2, NULL, T0 + 30);
  pm_tg_task_end(C2, NULL, T0 + 35, KB);
  assert_int_equal(C2->clk->dag_g.cue, 15);
  pm_tg_task_start(R, NULL, T0 + 35);
  pm_tg_task_end(R, NULL, T0 + 36, KC);
  assert_int_equal(R->clk->dag_g.cue, 31);
  pm_tg_task *all[] = {A, C1, C2, R};
  for (int i = 0; i < 4; i++) pm_tg_task_unref(all[i]);
}

/* Explicit dependencies through a body-less join J: A [0,10], B [0,20] -> J -> C [20,25]. C starts
 * before J's completion is signalled (StarPU runs J's callback after releasing C): C still sees
 * max(A, B) = 20 through J's predecessors, and ends at 25. Every record is freed at the end. */
static void test_explicit_and_bodyless(void **state) {
  (void)state;
  pm_tg_task *A = task_on(1, NULL, 0), *B = task_on(2, NULL, 0), *C = task_on(3, NULL, 0);
  pm_tg_task *J = pm_tg_task_new((void *)4);
  assert_int_equal(pm_tg_task_add_pred(J, A), 0);
  assert_int_equal(pm_tg_task_add_pred(J, B), 0);
  assert_int_equal(pm_tg_task_add_pred(C, J), 0);
  pm_tg_task_start(A, NULL, T0);
  pm_tg_task_start(B, NULL, T0);
  pm_tg_task_end(A, NULL, T0 + 10, KA);
  pm_tg_task_end(B, NULL, T0 + 20, KB);
  drop(A); /* ended: J still holds them */
  drop(B);
  pm_tg_task_start(C, NULL, T0 + 20);
  assert_int_equal(C->clk->dag_g.cue, 20);
  pm_tg_task_end_bodyless(J);
  assert_int_equal(J->clk->dag_g.cue, 20);
  drop(J);
  pm_tg_task_end(C, NULL, T0 + 25, KC);
  assert_int_equal(C->clk->dag_g.cue, 25);
  drop(C);
  pm_tg_summary s = summary_all_dropped();
  assert_int_equal(s.tasks, 3);
  assert_int_equal(s.bodyless, 1);
}

/* A task with 10 explicit predecessors (the first is held in the record, then an array that
 * outgrows its small pooled block of 4 twice: 1 -> 4 -> 8 -> 16). P1..P10 start at 0 and run 10 * i ns, except P7, which runs 500: S's
 * input at its start is the longest predecessor, cue 500 (100 if a growth lost P7). Every
 * predecessor's reference is dropped at S's start: no record is left once all are unreferenced. */
static void test_many_preds(void **state) {
  (void)state;
  pm_tg_task *P[10], *S = task_on(100, NULL, 0);
  for (int i = 0; i < 10; i++) {
    P[i] = task_on((uintptr_t)(i + 1), NULL, 0);
    assert_int_equal(pm_tg_task_add_pred(S, P[i]), 0);
  }
  assert_int_equal(S->npreds, 10);
  assert_int_equal(S->cap_preds, 16);
  for (int i = 0; i < 10; i++) {
    pm_tg_task_start(P[i], NULL, T0);
    pm_tg_task_end(P[i], NULL, T0 + (i == 6 ? 500 : 10 * (uint64_t)(i + 1)), pm_tg_key(0, (uint64_t)(i + 1)));
    drop(P[i]); /* ended: S still holds them */
  }
  pm_tg_task_start(S, NULL, T0 + 500);
  assert_int_equal(S->clk->dag_g.cue, 500);
  assert_int_equal(S->npreds, 0); /* released at the start */
  pm_tg_task_end(S, NULL, T0 + 510, pm_tg_key(0, 100));
  assert_int_equal(S->clk->dag_g.cue, 510);
  drop(S);
  pm_tg_summary s = summary_all_dropped();
  assert_int_equal(s.tasks, 11);
}

/* One explicit predecessor is held in the record itself; a second moves it into an array. A runs
 * [0,300], B [0,100]: S1 (after A only) starts at 300 with cue 300; S2 (after A, then B) starts at
 * 300 with cue 300 -- 100 if the move into the array lost A, its first. Both release their
 * predecessors at their start: no record is left once all are dropped. */
static void test_one_pred_in_record(void **state) {
  (void)state;
  pm_tg_task *A = task_on(1, NULL, 0), *B = task_on(2, NULL, 0);
  pm_tg_task *S1 = task_on(3, NULL, 0), *S2 = task_on(4, NULL, 0);
  assert_int_equal(pm_tg_task_add_pred(S1, A), 0);
  assert_int_equal(S1->cap_preds, 1);
  assert_ptr_equal(pm_tg_task_preds(S1)[0], A);
  assert_int_equal(pm_tg_task_add_pred(S2, A), 0);
  assert_int_equal(pm_tg_task_add_pred(S2, B), 0);
  assert_int_equal(S2->npreds, 2);
  assert_int_equal(S2->cap_preds, 4);
  assert_ptr_equal(pm_tg_task_preds(S2)[0], A);
  assert_ptr_equal(pm_tg_task_preds(S2)[1], B);
  assert_int_equal(A->refs, 3); /* its own life, S1, S2 */
  pm_tg_task_start(A, NULL, T0);
  pm_tg_task_end(A, NULL, T0 + 300, KA);
  pm_tg_task_start(B, NULL, T0);
  pm_tg_task_end(B, NULL, T0 + 100, KB);
  drop(A);
  drop(B);
  pm_tg_task_start(S1, NULL, T0 + 300);
  assert_int_equal(S1->clk->dag_g.cue, 300);
  assert_int_equal(S1->npreds, 0);
  assert_null(S1->preds);
  pm_tg_task_start(S2, NULL, T0 + 300);
  assert_int_equal(S2->clk->dag_g.cue, 300);
  assert_int_equal(S2->npreds, 0);
  pm_tg_task_end(S1, NULL, T0 + 310, KC);
  pm_tg_task_end(S2, NULL, T0 + 310, KC);
  drop(S1);
  drop(S2);
  pm_tg_summary s = summary_all_dropped();
  assert_int_equal(s.tasks, 4);
}

/* End dependencies: E is an end dependency of B in A -> B -> C (one handle, RW then R); E has a
 * handle of its own. B's output is max(B's own end, E's end); E never delays B's start.
 * Release after B's end: A [0,100], B [100,200] (own end 200), E [0,400], released into B -> B's
 * output and the handle become 400, C [400,450] -> 450 (without the end dependency 250).
 * Release before B's end: E [0,300] released first, A [0,100],
 * B [100,200] -> max(200, 300) = 300, not 400 (the release is no input of B), C [300,350] -> 350. */
static void test_end_deps(void **state) {
  (void)state;
  for (int late = 1; late >= 0; late--) {
    uintptr_t base = late ? 0x100 : 0x200;
    pm_tg_handle *h = pm_tg_handle_get((void *)(base + 1)), *he = pm_tg_handle_get((void *)(base + 2));
    pm_tg_task *A = task_on(base + 10, h, PM_TG_ACC_WRITE), *B = task_on(base + 20, h, PM_TG_ACC_WRITE),
               *C = task_on(base + 30, h, PM_TG_ACC_READ), *E = task_on(base + 40, he, PM_TG_ACC_WRITE);
    pm_tg_handle_put(h);
    pm_tg_handle_put(he);
    assert_int_equal(pm_tg_task_end_deps_add(B, 1), 0);
    uint64_t e_end = late ? 400 : 300;
    if (!late) {
      pm_tg_task_start(E, NULL, T0);
      pm_tg_task_end(E, NULL, T0 + e_end, KC);
      pm_tg_task_end_dep_release(B, E->clk);
    }
    pm_tg_task_start(A, NULL, T0);
    pm_tg_task_end(A, NULL, T0 + 100, KA);
    pm_tg_task_start(B, NULL, T0 + 100);
    assert_int_equal(B->clk->dag_g.cue, 100); /* E is no input of B */
    pm_tg_task_end(B, NULL, T0 + 200, KB);
    if (late) {
      assert_int_equal(B->clk->dag_g.cue, 200);
      pm_tg_task_start(E, NULL, T0);
      pm_tg_task_end(E, NULL, T0 + e_end, KC);
      pm_tg_task_end_dep_release(B, E->clk);
    }
    assert_int_equal(B->clk->dag_g.cue, e_end);
    assert_int_equal(B->clk->dag_pl.cue, e_end);
    pm_tg_task_start(C, NULL, T0 + e_end);
    assert_int_equal(C->clk->dag_g.cue, e_end); /* through the handle B published again */
    pm_tg_task_end(C, NULL, T0 + e_end + 50, KA);
    assert_int_equal(C->clk->dag_g.cue, e_end + 50);
    pm_tg_task *all[] = {A, B, C, E};
    for (int i = 0; i < 4; i++) drop(all[i]);
  }
  pm_tg_summary s = summary_all_dropped();
  assert_int_equal(s.max.dag_g.cue, 450);
}

/* Asynchronous partitioning, submitted before anything runs: A writes the parent P; partition
 * (child K <- P); B writes K, R reads K; unpartition (P <- K); D reads P.
 * A [0,20]; B [20,30] inherits P (20; without the link it would start from 0); R [30,35] depends on
 * B through K (B's exclusive write ended the link); D [35,45] inherits K's writer 30 and reader 35
 * (without the link it would see only A: 20). */
static void test_partition_links(void **state) {
  (void)state;
  pm_tg_handle *P = pm_tg_handle_get((void *)0x501), *K = pm_tg_handle_get((void *)0x502);
  pm_tg_task *A = task_on(0x510, P, PM_TG_ACC_WRITE);
  pm_tg_handle_link(K, P);
  pm_tg_task *B = task_on(0x520, K, PM_TG_ACC_WRITE), *R = task_on(0x525, K, PM_TG_ACC_READ);
  pm_tg_handle_link(P, K);
  pm_tg_task *D = task_on(0x530, P, PM_TG_ACC_READ);
  pm_tg_handle_put(P);
  pm_tg_handle_put(K);
  pm_tg_task_start(A, NULL, T0);
  pm_tg_task_end(A, NULL, T0 + 20, KA);
  pm_tg_task_start(B, NULL, T0 + 20);
  assert_int_equal(B->clk->dag_g.cue, 20);
  pm_tg_task_end(B, NULL, T0 + 30, KB);
  pm_tg_task_start(R, NULL, T0 + 30);
  assert_int_equal(R->clk->dag_g.cue, 30);
  pm_tg_task_end(R, NULL, T0 + 35, KB);
  pm_tg_task_start(D, NULL, T0 + 35);
  assert_int_equal(D->clk->dag_g.cue, 35);
  pm_tg_task_end(D, NULL, T0 + 45, KC);
  assert_int_equal(D->clk->dag_g.cue, 45);
  pm_tg_task *all[] = {A, B, R, D};
  for (int i = 0; i < 4; i++) drop(all[i]);
  summary_all_dropped();
}

/* Tag 30 depends on tags 10 and 20 (declared); T10 [0,7], T20 [0,12]; T30 [12,15] -> 15. A tag
 * nobody declared keeps no state. */
static void test_tags(void **state) {
  (void)state;
  uint64_t deps[2] = {10, 20};
  pm_tg_tag_declare(30, 2, deps);
  pm_tg_task *T10 = task_on(1, NULL, 0), *T20 = task_on(2, NULL, 0), *T30 = task_on(3, NULL, 0),
             *T99 = task_on(4, NULL, 0);
  T10->tag = 10;
  T20->tag = 20;
  T30->tag = 30;
  T99->tag = 99;
  T10->flags |= PM_TG_USE_TAG;
  T20->flags |= PM_TG_USE_TAG;
  T30->flags |= PM_TG_USE_TAG;
  T99->flags |= PM_TG_USE_TAG;
  pm_tg_task_start(T10, NULL, T0);
  pm_tg_task_start(T20, NULL, T0);
  pm_tg_task_start(T99, NULL, T0);
  pm_tg_task_end(T10, NULL, T0 + 7, KA);
  pm_tg_task_end(T20, NULL, T0 + 12, KB);
  pm_tg_task_end(T99, NULL, T0 + 50, KB);
  pm_tg_task_start(T30, NULL, T0 + 12);
  assert_int_equal(T30->clk->dag_g.cue, 12);
  pm_tg_task_end(T30, NULL, T0 + 15, KC);
  assert_int_equal(T30->clk->dag_g.cue, 15);
  pm_tg_tag_forget(20); /* a removed tag no longer feeds its dependents */
  pm_tg_clk in;
  memset(&in, 0, sizeof in);
  pm_tg_tag_merge_deps(30, &in);
  assert_int_equal(in.dag_g.cue, 7);
  pm_tg_task *all[] = {T10, T20, T30, T99};
  for (int i = 0; i < 4; i++) pm_tg_task_unref(all[i]);
}

/* An application thread's DAG clock: its own useful time (50), then a wait merging a task clock
 * (cue 100 = key K), then 30 more useful: 130 = K 100 + application 30. Its location took no part
 * in the DAG clock (after the merge its useful time is still 80). */
static void test_thread_clock(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_tg_thread th = {0};
  pm_tg_clk c, task;
  pm_clock_advance(50);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_tg_thread_clock(&th, L, 3, &c);
  assert_int_equal(c.dag_g.cue, 50);
  assert_int_equal(c.comp.n, 1);
  assert_int_equal(c.comp.e[0].key, pm_tg_key(3, PM_TG_KEY_APP));
  memset(&task, 0, sizeof task);
  pm_tg_clk_advance(&task, 100, 100, 100, KA);
  pm_tg_thread_merge(&th, &task);
  pm_clock_advance(30);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_tg_thread_clock(&th, L, 3, &c);
  assert_int_equal(c.dag_g.cue, 130);
  assert_int_equal(pm_tg_comp_sum(&c.comp), 130);
  assert_int_equal(c.comp.e[0].key, KA);
  assert_int_equal(c.comp.e[1].key, pm_tg_key(3, PM_TG_KEY_APP));
  assert_int_equal(c.comp.e[1].ns, 30);
  assert_int_equal(c.hb_g.cue, 80);
}

/* Tasks submitted by an application thread (pm_tg_task_submit_by) carry its clock at submission.
 * The thread (rank 3, own key KAPP) alternates useful time and runtime (submissions):
 *   useful 40 | submit A | runtime 10, useful 20 | submit B | (a wait merges a task clock: cue 500,
 *   key KA) | runtime 5, useful 7 | submit C | useful 3 | submit D
 * Own time (cue = useful; com = useful + runtime; coo = useful): A {40,40,40}, B {60,70,60},
 * C {67,82,67}, D {70,85,70}; these are also the location's clocks (hb_*), which no merge touched.
 * DAG clocks: A and B = own time; after the merge the thread's DAG clock is {500,500,500} plus
 * its own time since: C {507,512,507} (KA 500 + KAPP 7), D {510,515,510} (KAPP 10).
 * Before D, the location's global clock is merged with {900,900,900}: D's hb_g is {903,903,903}.
 * A and B share one snapshot of the thread's clock; each merge ends a snapshot, so C and D have
 * one each. A snapshot is freed once the tasks that share it have their own clocks. */
#define KAPP pm_tg_key(3, PM_TG_KEY_APP)
static void own_time(pm_loc *L, uint64_t runtime, uint64_t useful) {
  pm_state_set(L, PM_STATE_RUNTIME, pm_clock_now());
  pm_clock_advance(runtime);
  pm_state_set(L, PM_STATE_USEFUL, pm_clock_now());
  pm_clock_advance(useful);
  pm_state_set(L, PM_STATE_RUNTIME, pm_clock_now());
}
static void submit_after(pm_loc *L, pm_tg_thread *th, pm_tg_task *t, uint64_t runtime, uint64_t useful) {
  own_time(L, runtime, useful);
  t->flags |= PM_TG_FRESH;
  pm_tg_task_submit_by(t, th, L, 3, pm_clock_now());
}
/* The thread waits for a clock, as the adapter's waits do (sp_sync.c): own time first, then the edge. */
static void wait_for(pm_loc *L, pm_tg_thread *th, const pm_tg_clk *c) {
  pm_tg_thread_sync(th, L, 3);
  pm_tg_thread_merge(th, c);
}
static void assert_app_only(const pm_tg_clk *c, uint64_t cue, uint64_t com) {
  assert_cp(c->dag_g, cue, com, cue);
  assert_cp(c->dag_pl, cue, com, cue);
  assert_cp(c->hb_g, cue, com, cue);
  assert_cp(c->hb_pl, cue, com, cue);
  assert_int_equal(c->comp.n, 1);
  assert_int_equal(c->comp.e[0].key, KAPP);
  assert_int_equal(c->comp.e[0].ns, cue);
}
static void test_submitter_snapshot(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_tg_thread th = {0};
  pm_tg_task *A = task_on(0x10, NULL, 0), *B = task_on(0x20, NULL, 0), *C = task_on(0x30, NULL, 0),
             *D = task_on(0x40, NULL, 0);
  submit_after(L, &th, A, 0, 40);
  submit_after(L, &th, B, 10, 20);
  assert_null(A->clk); /* pending: no clock of its own yet */
  assert_int_equal(pm_tg_snapshots_live(), 1);
  pm_tg_clk task;
  memset(&task, 0, sizeof task);
  pm_tg_clk_advance(&task, 500, 500, 500, KA);
  wait_for(L, &th, &task);
  submit_after(L, &th, C, 5, 7);
  pm_cp_merge_global(L, (pm_cp_clock){900, 900, 900}); /* e.g. a message from another process */
  submit_after(L, &th, D, 0, 3);
  assert_int_equal(pm_tg_snapshots_live(), 3);
  assert_app_only(pm_tg_task_clk(A), 40, 40);
  assert_app_only(pm_tg_task_clk(B), 60, 70);
  assert_int_equal(pm_tg_snapshots_live(), 2); /* the first one is unused now */
  const pm_tg_clk *c = pm_tg_task_clk(C), *d = pm_tg_task_clk(D);
  assert_cp(c->dag_g, 507, 512, 507);
  assert_cp(c->dag_pl, 507, 512, 507);
  assert_cp(c->hb_g, 67, 82, 67);
  assert_int_equal(c->comp.n, 2);
  assert_int_equal(c->comp.e[0].key, KA);
  assert_int_equal(c->comp.e[0].ns, 500);
  assert_int_equal(c->comp.e[1].key, KAPP);
  assert_int_equal(c->comp.e[1].ns, 7);
  assert_cp(d->dag_g, 510, 515, 510);
  assert_cp(d->hb_pl, 70, 85, 70);
  assert_cp(d->hb_g, 903, 903, 903);
  assert_int_equal(d->comp.e[1].ns, 10);
  pm_tg_task *all[] = {A, B, C, D};
  for (int i = 0; i < 4; i++) pm_tg_task_unref(all[i]);
  assert_int_equal(pm_tg_snapshots_live(), 1); /* the thread's current one */
}

/* Records made before their submission, as a dependency declaration makes them
 * (pm_tg_task_find_or_new), are submitted like records made at the submission: A and its declared
 * successor B share the thread's snapshot and have no clock of their own until one is read. Own
 * time as in test_submitter_snapshot: A after 40 useful {40,40,40}, B after 10 runtime + 20 useful
 * {60,70,60}. C's clock is read before its submission (materialized: zero); its submission after
 * 5 runtime + 7 useful merges the thread's clock into it: {67,82,67}, and takes no snapshot. */
static void test_declared_records_share_snapshot(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_tg_thread th = {0};
  int made = 0;
  pm_tg_task *t[3];
  for (int i = 0; i < 3; i++) {
    t[i] = pm_tg_task_find_or_new((const void *)(0x50 + 16 * (uintptr_t)i), &made);
    assert_non_null(t[i]);
    assert_true(made);
    t[i]->flags |= PM_TG_HAS_BODY;
  }
  pm_tg_task *A = t[0], *B = t[1], *C = t[2];
  assert_int_equal(pm_tg_task_add_pred(B, A), 0);
  own_time(L, 0, 40);
  pm_tg_task_submit_by(A, &th, L, 3, pm_clock_now());
  own_time(L, 10, 20);
  pm_tg_task_submit_by(B, &th, L, 3, pm_clock_now());
  assert_null(A->clk);
  assert_null(B->clk);
  assert_int_equal(pm_tg_snapshots_live(), 1);
  assert_cp(pm_tg_task_clk(C)->dag_g, 0, 0, 0);
  own_time(L, 5, 7);
  pm_tg_task_submit_by(C, &th, L, 3, pm_clock_now());
  assert_int_equal(pm_tg_snapshots_live(), 1);
  assert_app_only(pm_tg_task_clk(A), 40, 40);
  assert_app_only(pm_tg_task_clk(B), 60, 70);
  assert_app_only(pm_tg_task_clk(C), 67, 82);
  for (int i = 0; i < 3; i++) drop(t[i]);
  assert_int_equal(pm_tg_snapshots_live(), 1); /* the thread's current one */
}

/* A composition full of other keys (6 x 100 ns after a merge) where the thread's own time is the
 * smallest share: each step of own time goes to 'other' while it is <= 100. E, F and G are
 * submitted after 60, 120 and 180 of own time, in steps of 60: G's path holds the 6 keys and
 * other = 180. (G's clock as E's advanced by 120 in one step would have displaced a key:
 * other 160, KAPP 120.) */
static void test_submitter_snapshot_full_composition(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_tg_thread th = {0};
  pm_tg_clk task;
  memset(&task, 0, sizeof task);
  for (uint32_t k = 1; k <= PM_TG_COMP_N; k++) pm_tg_clk_advance(&task, 100, 100, 100, pm_tg_key(0, 10 + k));
  wait_for(L, &th, &task);
  pm_tg_task *t[3] = {task_on(0x50, NULL, 0), task_on(0x60, NULL, 0), task_on(0x70, NULL, 0)};
  for (int i = 0; i < 3; i++) submit_after(L, &th, t[i], 0, 60);
  for (int i = 0; i < 3; i++) {
    const pm_tg_clk *c = pm_tg_task_clk(t[i]);
    assert_int_equal(c->dag_g.cue, 600 + 60 * (uint64_t)(i + 1));
    assert_int_equal(c->comp.n, PM_TG_COMP_N);
    assert_int_equal(c->comp.other, 60 * (uint64_t)(i + 1));
    for (uint32_t j = 0; j < c->comp.n; j++) assert_int_equal(c->comp.e[j].ns, 100);
    pm_tg_task_unref(t[i]);
  }
}

/* Snapshots shared across threads: the application thread submits 20000 tasks (a merge every
 * 1000 ends a snapshot) while a worker thread gives each its own clock and drops it, as StarPU's
 * workers do. Each task's clock is the location's at its submission (recorded by the submitter);
 * in the end only the thread's current snapshot is alive (none leaked, none freed twice). */
enum { SHARED_N = 20000 };
static struct {
  pm_tg_task *task[SHARED_N];
  uint64_t hb_cue[SHARED_N];
  int published, bad;
} shared;
static void *shared_worker(void *arg) {
  (void)arg;
  for (int done = 0; done < SHARED_N;) {
    int upto = __atomic_load_n(&shared.published, __ATOMIC_ACQUIRE);
    for (; done < upto; done++) {
      const pm_tg_clk *c = pm_tg_task_clk(shared.task[done]);
      if (c->hb_g.cue != shared.hb_cue[done] || c->hb_pl.cue != shared.hb_cue[done]) shared.bad++;
      pm_tg_task_unref(shared.task[done]);
    }
  }
  (void)pm_tg_snapshots_live(); /* returns this thread's cache of freed snapshots */
  return NULL;
}
static void test_snapshot_across_threads(void **state) {
  (void)state;
  pm_loc *L = pm_loc_self();
  pm_tg_thread th = {0};
  pthread_t w;
  memset(&shared, 0, sizeof shared);
  assert_int_equal(pthread_create(&w, NULL, shared_worker, NULL), 0);
  for (int i = 0; i < SHARED_N; i++) {
    if (i % 1000 == 999) {
      pm_tg_clk c;
      memset(&c, 0, sizeof c);
      pm_tg_clk_advance(&c, 1000000 + (uint64_t)i, 1000000 + (uint64_t)i, 0, KA);
      wait_for(L, &th, &c);
    }
    pm_tg_task *t = task_on(0x100000 + 16 * (uintptr_t)i, NULL, 0);
    pm_tg_task_unmap(t); /* the worker drops it; its key may be reused meanwhile */
    submit_after(L, &th, t, (uint64_t)(i % 3), 1 + (uint64_t)(i % 7));
    shared.task[i] = t;
    shared.hb_cue[i] = pm_cp_global(L).cue;
    __atomic_store_n(&shared.published, i + 1, __ATOMIC_RELEASE);
  }
  assert_int_equal(pthread_join(w, NULL), 0);
  assert_int_equal(shared.bad, 0);
  assert_int_equal(pm_tg_snapshots_live(), 1);
}

/* Across processes: the wire form keeps the global parts; a receive merges them with its local
 * input (max) and adds the transfer time to COO only. */
static void test_remote_merge(void **state) {
  (void)state;
  pm_tg_clk remote, got, local;
  memset(&remote, 0, sizeof remote);
  pm_tg_clk_advance(&remote, 9, 11, 9, pm_tg_key(1, 7));
  remote.hb_g = (pm_cp_clock){20, 30, 25};
  remote.dag_pl = (pm_cp_clock){1, 1, 1}; /* process-local: never sent */
  uint64_t w[PM_TG_WIRE_WORDS];
  pm_tg_clk_pack(&remote, w);
  pm_tg_clk_unpack(&got, w);
  assert_cp(got.dag_g, 9, 11, 9);
  assert_cp(got.hb_g, 20, 30, 25);
  assert_cp(got.dag_pl, 0, 0, 0);
  assert_int_equal(got.comp.n, 1);
  assert_int_equal(got.comp.e[0].key, pm_tg_key(1, 7));
  memset(&local, 0, sizeof local);
  pm_tg_clk_advance(&local, 5, 40, 5, KA);
  pm_tg_clk_merge_global(&local, &got);
  pm_tg_clk_add_mpi(&local, 4);
  assert_cp(local.dag_g, 9, 40, 13);
  assert_cp(local.dag_pl, 5, 40, 9);
  assert_int_equal(local.coo_mpi, 4);
  assert_int_equal(local.comp.e[0].key, pm_tg_key(1, 7));
}

/* The composition keeps PM_TG_COMP_N keys; the smallest share moves to 'other'; the sum holds. */
static void test_composition_bound(void **state) {
  (void)state;
  pm_tg_comp c;
  memset(&c, 0, sizeof c);
  for (uint64_t k = 1; k <= 7; k++) pm_tg_comp_add(&c, k, k);
  assert_int_equal(c.n, PM_TG_COMP_N);
  assert_int_equal(c.other, 1);
  assert_int_equal(pm_tg_comp_sum(&c), 28);
  pm_tg_comp_add(&c, 3, 10); /* an existing key grows in place */
  assert_int_equal(pm_tg_comp_sum(&c), 38);
  assert_int_equal(c.other, 1);
}

/* A handle unregistered and a new one registered at the same address start afresh. */
static void test_handle_forget(void **state) {
  (void)state;
  pm_tg_handle *h = pm_tg_handle_get((void *)0x4000);
  pm_tg_clk c, in;
  memset(&c, 0, sizeof c);
  c.dag_g.cue = 50;
  pm_tg_handle_post(h, PM_TG_ACC_WRITE, &c);
  pm_tg_handle_forget((void *)0x4000);
  memset(&in, 0, sizeof in);
  pm_tg_handle_pre(h, PM_TG_ACC_READ, &in); /* the old entry lives while referenced */
  assert_int_equal(in.dag_g.cue, 50);
  pm_tg_handle_put(h);
  pm_tg_handle *n = pm_tg_handle_get((void *)0x4000);
  memset(&in, 0, sizeof in);
  pm_tg_handle_pre(n, PM_TG_ACC_WRITE, &in);
  assert_int_equal(in.dag_g.cue, 0);
  pm_tg_handle_put(n);
  pm_tg_summary s;
  pm_tg_get_summary(&s);
  assert_int_equal(s.live_handles, 1);
}

/* The striped map against a reference: random inserts and removals of aligned keys (long probe
 * runs, backward-shift deletion). */
static void test_ptrmap_reference(void **state) {
  (void)state;
  static pm_ptrmap m;
  enum { N = 4000 };
  static void *ref[N];
  pm_ptrmap_init(&m);
  uint64_t x = 12345;
  for (int step = 0; step < 40000; step++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int k = (int)((x >> 33) % N);
    const void *key = (const void *)(uintptr_t)(0x10000 + 64 * (uintptr_t)k);
    if ((x >> 20) & 1) {
      void *v = (void *)(uintptr_t)(step + 1);
      assert_int_equal(pm_ptrmap_put(&m, key, v), 0);
      ref[k] = v;
    } else {
      assert_ptr_equal(pm_ptrmap_take(&m, key), ref[k]);
      ref[k] = NULL;
    }
    if (step % 997 == 0)
      for (int j = 0; j < N; j++)
        assert_ptr_equal(pm_ptrmap_get(&m, (const void *)(uintptr_t)(0x10000 + 64 * (uintptr_t)j)), ref[j]);
  }
  uint64_t live = 0;
  for (int j = 0; j < N; j++) live += ref[j] != NULL;
  assert_int_equal(pm_ptrmap_size(&m), live);
  pm_ptrmap_destroy(&m);
}

/* pm_tg_task_find_or_new: one record per key even when two threads ask for the same keys at once,
 * and exactly one of the callers is told it made it. */
enum { RACE_KEYS = 20000 };
static pm_tg_task *race_rec[2][RACE_KEYS];
static int race_made[2][RACE_KEYS];
static int race_arrived[RACE_KEYS];
static void *race_thread(void *arg) {
  int me = (int)(uintptr_t)arg;
  for (int k = 0; k < RACE_KEYS; k++) {
    /* both threads ask for key k at the same moment (a spin rendezvous per key) */
    __atomic_add_fetch(&race_arrived[k], 1, __ATOMIC_ACQ_REL);
    /* spin (both on a CPU: they meet within ~100 ns), then yield (the other one is waiting for a CPU) */
    for (int spin = 0; __atomic_load_n(&race_arrived[k], __ATOMIC_ACQUIRE) < 2; spin++)
      if (spin > 2000) sched_yield();
    race_rec[me][k] =
        pm_tg_task_find_or_new((const void *)(uintptr_t)(0x100000 + 64 * (uintptr_t)k), &race_made[me][k]);
  }
  return NULL;
}

static void test_find_or_new_race(void **state) {
  (void)state;
  int made = -1;
  pm_tg_task *t = pm_tg_task_find_or_new((const void *)0x40, &made);
  assert_non_null(t);
  assert_int_equal(made, 1);
  assert_true(t->flags & PM_TG_MAPPED);
  assert_ptr_equal(pm_tg_task_find((const void *)0x40), t);
  assert_ptr_equal(pm_tg_task_find_or_new((const void *)0x40, &made), t);
  assert_int_equal(made, 0);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, race_thread, (void *)(uintptr_t)i), 0);
  for (int i = 0; i < 2; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int k = 0; k < RACE_KEYS; k++) {
    assert_non_null(race_rec[0][k]);
    assert_ptr_equal(race_rec[0][k], race_rec[1][k]);
    assert_int_equal(race_made[0][k] + race_made[1][k], 1);
    pm_tg_task_unref(race_rec[0][k]); /* unmaps it: the key is free again */
    assert_null(pm_tg_task_find((const void *)(uintptr_t)(0x100000 + 64 * (uintptr_t)k)));
  }
  pm_tg_task_unref(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_chain_exact, setup, teardown),
      cmocka_unit_test_setup_teardown(test_readers_writers, setup, teardown),
      cmocka_unit_test_setup_teardown(test_commute, setup, teardown),
      cmocka_unit_test_setup_teardown(test_explicit_and_bodyless, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_preds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_one_pred_in_record, setup, teardown),
      cmocka_unit_test_setup_teardown(test_end_deps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_partition_links, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tags, setup, teardown),
      cmocka_unit_test_setup_teardown(test_thread_clock, setup, teardown),
      cmocka_unit_test_setup_teardown(test_submitter_snapshot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_declared_records_share_snapshot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_submitter_snapshot_full_composition, setup, teardown),
      cmocka_unit_test_setup_teardown(test_snapshot_across_threads, setup, teardown),
      cmocka_unit_test_setup_teardown(test_remote_merge, setup, teardown),
      cmocka_unit_test_setup_teardown(test_composition_bound, setup, teardown),
      cmocka_unit_test_setup_teardown(test_handle_forget, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ptrmap_reference, setup, teardown),
      cmocka_unit_test_setup_teardown(test_find_or_new_race, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
