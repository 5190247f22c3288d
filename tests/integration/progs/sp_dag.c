/* Synthetic StarPU programs with known task DAGs, for the online critical path (tests/integration/
 * test_starpu_dag.sh). Task bodies busy-wait on CLOCK_MONOTONIC, so a body lasts at least its
 * nominal duration whatever the machine's load (it may last longer if the thread is preempted at
 * its very end). Tasks are submitted while StarPU is paused: the only constraints on the run are
 * then the DAG's, and the application thread is idle while the tasks run.
 *
 *   sp_dag DAG [UNIT_MS]       DAG: chain | forkjoin | diamond | independent | oneach | offpath | unreg
 * (oneach: first a task internal to StarPU on worker 0 (starpu_execute_on_specific_workers) that
 * pauses StarPU, then 20 units with worker 0 paused and worker 1 without work, then the independent
 * tasks; the program is paused again for their submission, as in the other DAGs)
 * prints on stdout (rank 0): "cp_ms=<nominal critical path> work_ms=<nominal total work>
 * cp_actual_ms=<critical path recomputed from the bodies' own measured durations>
 * work_actual_ms=<sum of the measured durations>". On a loaded machine a body can outlast its
 * nominal duration (preempted after its deadline), so the test compares popmeter's critical path
 * with cp_actual, which uses the same durations the tool saw (minus the hooks' overhead). With
 * -DSP_DAG_MPI the
 * same DAGs run over the ranks of MPI_COMM_WORLD with starpu_mpi_task_insert (data owned and
 * tasks executed as described below), and the critical path crosses ranks.
 *   chain       8 tasks A (1 unit) in sequence on one handle          cp = 8, ranks alternate
 *   forkjoin    A (1) -> 4 x B (2) -> C (1)                            cp = 4, B_i on rank i % P
 *   diamond     A (1) -> B (3), C (1) -> D (1)                          cp = 5, B on rank 1 % P
 *   independent 8 tasks A (1) on distinct handles                      cp = 1, task i on rank i % P
 *   enddeps     A (1) -> B (1) -> C (1) on one handle, and D (4) on another, declared an end
 *               dependency of B (starpu_task_declare_end_deps): C waits for D       cp = 5 (one
 *               process only)
 *   explicit    A (1) -> B (1), C (3) -> D (1) without data, by starpu_task_declare_deps only,
 *               declared before any is submitted; after the declarations C gets a pop
 *               prologue of the application's (so popmeter must find its record by its
 *               pointer) and B a ready prologue without argument; both run once, B's with
 *               NULL, and B's and C's fields are the application's after the run    cp = 5 (one
 *               process only)
 *   partition   A (2) writes a vector, partitioned asynchronously into 2 children, B (1) on each
 *               child, unpartitioned, C (1) reads it                                 cp = 4 (one
 *               process only) */
#include <starpu.h>
#ifdef SP_DAG_MPI
#include <starpu_mpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define NTASKS 16
static double dur[NTASKS]; /* measured body durations (s), indexed by task number */

static void busy(void *buffers[], void *arg) {
  (void)buffers;
  int us, id;
  starpu_codelet_unpack_args(arg, &us, &id);
  double t0 = now_s(), end = t0 + 1e-6 * us, t;
  while ((t = now_s()) < end) {}
  if (id >= 0 && id < NTASKS) dur[id] = t - t0;
}
static double max2(double a, double b) { return a > b ? a : b; }

/* DAG "explicit": the application's prologues set after the declarations, and its tasks kept
 * (destroy = 0) to check that their fields are the application's again after the run */
static int pops, readies, ready_args;
static void count_pop(void *arg) { ++*(int *)arg; }
/* StarPU runs it on worker 0 as an internal task: it pauses StarPU, so that the worker stops at the
 * top of its loop, before it looks for another task (starpu_pause only counts: safe from a worker) */
static void pause_from_worker(void *arg) {
  (void)arg;
  starpu_pause();
}
static void count_ready(void *arg) { /* set without an argument: StarPU must call it with NULL */
  readies++;
  ready_args += arg != NULL;
}
static struct starpu_task *kept_b, *kept_c;

