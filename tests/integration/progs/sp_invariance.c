/* The application's view of StarPU is unchanged under popmeter (test_starpu_apps.sh runs this
 * with and without it and compares the outputs line by line). On one CPU worker with the prio
 * scheduler and tasks submitted while that worker is held inside a gate task, everything printed is
 * deterministic (not with starpu_pause: a worker that has just passed its pause check when the
 * pause begins still takes the first task submitted, 1 run in ~16 under the sanitizers):
 *  - execution order follows the priorities (popmeter must not reorder or delay tasks);
 *  - the application's callback, ready prologue and pop prologue each run once per task, with
 *    their own arguments and starpu_task_get_current() == the task;
 *  - the fields of a non-detached task are the application's again after its execution;
 *  - a body-less task (cl == NULL) used as a join point keeps its callback and ordering;
 *  - tag dependencies and the computed result are the same. */
#include <pthread.h>
#include <starpu.h>
#include <stdio.h>
#include <string.h>

#define NT 6
static int prio[NT] = {0, 5, -3, 2, 4, 1};
static int order[NT + 2], norder;
static int cb_seen[NT], pro_seen[NT], pop_seen[NT], cur_ok = 1;
static long vec[NT];
static starpu_data_handle_t h[NT];
static struct starpu_task *tasks[NT];

static void body(void *buffers[], void *arg) {
  long *v = (long *)STARPU_VARIABLE_GET_PTR(buffers[0]);
  int i;
  starpu_codelet_unpack_args(arg, &i);
  *v = *v * 3 + i;
  order[norder++] = i;
}
static struct starpu_codelet cl = {.cpu_funcs = {body}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "inv"};

/* The gate: its task holds the only worker until every other task is submitted. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_entered, gate_open;
static void gate_body(void *buffers[], void *arg) {
  (void)buffers;
  (void)arg;
  pthread_mutex_lock(&gate_lock);
  gate_entered = 1;
  pthread_cond_broadcast(&gate_cond);
  while (!gate_open) pthread_cond_wait(&gate_cond, &gate_lock);
  pthread_mutex_unlock(&gate_lock);
}
static struct starpu_codelet gate_cl = {.cpu_funcs = {gate_body}, .nbuffers = 0, .name = "gate"};

static void gate_wait_entered(void) {
  pthread_mutex_lock(&gate_lock);
  while (!gate_entered) pthread_cond_wait(&gate_cond, &gate_lock);
  pthread_mutex_unlock(&gate_lock);
}

static void gate_release(void) {
  pthread_mutex_lock(&gate_lock);
  gate_open = 1;
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_lock);
}

static int ids[NT];
static void cb(void *arg) {
  int i = *(int *)arg;
  cb_seen[i]++;
  if (starpu_task_get_current() != tasks[i]) cur_ok = 0;
}
static void pro(void *arg) {
  int i = *(int *)arg;
  pro_seen[i]++;
  if (starpu_task_get_current() != tasks[i]) cur_ok = 0;
}
static void pop(void *arg) {
  int i = *(int *)arg;
  pop_seen[i]++;
  if (starpu_task_get_current() != tasks[i]) cur_ok = 0;
}
static int join_cb_calls, join_arg = 77;
static void join_cb(void *arg) {
  if (*(int *)arg == 77) join_cb_calls++;
}

int main(void) {
  if (starpu_init(NULL) != 0) return 77;
  for (int i = 0; i < NT; i++) {
    vec[i] = i + 1;
    starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t)&vec[i], sizeof vec[i]);
  }
  if (starpu_task_insert(&gate_cl, 0) != 0) return 1;
  gate_wait_entered();
  for (int i = 0; i < NT; i++) {
    ids[i] = i;
    struct starpu_task *t = starpu_task_create();
    t->cl = &cl;
    t->handles[0] = h[i];
    starpu_codelet_pack_args((void **)&t->cl_arg, &t->cl_arg_size, STARPU_VALUE, &ids[i], sizeof(int), 0);
    t->cl_arg_free = 1;
    t->priority = prio[i];
    t->callback_func = cb;
    t->callback_arg = &ids[i];
    t->prologue_callback_func = pro;
    t->prologue_callback_arg = &ids[i];
    t->prologue_callback_pop_func = pop;
    t->prologue_callback_pop_arg = &ids[i];
    t->detach = 0;
    t->destroy = 0;
    tasks[i] = t;
    if (starpu_task_submit(t) != 0) return 1;
  }
  /* a join point without codelet after tasks 0 and 1, and a task after it through a tag */
  struct starpu_task *join = starpu_task_create();
  join->cl = NULL;
  join->callback_func = join_cb;
  join->callback_arg = &join_arg;
  join->use_tag = 1;
  join->tag_id = 42;
  starpu_task_declare_deps_array(join, 2, tasks);
  if (starpu_task_submit(join) != 0) return 1;
  starpu_tag_t dep = 42;
  starpu_tag_declare_deps_array(43, 1, &dep);
  int after = 99;
  starpu_task_insert(&cl, STARPU_RW, h[0], STARPU_VALUE, &after, sizeof after, STARPU_TAG, (starpu_tag_t)43,
                     STARPU_PRIORITY, -10, 0);
  gate_release();
  for (int i = 0; i < NT; i++)
    if (starpu_task_wait(tasks[i]) != 0) return 1;
  starpu_task_wait_for_all();
  int fields_ok = 1;
  for (int i = 0; i < NT; i++) {
    struct starpu_task *t = tasks[i];
    fields_ok &= t->callback_func == cb && t->callback_arg == &ids[i] && t->prologue_callback_func == pro &&
                 t->prologue_callback_arg == &ids[i] && t->prologue_callback_pop_func == pop &&
                 t->prologue_callback_pop_arg == &ids[i] && t->priority == prio[i];
  }
  printf("order:");
  for (int i = 0; i < norder; i++) printf(" %d", order[i]);
  printf("\ncallbacks:");
  for (int i = 0; i < NT; i++) printf(" %d/%d/%d", cb_seen[i], pro_seen[i], pop_seen[i]);
  printf("\ncurrent task in callbacks: %s\nfields after execution: %s\njoin callback: %d\nresult:",
         cur_ok ? "ok" : "WRONG", fields_ok ? "unchanged" : "CHANGED", join_cb_calls);
  for (int i = 0; i < NT; i++) {
    starpu_data_unregister(h[i]);
    printf(" %ld", vec[i]);
  }
  printf("\n");
  for (int i = 0; i < NT; i++) starpu_task_destroy(tasks[i]);
  starpu_shutdown();
  return 0;
}
