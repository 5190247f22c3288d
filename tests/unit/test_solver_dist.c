/*
 * test_solver_dist.c — the distribution of the numeric phase over processes (solver/mfs_dist.c):
 * the tile-owner rule, every tile held by exactly one process, the group invariant the executor
 * relies on, the tiles a process receives, the submission order, the rows of shared fronts
 * (mfs_dist_rows.c), and the memory model (which on one process without subtrees must reproduce the
 * sequential executor's prediction to the byte).
 * No StarPU or MPI needed: the distribution is computed for each rank in one process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfs.h"
#include "mfs_dist.h"
#include "test_solver_common.h"

static void test_owner_rule(void **state) {
  (void)state;
  /* three fronts: one held by process 2 alone, one shared by processes [1, 4), one by [0, 2) */
  int32_t lo[3] = {2, 1, 0}, hi[3] = {3, 4, 2}, row_ptr[3] = {0, 0, 7};
  int32_t rows[14] = {1, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 1, 1, 1};
  mfs_dist D;
  memset(&D, 0, sizeof D);
  D.lo = lo;
  D.hi = hi;
  D.row_ptr = row_ptr;
  D.row_owner = rows;
  for (int32_t i = 0; i < 7; i++) assert_int_equal(dist__tile_owner(&D, 0, i), 2);
  for (int32_t i = 0; i < 7; i++) assert_int_equal(dist__tile_owner(&D, 1, i), rows[i]);
  for (int32_t i = 0; i < 7; i++) assert_int_equal(dist__tile_owner(&D, 2, i), i < 4 ? 0 : 1);
  assert_false(dist__shared(&D, 0));
  assert_true(dist__shared(&D, 1));
  assert_true(dist__in_group(&D, 1, 3));
  assert_false(dist__in_group(&D, 1, 0));
}

/* One process, no subtrees: the executor's allocation order is the sequential one, so its CB
 * footprint (one end of the arena) is the sequential prediction exactly when that takes one end
 * too, and never below it when the prediction takes two; with subtrees the factor total is
 * unchanged. */
static void test_single_process(void **state) {
  (void)state;
  static const char *specs[] = {"lap2d:60", "lap3d:14", "lap3d27:9"};
  int two_ended_subtrees = 0;
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_spec(specs[t], MFS_ORDER_METIS, 32, &A);
    mfs_error err;
    mfs_dist *D;
    assert_int_equal(dist__create(S, 0, 1, 1, 0, &D, &err), MFS_OK);
    if (S->cb_two_ends)
      assert_true(D->cb_min > S->mem_cb_region);
    else
      assert_int_equal(D->cb_min, S->mem_cb_region);
    assert_int_equal(D->factor_local, S->mem_factor);
    assert_int_equal(D->ntiled, S->nfronts);
    assert_int_equal(D->nsubtrees, 0);
    assert_int_equal(D->nshared, 0);
    assert_int_equal(D->norder, S->nfronts);
    for (int32_t f = 0; f < S->nfronts; f++) {
      assert_int_equal(D->order[f], f); /* postorder */
      assert_int_equal(D->l_local[f], S->fronts[f].l_bytes);
      assert_int_equal(D->cb_local[f], S->fronts[f].cb_bytes);
      assert_int_equal(D->recv_l[f] + D->recv_cb[f], 0);
    }
    dist__free(D);
    /* with subtrees for 3 workers: the pruning's subtrees, and the factor bytes still all here */
    mfs_pruning P;
    assert_int_equal(mfs_prune(S, 3, &P, &err), MFS_OK);
    assert_int_equal(dist__create(S, 0, 1, 3, 1, &D, &err), MFS_OK);
    assert_int_equal(D->nsubtrees, P.nsubtrees);
    assert_int_equal(D->factor_local, S->mem_factor);
    int64_t sub_l = 0;
    for (int32_t f = 0; f < S->nfronts; f++) {
      assert_int_equal(D->subtree_root[f], P.subtree_root[f]);
      if (D->subtree_root[f] == f) sub_l += D->sub_l[f], two_ended_subtrees += D->sub_two_ends[f];
    }
    int64_t tiled_l = 0;
    for (int32_t f = 0; f < S->nfronts; f++)
      if (D->subtree_root[f] < 0) tiled_l += S->fronts[f].l_bytes;
    assert_int_equal(sub_l + tiled_l, S->mem_factor);
    mfs_pruning_free(&P);
    dist__free(D);
    /* a subtree task holding the whole tree needs the sequential CB footprint as scratch, with the
         * same choice of ends (the tree root has no CB) */
    int32_t roots = 0, root = -1;
    for (int32_t f = 0; f < S->nfronts; f++)
      if (S->fronts[f].parent < 0) roots++, root = f;
    if (roots == 1) {
      int two_ends = -1;
      assert_int_equal(dist__subtree_scratch(S, 0, root, NULL, &two_ends), S->mem_cb_region);
      assert_int_equal(two_ends, S->cb_two_ends);
    }
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  assert_true(two_ended_subtrees > 0); /* the executor's two-ended scratch layout is exercised */
}

