/*
 * mfs_runtime.c — starting and stopping StarPU (and MPI + StarPU-MPI) for libmfsolve.
 *
 * MPI is initialised with MPI_THREAD_MULTIPLE: StarPU-MPI's progression thread calls MPI while the
 * distributed solve runs its own collectives on a duplicated communicator from the main thread.
 *
 * StarPU's configuration takes precedence over its environment variables so that --workers means
 * what it says and no OpenCL/CUDA worker appears (Debian's StarPU drives any OpenCL device it finds,
 * pocl on the CPU included, with a polling thread). STARPU_SCHED is honoured here instead.
 * Under an MPI launcher StarPU does not pin its workers (STARPU_WORKERS_NOBIND): several processes on
 * one machine must not pin theirs to the same cores, and the launcher may have bound the process
 * already; mfs_placement.c gives each worker a CPU of its own when the machine has enough.
 *
 * Buffers StarPU allocates itself — on this solver's runs only those for tiles that arrive from
 * other processes before this process posted their receive (its submission is behind, e.g. waiting
 * for memory) — go through malloc hooks into the tracked allocator, so the measured memory peak
 * includes them. During the numeric phase they are taken from the contribution-block window when it
 * has room (runtime__recv_arena_set): memory the window has touched already, which the prediction
 * counts, instead of more memory on top of it (3 processes on 2 CPUs: measured/predicted up to 1.12
 * from the heap's early-arrival buffers alone).
 */
#include "mfs_runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

runtime_state runtime__state = {.nranks = 1, .workers = 1, .comm = MPI_COMM_NULL};

static _Atomic int64_t recv_cur, recv_hwm;
static _Atomic int64_t heap_cur, heap_hwm; /* those of them outside the window */
/* The window early-arrival buffers come from (or NULL) and how many it holds. One lock for both:
 * the window must not change between a hook's choice of it and the count that keeps it. Early
 * arrivals are rare (a few per run), so the lock costs nothing that shows. */
static pthread_mutex_t recv_lock = PTHREAD_MUTEX_INITIALIZER;
static mfs_arena *recv_arena;
static int64_t recv_in_arena;

/* Window blocks keep 64-byte alignment (a tile is a multiple of 8 bytes) */
static size_t arena_len(size_t dim) { return (dim + 63) & ~(size_t)63; }

int64_t runtime__recv_bytes(void) { return atomic_load(&recv_cur); }
int64_t runtime__recv_peak(void) { return atomic_load(&recv_hwm); }
int64_t runtime__recv_heap_peak(void) { return atomic_load(&heap_hwm); }
void runtime__recv_reset_peak(void) {
  atomic_store(&recv_hwm, atomic_load(&recv_cur));
  atomic_store(&heap_hwm, atomic_load(&heap_cur));
}

static void add_held(_Atomic int64_t *cur, _Atomic int64_t *hwm, int64_t bytes) {
  int64_t now = atomic_fetch_add(cur, bytes) + bytes;
  int64_t old = atomic_load(hwm);
  while (now > old && !atomic_compare_exchange_weak(hwm, &old, now)) {}
}

int runtime__recv_malloc(unsigned node, void **p, size_t dim, int flags) {
  (void)node;
  (void)flags;
  int over;
  pthread_mutex_lock(&recv_lock);
  *p = recv_arena && dim ? arena__alloc_in_window(recv_arena, arena_len(dim), ARENA_HIGH, &over, NULL) : NULL;
  if (*p) recv_in_arena++;
  pthread_mutex_unlock(&recv_lock);
  if (!*p) {
    *p = mem__alloc(dim ? dim : 1);
    if (!*p) return -ENOMEM;
    add_held(&heap_cur, &heap_hwm, (int64_t)dim);
  }
  add_held(&recv_cur, &recv_hwm, (int64_t)dim);
  return 0;
}

int runtime__recv_free(unsigned node, void *p, size_t dim, int flags) {
  (void)node;
  (void)flags;
  if (!p) return 0;
  atomic_fetch_sub(&recv_cur, (int64_t)dim);
  pthread_mutex_lock(&recv_lock);
  int in_window = recv_arena && arena__owns(recv_arena, p);
  if (in_window) {
    arena__free(recv_arena, p, arena_len(dim));
    recv_in_arena--;
  }
  pthread_mutex_unlock(&recv_lock);
  if (!in_window) {
    atomic_fetch_sub(&heap_cur, (int64_t)dim);
    mem__free(p);
  }
  return 0;
}

int64_t runtime__recv_arena_set(mfs_arena *a) {
  pthread_mutex_lock(&recv_lock);
  int64_t held = recv_in_arena;
  if (held == 0) recv_arena = a; /* else the window stays the hooks' until its buffers come back */
  pthread_mutex_unlock(&recv_lock);
  return held;
}

int mfs_starpu_built(void) { return 1; }

long runtime__env_us(const char *name, long def, long max) {
  const char *e = getenv(name);
  if (!e || !*e) return def;
  char *end = NULL;
  errno = 0;
  long us = strtol(e, &end, 10);
  if (*end || errno || us < 0 || us > max) {
    fprintf(stderr, "mfsolve: %s='%s' is not a number of microseconds in 0..%ld; using %ld\n", name, e, max, def);
    return def;
  }
  return us;
}

