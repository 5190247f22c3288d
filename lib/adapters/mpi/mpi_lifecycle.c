/* MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort (C, mpif.h / 'use mpi', 'use mpi_f08').
 *
 * Init: PMPI first (the application's 'required' thread level is passed through untouched), then
 * activation of the core, popmeter's private communicator (a copy of MPI_COMM_WORLD, errors
 * returned instead of fatal), the process identity, the regions, the critical-path setup. The measured
 * window starts when this set-up is done (pm_core_restart_window): the time of MPI_Init itself is
 * not part of it (the MPI_Init* region keeps its visit). Every rank takes part in the same collective calls whatever its own outcome,
 * and the adapter turns on only if all ranks succeeded (a rank alone would otherwise hang the
 * others in the next collective of the tool); popmeter must therefore be loaded in all ranks or none.
 * Finalize: drains the critical-path clock messages, calls pm_mpi_finalize_hook() (the lead's
 * reduction of the profile through the private communicator), then PMPI_Finalize. Both may run on
 * a thread that is not the main thread (StarPU-MPI's progress thread). */
#define _GNU_SOURCE
#include "mpi_adapter.h"
#include "mpi_comm_copy.h"
#include "pm_mpi_calls.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include <dlfcn.h>

int pm_mpi_flags;
static int initialized;
static int have_tool_comm;
static MPI_Comm tool_comm;

/* Weak default: the lead's finalize-time reduction replaces it. */
__attribute__((weak)) void pm_mpi_finalize_hook(void) {}

MPI_Comm pm_mpi_tool_comm(void) { return have_tool_comm ? tool_comm : MPI_COMM_NULL; }
int pm_mpi_is_initialized(void) { return initialized; }

/* The predefined objects the wrappers use must have been resolved when libpopmeter was loaded
 * (they are not if libmpi was dlopen'ed later): otherwise the adapter stays a pass-through. */
static int symbols_ok(void) {
  return &ompi_mpi_comm_world && &ompi_mpi_comm_self && &ompi_mpi_comm_null && &ompi_request_null && &ompi_mpi_byte &&
         &ompi_mpi_uint64_t && &ompi_mpi_int && &ompi_mpi_op_max && &ompi_mpi_op_min && &ompi_message_null &&
         &ompi_message_no_proc && &ompi_mpi_errors_return && PMPI_Comm_dup && PMPI_Allreduce;
}

void pm_mpi_after_init(uint64_t t0, int region_index) {
  if (initialized || !symbols_ok()) return;
  int act = pm_core_activate();
  MPI_Comm c = MPI_COMM_NULL;
  if (pm_mpi_comm_copy(MPI_COMM_WORLD, &c) != MPI_SUCCESS) c = MPI_COMM_NULL; /* collective on all ranks */
  if (c == MPI_COMM_NULL) {
    if (act) pm_warn("could not create popmeter's MPI communicator; MPI calls are not measured");
    return;
  }
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  if (!pm_mpi_all_agree(c, act)) {
    if (act) pm_warn("popmeter is disabled in some MPI ranks; MPI calls are not measured");
    PMPI_Comm_free(&c);
    return;
  }
  tool_comm = c;
  have_tool_comm = 1;
  int rank = 0, size = 1;
  PMPI_Comm_rank(c, &rank);
  PMPI_Comm_size(c, &size);
  pm_core_set_process(rank, size);
  pm_mpi_register_regions();
  int cp = pm_mpi_cp_setup(c);
  /* the modules learn the run's processes (the trace: all ranks agree and open one archive;
   * collective, before the window opens so that it costs the application nothing) */
  pm_ipc ipc;
  pm_mpi_make_ipc(&ipc);
  if (pm_modules_begin(&ipc)) pm_mpi_trace_init();
  initialized = 1;
  __atomic_store_n(&pm_mpi_flags, PM_MPI_ON | (cp ? PM_MPI_CP : 0), __ATOMIC_RELEASE);
  /* The window of an MPI program opens here, right after the collective set-up above aligned the
   * ranks, whether popmeter was active before (launcher) or not (preload): MPI_Init's start-up
   * cost is not the application's parallel efficiency. MPI_Init keeps its visit. */
  pm_core_restart_window();
  pm_loc *L = pm_enter_tool();
  if (L) {
    pm_call_enter(L, pm_mpi_region[region_index], PM_STATE_MPI_MGMT, t0);
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
}

/* The MPI_Finalize region itself is entered by the hook (mpi_report.c), which closes the
 * measurement window inside it. */
void pm_mpi_before_finalize(int region_index) {
  (void)region_index;
  if (!initialized) return;
  if (pm_mpi_flags & PM_MPI_CP) pm_mpi_cp_shutdown();
  __atomic_store_n(&pm_mpi_flags, 0, __ATOMIC_RELEASE); /* wrappers pass through from here on */
  pm_mpi_finalize_hook();
}

void pm_mpi_after_finalize(void) {
  initialized = 0;
  pm_mpi_trace_on = 0;
  have_tool_comm = 0;
}

/* ------------------------------------------------------------------------------------------- C */
/* When the core is already measuring (activated by the launcher or another adapter), the tool guard
 * is held during PMPI_Init*: what Open MPI does inside (file I/O, threads) is part of MPI_Init, not
 * separate events, and the interval [t0, end] charged to MPI_Init afterwards is not charged twice. */
PM_EXPORT int MPI_Init(int *argc, char ***argv) {
  uint64_t t0 = pm_clock_now();
  pm_loc *L = pm_enter_tool();
  int rc = PMPI_Init(argc, argv);
  if (L) pm_leave_tool(L);
  if (rc == MPI_SUCCESS) pm_mpi_after_init(t0, PM_MPI_MPI_Init);
  return rc;
}

PM_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  uint64_t t0 = pm_clock_now();
  pm_loc *L = pm_enter_tool();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (L) pm_leave_tool(L);
  if (rc == MPI_SUCCESS) pm_mpi_after_init(t0, PM_MPI_MPI_Init_thread);
  return rc;
}

