/* Activation and lifecycle of the measurement in a process.
 *
 * Preload hygiene (docs/runtime-facts.md §1): popmeter is loaded into every process that inherits LD_PRELOAD
 * (mpirun, orted, shells, compilers). It stays passive unless the process is the application:
 *  - an adapter saw an entry point only an application calls (MPI_Init*, starpu_initialize...), or
 *  - the process is the program started by `popmeter run` (POPMETER_TARGET names it).
 * Launchers (mpirun, orted, prterun...) never activate. A forked child never reports. */
#define _GNU_SOURCE
#include "pm_lifecycle.h"
#include "pm_cacheline.h"
#include "pm_module.h"
#include "pm_location.h"
#include "pm_state_tables.h"
#include "pm_omp.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pm_core_active;  /* measuring (read inline by pm_enter_tool) */
static int disabled; /* never activate in this process */
static int finalized;
static pid_t active_pid;
static uint64_t t_start;
static int proc_rank = 0, proc_size = 1;
static pm_config config;
static int config_loaded;
static pthread_mutex_t activate_lock = PTHREAD_MUTEX_INITIALIZER;
static int paused_state_saved;

/* The rank a launcher gave this process, before MPI_Init tells it (-1: none): messages of a
 * parallel run say which rank speaks from the first one on. */
static int launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
  for (unsigned i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    char *end;
    long r = v ? strtol(v, &end, 10) : -1;
    if (v && *v && !*end && r >= 0 && r < 1L << 30) return (int)r;
  }
  return -1;
}

static void vmsg(const char *kind, int min_level, const char *fmt, va_list ap) {
  if (config_loaded && config.i[PM_CFG_VERBOSE] < min_level) return;
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  int rank = proc_size > 1 ? proc_rank : launcher_rank();
  if (rank >= 0)
    fprintf(stderr, "popmeter[%d]: %s%s\n", rank, kind, buf);
  else
    fprintf(stderr, "popmeter: %s%s\n", kind, buf);
}
void pm_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg("warning: ", 1, fmt, ap);
  va_end(ap);
}
void pm_info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg("", 2, fmt, ap);
  va_end(ap);
}
void pm_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmsg("error: ", 0, fmt, ap);
  va_end(ap);
}

/* secure_getenv: a setuid program linked with -lpopmeter takes no paths from its caller */
static const char *env_get(const char *name) { return secure_getenv(name); }
static void no_warning(const char *fmt, ...) { (void)fmt; }
static void ensure_config(void) {
  if (config_loaded) return;
  /* POPMETER_VERBOSE first, so that it governs the warnings about every other variable, including
   * those the table lists before it */
  pm_config_load(&config, env_get, no_warning);
  config_loaded = 1;
  pm_config scratch;
  pm_config_load(&scratch, env_get, pm_warn);
}
const pm_config *pm_config_get(void) {
  ensure_config();
  return &config;
}

int pm_core_rank(void) { return proc_rank; }
int pm_core_size(void) { return proc_size; }
uint64_t pm_core_window_start(void) { return t_start; }
int pm_core_finalized(void) { return finalized; }
void pm_core_set_process(int rank, int nprocs) {
  proc_rank = rank;
  proc_size = nprocs;
  if (nprocs > 1 && pm_core_is_active()) pm_terminate_arm();
}

static int is_launcher(const char *name) {
  static const char *const launchers[] = {"mpirun", "mpiexec",         "orterun", "orted",    "prted", "prterun",
                                          "prte",   "hydra_pmi_proxy", "srun",    "popmeter", NULL};
  for (int i = 0; launchers[i]; i++)
    if (!strcmp(name, launchers[i])) return 1;
  return 0;
}

