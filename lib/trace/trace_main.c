/* Lifecycle of the trace writer.
 *
 *   activation (pm_trace_activate)  POPMETER_TRACE=0: nothing at all (no observer, no cost).
 *                                   Otherwise the filter is parsed and the location observer added;
 *                                   a process without MPI opens its archive now (serially).
 *   MPI_Init (pm_trace_start)       every rank: agreement (all trace or none), clock offsets between
 *                                   hosts, staging directory chosen by rank 0, archive opened
 *                                   collectively. Regions entered before are replayed at this time.
 *   finalize (pm_trace_finalize)    every open region is left at the end time, the writers are
 *                                   closed, the definitions are unified and written (collectively
 *                                   over MPI_Finalize's ipc, or by the process alone when it exits
 *                                   without MPI_Finalize), the archive is closed.
 *   report (pm_trace_place)         the owner moves the archive into the output directory.
 * Any failure is reported once and stops the trace; the measurement and the profile go on. */
#define _GNU_SOURCE
#include "pm_trace.h"
#include "pm_module.h"
#include "pm_events.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include <dlfcn.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pm_tglobal pm_tr = {.state = PM_TR_OFF, .slot = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

/* What the trace receives from the core (pm_events.h), subscribed while tracing is on. */
static const pm_event_sink trace_events = {
    .comm_define = pm_trace_comm_define,
    .send = pm_trace_mpi_send,
    .send_complete = pm_trace_mpi_send_complete,
    .recv_request = pm_trace_mpi_recv_request,
    .recv = pm_trace_mpi_recv,
    .request_cancelled = pm_trace_mpi_request_cancelled,
    .collective = pm_trace_mpi_collective,
    .team_fork = pm_trace_omp_fork,
    .team_define = pm_trace_omp_team,
    .team_begin = pm_trace_omp_team_begin,
    .team_end = pm_trace_omp_team_end,
    .team_join = pm_trace_omp_join,
    .task_end = pm_trace_task_end,
};

static OTF2_ErrorCode otf2_error(void *ud, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                 const char *fmt, va_list va) {
  (void)ud;
  (void)file;
  (void)line;
  (void)fn;
  if (__atomic_fetch_add(&pm_tr.nerrors, 1, __ATOMIC_RELAXED) == 0) {
    char msg[192] = "";
    if (fmt) vsnprintf(msg, sizeof msg, fmt, va);
    snprintf(pm_tr.first_error, sizeof pm_tr.first_error, "%s%s%s", OTF2_Error_GetDescription(code), msg[0] ? ": " : "",
             msg);
  }
  return code;
}

