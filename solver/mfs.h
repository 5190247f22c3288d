/*
 * mfs.h — public API of libmfsolve, a multifrontal sparse Cholesky solver.
 *
 * Pipeline:  mfs_matrix (lower CSC)  --mfs_analyze-->  mfs_symbolic (fronts of tiles + operation list)
 *            --mfs_factorize_seq-->  mfs_factor (factor tiles)  --mfs_solve-->  x
 *
 * The numeric phase is nothing but the execution of S->ops, a list of per-front tile operations
 * (init, assemble, potrf, trsm, syrk, gemm, cleanup) in an order that is valid sequentially.
 * mfs_factorize_seq runs them one after the other; a task-based executor (StarPU) submits the same
 * operations as tasks, deriving dependencies from the tiles each one reads and writes
 * (see mfs_op_access). Everything a task needs is in mfs_symbolic and mfs_factor.
 *
 * Numbering: unless stated otherwise, indices are 0-based. "Permuted" columns are those of
 * P A P^T, where perm[k] is the input column eliminated k-th.
 */
#ifndef MFS_H
#define MFS_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ errors */

typedef enum {
  MFS_OK = 0,
  MFS_ERR_ARG,           /* invalid argument (bad generator spec, option out of range, ...) */
  MFS_ERR_NOMEM,         /* out of memory */
  MFS_ERR_IO,            /* cannot open or read a file */
  MFS_ERR_FORMAT,        /* malformed Matrix Market file (err->line names the line) */
  MFS_ERR_UNSUPPORTED,   /* well-formed input this solver does not handle (complex, non-square, ...) */
  MFS_ERR_NOT_SYMMETRIC, /* "general" matrix whose values are not symmetric */
  MFS_ERR_NOT_SPD,       /* pivot not positive, or denormal (err->column names the column) */
  MFS_ERR_ORDERING,      /* the ordering library failed or is not built in */
  MFS_ERR_OVERFLOW,      /* a size does not fit the index types */
  MFS_ERR_INTERNAL       /* an internal consistency check failed (a bug) */
} mfs_status;

typedef struct {
  mfs_status status;
  long line;      /* Matrix Market line (1-based) for MFS_ERR_FORMAT & co, else 0 */
  int64_t column; /* failing pivot, input numbering, 0-based (MFS_ERR_NOT_SPD), else -1 */
  char msg[400];  /* complete human-readable message */
} mfs_error;

const char *mfs_strerror(mfs_status s);

/* ------------------------------------------------------------------------------- memory tracking */
/* Every allocation made by libmfsolve is counted: heap blocks by their requested size, the tile
 * arenas of the numeric phase by their committed (touched) size. The counters are process-wide and
 * atomic so that a multi-threaded executor can share them. */
int64_t mfs_mem_current(void);
int64_t mfs_mem_peak(void);
void mfs_mem_reset_peak(void); /* peak := current */

/* --------------------------------------------------------------------------------------- matrices */

/* Symmetric matrix, lower triangle (diagonal included) in compressed sparse columns: rows sorted
 * ascending in each column, no duplicates, rowind[p] >= column. */
typedef struct {
  int32_t n;
  int64_t nnz;     /* stored entries (lower triangle) */
  int64_t *colptr; /* n+1 */
  int32_t *rowind; /* nnz */
  double *val;     /* nnz */
} mfs_matrix;

/* Matrix Market "matrix coordinate real|integer general|symmetric". General files must hold a
 * numerically symmetric matrix; duplicates are summed; upper-triangle entries of symmetric files are
 * mirrored. A file declaring fewer entries than its order n is refused (MFS_ERR_UNSUPPORTED) before
 * anything of size n is allocated: an SPD matrix has n nonzero diagonal entries. Errors name the
 * line. `name` is used in messages only. */
mfs_status mfs_matrix_read_mm(const char *path, mfs_matrix *A, mfs_error *err);
mfs_status mfs_matrix_read_mm_stream(FILE *f, const char *name, mfs_matrix *A, mfs_error *err);

typedef enum { MFS_STENCIL_LAP2D5, MFS_STENCIL_LAP3D7, MFS_STENCIL_LAP3D27 } mfs_stencil;

