/* Benchmark (not a test): the end of a run at scale.
 *   merge   rank 0 merges the profiles of R ranks (default 4,096) of C call paths each (default
 *           1,000), one at a time as at finalize: time, and the heap's peak against the merged
 *           profile's own size (budgets: 2 s, 2x)
 *   parse   the same profiles read from their JSON text first (what rank 0 does with the gathered
 *           parts), for a fraction of the ranks, extrapolated
 *   build   one process with 10^5 distinct call paths (4 threads x 25,250: 250 functions of each
 *           thread calling 100 shared ones) builds its profile and its JSON text (budget 1 s)
 * Usage: bench_profile [RANKS] [CALLPATHS] */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static size_t heap(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd; /* small blocks and mmap'd ones (large tables) */
}

/* A rank's profile: one thread, C call paths (main -> 99 user regions -> MPI calls), a value each. */
static pm_profile *rank_profile(int rank, int ncp) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "app");
  p->has_critical_path = 1;
  p->nprocesses = 1;
  p->proc = calloc(1, sizeof *p->proc);
  p->proc[0] = (pm_prof_process){.rank = rank, .window = 10};
  snprintf(p->proc[0].host, sizeof p->proc[0].host, "node%d", rank / 64);
  p->nlocations = 1;
  p->loc = calloc(1, sizeof *p->loc);
  snprintf(p->loc[0].name, sizeof p->loc[0].name, "main");
  p->loc[0].time[0][PM_STATE_USEFUL] = 9;
  p->loc[0].time[0][PM_STATE_MPI_COLL] = 1;
  int root = pm_profile_add_cnode(p, -1, pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION));
  char name[32];
  int user[99];
  for (int i = 0; i < 99; i++) {
    snprintf(name, sizeof name, "phase_%d", i);
    user[i] = pm_profile_add_cnode(p, root, pm_profile_add_region(p, name, PM_PARADIGM_USER, PM_ROLE_FUNCTION));
  }
  for (int i = 100; i < ncp; i++) {
    snprintf(name, sizeof name, "MPI_call_%d", i % 200);
    pm_profile_add_cnode(p, user[i % 99], pm_profile_add_region(p, name, PM_PARADIGM_MPI, PM_ROLE_COLLECTIVE));
  }
  p->val = calloc((size_t)p->ncnodes, sizeof *p->val);
  for (int i = 0; i < p->ncnodes; i++) {
    p->val[i] = (pm_prof_value){.cnode = i, .location = 0, .visits = 1 + (uint64_t)i};
    p->val[i].time[i < 100 ? PM_STATE_USEFUL : PM_STATE_MPI_COLL] = 1e-3 * (i % 7 + 1);
  }
  p->nvalues = p->ncnodes;
  pm_profile_finish(p);
  return p;
}

/* What the merged profile's own tables take (its live size). */
static size_t profile_bytes(const pm_profile *p) {
  size_t b = sizeof *p + (size_t)p->nprocesses * sizeof *p->proc + (size_t)p->nlocations * sizeof *p->loc +
             (size_t)p->nregions * sizeof *p->reg + (size_t)p->ncnodes * sizeof *p->cnode +
             (size_t)p->nvalues * sizeof *p->val;
  for (int i = 0; i < p->nregions; i++) b += strlen(p->reg[i].name) + 1;
  return b;
}

static void bench_merge(int ranks, int ncp) {
  size_t h0 = heap(), peak = 0;
  double t_merge = 0, t_parse = 0;
  int parsed = 0;
  pm_profile *run = pm_profile_new();
  for (int r = 0; r < ranks; r++) {
    pm_profile *p = rank_profile(r, ncp);
    if (r % 64 == 0) { /* the JSON read of a part, sampled */
      char *s = pm_profile_to_json_string(p), err[256];
      double t = now();
      pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
      t_parse += now() - t;
      parsed++;
      free(s);
      pm_profile_free(q);
    }
    double t = now();
    if (pm_profile_merge(run, p) != 0) {
      fprintf(stderr, "merge failed at rank %d\n", r);
      exit(1);
    }
    t_merge += now() - t;
    pm_profile_free(p);
    size_t h = heap() - h0;
    if (h > peak) peak = h;
  }
  pm_profile_finish(run);
  size_t own = profile_bytes(run);
  printf("merge %d ranks x %d call paths: %.3f s (budget 2 s); %d call paths, %d values\n", ranks, ncp, t_merge,
         run->ncnodes, run->nvalues);
  printf("  heap at its peak %.1f MB = %.2fx the merged profile's %.1f MB (budget 2x)\n", peak / 1e6,
         (double)peak / (double)own, own / 1e6);
  printf("  reading the parts from JSON first: %.3f s per rank, %.1f s for %d ranks (extrapolated from %d)\n",
         t_parse / parsed, t_parse / parsed * ranks, ranks, parsed);
  pm_profile_free(run);
}

static void bench_build(void) {
  bench_quiet_popmeter();
  pm_core_activate();
  pm_loc *L = pm_loc_self();
  char name[32];
  /* 4 locations of one process with 25,250 distinct call paths each: 250 functions of their own
   * calling 100 shared others (the calling thread plays all four) */
  pm_loc *locs[4] = {L, pm_loc_create_virtual(PM_ROLE_OTHER, "t1"), pm_loc_create_virtual(PM_ROLE_OTHER, "t2"),
                     pm_loc_create_virtual(PM_ROLE_OTHER, "t3")};
  pm_region_id outer[1000], inner[100];
  for (int i = 0; i < 1000; i++) { /* each thread its own 250 */
    snprintf(name, sizeof name, "solve_%d", i);
    outer[i] = pm_region_register(name, PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  }
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof name, "kernel_%d", i);
    inner[i] = pm_region_register(name, PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  }
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < 250; i++) {
      pm_region_enter(locs[t], outer[250 * t + i], pm_clock_now());
      for (int k = 0; k < 100; k++) {
        pm_region_enter(locs[t], inner[k], pm_clock_now());
        pm_region_exit(locs[t], pm_clock_now());
      }
      pm_region_exit(locs[t], pm_clock_now());
    }
  double t = now();
  pm_profile *p = pm_profile_build_process(pm_core_window_start(), pm_clock_now());
  double t_build = now() - t;
  t = now();
  char *s = p ? pm_profile_to_json_string(p) : NULL;
  double t_json = now() - t;
  printf("build one process with %d call paths: %.3f s, its JSON text (%.1f MB) %.3f s (budget 1 s together)\n",
         p ? p->ncnodes : 0, t_build, s ? strlen(s) / 1e6 : 0, t_json);
  free(s);
  pm_profile_free(p);
}

int main(int argc, char **argv) {
  int ranks = argc > 1 ? atoi(argv[1]) : 4096, ncp = argc > 2 ? atoi(argv[2]) : 1000;
  if (ranks < 1 || ncp < 100) {
    fprintf(stderr, "usage: bench_profile [RANKS>=1] [CALLPATHS>=100]\n");
    return 2;
  }
  bench_merge(ranks, ncp);
  bench_build();
  return 0;
}