static int explicit_fields_ok(void) {
  int ok = pops == 1 && readies == 1 && ready_args == 0;
  ok &= kept_b->prologue_callback_func == count_ready && !kept_b->prologue_callback_arg &&
        !kept_b->prologue_callback_pop_func && !kept_b->prologue_callback_pop_arg;
  ok &= !kept_c->prologue_callback_func && !kept_c->prologue_callback_arg &&
        kept_c->prologue_callback_pop_func == count_pop && kept_c->prologue_callback_pop_arg == &pops;
  if (!ok)
    fprintf(stderr,
            "sp_dag: the application's prologues were changed (pop ran %d times, ready %d times, %d with an "
            "argument; fields of B and C after the run not the application's)\n",
            pops, readies, ready_args);
  return ok;
}

#define CL(var, nm) \
  static struct starpu_codelet var = {.cpu_funcs = {busy}, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = nm}
CL(cl_a, "dag_A");
CL(cl_b, "dag_B");
CL(cl_c, "dag_C");
CL(cl_d, "dag_D");

static int rank = 0, size = 1;
static starpu_data_handle_t h[16];
static int val[16];

static void reg(int i, int owner) {
  starpu_variable_data_register(&h[i], owner == rank ? STARPU_MAIN_RAM : -1, owner == rank ? (uintptr_t)&val[i] : 0,
                                sizeof val[i]);
#ifdef SP_DAG_MPI
  starpu_mpi_data_register(h[i], 100 + i, owner);
#else
  (void)owner;
#endif
}

/* One task on rank 'where' (ignored without MPI); varargs: access mode, handle pairs, then 0. */
static int ntask;
#ifdef SP_DAG_MPI
#define TASK(cl, where, us, ...)                                                                                      \
  starpu_mpi_task_insert(MPI_COMM_WORLD, &(cl), STARPU_VALUE, &(int){us}, sizeof(int), STARPU_VALUE, &(int){ntask++}, \
                         sizeof(int), STARPU_EXECUTE_ON_NODE, (where) % size, __VA_ARGS__, 0)
#else
#define TASK(cl, where, us, ...)                                                                               \
  starpu_task_insert(&(cl), STARPU_VALUE, &(int){us}, sizeof(int), STARPU_VALUE, &(int){ntask++}, sizeof(int), \
                     __VA_ARGS__, 0)
#endif

int main(int argc, char **argv) {
  const char *dag = argc > 1 ? argv[1] : "chain";
  int u = (argc > 2 ? atoi(argv[2]) : 10) * 1000; /* unit in us */
#ifdef SP_DAG_MPI
  /* MPI is the application's (initialize_mpi = 0), so that the durations can be gathered after
   * StarPU-MPI has shut down */
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  if (starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, NULL) != 0) return 77;
  starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
  starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
#else
  if (starpu_init(NULL) != 0) return 77;