/* Grid Laplacians with Dirichlet boundaries (diagonal = number of stencil neighbours, off-diagonal
 * -1), points numbered x fastest. nz must be 1 for the 2D stencil. */
mfs_status mfs_matrix_stencil(mfs_stencil kind, int nx, int ny, int nz, mfs_matrix *A, mfs_error *err);
/* "lap2d:N", "lap2d:NXxNY", "lap3d:N", "lap3d:NXxNYxNZ", "lap3d27:N", "lap3d27:NXxNYxNZ" */
mfs_status mfs_matrix_generate(const char *spec, mfs_matrix *A, mfs_error *err);

/* Builds A from a symmetric triplet list; (i,j) and (j,i) denote the same entry (stored once,
 * duplicates summed). Used by the tests and by callers that assemble matrices themselves. */
mfs_status mfs_matrix_from_triplets(int32_t n, int64_t nz, const int32_t *ri, const int32_t *ci, const double *v,
                                    mfs_matrix *A, mfs_error *err);
mfs_status mfs_matrix_check(const mfs_matrix *A, mfs_error *err); /* structural validity */
void mfs_matrix_free(mfs_matrix *A);
void mfs_matrix_symv(const mfs_matrix *A, const double *x, double *y); /* y = A x */
double mfs_matrix_norm_inf(const mfs_matrix *A);                       /* of the full symmetric A */

/* ------------------------------------------------------------------------- ordering & elimination */

typedef enum { MFS_ORDER_METIS, MFS_ORDER_AMD, MFS_ORDER_NATURAL, MFS_ORDER_GIVEN } mfs_ordering;

const char *mfs_ordering_name(mfs_ordering o);
int mfs_ordering_available(mfs_ordering o);
/* Fill-reducing permutation: perm[k] = input column eliminated k-th. */
mfs_status mfs_order(const mfs_matrix *A, mfs_ordering kind, int32_t *perm, mfs_error *err);

/* Elimination tree of a symmetric pattern given by its lower triangle (CSC; entries with row <=
 * column are ignored): parent[j] = min{ i > j : L(i,j) != 0 }, -1 for roots. */
mfs_status mfs_etree(int32_t n, const int64_t *colptr, const int32_t *rowind, int32_t *parent);
/* post[k] = k-th node of a depth-first postorder (children visited in increasing index order). */
mfs_status mfs_postorder(int32_t n, const int32_t *parent, int32_t *post);
/* Column counts of L (diagonal included) by the Gilbert-Ng-Peyton row-subtree method, in
 * O(nnz(A) alpha(n)) time: parent = etree of the same pattern, post any postorder of it. */
mfs_status mfs_colcounts(int32_t n, const int64_t *colptr, const int32_t *rowind, const int32_t *parent,
                         const int32_t *post, int32_t *cc);
/* Fundamental supernodes of a postordered tree (parent[j] > j): first[s] .. first[s+1]-1 are the
 * columns of supernode s; first has room for n+1 entries. Returns the number of supernodes. */
int32_t mfs_fundamental_supernodes(int32_t n, const int32_t *parent, const int32_t *cc, int32_t *first);

/* Relaxed amalgamation of a supernodal tree (children numbered before parents). Supernode s has
 * ncol[s] columns and nstruct[s] rows below them. A child merges into its parent when the merged
 * front keeps at most `threshold` explicit zeros (fraction of its factor entries), or when it is
 * small (<= 4 columns; <= 16 columns and <= 80 % zeros; <= 48 columns and <= 10 % zeros: the rules
 * CHOLMOD uses, because tiny fronts waste far more time in kernel calls than the zeros cost).
 * threshold <= 0 disables amalgamation. On return rep[s] is the supernode that absorbed s
 * (rep[s] == s for the fronts that remain) and zeros[s] (optional) the explicit zeros of front s. */
void mfs_amalgamate(int32_t ns, const int32_t *sparent, const int32_t *ncol, const int32_t *nstruct, double threshold,
                    int32_t *rep, int64_t *zeros);

/* ----------------------------------------------------------------------- fronts, tiles, operations */

