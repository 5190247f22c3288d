/*
 * mfs_nostarpu.c — the task-based executor's entry points in a libmfsolve built without StarPU
 * (configure found no StarPU 1.3 / StarPU-MPI): they say so, and the sequential executor does the work.
 */
#include "mfs_internal.h"

#include <stdlib.h>

int mfs_starpu_built(void) { return 0; }

int mfs_mpi_launched(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "PMI_RANK"};
  for (size_t t = 0; t < sizeof vars / sizeof *vars; t++)
    if (getenv(vars[t])) return 1;
  return 0;
}

static mfs_status not_built(mfs_error *err) {
  return err__set(err, MFS_ERR_UNSUPPORTED, 0, -1,
                  "this libmfsolve was built without StarPU (task-based and "
                  "distributed execution are not available)");
}

mfs_status mfs_runtime_start(const mfs_runtime_options *o, int *argc, char ***argv, mfs_error *err) {
  (void)o;
  (void)argc;
  (void)argv;
  return not_built(err);
}

void mfs_runtime_stop(void) {}
void mfs_runtime_pause(void) {}
void mfs_runtime_resume(void) {}
int mfs_runtime_rank(void) { return 0; }
int mfs_runtime_nranks(void) { return 1; }

void mfs_runtime_allreduce(double *v, int n, int max) {
  (void)v;
  (void)n;
  (void)max;
}

void mfs_starpu_options_default(mfs_starpu_options *o) {
  o->mem_relax = 0; /* automatic */
  o->prune = 1;
}

mfs_status mfs_factorize_starpu(const mfs_symbolic *S, const mfs_matrix *A, const mfs_starpu_options *o, mfs_factor **F,
                                mfs_progress_fn progress, void *ctx, mfs_error *err) {
  (void)S;
  (void)A;
  (void)o;
  (void)progress;
  (void)ctx;
  *F = NULL;
  return not_built(err);
}

mfs_status solve__distributed(const mfs_factor *F, int nrhs, double *b, int ldb, mfs_error *err) {
  (void)F;
  (void)nrhs;
  (void)b;
  (void)ldb;
  return not_built(err);
}
