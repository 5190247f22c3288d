/* Plain input structs for the POP models (docs/metrics.md §0.2).
 * Everything here is in seconds (times) or plain counts; nothing depends on MPI, StarPU or a clock.
 * The measurement side (lib/) fills these from the run profile; tests fill them by hand. */
#ifndef PM_INPUT_H
#define PM_INPUT_H
#include <stdint.h>

/* What a location is. Progress threads (StarPU-MPI's "MPI" thread) are never counted as workers. */
typedef enum {
  PM_LOC_THREAD = 0, /* an application thread (main thread or OpenMP thread) */
  PM_LOC_WORKER,     /* a task-runtime worker (StarPU CPU worker) */
  PM_LOC_ACCEL,      /* a task-runtime accelerator worker (OpenCL/CUDA worker thread) */
  PM_LOC_PROGRESS,   /* a runtime communication progress thread: excluded from useful */
  PM_LOC_DEVICE      /* a device stream (CUDA), carrying kernel / memcpy time */
} pm_loc_kind;

/* Hardware counters of one location; has_* says whether the value was measured. */
typedef struct {
  int has_instructions, has_cycles, has_fp;
  double instructions, cycles;
  /* FP instruction counts by width: [0]=32-bit scalar, [1]=64-bit scalar, [2]=128, [3]=256, [4]=512 */
  double fp_by_width[5];
  /* packed / scalar split per precision, for the vectorization ratio: [0]=single, [1]=double */
  double fp_scalar[2], fp_packed[2];
  double fp_ops; /* floating point operations (for OPC); has_fp covers it */
} pm_counters;

typedef struct {
  int process; /* 0..P-1 */
  int node;    /* compute node index 0..nodes-1 (TALP LB in/out) */
  pm_loc_kind kind;
  int calls_mpi; /* 1 if this location called MPI (used for MPI-level models) */
  /* time by state over the measured window; for each location the states sum to the runtime R
   * (the remainder, if any, counts as "other" and is never useful) */
  double useful;          /* application code (task bodies, serial code, OpenMP work) */
  double mpi;             /* inside MPI (excluding MPI-IO, which is io) */
  double io;              /* file I/O (POSIX + MPI-IO) */
  double runtime;         /* task/OpenMP runtime overhead (scheduling, fork/join, data mgmt) */
  double idle;            /* idle: sleeping worker, OpenMP barrier/sync wait, no ready task */
  double gpu_runtime;     /* host time blocked in device runtime calls (cudaDeviceSynchronize...) */
  double mpi_worker_idle; /* TALP: idle of non-MPI threads while the MPI thread is in MPI */
  /* OpenMP view (threads only; 0 when the program has no OpenMP) */
  double in_parallel;   /* time inside parallel regions (on the master: the region's span) */
  double serial_useful; /* useful time outside parallel regions */
  double omp_useful;    /* useful time inside parallel regions */
  /* critical path: thread-local critical path of useful execution (TL-CUE), seconds */
  double tl_cue;
  /* task runtime (workers) */
  double exec; /* task body time (== useful for a worker) */
  /* device streams */
  double kernel, memcpy, memcpy_overlapped;
  pm_counters counters;
} pm_location_input;

/* One OpenMP parallel region (TALP split, additive per-region efficiency). */
typedef struct {
  const char *name;
  int process;
  int nthreads;
  double span;                 /* wall time of the region, summed over its instances */
  const double *thread_idle;   /* [nthreads]: idle time of each thread inside the region */
  const double *thread_useful; /* [nthreads]: useful time of each thread inside the region */
} pm_omp_region_input;

/* Per codelet/worker-type totals for the area bound and locality estimate. */
typedef struct {
  const char *name;
  int worker_type;  /* 0 = CPU, 1 = accelerator */
  double exec;      /* observed total execution time */
  double predicted; /* predicted total from the duration model (0 if unknown) */
  int64_t count;
} pm_codelet_input;

/* One part of what lies on the task critical path: the useful time of one codelet on one rank
 * along the path (name NULL: everything else; rank -1: not known). */
typedef struct {
  const char *name;
  int rank;
  double time;
} pm_cp_part_input;

typedef struct {
  double runtime; /* R: length of the measured window (max over processes) */
  int nprocesses; /* P */
  int nnodes;
  int nlocations;
  const pm_location_input *loc; /* [nlocations]; the first PM_LOC_THREAD of a process must be
                                    * its main thread (OpenMP master), the models rely on it */
  /* critical paths (seconds); has_critical_path = 0 when not measured */
  int has_critical_path;
  double g_cue, g_com, g_coo; /* global CUE, COM (MPI weighted 0), COO (OpenMP/runtime weighted 0) */
  int cue_io_useful;          /* the CUE clocks counted file I/O as useful (POPMETER_IO_AS_USEFUL at run
                               * time): max useful / G-CUE is a serialization only when io_as_useful
                               * matches it (pm__cue_mismatch) */
  const double *pl_cue;       /* [nprocesses] process-local CUE */
  /* task runtime */
  int nworker_types; /* number of worker types present (1 = CPU only) */
  int ncodelets;
  const pm_codelet_input *codelets;
  double cp_bound; /* CPB: critical path through the task DAG, seconds (0 = unknown) */
  /* what lies on that path: its useful time by codelet and rank (largest first), by rank, and the
   * MPI transfer time on the path counted with transfers (COO); all 0 / NULL when unknown */
  int ncp_parts;
  const pm_cp_part_input *cp_parts;
  int ncp_ranks;
  const pm_cp_part_input *cp_ranks; /* name unused */
  double cp_coo, cp_coo_mpi;        /* COO length of the task path, and its MPI part */
  /* task reference runs (0 = unknown), for e_locality / e_granularity of the task model:
   * sum of task execution time of the same work with one worker, and of the sequential kernels */
  double task_ref_exec_1worker;
  double task_ref_exec_seq;
  /* the same, per codelet (docs/metrics.md §6.3): the one-worker run's codelets and the sequential
   * kernels (name, exec = total time, count = tasks or kernel calls; worker_type unused). When both
   * are given they replace the two totals above: codelets are matched by name and task count. */
  int nref_one, nref_seq;
  const pm_codelet_input *ref_one, *ref_seq;
  /* 1 when the runtime's overhead outside task bodies was not observable (StarPU 1.4's tool
   * interface): the workers' runtime time is then 0 without meaning it, and e_runtime is n/a */
  int task_runtime_unobserved;
  int nomp_regions;
  const pm_omp_region_input *omp_regions;
  /* machine: widest vector unit in bits (0 = unknown) */
  int vector_width_max;
  int io_as_useful; /* count I/O as useful (option) */
} pm_run_input;

/* Cross-run scalability (reports/): one entry per run. */
typedef struct {
  int nprocesses, nthreads; /* N = nprocesses * nthreads locations used for weak scaling */
  double runtime;
  double sum_useful;
  double parallel_efficiency; /* from the run's own model */
  int has_counters;
  double sum_instructions, sum_cycles; /* over useful time */
} pm_scaling_run;

#endif