/* A front is a dense (nrow x nrow) symmetric matrix, lower triangle only. Its first ncol rows/columns
 * are its own (fully summed) columns col0 .. col0+ncol-1; the trailing (nrow-ncol)^2 block is the
 * contribution block (CB) passed to the parent. Rows and columns are split into tiles at the
 * boundaries blk[0] = 0 < ... < blk[nbt] = nrow, with blk[nbp] = ncol so that a tile holds either
 * factor or CB entries. Tile (i,j), i >= j, is a column-major (blk[i+1]-blk[i]) x (blk[j+1]-blk[j])
 * array whose leading dimension is its row count. Tiles (i,j) with j < nbp form the factor L;
 * tiles with j >= nbp the CB. */
typedef struct {
  int32_t parent; /* parent front, -1 for a root */
  int32_t child0; /* children: S->child[child0 .. child0+nchild) (in execution order) */
  int32_t nchild;
  int32_t col0, ncol;       /* own (eliminated) columns, permuted numbering */
  int32_t nrow;             /* order of the front */
  int32_t nbp;              /* tile rows/columns covering the own columns */
  int32_t nbt;              /* tile rows/columns in all */
  int32_t depth;            /* fronts between it and its root (a root: 0) */
  int64_t rows;             /* S->rowind + rows: the nrow permuted row indices, ascending (first ncol = own) */
  int64_t blk;              /* S->blkptr + blk: the nbt+1 tile boundaries (front-local rows) */
  int64_t cmap;             /* S->cmap + cmap: front-local row in the parent of each CB row (nrow-ncol) */
  int64_t tile0;            /* first of the nbt(nbt+1)/2 tiles of this front in the global tile table */
  int64_t op_begin, op_end; /* S->ops[op_begin .. op_end): what runs when this front is processed:
                                 its INIT, the ASSEMBLE and CLEANUP of its children, its factorization */
  int64_t l_bytes;          /* bytes of the factor tiles (each tile padded to 64 bytes) */
  int64_t cb_bytes;         /* bytes of the CB tiles */
  int64_t zeros;            /* explicit zeros stored in the factor columns because of amalgamation */
  double flops;             /* potrf+trsm+syrk+gemm flops of this front */
  double subtree_flops;     /* flops of the front and all its descendants */
} mfs_front;

/* Index of tile (i,j), i >= j, among the nbt(nbt+1)/2 tiles of a front (column by column). */
static inline int64_t mfs_tile_index(int32_t nbt, int32_t i, int32_t j) {
  return (int64_t)j * nbt - (int64_t)j * (j - 1) / 2 + (i - j);
}

typedef enum {
  MFS_OP_INIT,     /* allocate the tiles of `front`, zero them, scatter the entries of A */
  MFS_OP_ASSEMBLE, /* tile (i,j) of `front` += the part of CB tile (ci,cj) of `child` that maps to it */
  MFS_OP_POTRF,    /* tile (k,k) := chol(tile (k,k))                       (i = j = k) */
  MFS_OP_TRSM,     /* tile (i,k) := tile (i,k) L(k,k)^-T                    (j = k) */
  MFS_OP_SYRK,     /* tile (i,i) -= L(i,k) L(i,k)^T                         (j = i) */
  MFS_OP_GEMM,     /* tile (i,j) -= L(i,k) L(j,k)^T                         (i > j > k) */
  MFS_OP_CLEANUP,  /* free the CB tiles of `front` (its parent has assembled them) */
  MFS_NOPTYPES
} mfs_optype;

const char *mfs_op_name(mfs_optype t);

typedef struct {
  int32_t type;    /* mfs_optype */
  int32_t front;   /* assembly-tree node (front index) whose tiles the operation writes or frees */
  int32_t i, j, k; /* tile coordinates in `front` (-1 where unused) */
  int32_t child;   /* ASSEMBLE: the child front read; -1 otherwise */
  int32_t ci, cj;  /* ASSEMBLE: the CB tile of `child` read */
  double flops;    /* analytic flops (ASSEMBLE: additions; INIT/CLEANUP: 0) */
} mfs_op;

