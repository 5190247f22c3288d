/* StarPU adapter: what StarPU 1.3's interposition and StarPU 1.4's tool interface share -- the
 * adapter's threads, the first sight of a worker, and a task body's place on the worker's timeline
 * and in the task DAG. Nothing here reads a StarPU struct or enum: the file is compiled against
 * whichever StarPU headers the build has, and each adapter translates StarPU's values itself. */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include "pm_lifecycle.h"
#include "pm_location.h"
#include "pm_task_comm.h"
#include "pm_events.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

uint64_t sp_t_init;
pm_region_id sp_region[SP_R_COUNT];

/* ------------------------------------------------------------------------------- threads */
static __thread sp_thread *tls_thread __attribute__((tls_model("initial-exec")));

sp_thread *sp_self(void) {
  sp_thread *T = tls_thread;
  if (PM_LIKELY(T != NULL)) return T;
  /* never freed: a thread's statistics are read at finalize, possibly after it exited */
  T = calloc(1, sizeof *T);
  if (T) T->workerid = -1;
  tls_thread = T;
  return T;
}

void sp_worker_init(sp_thread *T, pm_loc *L, int id, int accel, const char *name, int memnode, const char *node_kind) {
  T->kind = SP_THREAD_WORKER;
  T->workerid = id;
  T->wtype = accel ? 1 : 0;
  pm_loc_set_role(L, T->wtype ? PM_ROLE_ACCEL_WORKER : PM_ROLE_WORKER, name && name[0] ? name : NULL);
  /* a worker has no fork point in the program: its tasks go under main -> "StarPU worker" */
  sp_regions_init();
  pm_loc_set_base(L, sp_region[SP_R_WORKER]);
  /* the worker existed (idle) since StarPU's initialisation began */
  pm_loc_backdate(L, sp_t_init, PM_STATE_IDLE, pm_clock_now());
  T->memnode = memnode;
  if (node_kind) pm_tc_node_kind(memnode, node_kind);
  T->stats = pm_ts_self(T->wtype, (int)pm_loc_id(L));
}

/* StarPU names a worker's thread ("CPU 0", "CUDA 0", "OpenCL 0") when its driver starts, before the
 * worker loop. */
static int worker_thread_name(const char *name) {
  static const char *const kinds[] = {"CPU ", "CUDA ", "OpenCL "};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t n = strlen(kinds[k]);
    if (!strncmp(name, kinds[k], n) && name[n] >= '0' && name[n] <= '9') return 1;
  }
  return 0;
}

void sp_classify_thread(pm_loc *L) {
  char name[16] = "";
  if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) return;
  if (worker_thread_name(name)) {
    /* A worker's first event may come before StarPU's hooks show it as one (sp_worker_init): with
     * StarPU-MPI's progression in worker mode, MPI calls in the worker loop. Until then the thread
     * runs StarPU's code: runtime, not the default useful, which counted as work no task had (35 us
     * per run on mfsolve 2 x 1 here, 8 ms once on a loaded machine). Set without charging, so that a
     * worker first seen by StarPU's hooks is still backdated to StarPU's initialisation, idle. */
    pm_loc_backdate(L, L->t_registered, PM_STATE_RUNTIME, L->t_registered);
    return;
  }
  if (strcmp(name, "MPI") != 0) return;
  sp_thread *T = sp_self();
  if (T) T->kind = SP_THREAD_PROGRESS;
  pm_loc_set_role(L, PM_ROLE_PROGRESS, "StarPU-MPI progress");
  sp_regions_init();
  pm_loc_set_base(L, sp_region[SP_R_PROGRESS]);
  /* outside MPI calls the progress thread runs StarPU-MPI's own logic: runtime, never useful */
  pm_state_set(L, PM_STATE_RUNTIME, pm_clock_now());
}

