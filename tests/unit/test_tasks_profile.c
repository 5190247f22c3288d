/* Task-runtime part of the run profile (lib/profile/pm_profile_tasks.c): JSON round trip, the
 * validating reader, merging of processes, the resolved critical path and the model input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include "pm_profile.h"
#include "pm_profile_json.h"
#include "pm_profile_tasks.h"
#include "pm_profile_input.h"

/* One process (rank r) with two locations and a task part: codelets "gemm" (hash 11) and "potrf"
 * (hash 22); the path ends here with cue 0.5 s = gemm 0.3 (rank r) + potrf 0.15 (rank 1) +
 * application 0.05. */
static pm_profile *make(int rank, double cue) {
  pm_profile *p = pm_profile_new();
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0].rank = rank;
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "h%d", rank);
  p->proc[0].window = 1.0;
  p->nlocations = 2;
  p->loc = calloc(2, sizeof *p->loc);
  snprintf(p->loc[0].name, sizeof p->loc[0].name, "main");
  snprintf(p->loc[1].name, sizeof p->loc[1].name, "CPU 0");
  p->loc[1].role = PM_ROLE_WORKER;
  p->loc[1].thread = 1;
  pm_prof_tasks *t = calloc(1, sizeof *t);
  t->ntaskprocs = 1;
  t->taskproc = calloc(1, sizeof *t->taskproc);
  pm_prof_taskproc *q = &t->taskproc[0];
  q->tasks = 40;
  q->dag_g = (pm_prof_cp){cue, cue + 0.1, cue + 0.02};
  q->dag_pl = (pm_prof_cp){0.3, 0.35, 0.3};
  q->coo_mpi = 0.02;
  q->ncomp = 3;
  q->comp[0] = (pm_prof_cp_part){rank, 11, 0.3};
  q->comp[1] = (pm_prof_cp_part){1, 22, 0.15};
  q->comp[2] = (pm_prof_cp_part){rank, PM_PROF_APP_HASH, cue - 0.45};
  q->clocks_lost = 2;
  t->ncodelets = 2;
  t->codelet = calloc(2, sizeof *t->codelet);
  /* gemm: 30 tasks whose submission and ready times were seen; potrf: none (no "waits" key) */
  t->codelet[0] = (pm_prof_codelet){
      "gemm", 0,   0,   11,  30,    30,    1,  1,     0,      0.6, 0.01,
      0.05,   3e9, 0.6, 1e6, 0.019, 0.021, 30, 0.003, 0.0015, 1,   {{0.05, 0.03, 0.7, (uint64_t)-5, 1, 0, 1}}};
  t->codelet[1] = (pm_prof_codelet){"potrf", 0, 1,   22, 10,    0,     4, 0, 2, 0.2, 0.015,
                                    0.025,   0, 0.1, 0,  0.018, 0.022, 0, 0, 0, 0,   {{0, 0, 0, 0, 0, 0, 0}}};
  t->ntags = 1;
  t->tag = calloc(1, sizeof *t->tag);
  t->tag[0] = (pm_prof_tag){0, 0xfedcba9876543210ull, 3, 0.3, 0.1, 0.1, 1e9};
  t->ntransfers = 1;
  t->transfer = calloc(1, sizeof *t->transfer);
  t->transfer[0] = (pm_prof_transfer){0, 1, "OpenCL", 12, 4096};
  t->nmpicomms = 1;
  t->mpicomm = calloc(1, sizeof *t->mpicomm);
  t->mpicomm[0] = (pm_prof_mpicomm){0, 1 - rank, 1, 5, 500, 0.001};
  t->nmpihandles = 1;
  t->mpihandle = calloc(1, sizeof *t->mpihandle);
  t->mpihandle[0] = (pm_prof_mpihandle){0, 1 - rank, 1, 104, 5, 500};
  p->tasks = t;
  pm_profile_finish(p);
  return p;
}

static void test_roundtrip(void **state) {
  (void)state;
  pm_profile *p = make(0, 0.5);
  char *s = pm_profile_to_json_string(p);
  assert_non_null(s);
  char err[256] = "";
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  if (!q) fail_msg("%s", err);
  assert_non_null(q->tasks);
  const pm_prof_tasks *a = p->tasks, *b = q->tasks;
  assert_int_equal(b->ntaskprocs, 1);
  assert_double_equal(b->taskproc[0].dag_g.cue, 0.5, 0);
  assert_int_equal(b->taskproc[0].ncomp, 3);
  assert_int_equal(b->taskproc[0].comp[2].hash, PM_PROF_APP_HASH);
  assert_int_equal(b->taskproc[0].clocks_lost, 2);
  assert_int_equal(b->taskproc[0].runtime_unobserved, 0);
  assert_int_equal(b->ncodelets, 2);
  assert_memory_equal(&a->codelet[0], &b->codelet[0], sizeof a->codelet[0]);
  assert_memory_equal(&a->codelet[1], &b->codelet[1], sizeof a->codelet[1]);
  assert_int_equal(b->codelet[0].with_waits, 30);
  assert_double_equal(b->codelet[0].wait_sched, 0.0015, 0);
  assert_int_equal(b->codelet[1].with_waits, 0);            /* no "waits": none known */
  assert_int_equal(b->codelet[0].top[0].tag, (uint64_t)-5); /* 64-bit tags survive */
  assert_int_equal(b->tag[0].tag, 0xfedcba9876543210ull);
  assert_string_equal(b->transfer[0].kind, "OpenCL");
  assert_int_equal(b->mpicomm[0].dir, 1);
  assert_int_equal(b->mpihandle[0].data_tag, 104);
  free(s);
  pm_profile_free(q);
  /* runtime overhead not observed (StarPU's tool interface): written as runtime_observed false, read
   * back, and handed to the task model; a profile without the key observed it */
  p->tasks->taskproc[0].runtime_unobserved = 1;
  s = pm_profile_to_json_string(p);
  assert_non_null(strstr(s, "\"runtime_observed\":false"));
  q = pm_profile_from_json_string(s, err, sizeof err);
  if (!q) fail_msg("%s", err);
  assert_int_equal(q->tasks->taskproc[0].runtime_unobserved, 1);
  pm_codelet_input *cl = NULL;
  int ncl = 0, unobserved = 0;
  double cpb = 0;
  assert_int_equal(pm_prof_tasks_input(q, &cl, &ncl, &cpb, &unobserved), 0);
  assert_int_equal(unobserved, 1);
  free(cl);
  pm_profile_free(q);
  char *at = strstr(s, ",\"runtime_observed\":false");
  memmove(at, at + strlen(",\"runtime_observed\":false"), strlen(at + strlen(",\"runtime_observed\":false")) + 1);
  q = pm_profile_from_json_string(s, err, sizeof err);
  if (!q) fail_msg("%s", err);
  assert_int_equal(q->tasks->taskproc[0].runtime_unobserved, 0);
  free(s);
  pm_profile_free(q);
  p->tasks->taskproc[0].runtime_unobserved = 0;
  /* a profile without tasks has no "tasks" key and reads back without */
  pm_prof_tasks_free(p->tasks);
  p->tasks = NULL;
  s = pm_profile_to_json_string(p);
  assert_null(strstr(s, "\"tasks\""));
  q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  assert_null(q->tasks);
  free(s);
  pm_profile_free(q);
  pm_profile_free(p);
}