/* The tiles an operation reads or writes (at most 3), for dependency tracking. */
typedef enum { MFS_ACCESS_R = 1, MFS_ACCESS_W = 2, MFS_ACCESS_RW = 3 } mfs_access_mode;
typedef struct {
  int32_t front, i, j;
  int32_t mode; /* mfs_access_mode; ASSEMBLE writes commute with each other */
} mfs_tile_access;
/* Fills acc[] and returns the count. INIT and CLEANUP access every tile of the front (reported as
 * one entry with i = j = -1). */
int mfs_op_access(const mfs_op *op, mfs_tile_access acc[3]);

/* The default tile size (mfs_options_default says why 512). */
#define MFS_DEFAULT_NB 512
/* Unless nb_big_from says otherwise, a front of at least this many tiles of nb rows takes tiles of
 * nb_big when that is set (mfsolve sets them: mfsolve_main.c says why). */
#define MFS_BIG_FRONT_TILES 4

typedef struct {
  mfs_ordering ordering;     /* default METIS when built in, else AMD */
  const int32_t *given_perm; /* MFS_ORDER_GIVEN: perm[k] = input column eliminated k-th */
  int nb;                    /* tile size (default MFS_DEFAULT_NB) */
  int nb_big;                /* tile size of the large fronts; 0 (default): nb everywhere */
  int nb_big_from;           /* a front is large from this many rows on; 0 (default): MFS_BIG_FRONT_TILES * nb */
  int nb_huge;               /* tile size of the largest fronts, over nb_big's; 0 (default): none */
  int nb_huge_from;          /* the largest fronts from this many rows on; 0 (default): 2 * nb_huge */
  double amalg;              /* amalgamation zero threshold (default 0.05); <= 0: fundamental supernodes */
  int keep_column_order;     /* 1: the columns inside each supernode in the ordering's order; 0 (default):
                                in the order that makes the extend-add's runs long (same factor) */
} mfs_options;

void mfs_options_default(mfs_options *o);
/* The rows from which a front is large under options o (nb_big_from, or MFS_BIG_FRONT_TILES * nb). */
int64_t mfs_big_front_rows(const mfs_options *o);
/* The rows from which a front is one of the largest under options o (nb_huge_from, or 2 * nb_huge). */
int64_t mfs_huge_front_rows(const mfs_options *o);
/* The tile size of a front of nrow rows under options o (nb, nb_big for a large front, nb_huge for
 * one of the largest). */
int mfs_front_nb(const mfs_options *o, int32_t nrow);

typedef struct {
  int32_t n;
  mfs_options opts;
  int32_t *perm;      /* n: input column eliminated k-th (final: ordering + postorder + amalgamation +
                         the order inside supernodes) */
  int32_t *iperm;     /* n: inverse of perm */
  int32_t *parent;    /* n: elimination tree of P A P^T (permuted numbering) */
  int32_t *colcount;  /* n: nnz of each column of L (diagonal included), permuted numbering */
  int32_t *col2front; /* n: front owning each permuted column */

  int32_t nfronts; /* fronts are numbered in a postorder: children before parents */
  mfs_front *fronts;
  int32_t *child;  /* children lists (see mfs_front.child0) */
  int32_t *rowind; /* rows of all fronts */
  int32_t *blkptr; /* tile boundaries of all fronts */
  int32_t *cmap;   /* relative index maps of all CBs (extend-add) */
  int64_t ntiles;  /* size of the global tile table */

  /* Entries of A in the permuted numbering, by permuted column: a_lrow[p] is the front-local row,
     * a_src[p] the index of the value in the input A->val. Lets INIT scatter A without searching. */
  int64_t *a_colptr; /* n+1 */
  int32_t *a_lrow;
  int64_t *a_src;

  mfs_op *ops; /* the numeric phase, in a valid sequential order */
  int64_t nops;
  int64_t nops_type[MFS_NOPTYPES];
  double flops_type[MFS_NOPTYPES];

  int32_t nsupernodes;              /* fundamental supernodes before amalgamation */
  int64_t nnz_l;                    /* nnz(L) of the exact factor (sum of colcount) */
  int64_t nnz_l_stored;             /* factor entries held by the fronts (lower trapezoids, zeros included) */
  double flops_exact;               /* Cholesky flops of the exact factor (sum colcount^2) */
  double flops;                     /* potrf+trsm+syrk+gemm flops of the numeric phase as scheduled */
  int64_t mem_factor;               /* bytes of all factor tiles */
  int64_t mem_fixed;                /* bytes the executor allocates before the first front (tile tables) */
  int64_t mem_cb_region;            /* footprint of the CB arena in the sequential run (live CBs + holes) */
  int32_t cb_two_ends;              /* the sequential run takes CBs from both ends of its arena (mfs_arena.c):
                                       the replay found that footprint smaller than one end's */
  int64_t mem_peak_live;            /* peak of live bytes (factor so far + stacked CBs + active front) */
  int64_t mem_peak;                 /* predicted peak committed bytes of the sequential numeric phase:
                             mem_fixed + mem_factor + mem_cb_region */
  double time_order, time_symbolic; /* seconds */
} mfs_symbolic;