void sp_regions_init(void) {
  static int done;
  if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) return;
  static const char *const names[SP_R_COUNT] = {
      [SP_R_INIT] = "starpu_init",     [SP_R_SHUTDOWN] = "starpu_shutdown",    [SP_R_SUBMIT] = "starpu_task_submit",
      [SP_R_WAIT] = "starpu_wait",     [SP_R_ACQUIRE] = "starpu_data_acquire", [SP_R_MPI] = "starpu_mpi",
      [SP_R_WORKER] = "StarPU worker", [SP_R_PROGRESS] = "StarPU-MPI progress"};
  for (int i = 0; i < SP_R_COUNT; i++) {
    pm_region_role role = i == SP_R_WAIT                           ? PM_ROLE_BARRIER
                          : i == SP_R_WORKER || i == SP_R_PROGRESS ? PM_ROLE_ARTIFICIAL
                                                                   : PM_ROLE_WRAPPER;
    sp_region[i] = pm_region_register(names[i], PM_PARADIGM_STARPU, role);
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------------- bodies */
void sp_body_start(pm_tg_task *rec, pm_loc *L, sp_thread *T) {
  /* data the worker's memory node lacked has just been fetched (bus transfer) */
  for (uint32_t i = 0; i < rec->nbufs; i++) {
    pm_tg_buf *b = pm_tg_task_buf(rec, i);
    if ((b->mode & (SP_MODE_SCRATCH | SP_MODE_REDUX)) == 0 &&
        pm_tg_handle_place(b->h, T->memnode, (b->mode & SP_MODE_R) != 0, (b->mode & SP_MODE_W) != 0))
      pm_tc_transfer(T->memnode, b->bytes);
  }
  /* the task's inputs first (its predecessors' records, written on other workers, cost a transfer
   * between cores each): that is the runtime's time, before the body's */
  pm_tg_task_inputs(rec);
  uint64_t t = pm_clock_now();
  T->ended_valid = 0; /* the previous task's end is no longer the latest event */
  T->running++;
  T->body = rec;
  pm_call_enter(L, pm_ts_codelet_region(rec->codelet), PM_STATE_USEFUL, t);
  pm_tg_task_started(rec, L, t);
}

/* What the trace attaches to the body's Leave: the task's tag, flops, times and its place on the
 * DAG's critical path (the inputs were merged when it started; its own time is the body's). */
static void raise_task_end(pm_tg_task *rec, pm_loc *L, uint64_t t) {
  pm_event_task e = {rec->tag,
                     (rec->flags & SP_HAS_TAG_FLAG) != 0,
                     rec->flops > 0 ? rec->flops : 0,
                     rec->t_submit,
                     rec->t_ready,
                     rec->t_pop,
                     pm_tg_task_clk(rec)->dag_g.cue,
                     0};
  e.cp_out = e.cp_in + (t > rec->t_start ? t - rec->t_start : 0);
  pm_event_task_end(L, &e);
}

void sp_body_end(pm_tg_task *rec, pm_loc *L, sp_thread *T) { sp_body_end_at(rec, L, T, pm_clock_now()); }

void sp_body_end_at(pm_tg_task *rec, pm_loc *L, sp_thread *T, uint64_t t) {
  if (PM_UNLIKELY(pm_events_on())) raise_task_end(rec, L, t);
  pm_call_exit(L, t);
  if (T->running > 0) T->running--;
  if (T->body == rec) T->body = NULL;
  pm_tg_task_end(rec, L, t, pm_tg_key(pm_core_rank(), pm_ts_codelet_hash(rec->codelet)));
  pm_ts_sample s = {t - rec->t_start,
                    rec->t_start,
                    rec->flops,
                    rec->predicted,
                    rec->bytes,
                    rec->tag,
                    (rec->flags & SP_HAS_TAG_FLAG) != 0,
                    0,
                    0,
                    0};
  /* submission and ready times: the 1.3 adapter sees both (the tool interface of 1.4 neither) */
  if (rec->t_submit && rec->t_ready >= rec->t_submit && rec->t_start >= rec->t_ready) {
    s.has_waits = 1;
    s.wait_deps = rec->t_ready - rec->t_submit;
    s.wait_sched = rec->t_start - rec->t_ready;
  }
  pm_ts_record(T->stats, rec->codelet, &s);
  /* StarPU releases the tasks whose end waits for this one right after this, on this thread */
  if (PM_UNLIKELY(rec->flags & PM_TG_ENDS_OTHER)) {
    T->ended = *pm_tg_task_clk(rec);
    T->ended_valid = 1;
  }
}