static void set_state(int s) { __atomic_store_n(&pm_tr.state, s, __ATOMIC_SEQ_CST); }

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}
/* Removes the staging directory and everything in it (no symlink is followed). */
static void remove_tree(const char *dir) {
  if (dir[0]) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* This process's start time, in clock ticks since boot (/proc/self/stat, field 22); 0 if unknown.
 * With the process id it names one process: an exec keeps both, and a process that later gets the
 * same id starts later. */
static unsigned long long process_start(void) {
  char buf[1024];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command name (field 2) may hold spaces and parentheses */
  unsigned long long start = 0;
  /* after it: field 3 (the state) ... field 22 (the start time) */
  if (!p ||
      sscanf(p + 1, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", &start) != 1)
    return 0;
  return start;
}

/* base/.popmeter-trace.<host>.<pid>.<start>: one name per process, the same in every image of it (a
 * program that re-executes itself, as mfsolve does to choose its BLAS kernels, may have opened a
 * trace before its exec). The host name keeps apart the processes of other machines writing next
 * to the same output directory on a shared file system. -1 when the name does not fit. */
static int stage_name(char *out, size_t len, const char *base) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  for (char *c = host; *c; c++)
    if (*c == '/') *c = '_';
  int n = snprintf(out, len, "%s/.popmeter-trace.%s.%ld.%llu", base, host[0] ? host : "host", (long)getpid(),
                   process_start());
  if (n < 0 || (size_t)n >= len) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

/* Creates the staging directory dir. One that exists already and belongs to this user was left by
 * an earlier image of this very process (its name says so): nothing else writes into it, and it
 * is replaced. Anything else of that name (another user's directory, a file, a link) is left alone
 * and the caller falls back. */
static int make_stage_dir(const char *dir) {
  if (mkdir(dir, 0755) == 0) return 0;
  if (errno != EEXIST) return -1;
  struct stat st;
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
    errno = EEXIST;
    return -1;
  }
  pm_info("trace: replacing the staging directory %s, left by an earlier image of this process", dir);
  remove_tree(dir);
  return mkdir(dir, 0755);
}

/* The staging directory: next to the output directory (so that placing the archive is a rename),
 * or under $TMPDIR when that is not writable. */
static int make_stage(char *out, size_t len) {
  const char *req = pm_config_get()->s[PM_CFG_OUTPUT];
  char base[4096] = ".";
  if (req && req[0]) {
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", req);
    snprintf(base, sizeof base, "%s", dirname(copy));
  }
  if (stage_name(out, len, base) == 0 && make_stage_dir(out) == 0) return 0;
  int e = errno;
  const char *tmp = secure_getenv("TMPDIR");
  char fallback[4096];
  if (stage_name(fallback, sizeof fallback, tmp && tmp[0] ? tmp : "/tmp") == 0 && make_stage_dir(fallback) == 0) {
    pm_warn("cannot create the trace directory %s (%s); writing the trace into %s", out, strerror(e), fallback);
    snprintf(out, len, "%s", fallback);
    return 0;
  }
  pm_error("cannot create the trace directory %s (%s), nor %s; no trace is written", out, strerror(e), fallback);
  return -1;
}

static int open_serial(void) {
  int guard = pm_in_tool(), rc = -1;
  pm_set_in_tool(1); /* the archive's own file I/O is not the application's */
  pm_tr.rank = 0;
  pm_tr.nprocs = 1;
  pm_tr.collective = 0;
  pm_tr.owner = 1;
  pm_tr.offset = 0;
  char err[512];
  if (make_stage(pm_tr.stage, sizeof pm_tr.stage) == 0) {
    pm_tr.t_open = pm_tr_time(pm_clock_now());
    if (pm_tarchive_open(NULL, err, sizeof err) == 0) {
      set_state(PM_TR_OPEN);
      rc = 0;
    } else {
      pm_error("trace: %s%s%s; no trace is written", err, pm_tr.nerrors ? ": " : "", pm_tr.first_error);
      rmdir(pm_tr.stage);
    }
  }
  pm_set_in_tool(guard);
  return rc;
}

void pm_trace_activate(const pm_config *cfg) {
  if (!cfg->i[PM_CFG_TRACE] || pm_tr_state() != PM_TR_OFF) return;
  OTF2_Error_RegisterCallback(otf2_error, NULL);
  pm_tfilter_parse(cfg->s[PM_CFG_TRACE_FILTER], &pm_tr.filter, pm_warn);
  pm_tr.budget = (size_t)cfg->i[PM_CFG_TRACE_BUFFER] << 20;
  pm_tr.metric_period_ns = 10000000; /* a useful-time sample at most every 10 ms per location */
  pm_tr.flush_region = pm_region_register("popmeter:flush", PM_PARADIGM_MEASUREMENT, PM_ROLE_ARTIFICIAL);
  int slot = pm_tloc_observer_add();
  if (slot < 0) {
    pm_warn("trace: no location observer slot left; no trace is written");
    return;
  }
  pm_tr.slot = slot;
  set_state(PM_TR_WAITING);
  pm_events_subscribe(&trace_events);
  /* a program started by an MPI launcher opens its archive with the other ranks at MPI_Init;
   * anything else (no MPI, or an MPI singleton) now, alone */
  int launched =
      getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("MPI_LOCALNRANKS");
  if ((!launched || !dlsym(RTLD_DEFAULT, "PMPI_Init")) && open_serial() != 0) set_state(PM_TR_OFF);
}

/* --------------------------------------------------------------------------------- MPI_Init */
typedef struct {
  int all, any, serial;
  char stage[4096];
} decision;

static int start(const pm_ipc *ipc);
int pm_trace_start(const pm_ipc *ipc) {
  if (!ipc || !ipc->bcast || !ipc->barrier) return 0;
  int guard = pm_in_tool();
  pm_set_in_tool(1); /* the archive's own file I/O is not the application's */
  int rc = start(ipc);
  pm_set_in_tool(guard);
  return rc;
}

/* Communicators 0 and 1: MPI_COMM_WORLD (world ranks 0..n-1) and MPI_COMM_SELF. */
static void define_world(int size) {
  uint64_t *world = malloc(sizeof *world * (size_t)size);
  for (int i = 0; world && i < size; i++) world[i] = (uint64_t)i;
  pm_tcomm_add(PM_TCOMM_MPI, world ? size : 0, world, 0);
  pm_tcomm_add(PM_TCOMM_SELF, 0, NULL, 0);
  free(world);
}

static int start(const pm_ipc *ipc) {
  /* 1: waiting for the other ranks; 2: archive already open (no MPI launcher was recognised at
   * activation); 0: not tracing */
  int st = pm_tr_state(), on = st == PM_TR_WAITING ? 1 : st == PM_TR_OPEN && !pm_tr.collective ? 2 : 0;
  char host[256] = "", mine[512];
  gethostname(host, sizeof host - 1);
  ipc->barrier(ipc);
  uint64_t t = pm_clock_now(); /* the ranks leave the barrier at about the same time */
  snprintf(mine, sizeof mine, "%d %llu %s", on, (unsigned long long)t, host);
  char **parts = NULL;
  decision d = {0, 0, 0, ""};
  int64_t *off = calloc((size_t)ipc->size, sizeof *off);
  int ok = ipc->gather(ipc, mine, strlen(mine), &parts) == 0 && off;
  if (ipc->rank == 0 && parts) {
    unsigned long long *ts = calloc((size_t)ipc->size, sizeof *ts);
    char(*hosts)[256] = calloc((size_t)ipc->size, sizeof *hosts);
    d.all = ok && ts && hosts;
    for (int i = 0; ts && hosts && i < ipc->size; i++) {
      int o = 0;
      if (!parts[i] || sscanf(parts[i], "%d %llu %255s", &o, &ts[i], hosts[i]) != 3) {
        d.all = 0;
        break;
      }
      d.all &= o == 1;
      d.any |= o != 0;
      d.serial |= o == 2;
    }
    /* hosts other than rank 0's: their clock is aligned on rank 0's at the barrier, through the
     * lowest rank of each host, so that the ranks of one host keep one clock */
    for (int i = 0; d.all && i < ipc->size; i++) {
      if (!strcmp(hosts[i], hosts[0])) continue;
      int j = 0;
      while (strcmp(hosts[j], hosts[i])) j++;
      off[i] = (int64_t)(ts[0] - ts[j]);
    }
    if (d.serial) {
      if (ipc->size > 1)
        pm_warn("the trace started before MPI_Init (no MPI launcher recognised): each process writes an archive "
                "of its own, without MPI events");
    } else if (d.any && !d.all)
      pm_warn("POPMETER_TRACE is not set in every process (or the processes disagree); no trace is written");
    if (d.all && make_stage(d.stage, sizeof d.stage) != 0) d.all = 0;
    free(ts);
    free(hosts);
  }
  if (parts) {
    for (int i = 0; i < ipc->size; i++) free(parts[i]);
    free(parts);
  }
  if (ipc->bcast(ipc, &d, sizeof d, 0) != 0) d.all = 0;
  if (d.all && (!off || ipc->bcast(ipc, off, (size_t)ipc->size * sizeof *off, 0) != 0)) d.all = 0;
  if (!d.all) {
    free(off);
    if (on == 2 && ipc->size == 1) { /* a singleton: its MPI events join the archive already open */
      define_world(1);
      return 1;
    }
    if (on == 1) set_state(PM_TR_OFF);
    return 0;
  }
  pm_tr.rank = ipc->rank;
  pm_tr.nprocs = ipc->size;
  pm_tr.collective = ipc->size > 1;
  pm_tr.owner = ipc->rank == 0;
  pm_tr.offset = off[ipc->rank];
  free(off);
  snprintf(pm_tr.stage, sizeof pm_tr.stage, "%s", d.stage);
  pm_tr.t_open = pm_tr_time(pm_clock_now());
  char err[512];
  if (pm_tarchive_open(pm_tr.collective ? ipc : NULL, err, sizeof err) != 0) {
    if (ipc->rank == 0)
      pm_error("trace: %s%s%s; no trace is written", err, pm_tr.nerrors ? ": " : "", pm_tr.first_error);
    set_state(PM_TR_OFF);
    return 0;
  }
  define_world(ipc->size);
  set_state(PM_TR_OPEN);
  pm_tloc_open_self(); /* before the window opens: MPI_Init's own event costs no buffer set-up */
  return 1;
}

/* --------------------------------------------------------------------------------- finalize */
void pm_trace_finalize(const pm_ipc *ipc, uint64_t t_end) {
  int st = pm_tr_state();
  if (st != PM_TR_OPEN && st != PM_TR_WAITING) return;
  if (st == PM_TR_WAITING) {
    /* the program has MPI but never initialised it: a serial trace of what is still open */
    pm_info("trace: MPI_Init was not called; the trace only holds the regions open at the end");
    if (open_serial() != 0) {
      set_state(PM_TR_CLOSED);
      return;
    }
  }
  set_state(PM_TR_CLOSING);
  uint32_t n = pm_tloc_count_all();
  /* a thread still writing an event finishes it first (best effort, bounded) */
  for (uint32_t i = 0; i < n; i++) {
    pm_tloc *T = pm_tloc_at(i);
    for (int k = 0; T && __atomic_load_n(&T->busy, __ATOMIC_ACQUIRE) && k < 100000; k++) sched_yield();
  }
  pm_tr.t_close = pm_tr_time(t_end);
  for (uint32_t i = 0; i < n; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (T) pm_tloc_close(T, t_end);
  }
  pm_tr.stats.events = 0;
  for (uint32_t i = 0; i < n; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (T && !T->failed) pm_tr.stats.events += T->nevents;
  }
  pm_tarchive_close_events();
  /* a process of a multi-process archive that cannot reach the others writes its own archive */
  int alone = pm_tr.collective && (!ipc || ipc->size != pm_tr.nprocs || !ipc->bcast || !ipc->barrier);
  int rc;
  if (alone) {
    rc = pm_tarchive_finish_alone();
    pm_tr.owner = 1;
  } else {
    rc = pm_tarchive_finish(pm_tr.collective ? ipc : NULL);
  }
  if (rc != 0 || pm_tr.nerrors) {
    /* a partial archive is no trace: it is removed, and the profile claims no events */
    pm_error("trace: writing the OTF2 archive in %s failed%s%s; no trace is kept", pm_tr.stage,
             pm_tr.nerrors ? ": " : "", pm_tr.first_error);
    if (!pm_tr.collective || pm_tr.owner) remove_tree(pm_tr.stage);
    pm_tr.stage[0] = '\0';
    memset(&pm_tr.stats, 0, sizeof pm_tr.stats);
  }
  set_state(PM_TR_CLOSED);
  /* a process with an archive of its own that does not report: say where the archive is */
  if (!pm_tr.collective && ipc && ipc->size > 1 && ipc->rank != 0)
    pm_warn("the trace of this process stays in %s/traces.otf2", pm_tr.stage);
}

/* ------------------------------------------------------------------------------ placement */
void pm_trace_place(const char *dir) {
  if (pm_tr_state() != PM_TR_CLOSED || !pm_tr.owner || pm_tr.placed || !pm_tr.stage[0]) return;
  pm_tr.placed = 1;
  if (!dir) {
    pm_warn("no output directory: the trace stays in %s/traces.otf2", pm_tr.stage);
    return;
  }
  static const char *const names[] = {"traces.otf2", "traces.def", "traces"};
  char from[3][4200], to[3][4200];
  for (int i = 0; i < 3; i++) {
    snprintf(from[i], sizeof from[i], "%s/%s", pm_tr.stage, names[i]);
    snprintf(to[i], sizeof to[i], "%s/%s", dir, names[i]);
    struct stat st;
    if (lstat(to[i], &st) == 0) {
      pm_warn("%s already exists: the trace stays in %s/traces.otf2", to[i], pm_tr.stage);
      return;
    }
  }
  for (int i = 0; i < 3; i++) {
    if (rename(from[i], to[i]) != 0) {
      int e = errno;
      for (int k = 0; k < i; k++) rename(to[k], from[k]); /* keep the archive in one piece */
      pm_warn("cannot move the trace into %s (%s): it stays in %s/traces.otf2", dir, strerror(e), pm_tr.stage);
      return;
    }
  }
  rmdir(pm_tr.stage);
  snprintf(pm_tr.final_dir, sizeof pm_tr.final_dir, "%s", dir);
  pm_info("wrote %s/traces.otf2", dir);
}

/* ------------------------------------------------------------------------------------ tests */
void pm_trace_reset_for_tests(void) {
  pm_events_subscribe(NULL);
  pm_tloc_reset();
  pm_tcomm_reset();
  pm_tfilter_free(&pm_tr.filter);
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  memset(&pm_tr, 0, sizeof pm_tr);
  pm_tr.lock = lock;
  pm_tr.slot = -1;
}

static int trace_to_profile(pm_profile *p, uint64_t t_start) {
  (void)t_start;
  return pm_trace_to_profile(p);
}
const pm_module pm_trace_module = {.name = "trace",
                                   .order = PM_ORDER_TRACE,
                                   .activate = pm_trace_activate,
                                   .begin = pm_trace_start,
                                   .finalize = pm_trace_finalize,
                                   .to_profile = trace_to_profile,
                                   .place = pm_trace_place};
