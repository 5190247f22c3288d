/*
 * mfs_dist.h — where every front and tile of the numeric phase lives and runs, and what that
 * costs in memory on each process (mfs_dist.c). Internal; no StarPU, no MPI: the task-based
 * executor and the distributed solve read it, and unit tests check it on any build.
 *
 * Fronts: the sequential subtrees of the pruning (mfs_prune) run as one task each on one process;
 * the other ("tiled") fronts run as tile tasks. Processes: proportional mapping gives every front a
 * group of processes [lo, hi). A front whose group is one process lives there; a front shared by
 * several has its tile rows dealt out among them (the tasks writing a tile run where its row is): a
 * whole tile row stays on one process (the distributed solve relies on it). Rows are not dealt
 * row-cyclically: the panel chain potrf(k) -> trsm(k+1,k) -> syrk -> potrf(k+1) would change process
 * at every step, each change a message on the critical path (on a loaded machine one costs tens of
 * milliseconds, measured). They start as contiguous ranges of equal flops, one per process, and
 * move where a simulation of the front's tasks says the front ends sooner (mfs_dist_rows.c).
 */
#ifndef MFS_DIST_H
#define MFS_DIST_H

#include "mfs_internal.h"
#include "mfs_arena.h"

typedef struct mfs_dist {
  int rank, nranks;
  int workers; /* per process: how many subtree tasks run at once in the memory model (cb_min) */
  int drain;   /* the executor lets the process's own work end before the fronts it shares (cb_min's
                * replay ends the running subtree tasks there): with several processes, unless a
                * worker runs StarPU-MPI's progression (dist__create_with) */
  int32_t nfronts;
  int32_t *lo, *hi; /* process group of each front */
  int32_t *row_ptr; /* per shared front: its tile rows' processes at row_owner + row_ptr[f] */
  int32_t *row_owner;
  int32_t *subtree_root;  /* root of the sequential subtree holding the front, -1 for tiled fronts */
  int32_t *subtree_first; /* per front that is a subtree root: its lowest-numbered front */
  int32_t nsubtrees, ntiled, nshared;
  mfs_pruning pruning;
  /* this process's share of each front, in bytes, laid out by dist__carve */
  int64_t *l_local, *cb_local;
  /* per subtree root on this process: the factor bytes of the whole subtree (one allocation) and the
     * CB block its task needs: the root's CB at its start, then the sequential order's CB footprint of
     * the fronts below the root; when the task ends the block shrinks to the root's CB */
  int64_t *sub_l, *sub_scratch;
  int64_t *sub_off;      /* per front of a subtree of this process: its CB's offset in that block */
  uint8_t *sub_two_ends; /* per subtree root of this process: its fronts' CBs from both ends of the region */
  /* tiles of other processes this process reads (recv[t] = 1, by global tile number): factor tiles
     * read by the tile tasks it runs, CB tiles read by the assemblies it runs. They are received into
     * buffers of its own: per front, recv_l (factor tiles, held while the front is factored) and
     * recv_cb (CB tiles, held until the parent has assembled them). */
  uint8_t *recv;
  int64_t *recv_l, *recv_cb;
  /* this process's submission order (fronts it takes part in): its own fronts that no other process
     * shares, in postorder, then each shared front in postorder, preceded by its children held by other
     * processes (whose CB tiles it receives). Any order works for the data flow as long as children come
     * before parents; this one lets a process run all its independent work before it can wait on
     * another (a single postorder made the second process idle until the first one's subtrees were done). */
  int32_t *order, norder;
  int64_t factor_local; /* factor bytes held by this process */
  int64_t cb_min;       /* CB arena footprint of the executor's order with immediate cleanups and
                         * the process's workers running subtree tasks side by side */
  /* on several processes (NULL on one): where that replay put each block, 3 per front: the front's
   * CB (a subtree root: its task's scratch), its received CB tiles, its received factor tiles;
   * ARENA_FAIL for none. The executor places each block there or above cb_min (mfs_factor_starpu.c:
   * window_alloc), so that its window never fragments more than the replay's */
  size_t *cb_plan;
} mfs_dist;

/* Builds the distribution of S over nranks processes for this rank; nworkers is the total number of
 * workers the pruning balances over. prune = 0 runs every front as tile tasks. The executor drains
 * each process's own work before the fronts it shares (D->drain) when there are several processes. */
mfs_status dist__create(const mfs_symbolic *S, int rank, int nranks, int nworkers, int prune, mfs_dist **D,
                        mfs_error *err);
/* The same, the drain as given (0 when a worker runs StarPU-MPI's progression: mfs_factor_starpu.c),
 * so that cb_min is replayed once, for the order the executor follows. */