/* Lower bound of the footprint with w subtree tasks at once: when a subtree starts, the w - 1
 * subtrees started last are still running (whole scratches, distinct arena ranges), unless the
 * parent of one was activated in between (its assembly needs it ended). */
static int64_t side_by_side_bound(const mfs_symbolic *S, const mfs_dist *D, int w) {
  int32_t *last = calloc((size_t)w, sizeof *last);
  int n = 0;
  int64_t bound = 0;
  for (int32_t k = 0; k < D->norder; k++) {
    int32_t f = D->order[k];
    if (D->subtree_root[f] == f) {
      last[n++ % w] = f;
      int64_t sum = 0;
      for (int i = 0; i < w && i < n; i++) {
        int32_t g = last[(n - 1 - i) % w];
        int ended = 0; /* g's parent activated after g started: at a position between g's and f's */
        for (int32_t j = k - 1; j >= 0 && D->order[j] != g; j--)
          if (D->order[j] == S->fronts[g].parent) ended = 1;
        if (!ended) sum += D->sub_scratch[g];
      }
      if (sum > bound) bound = sum;
    }
  }
  free(last);
  return bound;
}

/* A process with W workers runs W subtree tasks at once, each holding its whole scratch until it
 * ends: the footprint covers every moment where W of them run side by side, differs from the
 * one-worker replay, and is what the distribution reports for its own workers. (On these small
 * problems the tiled fronts' CBs dominate, so the bound alone would not tell the two replays apart;
 * the executor's measured peak against this prediction is checked in test_solver_starpu.) */
static void test_subtrees_side_by_side(void **state) {
  (void)state;
  static const char *specs[] = {"lap3d:14", "lap3d27:9", "lap2d:60"};
  int differs = 0; /* cases where the overlap changes the footprint */
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_spec(specs[t], MFS_ORDER_METIS, 32, &A);
    mfs_error err;
    mfs_dist *D;
    assert_int_equal(dist__create(S, 0, 1, 3, 1, &D, &err), MFS_OK);
    assert_int_equal(D->workers, 3);
    assert_int_equal(D->drain, 0); /* one process: nothing shared, no drain */
    assert_int_equal(dist__cb_footprint(S, D, D->workers), D->cb_min);
    int64_t one = dist__cb_footprint(S, D, 1);
    for (int w = 2; w <= D->nsubtrees + 2; w++) { /* more workers than subtrees: all side by side */
      int64_t fw = dist__cb_footprint(S, D, w), bound = side_by_side_bound(S, D, w);
      if (fw < bound)
        fail_msg("%s, %d subtrees at once: footprint %lld below %lld", specs[t], w, (long long)fw, (long long)bound);
      differs += fw != one;
    }
    dist__free(D);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  assert_true(differs > 0);
}

/* More workers than subtree tasks: every one of them runs at once, so none has ended when the last
 * one starts, and the replay holds all their scratches from then on; with as many workers as
 * subtree tasks the first one ends as the last one starts. A replay that took more workers than
 * tasks for as many (min(W, tasks) - 1 tasks held, before e56a0ed) planned the same footprint for
 * both: lap3d:10 (tiles of 16, subtrees pruned for 2 workers) 401024 bytes for 6 subtree tasks on 6
 * workers and on 7, where all 6 at once take 446848. */
