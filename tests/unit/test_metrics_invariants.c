/* Invariants of docs/metrics.md §9 on thousands of seeded random runs (xorshift64*, fixed seeds):
 *   - every efficiency of the basic (§1), critical-path (§4), task (§6) and additive (§3) models
 *     lies in [0, 1] on consistent inputs (states add up to R, critical paths ordered
 *     t_i <= PL-CUE <= G-CUE <= G-COO <= R, codelet totals match the workers, predictions <= observed,
 *     reference runs no slower than this one);
 *   - in every model, PRODUCT parents equal the product of their children and ADDITIVE parents'
 *     inefficiency the sum of their children's;
 *   - ids are unique, nothing is NaN/inf, the text and JSON renderings hold no nan/inf and the JSON
 *     parses back to the same values;
 *   - on garbage inputs (negative, NaN, infinite, huge values, bad indices) no model crashes and no
 *     value is non-finite. */
#include "test_metrics_common.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 6
#define MAXT 5
#define MAXW 3
#define MAXG 3
#define MAXR 3
#define MAXL (MAXP * (MAXT + MAXW + 1) + MAXG)

typedef struct {
  pm_location_input loc[MAXL];
  pm_omp_region_input reg[MAXP * MAXR];
  double idle[MAXP * MAXR][MAXT], useful[MAXP * MAXR][MAXT];
  double pl[MAXP];
  pm_codelet_input cod[16];
  pm_run_input in;
} gen_run;

static const char *const cnames[3] = {"a", "b", "c"};

