/*
 * mfs_internal.h — helpers shared by the libmfsolve sources (not installed, not part of the API).
 * Internal names follow the project rule module__verb.
 */
#ifndef MFS_INTERNAL_H
#define MFS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "mfs.h"

/* Tracked allocation (mfs_alloc.c). Blocks are 64-byte aligned so that tiles start on a cache line
 * and the BLAS kernels see aligned columns; free takes no size because a header stores it. */
void *mem__alloc(size_t bytes);
void *mem__calloc(size_t count, size_t size);
void *mem__realloc(void *p, size_t bytes);
void mem__free(void *p);
/* Counts memory obtained elsewhere (the arenas' committed pages) in the same counters. */
void mem__account(int64_t delta);

/* What popmeter is told when it measures the run (mfs_publish.c): the assembly tree (the tags of the
 * tasks are fronts; owner[f] the process owning front f, NULL: all of them this rank's), and the
 * memory the allocator tracks, at each change. */
void pub__tree(const mfs_symbolic *S, const int32_t *owner, int rank);
void pub__memory(int64_t bytes);

/* Sets *err (when non-NULL) and returns status. printf-style message. */
mfs_status err__set(mfs_error *err, mfs_status status, long line, int64_t column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline mfs_status err__nomem(mfs_error *err) { return err__set(err, MFS_ERR_NOMEM, 0, -1, "out of memory"); }

/* Lower-CSC pattern transpose: upper CSC (column j holds rows i < j) of a symmetric pattern given
 * by its lower triangle; diagonal entries dropped. mfs_etree.c. */
mfs_status pattern__upper(int32_t n, const int64_t *colptr, const int32_t *rowind, int64_t **uptr, int32_t **uind);

double time__now(void); /* CLOCK_MONOTONIC seconds */

/* mfs_kernel_init_front, zeroing only what may hold old data: the factor tiles (the CB tiles) at
 * addresses from l_zero_from (cb_zero_from) on are known to be zero already (fresh memory); NULL:
 * nothing is known. The writes that remain fault fresh pages in. */
void kernel__init_front(const mfs_symbolic *S, int32_t f, const double *aval, double *const *tiles,
                        const double *l_zero_from, const double *cb_zero_from);
/* Makes the first touch of the fresh (zero) range [p, p + n), n > 0, a write, as cheaply as possible
 * (mfs_kernels.c): faulted in for writing, its contents unchanged. */
void kernel__first_touch(double *p, size_t n);
/* The fresh part of a block of `bytes` whose first `dirty` bytes may hold old data (an arena's
 * answer): kernel__first_touch from the first whole double after them; nothing for a NULL block. */
void kernel__first_touch_fresh(double *block, size_t dirty, size_t bytes);
/* The same with the system calls' step in bytes (kernel__first_touch: 4 MiB; tests: smaller). */
void kernel__first_touch_steps(double *p, size_t n, size_t step);
/* Clears flush-to-zero for a computation that must see denormals (mfs_kernels.c); returns the
 * previous state for mfs_fpu_restore. */
unsigned fpu__keep_denormals(void);

/* Executors (mfs_factor_seq.c): the computing operations on F->tile, and one diagonal block's
 * Cholesky with the not-SPD message. */
mfs_status factor__compute_op(const mfs_factor *F, const mfs_op *op, mfs_error *err);
mfs_status factor__potrf(const mfs_symbolic *S, int32_t f, int32_t k, double *a, mfs_error *err);
/* An empty factor whose factor arena holds factor_bytes and whose CB arena has room for cb_bytes
 * (mfs_factor_create: the sequential run's sizes), address space only: the tasks that first write
 * the memory fault it in; the bytes of its tables; dropping the CB arena. */
mfs_status factor__create(const mfs_symbolic *S, int64_t factor_bytes, int64_t cb_bytes, mfs_factor **F,
                          mfs_error *err);
int64_t factor__table_bytes(const mfs_symbolic *S);
void factor__release_cb_arena(mfs_factor *F);

/* One front of the forward / backward sweep on a gathered work vector w (mfs_solve.c): x holds the
 * permuted right-hand sides (leading dimension ldx); the forward sweep adds the front's CB updates
 * into x[rows], the backward sweep reads the solution there. */
void solve__forward_front(const mfs_factor *F, int32_t f, int nrhs, double *x, int64_t ldx, double *w);
void solve__backward_front(const mfs_factor *F, int32_t f, int nrhs, double *x, int64_t ldx, double *w);

/* The distributed solve (mfs_solve_dist.c; a stub without MPI): mfs_solve on a factor with F->dist. */
mfs_status solve__distributed(const mfs_factor *F, int nrhs, double *b, int ldb, mfs_error *err);

/* The slice [*pmin, *pmax] of a scheduler's priority range that the task-based executor maps its
 * priorities onto (mfs_factor_starpu.c): a range wider than 100000 levels (lws, prio, ws and dmdas
 * allow all of int) becomes 100000 levels starting at 0, or at *pmin when the range does not span
 * 0. The width is computed in 64 bits: INT_MAX - INT_MIN overflows an int. */
static inline void exec__priority_slice(int *pmin, int *pmax) {
  if ((int64_t)*pmax - (int64_t)*pmin > 100000) {
    *pmin = *pmin < 0 && *pmax > 0 ? 0 : *pmin;
    *pmax = *pmin + 100000;
  }
}

/* Analysis stages that fill parts of mfs_symbolic (mfs_front.c, mfs_memory.c). */
mfs_status front__build_ops(mfs_symbolic *S, mfs_error *err);
/* The order of the columns inside each fundamental supernode that makes the extend-add's runs of
 * rows long (mfs_supernode_order.c, which says why the factor is unchanged). Supernode s holds the
 * columns sn_col0[s] .. sn_col0[s] + sn_ncol[s] - 1 of S (its fronts, perm, iperm and col2front
 * are set); on return order[k] is the column that goes to position k: a permutation that moves
 * columns only inside a supernode, never its first one. Returns -1 when out of memory. */
int supernode__column_order(const mfs_matrix *A, const mfs_symbolic *S, int32_t ns, const int32_t *sn_col0,
                            const int32_t *sn_ncol, int32_t *order);
/* first[f] (nfronts): the lowest-numbered front of f's subtree. Fronts are postordered (children
 * before their parent), so f's subtree is fronts first[f] .. f. */
void front__subtree_first(const mfs_symbolic *S, int32_t *first);
void memory__predict(mfs_symbolic *S);
/* The CB footprint of the sequential order of fronts first..last (front skip's own CB left out: a
 * subtree's root, or -1), from one end of the CB arena's window or from both (by depth parity,
 * mfs_arena.c) when that commits less; *two_ends (optional) which. cb_off (optional, indexed by
 * front) receives each front's CB offset from the start of a region of that footprint. -1 without
 * memory for the replay. */
int64_t memory__cb_footprint(const mfs_symbolic *S, int32_t first, int32_t last, int32_t skip, int64_t *cb_off,
                             int *two_ends);

#endif