#endif
  int cp, work;
  starpu_pause();
  if (!strcmp(dag, "chain")) {
    reg(0, 0);
    for (int i = 0; i < 8; i++) TASK(cl_a, i, u, STARPU_RW, h[0]);
    cp = 8, work = 8;
  } else if (!strcmp(dag, "forkjoin")) {
    for (int i = 0; i < 5; i++) reg(i, i % size);
    TASK(cl_a, 0, u, STARPU_W, h[0]);
    for (int i = 1; i <= 4; i++) TASK(cl_b, i, 2 * u, STARPU_R, h[0], STARPU_W, h[i]);
    TASK(cl_c, 0, u, STARPU_R, h[1], STARPU_R, h[2], STARPU_R, h[3], STARPU_R, h[4]);
    cp = 4, work = 10;
  } else if (!strcmp(dag, "diamond")) {
    reg(0, 0);
    reg(1, 1 % size);
    reg(2, 0);
    TASK(cl_a, 0, u, STARPU_W, h[0]);
    TASK(cl_b, 1, 3 * u, STARPU_R, h[0], STARPU_W, h[1]);
    TASK(cl_c, 0, u, STARPU_R, h[0], STARPU_W, h[2]);
    TASK(cl_d, 0, u, STARPU_R, h[1], STARPU_R, h[2]);
    cp = 5, work = 6;
#ifndef SP_DAG_MPI
  } else if (!strcmp(dag, "enddeps")) {
    reg(0, 0);
    reg(1, 0);
    TASK(cl_a, 0, u, STARPU_W, h[0]);
    struct starpu_task *b = starpu_task_build(&cl_b, STARPU_VALUE, &(int){u}, sizeof(int), STARPU_VALUE,
                                              &(int){ntask++}, sizeof(int), STARPU_RW, h[0], 0);
    int c_id = ntask++;
    struct starpu_task *d = starpu_task_build(&cl_d, STARPU_VALUE, &(int){4 * u}, sizeof(int), STARPU_VALUE,
                                              &(int){ntask++}, sizeof(int), STARPU_W, h[1], 0);
    if (!b || !d) return 1;
    starpu_task_declare_end_deps(b, 1, d);
    if (starpu_task_submit(b) != 0 || starpu_task_submit(d) != 0) return 1;
    starpu_task_insert(&cl_c, STARPU_VALUE, &(int){u}, sizeof(int), STARPU_VALUE, &c_id, sizeof(int), STARPU_R, h[0],
                       0);
    cp = 5, work = 7;
  } else if (!strcmp(dag, "explicit")) {
    struct starpu_task *t[4];
    static const struct starpu_codelet *cls[4] = {&cl_a, &cl_b, &cl_c, &cl_d};
    static const int units[4] = {1, 1, 3, 1};
    for (int i = 0; i < 4; i++) {
      t[i] = starpu_task_build((struct starpu_codelet *)cls[i], STARPU_VALUE, &(int){units[i] * u}, sizeof(int),
                               STARPU_VALUE, &(int){ntask++}, sizeof(int), 0);
      if (!t[i]) return 1;
    }
    starpu_task_declare_deps(t[1], 1, t[0]);
    starpu_task_declare_deps(t[2], 1, t[0]);
    starpu_task_declare_deps(t[3], 2, t[1], t[2]);
    t[1]->prologue_callback_func = count_ready; /* the function only: its argument stays NULL */
    t[2]->prologue_callback_pop_func = count_pop;
    t[2]->prologue_callback_pop_arg = &pops;
    t[1]->destroy = t[2]->destroy = 0;
    kept_b = t[1];
    kept_c = t[2];
    for (int i = 0; i < 4; i++)
      if (starpu_task_submit(t[i]) != 0) return 1;
    cp = 5, work = 6;
  } else if (!strcmp(dag, "partition")) {
    static int vec[8];
    starpu_vector_data_register(&h[0], STARPU_MAIN_RAM, (uintptr_t)vec, 8, sizeof vec[0]);
    TASK(cl_a, 0, 2 * u, STARPU_W, h[0]);
    struct starpu_data_filter f = {.filter_func = starpu_vector_filter_block, .nchildren = 2};
    starpu_data_handle_t ch[2];
    starpu_data_partition_plan(h[0], &f, ch);
    starpu_data_partition_submit(h[0], 2, ch);
    TASK(cl_b, 0, u, STARPU_RW, ch[0]);
    TASK(cl_b, 0, u, STARPU_RW, ch[1]);
    starpu_data_unpartition_submit(h[0], 2, ch, -1);
    TASK(cl_c, 0, u, STARPU_R, h[0]);
    starpu_resume();
    starpu_task_wait_for_all();
    starpu_data_partition_clean(h[0], 2, ch);
    starpu_pause();
    cp = 4, work = 5;
#endif
  } else if (!strcmp(dag, "offpath")) {
    /* rank 0's worker runs X1..X4 (3 units each, independent), then Z (1 unit), which reads X4's
     * output and writes h3; A (1 unit) reads h3 on rank 1. The path is X4 Z A (5 units), not the
     * worker's 13 units of bodies (with the eager scheduler the Xs run before Z) */
    for (int i = 0; i < 4; i++) reg(5 + i, 0);
    reg(3, 0);
    reg(0, 1 % size);
    for (int i = 0; i < 4; i++) TASK(cl_a, 0, 3 * u, STARPU_W, h[5 + i]);
    TASK(cl_b, 0, u, STARPU_R, h[8], STARPU_W, h[3]);
    TASK(cl_c, 1, u, STARPU_R, h[3], STARPU_W, h[0]);
    cp = 5, work = 14;
  } else if (!strcmp(dag, "unreg")) {
    /* X1..X4 (3 units each, independent), then Z (1 unit) reads X4's output and writes h3, which the
     * application unregisters at once (starpu_data_unregister_submit): StarPU acquires h3 when Z
     * ends, in callbacks on Z's worker, and submits the release there. The path is X4 Z (4 units),
     * not what the worker ran before */
    for (int i = 0; i < 4; i++) reg(5 + i, 0);
    reg(3, 0);
    for (int i = 0; i < 4; i++) TASK(cl_a, 0, 3 * u, STARPU_W, h[5 + i]);
    TASK(cl_b, 0, u, STARPU_R, h[8], STARPU_W, h[3]);
    starpu_data_unregister_submit(h[3]);
    h[3] = NULL;
    cp = 4, work = 13;
  } else if (!strcmp(dag, "independent") || !strcmp(dag, "oneach")) {
    if (!strcmp(dag, "oneach")) {
      starpu_resume();
      int w0 = 0;
      starpu_execute_on_specific_workers(pause_from_worker, NULL, 1, &w0, "pause");
      struct timespec idle = {(20 * u) / 1000000, (long)((20 * u) % 1000000) * 1000};
      nanosleep(&idle, NULL); /* worker 0 paused, worker 1 without work */
    }
    for (int i = 0; i < 8; i++) reg(i, i % size);
    for (int i = 0; i < 8; i++) TASK(cl_a, i, u, STARPU_W, h[i]);
    cp = 1, work = 8;
  } else {
    fprintf(stderr, "unknown DAG %s\n", dag);
    return 2;
  }
  starpu_resume();
  starpu_task_wait_for_all();
  if (kept_b) {
    int ok = explicit_fields_ok();
    starpu_task_destroy(kept_b);
    starpu_task_destroy(kept_c);
    if (!ok) return 1;
  }
  for (int i = 0; i < 16; i++)
    if (h[i]) starpu_data_unregister(h[i]);