mfs_status dist__create_with(const mfs_symbolic *S, int rank, int nranks, int nworkers, int prune, int drain,
                             mfs_dist **D, mfs_error *err);
void dist__free(mfs_dist *D);
/* The CB arena footprint of D's order with immediate cleanups and `workers` subtree tasks at once
 * (D->cb_min with D->workers); -1 without memory for the replay. */
int64_t dist__cb_footprint(const mfs_symbolic *S, const mfs_dist *D, int workers);

/* Tile rows of the shared fronts (mfs_dist_rows.c): fills D->row_ptr and D->row_owner, the equal-flops
 * cut of each shared front improved by a simulation of its tasks on its group's processes. */
mfs_status dist__split_rows(const mfs_symbolic *S, mfs_dist *D);
/* Fronts with more operations keep the equal-flops cut: the simulation's work space (about 370
 * bytes per operation: room for its task and two receptions) and the whole search budget would go
 * to one front (a front of 100 tile rows has some 172 000 operations; one simulation of it, up to
 * half a million tasks). Every process skips the same fronts. */
#define DIST_ROWS_SEARCH_MAX_OPS 200000
/* The equal-flops cut of shared front f into own[0 .. nbt): contiguous ranges in process order
 * (w: room for nbt doubles). */
void dist__rows_equal_flops(const mfs_symbolic *S, const mfs_dist *D, int32_t f, int32_t *own, double *w);
/* The simulated makespan (s) of front f's tile tasks with tile row i on process own[i], each
 * process with `workers` workers (dist__split_rows simulates one) and coming to f after its own work
 * as dist__split_rows assumes; NaN without memory for it. */
double dist__rows_makespan(const mfs_symbolic *S, const mfs_dist *D, int32_t f, const int32_t *own, int workers);

static inline int dist__tile_owner(const mfs_dist *D, int32_t f, int32_t i) {
  return D->hi[f] - D->lo[f] == 1 ? D->lo[f] : D->row_owner[D->row_ptr[f] + i];
}
static inline int dist__shared(const mfs_dist *D, int32_t f) { return D->hi[f] - D->lo[f] > 1; }
/* Front f of the order is this process's alone (its own work); the order puts all of those first,
 * where D->drain the executor waits for them before the first front that is not */
static inline int dist__own_work(const mfs_dist *D, int32_t f) { return !dist__shared(D, f) && D->lo[f] == D->rank; }
/* the process that holds the front's own columns' solution in the distributed solve */
static inline int dist__in_group(const mfs_dist *D, int32_t f, int r) { return r >= D->lo[f] && r < D->hi[f]; }

/* Points tiles[] (the front's nbt(nbt+1)/2 entries) at this process's tiles of front f inside L
 * (factor tiles) and C (CB tiles), in column-major tile order, each padded to 8 doubles; tiles of
 * other processes are set to NULL (D == NULL: every tile, as the sequential executor lays a front
 * out). With L == C == NULL only counts. Returns the bytes of L and C. */
void dist__carve(const mfs_symbolic *S, const mfs_dist *D, int32_t f, double *L, double *C, double **tiles,
                 int64_t *l_bytes, int64_t *cb_bytes);

/* Like dist__carve for the tiles this process receives: ptrs[] (the front's tile slots) points into RL
 * (factor tiles) and RC (CB tiles), NULL for tiles not received. */
void dist__carve_recv(const mfs_symbolic *S, const mfs_dist *D, int32_t f, double *RL, double *RC, double **ptrs);

/* The CB footprint of the fronts below a subtree's root: the committed footprint of the sequential
 * order's CB allocations inside the subtree, the root's own CB left out (same arena code), from one
 * end of that region or from both (by depth parity, as the sequential run: mfs_arena.c) when that
 * commits less. cb_off (optional, indexed by front) receives each front's CB offset from the start
 * of the region; *two_ends (optional) whether both ends were taken. */
int64_t dist__subtree_scratch(const mfs_symbolic *S, int32_t first, int32_t root, int64_t *cb_off, int *two_ends);

/* Whether front g's CB in its subtree's scratch lies at the region's high end (written from the
 * region's end down): a front below the root (whose own CB is at its place in the block), two ends
 * in that subtree and an odd depth. */
static inline int dist__sub_high(const mfs_symbolic *S, const mfs_dist *D, int32_t g) {
  int32_t r = D->subtree_root[g];
  return r >= 0 && r != g && D->sub_two_ends[r] && mfs_cb_end_of_depth(S->fronts[g].depth) == ARENA_HIGH;
}

#endif
