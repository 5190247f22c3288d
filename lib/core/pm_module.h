/* Modules: the parts that join the measurement without the core knowing them by name: the runtime
 * models (OpenMP teams, the task graph), the substrates (trace, hardware counters, CUDA activity,
 * file classes) and the consumer of the run profile (the end-of-run outputs). A module is a table
 * of optional callbacks; the core calls every registered module at each step of one lifecycle, in
 * increasing order:
 *
 *   activate    at activation, with the configuration, before the first location registers
 *               (a substrate attaches its location observer here)
 *   begin       the processes of the run are known (the MPI adapter, after MPI_Init: collective
 *               over ipc). Returns 1 when the module wants the message events of pm_events.h
 *   end         the window closes at t_end, before the locations are flushed (a model closes what
 *               it holds open: OpenMP workers still waiting for a join)
 *   finalize    after every location was flushed at t_end: drain buffers, read last values, close
 *               files (collective over ipc)
 *   to_profile  while the process profile is built: add what the module measured (0, or -1 out of
 *               memory: the profile is then incomplete and the core says so)
 *   place       the output directory is known (NULL: no files are written this run)
 *   report      the run profile is complete (rank 0, or each process reporting alone)
 *
 * Events that are not state transitions (messages, collectives, thread teams) reach modules through
 * pm_events.h. libpopmeter.so registers the modules it was built with (lib/pm_modules.c); a unit
 * test registers those it tests, so a module that is not linked in is simply absent. */
#ifndef PM_MODULE_H
#define PM_MODULE_H
#include "pm_core.h"
#include "pm_config.h"
struct pm_profile;
struct pm_ipc;

/* Orders: models first (their data feeds the others), then substrates, consumers last. */
enum {
  PM_ORDER_OMP = 10,
  PM_ORDER_TASKS = 20,
  PM_ORDER_CUDA = 30, /* drains device activity before the counters read their last values */
  PM_ORDER_COUNTERS = 40,
  PM_ORDER_TRACE = 50, /* closes open regions last: every Enter gets its Leave */
  PM_ORDER_IO = 60,
  PM_ORDER_OUTPUT = 90
};

typedef struct pm_module {
  const char *name;
  int order;
  void (*activate)(const pm_config *cfg);
  int (*begin)(const struct pm_ipc *ipc);
  void (*end)(uint64_t t_end);
  void (*finalize)(const struct pm_ipc *ipc, uint64_t t_end);
  int (*to_profile)(struct pm_profile *p, uint64_t t_start);
  void (*place)(const char *dir);
  void (*report)(struct pm_profile *run, const char *note, double reduce_seconds);
} pm_module;

/* Adds m (idempotent; at most PM_MAX_MODULES). Call before activation: from a constructor or a
 * test's set-up. */
#define PM_MAX_MODULES 16
PM_HIDDEN void pm_module_register(const pm_module *m);
/* The lifecycle steps, over every registered module in order. */
PM_HIDDEN void pm_modules_activate(const pm_config *cfg);
PM_HIDDEN int pm_modules_begin(const struct pm_ipc *ipc); /* 1 when some module wants message events */
PM_HIDDEN void pm_modules_end(uint64_t t_end);
PM_HIDDEN void pm_modules_finalize(const struct pm_ipc *ipc, uint64_t t_end);
PM_HIDDEN int pm_modules_to_profile(struct pm_profile *p, uint64_t t_start);
PM_HIDDEN void pm_modules_place(const char *dir);
PM_HIDDEN void pm_modules_report(struct pm_profile *run, const char *note, double reduce_seconds);
#endif