/* A consistent random run. */
static void generate(tm_rng *g, gen_run *r) {
  int P = tm_int(g, 1, MAXP), nodes = tm_int(g, 1, P < 3 ? P : 3);
  double R = tm_unif(g, 1.0, 100.0);
  int n = 0, nreg = 0, p, j, k, want_workers = tm_int(g, 0, 1), want_dev = tm_int(g, 0, 1);
  int counters = tm_int(g, 0, 1), w0 = 0, w1 = 0;
  double maxt = 0.0, pmax[MAXP], exec_by_type[2] = {0, 0}, sumexec = 0.0;
  memset(r, 0, sizeof *r);
  for (p = 0; p < P; p++) {
    int tp = tm_int(g, 1, MAXT), nr = tm_int(g, 0, MAXR);
    double mpi = tm_unif(g, 0, 0.3 * R), io = tm_unif(g, 0, 0.1 * R);
    double su = tm_unif(g, 0, R - mpi - io) * tm_unif(g, 0, 1);
    double o = nr ? tm_unif(g, 0, R - mpi - io - su) : 0.0, left = o;
    double ou[MAXT] = {0};
    pmax[p] = 0.0;
    for (k = 0; k < nr; k++) { /* regions of p: spans add up to o, team = all threads */
      double span = k == nr - 1 ? left : tm_unif(g, 0, left);
      pm_omp_region_input *rg = &r->reg[nreg];
      left -= span;
      for (j = 0; j < tp; j++) {
        r->useful[nreg][j] = tm_unif(g, 0, span);
        r->idle[nreg][j] = tm_unif(g, 0, span - r->useful[nreg][j]);
        ou[j] += r->useful[nreg][j];
      }
      rg->name = "r";
      rg->process = p;
      rg->nthreads = tp;
      rg->span = span;
      rg->thread_idle = r->idle[nreg];
      rg->thread_useful = r->useful[nreg];
      nreg++;
    }
    for (j = 0; j < tp; j++) {
      pm_location_input *l = &r->loc[n++];
      l->process = p;
      l->node = p % nodes;
      l->kind = PM_LOC_THREAD;
      l->in_parallel = o;
      l->omp_useful = ou[j];
      if (j == 0) {
        l->calls_mpi = 1;
        l->mpi = mpi;
        l->io = io;
        l->serial_useful = su;
      } else {
        l->mpi_worker_idle = tm_unif(g, 0, mpi < R - o ? mpi : R - o);
      }
      l->useful = l->serial_useful + l->omp_useful;
      l->gpu_runtime = want_dev ? tm_unif(g, 0, R - o - mpi - io - su) * 0.5 : 0.0;
      l->tl_cue = l->useful;
      l->idle = R - l->useful - l->mpi - l->io - l->gpu_runtime;
      if (l->tl_cue > pmax[p]) pmax[p] = l->tl_cue;
      if (counters) {
        pm_counters *c = &l->counters;
        c->has_instructions = c->has_cycles = c->has_fp = 1;
        c->cycles = tm_unif(g, 1e6, 1e9);
        c->instructions = tm_unif(g, 1e6, 2e9);
        for (k = 0; k < 5; k++) c->fp_by_width[k] = tm_unif(g, 0, 1e7);
        for (k = 0; k < 2; k++) {
          c->fp_scalar[k] = tm_unif(g, 0, 1e7);
          c->fp_packed[k] = tm_unif(g, 0, 1e7);
        }
        c->fp_ops = tm_unif(g, 0, 1e8);
      }
    }
    if (want_workers) {
      int nw = tm_int(g, 1, MAXW);
      for (j = 0; j < nw; j++) {
        pm_location_input *l = &r->loc[n++];
        l->process = p;
        l->node = p % nodes;
        l->kind = tm_int(g, 0, 2) ? PM_LOC_WORKER : PM_LOC_ACCEL;
        l->exec = l->useful = tm_unif(g, 0, R);
        l->runtime = tm_unif(g, 0, R - l->exec);
        l->idle = R - l->exec - l->runtime;
        l->tl_cue = l->exec;
        if (l->tl_cue > pmax[p]) pmax[p] = l->tl_cue;
        exec_by_type[l->kind == PM_LOC_ACCEL] += l->exec;
        sumexec += l->exec;
        if (l->kind == PM_LOC_ACCEL)
          w1++;
        else
          w0++;
      }
    }
    if (tm_int(g, 0, 3) == 0) { /* a progress thread */
      pm_location_input *l = &r->loc[n++];
      l->process = p;
      l->kind = PM_LOC_PROGRESS;
      l->mpi = tm_unif(g, 0, R);
      l->useful = tm_unif(g, 0, R); /* must never be counted */
    }
    if (pmax[p] > maxt) maxt = pmax[p];
  }
  if (want_dev) {
    int G = tm_int(g, 1, MAXG);
    for (j = 0; j < G; j++) {
      pm_location_input *l = &r->loc[n++];
      l->process = tm_int(g, 0, P - 1);
      l->kind = PM_LOC_DEVICE;
      l->kernel = tm_unif(g, 0, R);
      l->memcpy = tm_unif(g, 0, R - l->kernel);
      l->memcpy_overlapped = tm_unif(g, 0, l->memcpy);
      l->useful = 1e9; /* must never be counted */
    }
  }
  /* codelets: each worker type's execution split over names a, b, c */
  for (k = 0; k < 2; k++) {
    double left = exec_by_type[k];
    int nc = (k == 0 ? w0 : w1) ? tm_int(g, 1, 3) : 0;
    for (j = 0; j < nc; j++) {
      pm_codelet_input *c = &r->cod[r->in.ncodelets++];
      c->name = cnames[j];
      c->worker_type = k;
      c->exec = j == nc - 1 ? left : tm_unif(g, 0, left);
      left -= c->exec;
      c->count = tm_int(g, 1, 100);
      c->predicted = tm_int(g, 0, 1) ? tm_unif(g, 0, c->exec) : 0.0;
    }
  }
  r->in.codelets = r->cod;
  r->in.nworker_types = (w0 > 0) + (w1 > 0);
  r->in.cp_bound = tm_int(g, 0, 1) ? tm_unif(g, 0, R) : 0.0;
  if (tm_int(g, 0, 1) && sumexec > 0.0) {
    r->in.task_ref_exec_1worker = tm_unif(g, 0, sumexec);
    r->in.task_ref_exec_seq = tm_unif(g, 0, r->in.task_ref_exec_1worker);
  }
  for (p = 0; p < P; p++) r->pl[p] = pmax[p];
  r->in.has_critical_path = tm_int(g, 0, 4) != 0;
  r->in.g_cue = tm_unif(g, maxt, R);
  for (p = 0; p < P; p++) r->pl[p] = tm_unif(g, pmax[p], r->in.g_cue);
  r->in.g_coo = tm_unif(g, r->in.g_cue, R);
  r->in.g_com = tm_unif(g, 0.5 * R, R);
  r->in.pl_cue = tm_int(g, 0, 5) ? r->pl : NULL;
  r->in.runtime = R;
  r->in.nprocesses = P;
  r->in.nnodes = nodes;
  r->in.nlocations = n;
  r->in.loc = r->loc;
  r->in.omp_regions = r->reg;
  r->in.nomp_regions = nreg;
  r->in.vector_width_max = 512;
}