/* Ordering, elimination tree, postorder, column counts, supernodes, amalgamation, memory-minimising
 * child order, front structures, tiles, operations, flops and the memory estimate. */
mfs_status mfs_analyze(const mfs_matrix *A, const mfs_options *opt, mfs_symbolic **S, mfs_error *err);
void mfs_symbolic_free(mfs_symbolic *S);

/* Bytes of the factor and CB tiles of a front, exactly as the executor allocates them. */
void mfs_front_bytes(int32_t ncol, int32_t nrow, int nb, int64_t *l_bytes, int64_t *cb_bytes);
/* Splits len rows into ceil(len/nb) nearly equal blocks; writes the nblk+1 boundaries (offset by
 * `base`) into bnd when non-NULL and returns nblk. */
int32_t mfs_split_blocks(int32_t len, int nb, int32_t base, int32_t *bnd);

/* Analytic flop counts (LAPACK conventions). */
double mfs_flops_potrf(double n);
double mfs_flops_trsm(double m, double n); /* B (m x n) := B L^-T, L n x n */
double mfs_flops_syrk(double n, double k);
double mfs_flops_gemm(double m, double n, double k);

/* --------------------------------------------------------------------- task grouping and mapping */

/* qr_mumps' pruning: find a layer of fronts such that the subtrees below it, each run as one
 * sequential task, balance over `nworkers`; the fronts above (and on) the layer are run as tiled
 * tasks. subtree_root[f] is the root of the sequential subtree containing f, -1 when f is a tiled
 * front. */
typedef struct {
  int nworkers;
  int32_t nlayer; /* fronts of the final layer */
  int32_t *layer;
  int32_t nsubtrees; /* sequential subtrees (their roots) */
  int32_t *subtree_roots;
  int32_t *subtree_first; /* first front of each subtree: fronts are postordered, so subtree s is
                               fronts subtree_first[s] .. subtree_roots[s] and a do_subtree task runs
                               S->ops[fronts[first].op_begin .. fronts[root].op_end) */
  int32_t *subtree_root;  /* nfronts */
  double threshold;       /* final smallness threshold (fraction of the total flops) */
  double balance;         /* min/max worker load of the greedy layer mapping (1 when nworkers == 1) */
  double subtree_flops;   /* flops inside sequential subtrees */
} mfs_pruning;

mfs_status mfs_prune(const mfs_symbolic *S, int nworkers, mfs_pruning *P, mfs_error *err);
void mfs_pruning_free(mfs_pruning *P);

/* Proportional mapping of the assembly tree onto nranks processes: each subtree gets a share of its
 * parent's ranks proportional to its flops; a subtree whose share is at most one rank lives on one
 * rank; then the one-rank subtrees under shared fronts move between the ranks of those fronts'
 * groups while that evens the loads. owner[f] (nfronts) is the rank that owns front f (a rank may
 * own none and work only on its shares of shared fronts); when rank_lo/rank_hi are non-NULL they
 * receive the range of ranks sharing front f (rank_hi exclusive). load (optional, nranks) receives
 * the flops each rank runs: the fronts it alone holds, and an even share of the fronts it shares. */
mfs_status mfs_map_proportional(const mfs_symbolic *S, int nranks, int32_t *owner, int32_t *rank_lo, int32_t *rank_hi,
                                double *load, mfs_error *err);

/* ------------------------------------------------------------------------------- numeric phase */

struct mfs_arena; /* tile memory (internal) */

