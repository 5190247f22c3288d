/* Benchmark (not a test): the cost of writing profile.cubex at finalize, for a synthetic run of
 * 64 locations (8 ranks x 8 threads on 2 hosts) x 1000 call paths with a value for every
 * (call path, location) pair, the dense worst case. Printed side by side with serialising the same
 * profile to popmeter.json, the other file rank 0 writes at the end of a run.
 *   usage: bench_cube [locations_per_rank] [call_paths] [directory]   (defaults 8, 1000, /tmp)
 * The file is fsync'ed before it is published, so the directory's file system matters: /dev/shm
 * shows the cost without the disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "pm_cube.h"
#include "pm_profile.h"

#define REPS 5
#define RANKS 8

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* main -> 10 phases -> 10 functions each -> MPI calls (round-robin over 9 names) up to ncp paths */
static pm_profile *synthetic(int threads, int ncp) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "bench");
  p->nprocesses = RANKS;
  p->proc = calloc(RANKS, sizeof *p->proc);
  for (int r = 0; r < RANKS; r++) {
    p->proc[r].rank = r;
    snprintf(p->proc[r].host, sizeof p->proc[r].host, "node%d", r / (RANKS / 2));
    p->proc[r].window = 100;
  }
  p->nlocations = RANKS * threads;
  p->loc = calloc((size_t)p->nlocations, sizeof *p->loc);
  for (int l = 0; l < p->nlocations; l++) {
    p->loc[l].process = l / threads;
    p->loc[l].thread = l % threads;
    p->loc[l].role = l % threads ? PM_ROLE_THREAD : PM_ROLE_MAIN;
    snprintf(p->loc[l].name, sizeof p->loc[l].name, "thread %d", l % threads);
  }
  static const char *const mpi[] = {"MPI_Send",    "MPI_Recv",      "MPI_Isend", "MPI_Irecv",  "MPI_Wait",
                                    "MPI_Waitall", "MPI_Allreduce", "MPI_Bcast", "MPI_Barrier"};
  char name[64];
  int root = pm_profile_add_cnode(p, -1, pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION));
  for (int a = 0; a < 10 && p->ncnodes < ncp; a++) {
    snprintf(name, sizeof name, "phase_%d", a);
    int ca = pm_profile_add_cnode(p, root, pm_profile_add_region(p, name, PM_PARADIGM_USER, PM_ROLE_FUNCTION));
    for (int b = 0; b < 10 && p->ncnodes < ncp; b++) {
      snprintf(name, sizeof name, "kernel_%d_%d", a, b);
      int cb = pm_profile_add_cnode(p, ca, pm_profile_add_region(p, name, PM_PARADIGM_USER, PM_ROLE_FUNCTION));
      for (int k = 0; k < 9 && p->ncnodes < ncp; k++)
        pm_profile_add_cnode(p, cb, pm_profile_add_region(p, mpi[k], PM_PARADIGM_MPI, PM_ROLE_POINT2POINT));
    }
  }
  for (int k = 0; p->ncnodes < ncp; k++) { /* beyond 1 + 10 + 100 + 900 paths: more functions under main */
    snprintf(name, sizeof name, "extra_%d", k);
    pm_profile_add_cnode(p, root, pm_profile_add_region(p, name, PM_PARADIGM_USER, PM_ROLE_FUNCTION));
  }
  p->nvalues = p->ncnodes * p->nlocations;
  p->val = calloc((size_t)p->nvalues, sizeof *p->val);
  unsigned seed = 12345;
  for (int i = 0; i < p->nvalues; i++) {
    pm_prof_value *v = &p->val[i];
    v->cnode = i / p->nlocations;
    v->location = i % p->nlocations;
    seed = seed * 1103515245u + 12345u;
    v->visits = 1 + seed % 1000;
    v->bytes_sent = seed % 65536;
    v->time[PM_STATE_USEFUL] = (seed % 10000) * 1e-5;
    v->time[PM_STATE_MPI_P2P] = (seed % 777) * 1e-6;
  }
  pm_profile_finish(p);
  return p;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 8, ncp = argc > 2 ? atoi(argv[2]) : 1000;
  const char *where = argc > 3 ? argv[3] : "/tmp";
  if (threads < 1 || ncp < 1) {
    fprintf(stderr, "usage: bench_cube [locations_per_rank] [call_paths] [directory]\n");
    return 2;
  }
  pm_profile *p = synthetic(threads, ncp);
  char dir[4096], path[4200], err[512];
  snprintf(dir, sizeof dir, "%s/pmbenchcube.XXXXXX", where);
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(path, sizeof path, "%s/profile.cubex", dir);
  double best_cube = 1e30, best_json = 1e30;
  struct stat st = {0};
  for (int r = 0; r < REPS; r++) {
    unlink(path);
    double t0 = now_s();
    if (pm_cube_write(p, NULL, 0, path, 0, err, sizeof err) != 0) {
      fprintf(stderr, "%s\n", err);
      return 1;
    }
    double t = now_s() - t0;
    if (t < best_cube) best_cube = t;
    t0 = now_s();
    char *json = pm_profile_to_json_string(p);
    t = now_s() - t0;
    if (t < best_json) best_json = t;
    free(json);
  }
  stat(path, &st);
  unlink(path);
  rmdir(dir);
  printf("profile: %d locations x %d call paths, %d values\n", p->nlocations, p->ncnodes, p->nvalues);
  printf("profile.cubex write   %8.1f ms  (%.1f MB in %s, incl. fsync; best of %d)\n", best_cube * 1e3,
         st.st_size / 1e6, where, REPS);
  printf("popmeter.json string  %8.1f ms  (serialisation only)\n", best_json * 1e3);
  printf("cube / json           %8.2fx\n", best_cube / best_json);
  pm_profile_free(p);
  return 0;
}
