/* End of the run: snapshot every location, build this process's profile, reduce the profiles to
 * rank 0 through the ipc interface, and let rank 0 report. Measured data is never dropped: if the
 * reduction fails, each process reports what it has. */
#define _GNU_SOURCE
#include "pm_lifecycle.h"
#include "pm_location.h"
#include "pm_module.h"
#include "pm_profile.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

PM_HIDDEN int pm_core_begin_finalize(void);
PM_HIDDEN void pm_core_deactivate(void);

static int serial_gather(const pm_ipc *self, const char *buf, size_t len, char ***out) {
  (void)self;
  char **v = malloc(sizeof *v);
  if (!v || !(v[0] = malloc(len + 1))) {
    free(v);
    return -1;
  }
  memcpy(v[0], buf, len);
  v[0][len] = '\0';
  *out = v;
  return 0;
}
static int serial_bcast(const pm_ipc *self, void *buf, size_t len, int root) {
  (void)self;
  (void)buf;
  (void)len;
  return root == 0 ? 0 : -1;
}
static int serial_barrier(const pm_ipc *self) {
  (void)self;
  return 0;
}
const pm_ipc pm_ipc_serial = {0, 1, serial_gather, NULL, serial_bcast, serial_barrier};

void pm_process_identity(pm_profile *p) {
  snprintf(p->app, sizeof p->app, "%s", program_invocation_short_name);
  /* the command line, from /proc (arguments separated by NULs) */
  FILE *f = fopen("/proc/self/cmdline", "re");
  if (f) {
    size_t n = fread(p->command, 1, sizeof p->command - 1, f);
    fclose(f);
    for (size_t i = 0; i + 1 < n; i++)
      if (p->command[i] == '\0') p->command[i] = ' ';
    p->command[n] = '\0';
  }
  time_t now = time(NULL);
  double ago = (double)(pm_clock_now() - pm_core_window_start()) * 1e-9;
  time_t start = now - (time_t)ago;
  struct tm tm;
  localtime_r(&start, &tm);
  strftime(p->start_time, sizeof p->start_time, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* Rank 0: turns the gathered JSON strings into one run profile. */
static pm_profile *merge_all(char **parts, int n) {
  pm_profile *run = pm_profile_new();
  if (!run) return NULL;
  for (int i = 0; i < n; i++) {
    char err[256];
    pm_profile *p = parts[i] ? pm_profile_from_json_string(parts[i], err, sizeof err) : NULL;
    if (!p) {
      pm_warn("the profile of rank %d could not be read (%s); it is left out", i, parts[i] ? err : "missing");
      continue;
    }
    if (pm_profile_merge(run, p) != 0) pm_warn("out of memory while merging the profile of rank %d", i);
    pm_profile_free(p);
  }
  pm_profile_finish(run);
  return run;
}

void pm_core_finalize(const pm_ipc *ipc, const char *why) {
  if (!pm_core_is_active() || !pm_core_begin_finalize()) return;
  int guard = pm_in_tool();
  pm_set_in_tool(1); /* MPI calls made from here on are the tool's own */
  uint64_t t_end = pm_clock_now();
  uint32_t n = pm_loc_count();
  pm_modules_end(t_end); /* the models close what they hold open */
  for (uint32_t i = 0; i < n; i++) pm_loc_flush(pm_loc_at(i), t_end);
  pm_modules_finalize(ipc, t_end); /* collective over ipc (the trace's archive) */
  pm_core_deactivate();
  uint64_t t_report = pm_clock_now();

  pm_profile *mine = pm_profile_build_process(pm_core_window_start(), t_end);
  char *text = mine ? pm_profile_to_json_string(mine) : NULL;
  if (!text) pm_error("out of memory while building the profile of this process");
  char **parts = NULL;
  pm_profile *run = NULL;
  if (ipc->size > 1 && ipc->gather(ipc, text ? text : "", text ? strlen(text) : 0, &parts) == 0) {
    if (ipc->rank == 0) run = merge_all(parts, ipc->size);
  } else if (ipc->size > 1) {
    pm_warn("could not collect the profiles on rank 0; each rank reports its own");
    run = mine;
    mine = NULL;
  } else {
    run = mine;
    mine = NULL;
  }
  if (parts) {
    for (int i = 0; i < ipc->size; i++) free(parts[i]);
    free(parts);
  }
  free(text);
  pm_profile_free(mine);
  if (run) {
    pm_modules_report(run, why, (double)(pm_clock_now() - t_report) * 1e-9);
    pm_profile_free(run);
  }
  pm_set_in_tool(guard);
}