/* Task types of the task-based executor: the operation types, plus one sequential task per pruned
 * subtree. StarPU codelets are named "mfs_" + mfs_task_name(t). */
#define MFS_TASK_SUBTREE MFS_NOPTYPES
#define MFS_NTASKTYPES (MFS_NOPTYPES + 1)
const char *mfs_task_name(int t); /* "init" ... "cleanup", "subtree" */

/* What the task-based executor did (mfs_factorize_starpu). After mfs_factorize_seq: rank 0,
 * nranks 1, workers 1, no tasks, and the memory fields describe the sequential run. Sums and maxima
 * "over processes" are the same on every process. */
typedef struct {
  int rank, nranks;                    /* this process, number of processes */
  int workers;                         /* CPU workers per process */
  char sched[32];                      /* StarPU scheduling policy ("" for the sequential executor) */
  int64_t tasks[MFS_NTASKTYPES];       /* tasks run, summed over processes */
  int64_t tasks_local[MFS_NTASKTYPES]; /* tasks run by this process */
  double flops_local;                  /* analytic flops of the tasks this process ran (assembly adds included) */
  double flops_tasks;                  /* the same summed over processes (what the tasks carry in task->flops) */
  int32_t tiled_fronts;                /* fronts run as tile tasks (the rest are inside sequential subtrees) */
  int32_t shared_fronts;               /* fronts whose tiles are spread over several processes */
  int32_t subtrees;                    /* sequential subtree tasks */
  int mpi_poll_sleep_us;               /* on several processes: longest sleep of StarPU-MPI's progression thread
                             between fruitless polls (mfs_mpi_poll.c), 0: it spins */
  int mpi_progress_worker;      /* on several processes: worker 0 of each runs the progression (mfs_mpi_progress.c) */
  const char *mpi_progress_why; /* why that mode */
  int pinned_procs;         /* on several processes: those whose workers run on CPUs of their own (mfs_placement.c) */
  const char *unpinned_why; /* this process's reason when it did not pin its workers, else NULL */
  /* Memory of the numeric phase on this process, in bytes above F->mem_base. The executor keeps
     * the contribution-block arena under a window: a front is activated only when its blocks fit
     * below mem_window, else the submission waits for cleanups (and goes over only when nothing
     * is left to wait for: window_overflows). */
  int64_t mem_tables;                      /* the executor's tables (tiles, handles, priorities; the distribution is
                             computed before the numeric phase, like the analysis) */
  int64_t mem_factor;                      /* factor tiles held by this process */
  int64_t mem_cb_min;                      /* CB arena footprint of the executor's allocation order if every cleanup
                             ran as soon as it was submitted, the subtree tasks of a process's W workers
                             held side by side (mfs_dist.c) */
  double mem_relax;                        /* mem_window / mem_cb_min (mfs_starpu_options.mem_relax) */
  int64_t mem_window;                      /* CB arena cap: ceil(relax * mem_cb_min) for a given relaxation, else the
                             automatic window (mfs_factor_starpu.c: default_window). The arena also holds
                             this process's copies of tiles received from others (dist: recv) */
  int64_t mem_predicted;                   /* mem_tables + mem_factor + mem_window: bound on the measured peak, but for
                             window_overflows and mem_recv_heap_peak */
  int64_t mem_recv_peak;                   /* peak of buffers StarPU-MPI allocated itself (through libmfsolve's
                             allocator, so included in F->mem_peak): tiles that arrived before their
                             receive was posted. 0 on one process */
  int64_t mem_recv_heap_peak;              /* the peak of those the window had no room for (the others
                             are in the window's memory) */
  int64_t mem_predicted_max, mem_peak_max; /* maxima over processes */
  double mem_ratio_max;                    /* the largest measured / predicted peak of one process */
  int64_t window_waits;                    /* times the submission waited for memory */
  int64_t window_overflows;
  double time_max;   /* factorization time, max over processes (seconds) */
  double time_setup; /* part of it spent creating the factor (its tables, its memory's address
                             space) before the first operation (max over processes); the memory is
                             faulted in by the operations that first write it */
} mfs_exec_stats;

