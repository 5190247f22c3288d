/* The vocabulary shared by measurement and analysis: location states and their POP classes, region
 * paradigms and roles, location roles. The run profile, the models' input, the offline tools and the
 * runtime all speak it; it carries no runtime (lib/core/pm_core.h is the runtime API). The numeric
 * values are part of popmeter.json (docs/json.md): append, never renumber. */
#ifndef PM_VOCABULARY_H
#define PM_VOCABULARY_H
#include <stdint.h>

#define PM_HIDDEN __attribute__((visibility("hidden")))
#define PM_LIKELY(x) __builtin_expect(!!(x), 1)
#define PM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------------------------------------ states */
typedef enum {
  PM_STATE_USEFUL = 0, /* application code */
  PM_STATE_MPI_P2P,    /* blocking or non-blocking point-to-point call */
  PM_STATE_MPI_COLL,   /* collective (blocking, or the posting of a non-blocking one) */
  PM_STATE_MPI_SYNC,   /* wait / test / probe: completing requests */
  PM_STATE_MPI_MGMT,   /* init, finalize, communicators, datatypes, other management */
  PM_STATE_MPI_IO,     /* MPI-IO file calls */
  PM_STATE_POSIX_IO,   /* POSIX / stdio file I/O */
  PM_STATE_RUNTIME,    /* task or OpenMP runtime overhead (scheduling, fork/join, data management) */
  PM_STATE_SYNC_WAIT,  /* thread synchronisation wait (OpenMP barrier, lock) */
  PM_STATE_IDLE,       /* no work: sleeping worker, waiting for a task */
  PM_STATE_DEVICE,     /* host blocked in a device runtime call (CUDA sync, memcpy) */
  PM_STATE_TOOL,       /* popmeter's own work (finalize reduction, trace flush) */
  PM_STATE_OFF,        /* not measured: before activation, paused, after finalize */
  PM_STATE_COUNT
} pm_state;

/* The coarse class a state belongs to in the POP models. */
typedef enum {
  PM_CLASS_USEFUL = 0,
  PM_CLASS_MPI,
  PM_CLASS_IO,
  PM_CLASS_RUNTIME,
  PM_CLASS_IDLE,
  PM_CLASS_DEVICE,
  PM_CLASS_OTHER,
  PM_CLASS_COUNT
} pm_state_class;

PM_HIDDEN pm_state_class pm_state_class_of(pm_state s);
PM_HIDDEN const char *pm_state_name(pm_state s); /* "useful", "mpi_p2p", ... (JSON keys) */

/* Context bit: whether the location is inside an OpenMP parallel region (additive model). */
enum { PM_CTX_SERIAL = 0, PM_CTX_PARALLEL = 1, PM_CTX_COUNT = 2 };

/* ---------------------------------------------------------------------------------------- regions */
/* A region is a named code entity: "main", a user region, an MPI function, a codelet, an OpenMP
 * parallel region. */
typedef enum {
  PM_PARADIGM_USER = 0,
  PM_PARADIGM_MPI,
  PM_PARADIGM_OPENMP,
  PM_PARADIGM_STARPU,
  PM_PARADIGM_IO,
  PM_PARADIGM_CUDA,
  PM_PARADIGM_MEASUREMENT,
  PM_PARADIGM_COUNT
} pm_paradigm;
typedef enum {
  PM_ROLE_FUNCTION = 0,
  PM_ROLE_POINT2POINT,
  PM_ROLE_COLLECTIVE,
  PM_ROLE_BARRIER,
  PM_ROLE_PARALLEL,
  PM_ROLE_TASK,
  PM_ROLE_FILE_IO,
  PM_ROLE_WRAPPER,
  PM_ROLE_ARTIFICIAL,
  PM_ROLE_COUNT
} pm_region_role;

/* ------------------------------------------------------------------------------------- locations */
typedef enum {
  PM_ROLE_MAIN = 0,     /* the process's main thread (first registered) */
  PM_ROLE_THREAD,       /* another application thread (OpenMP thread, pthread) */
  PM_ROLE_WORKER,       /* task-runtime CPU worker */
  PM_ROLE_ACCEL_WORKER, /* task-runtime accelerator worker */
  PM_ROLE_PROGRESS,     /* communication progress thread (StarPU-MPI "MPI") */
  PM_ROLE_DEVICE,       /* a device stream (CUDA), fed by the CUPTI plugin */
  PM_ROLE_OTHER,        /* helper threads we do not model */
  PM_LOC_ROLE_COUNT
} pm_loc_role;
PM_HIDDEN const char *pm_loc_role_name(pm_loc_role r);

/* --------------------------------------------------------------------------- task attributes */
/* The OTF2 attributes a task body's Leave carries (docs/trace.md): written by the trace
 * (lib/trace/trace_task.c), read back by popmeter view (view/vw_trace.c). Their ids are the same in
 * every process. */
enum { PM_TT_TAG, PM_TT_FLOPS, PM_TT_SUBMIT, PM_TT_READY, PM_TT_POP, PM_TT_CP_IN, PM_TT_CP_OUT, PM_TT_NATTR };
PM_HIDDEN const char *pm_task_attr_name(int i); /* "task tag", ...; NULL out of range */

#endif