static pm_metric *(*const models[8])(const pm_run_input *) = {
    pm_model_basic, pm_model_multiplicative, pm_model_additive, pm_model_critical_path,
    pm_model_talp,  pm_model_task,           pm_model_io,       pm_model_vectorization};
/* Models whose efficiencies must lie in [0, 1] (§1, §3 additive, §4, §6). TALP's efficiencies are
 * ratios of nested sums as well and are checked too. */
static const int bounded[8] = {1, 0, 1, 1, 1, 1, 0, 0};

static void test_consistent_runs(void **state) {
  static gen_run r;
  tm_rng g;
  tm_counts total = {0, 0, 0, 0, 0};
  int it, m;
  (void)state;
  tm_seed(&g, 20240611u);
  for (it = 0; it < 3000; it++) {
    generate(&g, &r);
    for (m = 0; m < 8; m++) {
      pm_metric *t = models[m](&r.in);
      tm_counts c;
      assert_non_null(t);
      c = tm_check_tree(t, bounded[m]);
      total.nodes += c.nodes;
      total.values += c.values;
      total.products += c.products;
      total.additives += c.additives;
      total.bounded += c.bounded;
      if (it % 10 == 0) tm_check_render(t);
      pm_metric_free(t);
    }
  }
  /* the checks really ran, many times each */
  assert_true(total.products > 10000);
  assert_true(total.additives > 5000);
  assert_true(total.bounded > 50000);
  print_message("# %d nodes, %d values, %d product checks, %d additive checks, %d bound checks\n", total.nodes,
                total.values, total.products, total.additives, total.bounded);
}

/* Multi-run scalability: random pairs; the product of the counter factors equals CompScal and
 * GE = PE x CompScal, strong or weak. */
static void test_scaling_runs(void **state) {
  tm_rng g;
  int it, products = 0;
  (void)state;
  tm_seed(&g, 77u);
  for (it = 0; it < 3000; it++) {
    pm_scaling_run r[3];
    int i;
    pm_metric *t;
    for (i = 0; i < 3; i++) {
      r[i].nprocesses = tm_int(&g, 1, 64);
      r[i].nthreads = tm_int(&g, 1, 8);
      r[i].runtime = tm_unif(&g, 1, 100);
      r[i].sum_useful = tm_unif(&g, 1, 1000);
      r[i].parallel_efficiency = tm_unif(&g, 0.01, 1);
      r[i].has_counters = tm_int(&g, 0, 3) != 0;
      r[i].sum_instructions = tm_unif(&g, 1e6, 1e12);
      r[i].sum_cycles = tm_unif(&g, 1e6, 1e12);
    }
    t = pm_model_scaling(r, 3, tm_int(&g, 0, 2), tm_int(&g, 0, 2), (pm_scaling_mode)tm_int(&g, 0, 2));
    products += tm_check_tree(t, 0).products;
    if (it % 50 == 0) tm_check_render(t);
    pm_metric_free(t);
  }
  assert_true(products > 4000);
}

