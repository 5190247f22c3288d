/*
 * mfs_exec.h — state shared by the task-based executor (mfs_factor_starpu.c) and its codelets
 * (mfs_codelets.c). Internal.
 */
#ifndef MFS_EXEC_H
#define MFS_EXEC_H

#include <pthread.h>
#include <stdatomic.h>

#include "mfs_arena.h"
#include "mfs_dist.h"
#include "mfs_runtime.h"

/* One sequential subtree task: its fronts first..root share one factor allocation L; the CBs below
 * the root live in scratch (freed when the task ends); the root's CB is F->cbblock[root]. */
typedef struct {
  int32_t first, root;
  double *L;
  double *scratch;
  int64_t scratch_bytes;
  int64_t l_dirty, scratch_dirty; /* leading bytes of L / scratch that may hold old data: the rest is zero */
} exec_subtree;

/* What a cleanup task gives back: the CB of `front` (this process's tiles and its copies of other
 * processes' tiles), or the copies of other processes' factor tiles of `front` its tasks read. */
enum { RELEASE_CB = 0, RELEASE_RECV_L = 1 };
typedef struct {
  int32_t front;
  int32_t kind;
} exec_release;

typedef struct {
  const mfs_symbolic *S;
  const mfs_matrix *A;
  mfs_factor *F;
  mfs_dist *D;
  int rank, nranks, mpi;
  starpu_data_handle_t *h;    /* per tile of S: its handle while registered on this process, else NULL */
  exec_subtree *sub;          /* per front: the descriptor of the subtree it roots (if one runs here) */
  double **rtile;             /* per tile of S: this process's copy of another process's tile, else NULL */
  double **recv_l, **recv_cb; /* per front: the blocks holding those copies (factor / CB tiles) */
  exec_release *rel;          /* per front: its two cleanup descriptors */
  const double **zero_from;   /* per tiled front f: [2f] / [2f+1], where the part of its factor / CB
                                 block known to be zero begins (kernel__init_front) */
  /* the submitting thread's room for one task's handles and data modes (as many as the largest
   * front's lower triangle has tiles): allocated with the tables, so that submission allocates
   * nothing while the workers run, and the measured peak holds only what the prediction counts */
  starpu_data_handle_t *hv;
  struct starpu_data_descr *descr;

  /* memory window over the CB arena */
  pthread_mutex_t lock;
  pthread_cond_t freed;  /* signalled after every cleanup / subtree end that gave memory back */
  int64_t pending_frees; /* submitted tasks of this process that will give CB memory back */
  int64_t waits, overflows;

  /* progress and errors (written by workers) */
  _Atomic int64_t flops_done; /* rounded analytic flops of the tasks finished here */
  _Atomic int64_t tasks_done;
  /* > 0: the submitting thread waits until tasks_done reaches this count; the task that reaches it
   * signals `freed`. Not every task: each wake-up of that thread takes a CPU from a worker. */
  _Atomic int64_t tasks_awaited;
  _Atomic int failed;
  mfs_error first_error; /* guarded by lock; valid when failed */
} exec_state;

/* The executor running on this process (one factorization at a time). */
extern exec_state *exec__current;

extern struct starpu_codelet exec__cl[MFS_NTASKTYPES];
void exec__codelets_init(void);

/* Gives a block back to the CB arena (or the heap it came from). */
void exec__cb_free(exec_state *E, double *p, int64_t bytes);
/* Records the first error of a task (later ones are dropped). */
void exec__fail(exec_state *E, const mfs_error *e);

#endif