/* Replaces the first occurrence of 'from' in the JSON of make() and expects the reader to fail
 * with a message containing 'expect'. */
static void bad(const char *from, const char *to, const char *expect) {
  pm_profile *p = make(0, 0.5);
  char *s = pm_profile_to_json_string(p);
  char *at = strstr(s, from);
  assert_non_null(at);
  size_t n = strlen(s) + strlen(to) + 1;
  char *t = malloc(n);
  snprintf(t, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
  char err[256] = "";
  pm_profile *q = pm_profile_from_json_string(t, err, sizeof err);
  if (q) fail_msg("accepted after replacing %s by %s", from, to);
  if (!strstr(err, expect)) fail_msg("error '%s' does not mention '%s'", err, expect);
  free(s);
  free(t);
  pm_profile_free(p);
}

static void test_reader_validates(void **state) {
  (void)state;
  bad("\"tasks\":{\"processes\":[{\"process\":0", "\"tasks\":{\"processes\":[{\"process\":3", "process");
  bad("\"count\":30", "\"count\":-30", "negative");
  bad("\"location\":1", "\"location\":9", "location");
  bad("\"dir\":\"recv\"", "\"dir\":\"sideways\"", "dir");
  bad("\"codelets\":[", "\"codelets\":7,\"unused\":[", "codelets");
  bad("\"composition\":[[0,11,", "\"composition\":[[0,-1,", "composition");
  bad("\"runtime_observed\":true", "\"runtime_observed\":1", "runtime_observed");
  bad("\"waits\":{\"count\":30", "\"waits\":{\"count\":31", "waits.count exceeds");
  bad("\"waits\":{\"count\":30", "\"waits\":{\"count\":-1", "negative");
  bad("\"waits\":{", "\"waits\":[],\"unused\":{", "waits");
  bad("\"dependencies\":0.003", "\"dependencies\":-0.003", "dependencies");
}

/* Two processes merged: indices shift; the path is the longer one (rank 1's); its composition
 * resolves names by (rank, hash); rank totals sum per rank. */
static void test_merge_and_path(void **state) {
  (void)state;
  pm_profile *run = pm_profile_new(), *a = make(0, 0.5), *b = make(1, 0.8);
  assert_int_equal(pm_profile_merge(run, a), 0);
  assert_int_equal(pm_profile_merge(run, b), 0);
  pm_profile_finish(run);
  assert_int_equal(run->tasks->ntaskprocs, 2);
  assert_int_equal(run->tasks->taskproc[1].process, 1);
  assert_int_equal(run->tasks->codelet[2].process, 1);
  assert_int_equal(run->tasks->codelet[2].top[0].location, 3);
  pm_prof_task_cp cp;
  assert_int_equal(pm_prof_tasks_cp(run, &cp), 1);
  assert_int_equal(cp.process, 1);
  assert_double_equal(cp.len.cue, 0.8, 0);
  assert_int_equal(cp.clocks_lost, 4);
  assert_int_equal(cp.nparts, 3);
  assert_string_equal(cp.part[0].name, "gemm");
  assert_string_equal(cp.part[1].name, "potrf");
  assert_string_equal(cp.part[2].name, "(application threads)");
  assert_int_equal(cp.nranks, 1); /* every part on rank 1 */
  assert_double_equal(cp.rank[0].time, 0.8, 1e-12);
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(run, 0, &buf), 0);
  assert_double_equal(buf.in.cp_bound, 0.8, 0);
  assert_int_equal(buf.in.ncodelets, 4);
  assert_string_equal(buf.in.codelets[1].name, "potrf");
  assert_int_equal(buf.in.codelets[1].worker_type, 1);
  assert_double_equal(buf.in.codelets[0].predicted, 0, 0); /* 1 of 30 tasks predicted: unusable */
  assert_double_equal(buf.in.codelets[0].exec, 0.6, 0);
  pm_run_input_buf_free(&buf);
  pm_profile_free(a);
  pm_profile_free(b);
  pm_profile_free(run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip),
      cmocka_unit_test(test_reader_validates),
      cmocka_unit_test(test_merge_and_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