typedef struct {
  const mfs_symbolic *S;
  double **tile;              /* S->ntiles: tile(f,i,j) = tile[S->fronts[f].tile0 + mfs_tile_index(nbt,i,j)] */
  double **lblock;            /* per front: the allocation holding its factor tiles */
  double **cbblock;           /* per front: the allocation holding its CB tiles (NULL once cleaned) */
  struct mfs_arena *arena_l;  /* factor tiles (bump allocation, kept with the factor) */
  struct mfs_arena *arena_cb; /* CB tiles (first fit; released when the factorization ends) */
  int64_t mem_base;           /* mfs_mem_current() before the numeric phase */
  int64_t mem_peak;           /* measured peak of the numeric phase (bytes above mem_base) */
  double time;                /* seconds */
  double flops_done;
  /* appended by the task-based executor; a distributed factor holds this process's tiles only
     * (tile[] is NULL for the others) and mfs_solve on it is collective */
  mfs_exec_stats exec;
  struct mfs_dist *dist; /* distribution over processes (internal); NULL when one process holds all */
} mfs_factor;

typedef void (*mfs_progress_fn)(void *ctx, double flops_done, double flops_total);

/* Single-threaded BLAS and flush-to-zero: call in every thread that runs kernels. */
void mfs_kernels_init(void);
/* OpenBLAS's kernel set (mfs_blas_core.c). restart: when OpenBLAS chose kernels without AVX2 on a
 * CPU with AVX2 + FMA or AVX-512 (a VM hiding the CPU model), or its AVX-512 kernels on an AMD Zen 4,
 * and neither OPENBLAS_CORETYPE nor MFSOLVE_KEEP_BLAS_CORE is set, sets OPENBLAS_CORETYPE and
 * executes the program again (argv: its arguments); returns when nothing was done. note: a line for
 * the run summary. core_for: the decision (the kernel set to ask for, or NULL to keep 'current'). */
void mfs_blas_core_restart(char **argv);
const char *mfs_blas_core_note(void);
const char *mfs_blas_core_for(const char *current, int avx512, int avx2_fma, int zen4);
unsigned mfs_fpu_flush_denormals(void); /* returns the previous MXCSR (0 where not x86) */
void mfs_fpu_restore(unsigned csr);

/* Allocates an empty factor (tile tables only). */
mfs_status mfs_factor_create(const mfs_symbolic *S, mfs_factor **F, mfs_error *err);
/* Executes one operation on F. */
mfs_status mfs_op_execute(mfs_factor *F, const mfs_matrix *A, const mfs_op *op, mfs_error *err);
/* The sequential executor: creates F and runs S->ops in order. It restarts the tracked high-water
 * mark (mfs_mem_reset_peak) so that F->mem_peak measures the numeric phase alone; it also sets
 * single-threaded BLAS and flush-to-zero for its duration. */
mfs_status mfs_factorize_seq(const mfs_symbolic *S, const mfs_matrix *A, mfs_factor **F, mfs_progress_fn progress,
                             void *ctx, mfs_error *err);
void mfs_factor_free(mfs_factor *F);

/* Tile kernels on raw column-major arrays (what a task codelet calls). */
int mfs_kernel_potrf(int n, double *a, int lda); /* returns LAPACK info */
void mfs_kernel_trsm(int m, int n, const double *l, int ldl, double *b, int ldb);
void mfs_kernel_syrk(int n, int k, const double *a, int lda, double *c, int ldc);
void mfs_kernel_gemm(int m, int n, int k, const double *a, int lda, const double *b, int ldb, double *c, int ldc);
/* Zero every tile of front f and scatter its columns of A. NULL tiles (held by another process)
 * are skipped. */
void mfs_kernel_init_front(const mfs_symbolic *S, int32_t f, const double *aval, double *const *tiles);
void mfs_kernel_assemble(const mfs_symbolic *S, const mfs_op *op, const double *ctile, double *ptile);

/* ------------------------------------------------------------ task-based executor (StarPU, MPI) */
/* Built when configure found StarPU 1.3 and StarPU-MPI; otherwise these functions return
 * MFS_ERR_UNSUPPORTED and mfs_starpu_built() returns 0.
 *
 * mfs_runtime_start initialises StarPU with `workers` CPU workers and, with mpi = 1, MPI
 * (MPI_THREAD_MULTIPLE: the solve's collectives run beside StarPU-MPI's progression thread) and
 * StarPU-MPI over all processes. One runtime per process; mfs_runtime_stop shuts both down. */