static void at_exit_report(void) {
  if (!pm_core_active || finalized || getpid() != active_pid) return;
  /* A parallel process leaving without MPI_Finalize: its launcher tears the job down as soon as
   * one process has gone (Open MPI's daemon sends SIGTERM to the others), which could cut this
   * process's report short. It is exiting anyway and its status is already decided, so SIGTERM is
   * ignored from here on (the launcher's later SIGKILL still ends a report that would hang). */
  if (proc_size > 1) signal(SIGTERM, SIG_IGN);
  pm_core_finalize(&pm_ipc_serial,
                   proc_size > 1 ? "MPI_Finalize was not called: this report covers this process only" : NULL);
}

static void after_fork_child(void) {
  pm_terminate_after_fork_child();
  /* The child is a copy of one thread of the application; its report would duplicate the parent's. */
  pm_core_active = 0;
  disabled = 1;
}

int pm_core_activate(void) {
  if (PM_LIKELY(pm_core_active)) return 1;
  if (disabled || finalized) return 0;
  pthread_mutex_lock(&activate_lock);
  if (!pm_core_active && !disabled && !finalized) {
    ensure_config();
    if (!config.i[PM_CFG_ENABLE]) {
      disabled = 1;
    } else {
      active_pid = getpid();
      /* modules add their location observers before the first location registers */
      pm_modules_activate(&config);
      pm_cp_masks_io_useful((int)config.i[PM_CFG_IO_AS_USEFUL]);
      pm_clock_tsc_start(config.i[PM_CFG_CLOCK] == PM_CLOCK_AUTO);
      pm_cacheline_detect();
      t_start = pm_clock_now();
      __atomic_store_n(&pm_core_active, 1, __ATOMIC_RELEASE);
      atexit(at_exit_report);
      pthread_atfork(NULL, NULL, after_fork_child);
      pm_info("measuring %s (pid %ld)", program_invocation_short_name, (long)active_pid);
    }
  }
  pthread_mutex_unlock(&activate_lock);
  if (pm_core_active) {
    /* The activating thread is a location from now on; the window opens when it is ready, so the
     * tool's own start-up (first registrations, dlsym) is not charged to the application. */
    pm_loc *L = pm_loc_self();
    if (L && L->id == 0) t_start = L->t_registered;
  }
  return pm_core_active;
}

void pm_core_restart_window(void) {
  uint64_t now = pm_clock_now();
  uint32_t n = pm_loc_count();
  for (uint32_t i = 0; i < n; i++) pm_loc_restart(pm_loc_at(i), now);
  t_start = now;
}

void pm_core_pause(void) {
  pm_loc *L = pm_loc_self();
  if (!L || L->state == PM_STATE_OFF) return;
  paused_state_saved = (int)pm_state_set(L, PM_STATE_OFF, pm_clock_now());
}
void pm_core_resume(void) {
  pm_loc *L = pm_loc_self();
  if (!L || L->state != PM_STATE_OFF) return;
  pm_state_set(L, (pm_state)paused_state_saved, pm_clock_now());
}

__attribute__((constructor)) static void popmeter_init(void) {
  const char *self = program_invocation_short_name;
  if (is_launcher(self)) {
    disabled = 1;
    return;
  }
  const char *target = secure_getenv("POPMETER_TARGET");
  if (target && target[0]) {
    const char *base = strrchr(target, '/');
    if (!strcmp(base ? base + 1 : target, self)) pm_core_activate();
  }
}

void pm_core_reset_for_tests(void) {
  pm_omp_reset(); /* OpenMP threads, teams, regions (they point at locations) */
  pm_locations_reset();
  pm_regions_reset();
  pm_core_active = disabled = finalized = 0;
  proc_rank = 0;
  proc_size = 1;
  config_loaded = 0;
}

/* Marks finalization as started; returns 0 if it had already started. */
int pm_core_begin_finalize(void) {
  if (__atomic_exchange_n(&finalized, 1, __ATOMIC_ACQ_REL)) return 0;
  return 1;
}
void pm_core_deactivate(void) { __atomic_store_n(&pm_core_active, 0, __ATOMIC_RELEASE); }