PM_EXPORT int MPI_Finalize(void) {
  pm_mpi_before_finalize(PM_MPI_MPI_Finalize);
  int rc = PMPI_Finalize();
  pm_mpi_after_finalize();
  return rc;
}

PM_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  pm_loc *L = (pm_mpi_flags & PM_MPI_ON) ? pm_enter_tool() : NULL;
  if (L) pm_call_enter(L, pm_mpi_region[PM_MPI_MPI_Abort], PM_STATE_MPI_MGMT, pm_clock_now());
  int rc = PMPI_Abort(comm, errorcode);
  if (L) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
  return rc;
}

/* ------------------------------------------------------------------------------------- Fortran */
extern void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_f08_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_finalize_f08_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));

/* ierr may be absent (NULL) in the mpi_f08 bindings: use a local one then. */
#define PM_IERR(ierr, loc) ((ierr) ? (ierr) : &(loc))

static void f_init(void (*fn)(MPI_Fint *), MPI_Fint *ierr) {
  MPI_Fint e = MPI_SUCCESS, *pe = PM_IERR(ierr, e);
  uint64_t t0 = pm_clock_now();
  pm_loc *L = pm_enter_tool();
  fn(pe);
  if (L) pm_leave_tool(L);
  if (*pe == MPI_SUCCESS) pm_mpi_after_init(t0, PM_MPI_MPI_Init);
}
static void f_init_thread(void (*fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *), MPI_Fint *required, MPI_Fint *provided,
                          MPI_Fint *ierr) {
  MPI_Fint e = MPI_SUCCESS, *pe = PM_IERR(ierr, e);
  uint64_t t0 = pm_clock_now();
  pm_loc *L = pm_enter_tool();
  fn(required, provided, pe);
  if (L) pm_leave_tool(L);
  if (*pe == MPI_SUCCESS) pm_mpi_after_init(t0, PM_MPI_MPI_Init_thread);
}
static void f_finalize(void (*fn)(MPI_Fint *), MPI_Fint *ierr) {
  pm_mpi_before_finalize(PM_MPI_MPI_Finalize);
  fn(ierr);
  pm_mpi_after_finalize();
}
static void f_abort(void (*fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *), MPI_Fint *comm, MPI_Fint *errorcode,
                    MPI_Fint *ierr) {
  pm_loc *L = (pm_mpi_flags & PM_MPI_ON) ? pm_enter_tool() : NULL;
  if (L) pm_call_enter(L, pm_mpi_region[PM_MPI_MPI_Abort], PM_STATE_MPI_MGMT, pm_clock_now());
  fn(comm, errorcode, ierr);
  if (L) {
    pm_call_exit(L, pm_clock_now());
    pm_leave_tool(L);
  }
}

PM_EXPORT void mpi_init_(MPI_Fint *ierr) { f_init(pmpi_init_, ierr); }
PM_EXPORT void mpi_init__(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
PM_EXPORT void mpi_init(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
PM_EXPORT void MPI_INIT(MPI_Fint *ierr) __attribute__((alias("mpi_init_")));
PM_EXPORT void mpi_init_f08_(MPI_Fint *ierr) { f_init(pmpi_init_f08_, ierr); }

PM_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  f_init_thread(pmpi_init_thread_, required, provided, ierr);
}
PM_EXPORT void mpi_init_thread__(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
PM_EXPORT void mpi_init_thread(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
PM_EXPORT void MPI_INIT_THREAD(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_init_thread_")));
PM_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  f_init_thread(pmpi_init_thread_f08_, required, provided, ierr);
}

PM_EXPORT void mpi_finalize_(MPI_Fint *ierr) { f_finalize(pmpi_finalize_, ierr); }
PM_EXPORT void mpi_finalize__(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
PM_EXPORT void mpi_finalize(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
PM_EXPORT void MPI_FINALIZE(MPI_Fint *ierr) __attribute__((alias("mpi_finalize_")));
PM_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr) { f_finalize(pmpi_finalize_f08_, ierr); }

PM_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) {
  f_abort(pmpi_abort_, comm, errorcode, ierr);
}
PM_EXPORT void mpi_abort__(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
PM_EXPORT void mpi_abort(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
PM_EXPORT void MPI_ABORT(MPI_Fint *, MPI_Fint *, MPI_Fint *) __attribute__((alias("mpi_abort_")));
PM_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) {
  f_abort(pmpi_abort_f08_, comm, errorcode, ierr);
}