#ifdef SP_DAG_MPI
  starpu_mpi_shutdown();
  double all[NTASKS];
  MPI_Reduce(dur, all, NTASKS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  memcpy(dur, all, sizeof dur);
#else
  starpu_shutdown();
#endif
  double cpa = 0, worka = 0, *d = dur;
  for (int i = 0; i < ntask; i++) worka += d[i];
  if (!strcmp(dag, "chain"))
    cpa = worka;
  else if (!strcmp(dag, "forkjoin"))
    cpa = d[0] + max2(max2(d[1], d[2]), max2(d[3], d[4])) + d[5];
  else if (!strcmp(dag, "diamond") || !strcmp(dag, "explicit"))
    cpa = d[0] + max2(d[1], d[2]) + d[3];
  else if (!strcmp(dag, "enddeps"))
    cpa = max2(d[0] + d[1], d[3]) + d[2];
  else if (!strcmp(dag, "partition"))
    cpa = d[0] + max2(d[1], d[2]) + d[3];
  else if (!strcmp(dag, "unreg"))
    cpa = max2(max2(max2(d[0], d[1]), d[2]), d[3] + d[4]);
  else if (!strcmp(dag, "offpath"))
    cpa = max2(max2(max2(d[0], d[1]), d[2]), d[3] + d[4] + d[5]);
  else
    for (int i = 0; i < ntask; i++) cpa = max2(cpa, d[i]);
  if (rank == 0)
    printf("cp_ms=%d work_ms=%d cp_actual_ms=%.3f work_actual_ms=%.3f\n", cp * u / 1000, work * u / 1000, cpa * 1e3,
           worka * 1e3);
#ifdef SP_DAG_MPI
  MPI_Finalize();
#endif
  return 0;
}