/* Which thread runs StarPU-MPI's progression (mfs_mpi_progress.c): AUTO picks WORKER when the
 * machine has no CPU to spare for a progression thread per process, else THREAD. */
typedef enum { MFS_MPI_PROGRESS_AUTO = 0, MFS_MPI_PROGRESS_THREAD, MFS_MPI_PROGRESS_WORKER } mfs_mpi_progress;
typedef struct {
  int workers;                   /* CPU workers per process (>= 1) */
  const char *sched;             /* scheduling policy; NULL: STARPU_SCHED, else StarPU's default */
  int mpi;                       /* initialise MPI and StarPU-MPI */
  mfs_mpi_progress mpi_progress; /* StarPU-MPI's own thread, or one worker per process */
} mfs_runtime_options;

int mfs_starpu_built(void);
/* 1 when the environment says the process was started by an MPI launcher (mpirun, srun, ...). */
int mfs_mpi_launched(void);
mfs_status mfs_runtime_start(const mfs_runtime_options *o, int *argc, char ***argv, mfs_error *err);
void mfs_runtime_stop(void);
/* Idle StarPU workers take CPU time from the thread that runs the analysis: mfs_runtime_pause stops
 * them (they wait, not poll) until mfs_runtime_resume; the factorization resumes them anyway. */
void mfs_runtime_pause(void);
void mfs_runtime_resume(void);
int mfs_runtime_rank(void);   /* 0 without MPI */
int mfs_runtime_nranks(void); /* 1 without MPI */
/* Reduces v over processes (sum or max); identity without MPI. For the command's report. */
void mfs_runtime_allreduce(double *v, int n, int max);

typedef struct {
  double mem_relax; /* memory window: relax (>= 1) x mem_cb_min, the CB footprint of this
                             process's submission order; 0 (the default): 1.2 x the footprint of
                             the order without subtree tasks side by side, or with several workers
                             per process mem_cb_min when larger (mfs_factor_starpu.c) */
  int prune;        /* 1: group small subtrees into sequential tasks (default 1) */
} mfs_starpu_options;

void mfs_starpu_options_default(mfs_starpu_options *o);
/* The numeric phase as StarPU tasks on the running runtime. Collective with MPI: every process
 * passes the same analysis (checked) and the same A; fronts are mapped onto processes by
 * proportional mapping (mfs_map_proportional), a front shared by several processes has its tile
 * rows dealt out among them (equal flops, then where a simulation of its tasks ends sooner:
 * mfs_dist_rows.c), and tiles (contribution blocks
 * included) move between processes through StarPU-MPI. Tasks carry their front as tag (task->tag_id, STARPU_TAG_ONLY) and their analytic
 * flops (task->flops). Results are bitwise identical to mfs_factorize_seq's whatever the number
 * of workers and the scheduler: every tile receives its updates in the sequential order. */
mfs_status mfs_factorize_starpu(const mfs_symbolic *S, const mfs_matrix *A, const mfs_starpu_options *o, mfs_factor **F,
                                mfs_progress_fn progress, void *ctx, mfs_error *err);

/* ----------------------------------------------------------------------------------------- solve */

/* Solves A X = B in place (B: n x nrhs, column-major, leading dimension ldb). On a distributed
 * factor the call is collective: every process passes the whole B and receives the whole X. */
mfs_status mfs_solve(const mfs_factor *F, int nrhs, double *b, int ldb, mfs_error *err);
/* ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) */
double mfs_residual(const mfs_matrix *A, const double *x, const double *b);
/* x := solution of A x = b followed by up to maxiter refinement steps (stops when the residual no
 * longer decreases). resid (optional, maxiter+1 entries) receives the residual after each step;
 * *iters the number of refinement steps done. */
mfs_status mfs_solve_refine(const mfs_factor *F, const mfs_matrix *A, const double *b, double *x, int maxiter,
                            double *resid, int *iters, mfs_error *err);

#ifdef __cplusplus
}
#endif
#endif
