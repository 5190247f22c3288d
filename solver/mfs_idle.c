/*
 * mfs_idle.c — an idle StarPU worker naps instead of spinning.
 *
 * StarPU 1.3 lets an idle CPU worker block on its condition variable unless it is the last worker
 * of its scheduling context still awake: that one keeps polling the scheduler, with a backoff of a
 * few `pause` instructions, as long as the runtime runs. So every process has one worker that holds
 * its CPU while it has nothing to do. With one worker per process (2 processes x 1 worker on 2 CPUs)
 * a worker waiting for a tile from the other process then spins on the CPU that its own process's
 * StarPU-MPI progression thread and submitting thread need to bring that tile in: on lap3d:50 the
 * workers spent ~0.4 s of CPU (17 % of their time) in StarPU's task poll, and the progression
 * threads waited 3 ms on average for a CPU each time they woke up.
 *
 * StarPU calls its idle hooks on a CPU worker each time the worker found no task. This hook lets the
 * worker spin as StarPU does for SPIN_NS (20 us) after its last task (a task that becomes ready
 * soon is picked up at once), then sleeps MFS_IDLE_NAP_US at a time (default 50 us; 0: spin as
 * StarPU does) until a task comes: the CPU is free for the threads that bring the work in, and a
 * ready task waits at most one nap. Workers count the tasks they ran (mfs_idle_tasks_ran, from the
 * codelets), so a worker that is busy never naps.
 * Measured on the 2-CPU development VM, alternated pairs of runs (nap 0 against 50 us): 2 processes x
 * 1 worker, lap3d:60: factorization faster in 6 of 6 pairs (median ratio 0.93, best 2.89 -> 2.64 s);
 * lap3d:50: 5 of 8 (0.97), whole run 6 of 8; 1 process x 2 workers, lap3d:60: unchanged (3 of 6,
 * 1.00). An idle runtime's worker uses ~12 % of its CPU napping, all of it spinning.
 */
#define _GNU_SOURCE
#include "mfs_runtime.h"

#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#define DEFAULT_NAP_US 50
#define MAX_NAP_US 10000
#define SPIN_NS 20000

static long nap_ns; /* read when the runtime starts */
static int hook_id = -1;

__thread unsigned long mfs_idle_tasks_ran;

static __thread unsigned long seen_tasks;
static __thread uint64_t idle_since_ns; /* when the worker last found no task after running one (0: never) */
static __thread int slack_set;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static unsigned idle_hook(void *arg) {
  (void)arg;
  if (mfs_idle_tasks_ran != seen_tasks || !idle_since_ns) {
    seen_tasks = mfs_idle_tasks_ran;
    idle_since_ns = now_ns();
    return 1; /* StarPU may still block this worker, if it is not the last one awake */
  }
  if (now_ns() - idle_since_ns < SPIN_NS) return 1;
  if (!slack_set) {
    /* the default timer slack (50 us) would double a nap: a ready task waits for its end */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    slack_set = 1;
  }
  struct timespec ts = {0, nap_ns};
  nanosleep(&ts, NULL);
  return 1;
}

void runtime__idle_start(void) {
  nap_ns = runtime__env_us("MFS_IDLE_NAP_US", DEFAULT_NAP_US, MAX_NAP_US) * 1000;
  if (nap_ns > 0 && hook_id < 0) hook_id = starpu_idle_hook_register(idle_hook, NULL);
}

void runtime__idle_stop(void) {
  if (hook_id >= 0) starpu_idle_hook_deregister(hook_id);
  hook_id = -1;
}