int mfs_mpi_launched(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "PMI_RANK"};
  for (size_t t = 0; t < sizeof vars / sizeof *vars; t++)
    if (getenv(vars[t])) return 1;
  return 0;
}

int mfs_runtime_rank(void) { return runtime__state.started ? runtime__state.rank : 0; }
int mfs_runtime_nranks(void) { return runtime__state.started ? runtime__state.nranks : 1; }

void mfs_runtime_allreduce(double *v, int n, int max) {
  if (!runtime__state.mpi || runtime__state.nranks == 1 || n <= 0) return;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, max ? MPI_MAX : MPI_SUM, runtime__state.comm);
}

mfs_status mfs_runtime_start(const mfs_runtime_options *o, int *argc, char ***argv, mfs_error *err) {
  runtime_state *R = &runtime__state;
  if (R->started) return err__set(err, MFS_ERR_ARG, 0, -1, "the runtime is already running");
  if (!o || o->workers < 1 || o->workers > STARPU_MAXCPUS)
    return err__set(err, MFS_ERR_ARG, 0, -1, "invalid number of workers %d (this StarPU allows 1 to %d)",
                    o ? o->workers : 0, STARPU_MAXCPUS);
  R->rank = 0;
  R->nranks = 1;
  R->mpi = R->mpi_ours = 0;
  if (o->mpi) {
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
      if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        return err__set(err, MFS_ERR_UNSUPPORTED, 0, -1, "MPI_Init_thread failed");
      R->mpi_ours = 1;
    } else {
      MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
      if (R->mpi_ours) MPI_Finalize();
      R->mpi_ours = 0;
      return err__set(err, MFS_ERR_UNSUPPORTED, 0, -1, "this MPI does not provide MPI_THREAD_MULTIPLE (got level %d)",
                      provided);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &R->comm);
    MPI_Comm_rank(R->comm, &R->rank);
    MPI_Comm_size(R->comm, &R->nranks);
    /* the launcher may have bound this process to some cores already; several processes per
         * machine must not all pin their workers to the first cores either: StarPU does not pin
         * them, mfs_placement.c does when the machine has a CPU for each */
    placement__plan(R, o->workers);
    progress__plan(R, o->workers, o->mpi_progress);
  }
  starpu_malloc_set_hooks(runtime__recv_malloc, runtime__recv_free);
  struct starpu_conf conf;
  starpu_conf_init(&conf);
  conf.precedence_over_environment_variables = 1;
  conf.ncpus = o->workers;
  conf.ncuda = 0;
  conf.nopencl = 0;
  conf.nmic = 0;
  conf.nmpi_ms = 0;
  const char *sched = o->sched ? o->sched : getenv("STARPU_SCHED");
  if (sched && *sched) conf.sched_policy_name = sched;
  int ret = o->mpi ? starpu_mpi_init_conf(argc, argv, 0, MPI_COMM_WORLD, &conf) : starpu_init(&conf);
  if (ret != 0) {
    if (o->mpi) {
      progress__stop(R);
      MPI_Comm_free(&R->comm);
      if (R->mpi_ours) MPI_Finalize();
    }
    return err__set(err, MFS_ERR_UNSUPPORTED, 0, -1, "StarPU failed to start (%s)", strerror(-ret));
  }
  R->mpi = o->mpi;
  if (R->mpi) {
    mfs_mpi_poll_sleep_us();     /* reads its setting now (and links the MPI_Test wrapper in) */
    progress__keepalive_post(R); /* before anything runs on the workers (placement__apply does) */
    placement__apply(R);
  }
  R->workers = (int)starpu_cpu_worker_get_count();
  struct starpu_sched_policy *pol = starpu_sched_ctx_get_sched_policy(0);
  snprintf(R->sched, sizeof R->sched, "%s", pol && pol->policy_name ? pol->policy_name : "?");
  R->started = 1;
  runtime__idle_start();
  mfs_kernels_init();
  return MFS_OK;
}

void mfs_runtime_pause(void) {
  runtime_state *R = &runtime__state;
  if (R->started && !R->paused) {
    progress__keepalive_end(R); /* the progression loop may sleep now: no task will come */
    starpu_pause();
    R->paused = 1;
  }
}

void mfs_runtime_resume(void) {
  runtime_state *R = &runtime__state;
  if (R->started && R->paused) {
    starpu_resume();
    progress__keepalive_post(R);
    R->paused = 0;
  }
}

void mfs_runtime_stop(void) {
  runtime_state *R = &runtime__state;
  if (!R->started) return;
  mfs_runtime_resume();
  runtime__idle_stop();
  if (R->mpi) {
    progress__stop(R);
    starpu_mpi_shutdown(); /* shuts StarPU down too (it started it) */
    MPI_Comm_free(&R->comm);
    if (R->mpi_ours) MPI_Finalize();
  } else {
    starpu_shutdown();
  }
  R->started = R->mpi = R->mpi_ours = 0;
  R->rank = 0;
  R->nranks = 1;
}