/* A value that is sometimes absurd. */
static double garbage(tm_rng *g) {
  switch (tm_int(g, 0, 9)) {
  case 0: return NAN;
  case 1: return tm_int(g, 0, 1) ? INFINITY : -INFINITY;
  case 2: return -tm_unif(g, 0, 100);
  case 3: return 0.0;
  case 4: return tm_unif(g, 0, 1e300);
  case 5: return tm_unif(g, 0, 1e-300);
  default: return tm_unif(g, 0, 100);
  }
}

/* Walks a tree: every value finite. */
static void assert_finite(const pm_metric *m) {
  size_t i;
  if (m->state == PM_METRIC_VALUE) assert_true(isfinite(m->value));
  for (i = 0; i < m->nchildren; i++) assert_finite(m->children[i]);
}

static void test_garbage_runs(void **state) {
  static gen_run r;
  tm_rng g;
  int it, m, i;
  (void)state;
  tm_seed(&g, 4242u);
  for (it = 0; it < 2000; it++) {
    generate(&g, &r);
    /* scramble: every numeric field of a few locations, some indices, the run's scalars */
    for (i = 0; i < r.in.nlocations; i++) {
      pm_location_input *l = &r.loc[i];
      double *f[] = {&l->useful,
                     &l->mpi,
                     &l->io,
                     &l->runtime,
                     &l->idle,
                     &l->gpu_runtime,
                     &l->mpi_worker_idle,
                     &l->in_parallel,
                     &l->serial_useful,
                     &l->omp_useful,
                     &l->tl_cue,
                     &l->exec,
                     &l->kernel,
                     &l->memcpy,
                     &l->memcpy_overlapped,
                     &l->counters.instructions,
                     &l->counters.cycles,
                     &l->counters.fp_ops,
                     &l->counters.fp_by_width[4]};
      size_t k;
      if (tm_int(&g, 0, 2)) continue;
      for (k = 0; k < sizeof f / sizeof f[0]; k++)
        if (tm_int(&g, 0, 1)) *f[k] = garbage(&g);
      if (tm_int(&g, 0, 9) == 0) l->node = tm_int(&g, -1, 5);
      if (tm_int(&g, 0, 19) == 0) l->process = tm_int(&g, -1, 8);
      l->kind = (pm_loc_kind)tm_int(&g, 0, 4);
    }
    if (tm_int(&g, 0, 3) == 0) r.in.runtime = garbage(&g);
    r.in.g_cue = garbage(&g);
    r.in.g_coo = garbage(&g);
    r.in.g_com = garbage(&g);
    r.in.cp_bound = garbage(&g);
    r.in.task_ref_exec_1worker = garbage(&g);
    r.in.task_ref_exec_seq = garbage(&g);
    if (tm_int(&g, 0, 4) == 0) r.in.nnodes = tm_int(&g, -1, 2);
    if (tm_int(&g, 0, 4) == 0) r.in.vector_width_max = tm_int(&g, -1, 1024);
    for (i = 0; i < r.in.nomp_regions; i++)
      if (tm_int(&g, 0, 3) == 0) r.reg[i].span = garbage(&g);
    for (i = 0; i < r.in.ncodelets; i++)
      if (tm_int(&g, 0, 3) == 0) {
        r.cod[i].exec = garbage(&g);
        r.cod[i].predicted = garbage(&g);
        r.cod[i].count = tm_int(&g, -2, 3);
      }
    r.in.io_as_useful = tm_int(&g, 0, 1);
    for (m = 0; m < 8; m++) {
      pm_metric *t = models[m](&r.in);
      assert_non_null(t);
      assert_finite(t);
      if (it % 5 == 0) tm_check_render(t);
      pm_metric_free(t);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_consistent_runs),
      cmocka_unit_test(test_scaling_runs),
      cmocka_unit_test(test_garbage_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