static void test_more_workers_than_subtrees(void **state) {
  (void)state;
  static const char *specs[] = {"lap3d:10", "lap2d:40", "lap3d:12"};
  static const int nbs[] = {16, 32, 8};
  int larger = 0; /* cases where holding every scratch raises the footprint */
  for (size_t t = 0; t < sizeof specs / sizeof *specs; t++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_spec(specs[t], MFS_ORDER_METIS, nbs[t], &A);
    mfs_error err;
    mfs_dist *D;
    assert_int_equal(dist__create(S, 0, 1, 2, 1, &D, &err), MFS_OK);
    int mine = 0; /* the replay's count: subtree tasks with a scratch */
    int64_t scratches = 0;
    for (int32_t k = 0; k < D->norder; k++) {
      int32_t f = D->order[k];
      if (D->subtree_root[f] != f || D->sub_scratch[f] <= 0) continue;
      mine++;
      scratches += D->sub_scratch[f];
    }
    assert_true(mine >= 2);
    int64_t as_many = dist__cb_footprint(S, D, mine), more = dist__cb_footprint(S, D, mine + 1);
    if (more < as_many || more < scratches)
      fail_msg("%s: %d subtree tasks, footprint %lld on as many workers, %lld on one more (scratches %lld)", specs[t],
               mine, (long long)as_many, (long long)more, (long long)scratches);
    assert_int_equal(dist__cb_footprint(S, D, mine + 4), more); /* nothing more to hold */
    larger += more > as_many;
    dist__free(D);
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  assert_true(larger > 0);
}

/* The replay's placement the executor follows on several processes (mfs_dist.h: cb_plan): every
 * planned block lies inside [0, cb_min), the footprint, so that the blocks the executor places above
 * cb_min never hold a planned range; one process has no plan (first fit). */
static void test_planned_placement(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:16", MFS_ORDER_METIS, 24, &A);
  mfs_error err;
  mfs_dist *D;
  assert_int_equal(dist__create(S, 0, 1, 2, 1, &D, &err), MFS_OK);
  assert_null(D->cb_plan);
  dist__free(D);
  for (int R = 2; R <= 4; R++)
    for (int r = 0; r < R; r++) {
      assert_int_equal(dist__create(S, r, R, 2 * R, 1, &D, &err), MFS_OK);
      assert_non_null(D->cb_plan);
      int64_t planned = 0;
      for (int32_t f = 0; f < S->nfronts; f++) {
        int own_subtree = D->subtree_root[f] == f && D->lo[f] == r;
        int64_t len[3] = {own_subtree ? D->sub_scratch[f] : D->cb_local[f], D->recv_cb[f], D->recv_l[f]};
        for (int k = 0; k < 3; k++) {
          size_t off = D->cb_plan[3 * (size_t)f + k];
          if (off == ARENA_FAIL) continue;
          assert_true(len[k] > 0);
          assert_true(off + (size_t)len[k] <= (size_t)D->cb_min);
          planned++;
        }
      }
      assert_true(planned > 0);
      dist__free(D);
    }
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* Several processes: tiles partition exactly, groups nest, received tiles are exactly the remote
 * tiles read by the tasks a process runs, and the submission order puts children first. */
static void test_processes(void **state) {
  (void)state;
  int shorter = 0; /* shared fronts whose simulated schedule the rows chosen shorten */
  static const char *specs[] = {"lap3d:16", "lap2d:80"};
  static const int nbs[] = {24, 40};
  for (size_t t = 0; t < 2; t++) {
    mfs_matrix A;
    mfs_symbolic *S = analyze_spec(specs[t], MFS_ORDER_METIS, nbs[t], &A);
    for (int R = 2; R <= 4; R++) {
      mfs_dist *D[4];
      mfs_error err;
      for (int r = 0; r < R; r++) assert_int_equal(dist__create(S, r, R, 2 * R, 1, &D[r], &err), MFS_OK);
      /* the memory plan without the drain (the worker mode): one subtree task at a time is the same
       * plan either way; two side by side hold their scratches longer, never less */
      for (int r = 0; r < R; r++) {
        assert_int_equal(D[r]->drain, 1);
        int64_t one = dist__cb_footprint(S, D[r], 1), two = D[r]->cb_min;
        assert_int_equal(D[r]->workers, 2);
        D[r]->drain = 0;
        assert_int_equal(dist__cb_footprint(S, D[r], 1), one);
        int64_t two_no_drain = dist__cb_footprint(S, D[r], 2);
        assert_true(two_no_drain >= two);
        D[r]->drain = 1;
        /* what the executor builds in the worker mode: the same distribution, planned without */
        mfs_dist *N;
        assert_int_equal(dist__create_with(S, r, R, 2 * R, 1, 0, &N, &err), MFS_OK);
        assert_int_equal(N->drain, 0);
        assert_int_equal(N->cb_min, two_no_drain);
        assert_int_equal(N->factor_local, D[r]->factor_local);
        dist__free(N);
      }
      int shared = 0;
      for (int32_t f = 0; f < S->nfronts; f++) {
        const mfs_front *F = &S->fronts[f];
        /* every process computes the same groups and subtrees */
        for (int r = 1; r < R; r++) {
          assert_int_equal(D[r]->lo[f], D[0]->lo[f]);
          assert_int_equal(D[r]->hi[f], D[0]->hi[f]);
          assert_int_equal(D[r]->subtree_root[f], D[0]->subtree_root[f]);
          for (int32_t i = 0; i < F->nbt; i++) /* and the same rows */
            assert_int_equal(dist__tile_owner(D[r], f, i), dist__tile_owner(D[0], f, i));
        }
        int64_t l = 0, cb = 0;
        for (int r = 0; r < R; r++) {
          l += D[r]->l_local[f];
          cb += D[r]->cb_local[f];
        }
        assert_int_equal(l, F->l_bytes);
        assert_int_equal(cb, F->cb_bytes);
        if (dist__shared(D[0], f)) {
          shared++;
          assert_int_equal(D[0]->subtree_root[f], -1); /* shared fronts are tile tasks */
          /* the equal-flops cut: contiguous row ranges in process order, each with about 1/n of
           * the flops (off by at most the heaviest row: rows are charged the ops writing them) */
          int32_t n = D[0]->hi[f] - D[0]->lo[f], cut[64], own[64];
          double w[64] = {0}, share[4] = {0}, tot = 0, wmax = 0;
          assert_true(F->nbt <= 64);
          double scratch[64];
          dist__rows_equal_flops(S, D[0], f, cut, scratch);
          for (int64_t o = F->op_begin; o < F->op_end; o++)
            if (S->ops[o].front == f && S->ops[o].i >= 0) w[S->ops[o].i] += S->ops[o].flops;
          for (int32_t i = 0; i < F->nbt; i++) {
            assert_true(cut[i] >= D[0]->lo[f] && cut[i] < D[0]->hi[f]);
            if (i > 0) assert_true(cut[i] >= cut[i - 1]);
            share[cut[i] - D[0]->lo[f]] += w[i];
            tot += w[i];
            if (w[i] > wmax) wmax = w[i];
          }
          for (int32_t q = 0; q < n; q++) assert_true(share[q] <= tot / n + wmax + 1e-6 * tot);
          /* the rows chosen: in the group, and a simulated schedule no longer than the cut's */
          for (int32_t i = 0; i < F->nbt; i++) {
            own[i] = dist__tile_owner(D[0], f, i);
            assert_true(own[i] >= D[0]->lo[f] && own[i] < D[0]->hi[f]);
          }
          double m_own = dist__rows_makespan(S, D[0], f, own, 1), m_cut = dist__rows_makespan(S, D[0], f, cut, 1);
          assert_true(m_own <= m_cut);
          if (m_own < m_cut) shorter++;
        }
        if (D[0]->subtree_root[f] >= 0) assert_false(dist__shared(D[0], f));
        if (F->parent >= 0) { /* a child's processes are among its parent's */
          assert_true(D[0]->lo[f] >= D[0]->lo[F->parent]);
          assert_true(D[0]->hi[f] <= D[0]->hi[F->parent]);
        }
      }
      assert_int_equal(shared, D[0]->nshared);
      if (R == 2) assert_true(shared >= 1); /* the root at least */
      /* received tiles, recomputed from the operations: a remote tile read by a task that runs
             * on r (owner of the tile it writes) */
      for (int r = 0; r < R; r++) {
        uint8_t *want = calloc((size_t)S->ntiles, 1);
        for (int64_t o = 0; o < S->nops; o++) {
          const mfs_op *op = &S->ops[o];
          if (op->type == MFS_OP_INIT || op->type == MFS_OP_CLEANUP) continue;
          if (D[r]->subtree_root[op->front] >= 0) continue;
          mfs_tile_access acc[3];
          int n = mfs_op_access(op, acc);
          if (dist__tile_owner(D[r], acc[n - 1].front, acc[n - 1].i) != r) continue;
          for (int q = 0; q < n - 1; q++)
            if (dist__tile_owner(D[r], acc[q].front, acc[q].i) != r)
              want[S->fronts[acc[q].front].tile0 + mfs_tile_index(S->fronts[acc[q].front].nbt, acc[q].i, acc[q].j)] = 1;
        }
        assert_memory_equal(want, D[r]->recv, (size_t)S->ntiles);
        free(want);
        /* order: each front once, children before parents, own fronts before shared ones */
        int32_t *pos = malloc((size_t)S->nfronts * sizeof *pos);
        for (int32_t f = 0; f < S->nfronts; f++) pos[f] = -1;
        int seen_shared = 0;
        for (int32_t k = 0; k < D[r]->norder; k++) {
          int32_t f = D[r]->order[k];
          assert_int_equal(pos[f], -1);
          pos[f] = k;
          if (dist__shared(D[r], f))
            seen_shared = 1;
          else if (D[r]->lo[f] == r)
            assert_false(seen_shared);
        }
        for (int32_t f = 0; f < S->nfronts; f++) {
          int32_t p = S->fronts[f].parent;
          if (pos[f] >= 0 && p >= 0 && pos[p] >= 0) assert_true(pos[f] < pos[p]);
          /* every front with a tile here, or whose CB this process assembles, is in the order */
          int sr = D[r]->subtree_root[f];
          if ((sr < 0 || sr == f) && (D[r]->l_local[f] + D[r]->cb_local[f] > 0 || D[r]->recv_cb[f] > 0))
            assert_true(pos[f] >= 0);
        }
        free(pos);
      }
      for (int r = 0; r < R; r++) dist__free(D[r]);
    }
    mfs_symbolic_free(S);
    mfs_matrix_free(&A);
  }
  assert_true(shorter > 0); /* the search does move rows on these problems */
}

/* The simulated schedule of a front of two tile rows, one of them own columns: potrf(0), trsm(1,0)
 * after it, syrk(1,1,0) after the trsm, one after the other whatever the rows' processes. On one
 * process: the three kernels' flops at their rates (24, 33 and 40 GFlop/s: mfs_dist_rows.c). With
 * row 1 elsewhere, the trsm's read of tile (0,0) adds the latency (200 us) and its reception on row
 * 1's process (0.5 ns per byte of the tile). */
static void test_rows_makespan(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:16", MFS_ORDER_METIS, 24, &A);
  int32_t f = -1;
  for (int32_t g = 0; g < S->nfronts && f < 0; g++)
    if (S->fronts[g].nbt == 2 && S->fronts[g].nbp == 1) f = g;
  assert_true(f >= 0);
  const mfs_front *F = &S->fronts[f];
  double flops[3] = {0}; /* potrf, trsm, syrk */
  int n = 0;
  for (int64_t o = F->op_begin; o < F->op_end; o++)
    if (S->ops[o].type >= MFS_OP_POTRF && S->ops[o].type <= MFS_OP_GEMM) {
      assert_true(n < 3);
      assert_int_equal(S->ops[o].type, MFS_OP_POTRF + n);
      flops[n++] = S->ops[o].flops;
    }
  assert_int_equal(n, 3);
  const int32_t b0 = S->blkptr[F->blk + 1] - S->blkptr[F->blk];
  /* a two-process group for that front */
  int32_t *lo = calloc((size_t)S->nfronts, sizeof *lo), *hi = calloc((size_t)S->nfronts, sizeof *hi);
  for (int32_t g = 0; g < S->nfronts; g++) hi[g] = 2;
  mfs_dist D;
  memset(&D, 0, sizeof D);
  D.lo = lo;
  D.hi = hi;
  D.nranks = 2;
  const double kernels = flops[0] / 24e9 + flops[1] / 33e9 + flops[2] / 40e9;
  int32_t same[2] = {0, 0}, apart[2] = {0, 1};
  assert_true(fabs(dist__rows_makespan(S, &D, f, same, 1) - kernels) <= 1e-12);
  assert_true(fabs(dist__rows_makespan(S, &D, f, apart, 1) - (kernels + 200e-6 + b0 * b0 * 8 * 0.5e-9)) <= 1e-12);
  free(lo);
  free(hi);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* A shared front with more operations than the search takes keeps the equal-flops cut (lap3d:16
 * in tiles of 2 rows: its top fronts have hundreds of tile rows). */
static void test_rows_search_limit(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:16", MFS_ORDER_METIS, 2, &A);
  mfs_error err;
  mfs_dist *D;
  assert_int_equal(dist__create(S, 0, 2, 2, 1, &D, &err), MFS_OK);
  int big = 0;
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    if (!dist__shared(D, f) || F->op_end - F->op_begin <= DIST_ROWS_SEARCH_MAX_OPS) continue;
    big++;
    int32_t *cut = malloc((size_t)F->nbt * sizeof *cut);
    double *w = malloc((size_t)F->nbt * sizeof *w);
    dist__rows_equal_flops(S, D, f, cut, w);
    for (int32_t i = 0; i < F->nbt; i++) assert_int_equal(dist__tile_owner(D, f, i), cut[i]);
    free(cut);
    free(w);
  }
  assert_true(big > 0);
  dist__free(D);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

/* Carving places this process's tiles back to back, padded to 8 doubles, as mfs_front_bytes counts. */
static void test_carve(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap3d:12", MFS_ORDER_METIS, 20, &A);
  mfs_error err;
  mfs_dist *D;
  assert_int_equal(dist__create(S, 1, 2, 2, 0, &D, &err), MFS_OK);
  for (int32_t f = 0; f < S->nfronts; f++) {
    const mfs_front *F = &S->fronts[f];
    double **tiles = calloc((size_t)F->nbt * (F->nbt + 1) / 2, sizeof *tiles);
    int64_t lb, cb;
    dist__carve(S, D, f, NULL, NULL, NULL, &lb, &cb);
    double *L = malloc((size_t)lb + 8), *C = malloc((size_t)cb + 8);
    dist__carve(S, D, f, L, C, tiles, &lb, &cb);
    assert_int_equal(lb, D->l_local[f]);
    assert_int_equal(cb, D->cb_local[f]);
    const int32_t *b = S->blkptr + F->blk;
    int64_t lo = 0, co = 0;
    for (int32_t j = 0; j < F->nbt; j++)
      for (int32_t i = j; i < F->nbt; i++) {
        double *p = tiles[mfs_tile_index(F->nbt, i, j)];
        if (dist__tile_owner(D, f, i) != 1) {
          assert_null(p);
          continue;
        }
        int64_t d = ((int64_t)(b[i + 1] - b[i]) * (b[j + 1] - b[j]) + 7) / 8 * 8;
        if (j < F->nbp) {
          assert_ptr_equal(p, L + lo);
          lo += d;
        } else {
          assert_ptr_equal(p, C + co);
          co += d;
        }
      }
    if (!dist__shared(D, f) && D->lo[f] == 1) {
      int64_t l2, c2;
      mfs_front_bytes(F->ncol, F->nrow, mfs_front_nb(&S->opts, F->nrow), &l2, &c2);
      assert_int_equal(lb, l2);
      assert_int_equal(cb, c2);
    }
    free(tiles);
    free(L);
    free(C);
  }
  dist__free(D);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

static void test_bad_arguments(void **state) {
  (void)state;
  mfs_matrix A;
  mfs_symbolic *S = analyze_spec("lap2d:10", MFS_ORDER_METIS, 8, &A);
  mfs_error err;
  mfs_dist *D = (mfs_dist *)1;
  assert_int_equal(dist__create(S, 2, 2, 1, 1, &D, &err), MFS_ERR_ARG);
  assert_null(D);
  assert_int_equal(dist__create(S, 0, 0, 1, 1, &D, &err), MFS_ERR_ARG);
  assert_int_equal(dist__create(S, 0, 1, 0, 1, &D, &err), MFS_ERR_ARG);
  dist__free(NULL);
  mfs_symbolic_free(S);
  mfs_matrix_free(&A);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_owner_rule),
      cmocka_unit_test(test_single_process),
      cmocka_unit_test(test_processes),
      cmocka_unit_test(test_planned_placement),
      cmocka_unit_test(test_rows_makespan),
      cmocka_unit_test(test_rows_search_limit),
      cmocka_unit_test(test_carve),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_subtrees_side_by_side),
      cmocka_unit_test(test_more_workers_than_subtrees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
