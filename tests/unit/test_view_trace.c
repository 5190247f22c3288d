/* popmeter view's trace reader (view/vw_trace.c) on a synthetic run written as popmeter writes its
 * traces (tests/bench/view_synth.c: 2 ranks x 2 workers, 60 tasks of 3 codelets, 6 messages): every
 * task read back with exactly its times and attributes, on the lane of its worker; the submissions
 * as runtime states of the main threads; the messages matched between the progress threads; and
 * the critical path rebuilt from the tasks' clocks is the chain the generator built. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vw.h"
#include "view_synth.h"

static char dir[256];
static vs_run run;
static pm_profile *prof;

static int setup(void **state) {
  (void)state;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/vwtraceXXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return -1;
  vs_params p = {.tasks = 60, .ranks = 2, .workers = 2, .codelets = 3, .fronts = 10, .msg_every = 10, .seed = 1};
  if (vs_generate(&p, &run) != 0 || vs_write(&run, dir) != 0) return -1;
  char path[300], err[512];
  snprintf(path, sizeof path, "%s/popmeter.json", dir);
  prof = pm_profile_read_file(path, err, sizeof err);
  if (!prof) fprintf(stderr, "%s\n", err);
  return prof ? 0 : -1;
}
static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return -1;
  pm_profile_free(prof);
  vs_free(&run);
  return 0;
}

static int lane_of(const vw_trace *t, int rank, const char *name) {
  for (int i = 0; i < t->nlanes; i++)
    if (t->lane[i].process == rank && !strcmp(t->lane[i].name, name)) return i;
  fail_msg("no lane %s on rank %d", name, rank);
  return -1;
}

/* The trace task of generated task g: on its worker's lane, starting at its start. */
static size_t find(const vw_trace *t, const vs_task *g) {
  char name[16];
  snprintf(name, sizeof name, "CPU %d", g->worker);
  int lane = lane_of(t, g->rank, name);
  for (size_t i = 0; i < t->ntasks; i++)
    if (t->task[i].lane == lane && t->task[i].start == g->start) return i;
  fail_msg("task at %llu on rank %d %s not read", (unsigned long long)g->start, g->rank, name);
  return 0;
}

static void test_read(void **state) {
  (void)state;
  char path[300], err[512];
  snprintf(path, sizeof path, "%s/traces.otf2", dir);
  vw_trace t;
  if (vw_trace_read(path, prof, &t, err, sizeof err) != 0) fail_msg("%s", err);
  assert_int_equal(t.nlanes, 8);
  assert_int_equal(t.ntasks, 60);
  assert_int_equal(t.span, run.span + 1);
  int main0 = lane_of(&t, 0, "main"), cpu1 = lane_of(&t, 1, "CPU 1");
  assert_int_equal(t.lane[main0].role, PM_ROLE_MAIN);
  assert_int_equal(t.lane[cpu1].role, PM_ROLE_WORKER);
  assert_int_equal(t.lane[lane_of(&t, 1, "StarPU-MPI progress")].role, PM_ROLE_PROGRESS);
  for (size_t i = 0; i < run.p.tasks; i++) {
    const vs_task *g = &run.task[i];
    const vw_task *k = &t.task[find(&t, g)];
    assert_int_equal(k->end, g->end);
    assert_string_equal(t.codelet[k->codelet], vs_codelet_names[g->codelet]);
    assert_int_equal(k->tag, g->tag);
    assert_true(k->flops == g->flops);
    assert_int_equal(k->submit, g->submit);
    assert_int_equal(k->ready, g->ready);
    assert_int_equal(k->pop, g->pop);
    assert_int_equal(k->cp_in, g->cp_in);
    assert_int_equal(k->cp_out, g->cp_out);
  }
  /* the submissions: one runtime state each, on the main threads */
  assert_int_equal(t.nstates, 60);
  for (size_t i = 0; i < t.nstates; i++) {
    assert_int_equal(t.state[i].kind, VW_K_RUNTIME);
    assert_int_equal(t.lane[t.state[i].lane].role, PM_ROLE_MAIN);
  }
  /* the messages: every one matched, from a progress thread to the other rank's */
  assert_int_equal(t.nmsgs, run.nmsgs);
  assert_int_equal(t.msgs_unmatched, 0);
  for (size_t i = 0; i < t.nmsgs; i++) {
    assert_int_equal(t.lane[t.msg[i].from].role, PM_ROLE_PROGRESS);
    assert_int_not_equal(t.lane[t.msg[i].from].process, t.lane[t.msg[i].to].process);
    assert_int_equal(t.msg[i].t_recv - t.msg[i].t_send, 20000 + 524288);
  }
  /* the critical path is the generator's chain */
  vw_path p;
  assert_int_equal(vw_path_build(&t, &p), 0);
  assert_int_equal(p.n, run.ncp);
  for (size_t i = 0; i < p.n; i++) assert_int_equal(p.task[i], find(&t, &run.task[run.cp_chain[i]]));
  assert_int_equal(p.length, run.task[run.cp_chain[run.ncp - 1]].cp_out);
  assert_int_equal(p.before, 1000000);
  vw_path_free(&p);
  vw_trace_free(&t);
}

/* An archive that is not one: a message naming it, nothing read. */
static void test_bad(void **state) {
  (void)state;
  char path[300], err[512] = "";
  snprintf(path, sizeof path, "%s/popmeter.json", dir);
  vw_trace t;
  assert_int_equal(vw_trace_read(path, prof, &t, err, sizeof err), -1);
  assert_non_null(strstr(err, path));
  assert_int_equal(t.ntasks, 0);
  snprintf(path, sizeof path, "%s/none.otf2", dir);
  assert_int_equal(vw_trace_read(path, prof, &t, err, sizeof err), -1);
  assert_non_null(strstr(err, "none.otf2"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_read), cmocka_unit_test(test_bad)};
  return cmocka_run_group_tests_name("view: reading a trace", tests, setup, teardown);
}
