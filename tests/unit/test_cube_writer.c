/* pm_cube_write on the golden profile (cube_fixture.c), read back with the project's checker value
 * by value; escaping; errors (unwritable or existing path, bad profile) without crash or leftovers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pm_cube.h"
#include "pm_report_models.h"
#include "cube_fixture.h"
#include "cubex_read.h"

typedef struct {
  char *dir;
  char path[512];
  pm_profile *p;
  cubex *c;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  f->dir = cube_fixture_tmpdir();
  snprintf(f->path, sizeof f->path, "%s/profile.cubex", f->dir);
  f->p = cube_fixture_golden();
  *state = f;
  return f->dir && f->p ? 0 : -1;
}
static int teardown(void **state) {
  fx *f = *state;
  cubex_close(f->c);
  pm_profile_free(f->p);
  cube_fixture_rmdir(f->dir);
  free(f);
  return 0;
}

static cubex *write_and_open(fx *f, const pm_metric *const *models, int nmodels) {
  char err[512];
  if (pm_cube_write(f->p, models, nmodels, f->path, 0, err, sizeof err) != 0) fail_msg("pm_cube_write: %s", err);
  cubex *c = cubex_open(f->path, err, sizeof err);
  if (!c) fail_msg("checker: %s", err);
  return c;
}

static double val(const cubex *c, const char *metric, int cnode, int loc, cubex_view view) {
  double v = -1;
  int m = cubex_metric_find(c, metric);
  assert_true(m >= 0);
  assert_int_equal(cubex_value(c, m, cnode, loc, view, &v), 0);
  return v;
}

/* CUBE location ids (columns) of the profile locations: by process, then thread. */
enum { L0 = 0, L2 = 1, L1 = 2, L3 = 3 }; /* profile loc 0 -> column 0, loc 2 -> 1, loc 1 -> 2, loc 3 -> 3 */

static void test_golden_structure(void **state) {
  fx *f = *state;
  cubex *c = f->c = write_and_open(f, NULL, 0);
  assert_string_equal(cubex_version(c), "4.4");
  assert_int_equal(cubex_ncnodes(c), 5);
  assert_int_equal(cubex_nlocations(c), 4);
  assert_int_equal(cubex_nregions(c), 5);
  /* members: <id>.data, <id>.index per stored metric, anchor.xml last */
  assert_string_equal(cubex_member_name(c, 0), "0.data");
  assert_string_equal(cubex_member_name(c, 1), "0.index");
  assert_string_equal(cubex_member_name(c, cubex_nmembers(c) - 1), "anchor.xml");
  /* call tree as in the profile: ids kept, children nested */
  assert_int_equal(cubex_cnode_find(c, "main"), FX_MAIN);
  assert_int_equal(cubex_cnode_find(c, "main/init/io"), FX_IO);
  assert_int_equal(cubex_cnode_find(c, "main/solve/MPI_Send"), FX_SEND);
  assert_string_equal(cubex_region_child_text(c, cubex_cnode_region(c, FX_SEND), "paradigm"), "mpi");
  assert_string_equal(cubex_region_child_text(c, cubex_cnode_region(c, FX_SEND), "role"), "point2point");
  assert_string_equal(cubex_region_child_text(c, cubex_cnode_region(c, FX_IO), "role"), "file io");
  /* system tree: rank 0's two locations first, then rank 1's */
  assert_string_equal(cubex_location_name(c, L0), "main");
  assert_string_equal(cubex_location_name(c, L2), "omp 1");
  assert_int_equal(cubex_group_rank(c, cubex_location_group(c, L2)), 0);
  assert_int_equal(cubex_group_rank(c, cubex_location_group(c, L1)), 1);
  assert_string_equal(cubex_location_type(c, L3), "thread");
  /* EXCLUSIVE rows in depth-first pre-order: main init io solve MPI_Send, not id order */
  int time = cubex_metric_find(c, "time");
  int rows[] = {FX_MAIN, FX_INIT, FX_IO, FX_SOLVE, FX_SEND};
  for (int k = 0; k < 5; k++) assert_int_equal(cubex_row_cnode(c, time, k), rows[k]);
  assert_string_equal(cubex_metric_type(c, time), "EXCLUSIVE");
  assert_string_equal(cubex_metric_dtype(c, cubex_metric_find(c, "visits")), "UINT64");
  assert_int_equal(cubex_metric_parent(c, cubex_metric_find(c, "mpi_p2p")), cubex_metric_find(c, "mpi"));
  assert_int_equal(cubex_metric_parent(c, cubex_metric_find(c, "sync_wait")), cubex_metric_find(c, "idle"));
  assert_string_equal(cubex_attr(c, "popmeter::compute_locations"), "4");
  assert_string_equal(cubex_attr(c, "CUBE_CT_AGGR"), "SUM");
}

/* Exclusive (stored) values, hand-derived from cube_fixture.c:
 *   time(c,l) = useful + every other state but "off":
 *     main  l0 1 + 0.0625 = 1.0625      l1 1.25 + 0.0625 = 1.3125
 *           l2 1.5 + 0.0625 + 1.5 (idle) = 3.0625   l3 1.75 + 0.0625 + 1.5 = 3.3125
 *     init  l0 2.0   l1 2.25            (threads: no value -> 0)
 *     solve l0 3 + 0.5 (duplicate entry) = 3.5   l1 3.25   l2 3.5 + 0.375 = 3.875   l3 3.75 + 0.375 = 4.125
 *     io    l0 4 + 0.125 = 4.125   l1 4.25 + 0.25 = 4.5
 *     send  l0 5 + 0.5 = 5.5       l1 5.25 + 1.0 = 6.25 */
static void test_golden_exclusive_values(void **state) {
  fx *f = *state;
  cubex *c = f->c = write_and_open(f, NULL, 0);
  const int col[4] = {L0, L1, L2, L3};
  const double time[5][4] = {[FX_MAIN] = {1.0625, 1.3125, 3.0625, 3.3125},
                             [FX_INIT] = {2.0, 2.25, 0, 0},
                             [FX_SOLVE] = {3.5, 3.25, 3.875, 4.125},
                             [FX_IO] = {4.125, 4.5, 0, 0},
                             [FX_SEND] = {5.5, 6.25, 0, 0}};
  for (int cn = 0; cn < 5; cn++)
    for (int l = 0; l < 4; l++) assert_double_equal(val(c, "time", cn, col[l], CUBEX_STORED), time[cn][l], 0);
  /* metric-tree inclusive storage: mpi = p2p + mgmt; idle includes sync_wait; file_io alone */
  assert_double_equal(val(c, "mpi", FX_SEND, L1, CUBEX_STORED), 1.0, 0);
  assert_double_equal(val(c, "mpi_p2p", FX_SEND, L1, CUBEX_STORED), 1.0, 0);
  assert_double_equal(val(c, "mpi", FX_MAIN, L3, CUBEX_STORED), 0.0625, 0);
  assert_double_equal(val(c, "mpi_management", FX_MAIN, L3, CUBEX_STORED), 0.0625, 0);
  assert_double_equal(val(c, "idle", FX_SOLVE, L2, CUBEX_STORED), 0.375, 0);
  assert_double_equal(val(c, "sync_wait", FX_SOLVE, L2, CUBEX_STORED), 0.375, 0);
  assert_double_equal(val(c, "idle", FX_MAIN, L2, CUBEX_STORED), 1.5, 0);
  assert_double_equal(val(c, "sync_wait", FX_MAIN, L2, CUBEX_STORED), 0, 0);
  assert_double_equal(val(c, "file_io", FX_IO, L1, CUBEX_STORED), 0.25, 0);
  assert_double_equal(val(c, "useful", FX_SOLVE, L0, CUBEX_STORED), 3.5, 0);
  assert_double_equal(val(c, "measurement", FX_MAIN, L0, CUBEX_STORED), 0, 0);
  /* counts: visits = 10 c + l + 1 (+1 for the duplicate (solve, l0) entry) */
  assert_double_equal(val(c, "visits", FX_MAIN, L3, CUBEX_STORED), 4, 0);
  assert_double_equal(val(c, "visits", FX_SOLVE, L0, CUBEX_STORED), 22, 0);
  assert_double_equal(val(c, "visits", FX_IO, L1, CUBEX_STORED), 32, 0);
  assert_double_equal(val(c, "visits", FX_SEND, L2, CUBEX_STORED), 0, 0);
  assert_double_equal(val(c, "bytes_sent", FX_SEND, L1, CUBEX_STORED), 2000, 0);
  assert_double_equal(val(c, "bytes_sent", FX_SOLVE, L1, CUBEX_STORED), 0, 0);
  /* the threads' CPU wait, per location at the root call path only; unknown (location 2) is 0 */
  const double cpu_wait[4] = {0.25, 0.5, 0, 0.125};
  for (int l = 0; l < 4; l++) {
    assert_double_equal(val(c, "cpu_wait", FX_MAIN, col[l], CUBEX_STORED), cpu_wait[l], 0);
    assert_double_equal(val(c, "cpu_wait", FX_MAIN, col[l], CUBEX_INCL), cpu_wait[l], 0);
    for (int cn = 0; cn < 5; cn++)
      if (cn != FX_MAIN) assert_double_equal(val(c, "cpu_wait", cn, col[l], CUBEX_STORED), 0, 0);
  }
}

/* Inclusive along the call tree (what the Cube GUI shows on a collapsed node), from the
 * exclusive storage: main l0 = 1.0625 + 2 + 3.5 + 4.125 + 5.5 = 16.1875, l1 = 1.3125 + 2.25 + 3.25
 * + 4.5 + 6.25 = 17.5625, l2 = 3.0625 + 3.875 = 6.9375, l3 = 3.3125 + 4.125 = 7.4375; solve l1 =
 * 3.25 + 6.25 = 9.5; visits of main l0 = 1 + 11 + 22 + 31 + 41 = 106. */
static void test_golden_inclusive_values(void **state) {
  fx *f = *state;
  cubex *c = f->c = write_and_open(f, NULL, 0);
  assert_double_equal(val(c, "time", FX_MAIN, L0, CUBEX_INCL), 16.1875, 0);
  assert_double_equal(val(c, "time", FX_MAIN, L1, CUBEX_INCL), 17.5625, 0);
  assert_double_equal(val(c, "time", FX_MAIN, L2, CUBEX_INCL), 6.9375, 0);
  assert_double_equal(val(c, "time", FX_MAIN, L3, CUBEX_INCL), 7.4375, 0);
  assert_double_equal(val(c, "time", FX_SOLVE, L1, CUBEX_INCL), 9.5, 0);
  assert_double_equal(val(c, "time", FX_IO, L1, CUBEX_INCL), 4.5, 0);
  assert_double_equal(val(c, "visits", FX_MAIN, L0, CUBEX_INCL), 106, 0);
  assert_double_equal(val(c, "time", FX_SOLVE, L1, CUBEX_EXCL), 3.25, 0);
}

/* The derived metrics, and what they evaluate to at main with the documented formulas applied to
 * the stored values (N = 4 compute locations). Inclusive useful at main: l0 1+2+3.5+4+5 = 15.5,
 * l1 1.25+2.25+3.25+4.25+5.25 = 16.25, l2 1.5+3.5 = 5, l3 1.75+3.75 = 5.5; sum 42.25, max 16.25;
 * max inclusive time 17.5625. LB = 42.25 / (4 * 16.25) = 0.65, CommE = 16.25 / 17.5625,
 * PE = 42.25 / (4 * 17.5625) = LB * CommE. The run-level model (location totals, R = 17.5625 the
 * longest window) gives the same LB and CommE, attached as attributes. */
static void test_golden_derived(void **state) {
  fx *f = *state;
  pm_report_options o = {"basic", 100, 0};
  pm_model_set set;
  assert_int_equal(pm_report_compute(f->p, &o, &set), 0);
  cubex *c = f->c = write_and_open(f, (const pm_metric *const *)set.tree, set.n);
  int pe = cubex_metric_find(c, "pop_pe"), lb = cubex_metric_find(c, "pop_lb"), ce = cubex_metric_find(c, "pop_comme");
  int mu = cubex_metric_find(c, "pop_max_useful"), mt = cubex_metric_find(c, "pop_max_time");
  assert_true(pe >= 0 && lb >= 0 && ce >= 0 && mu >= 0 && mt >= 0);
  /* the maxima are PREDERIVED_INCLUSIVE (CubeLib applies their max rule when it reads the file),
   * the efficiencies POSTDERIVED ratios without aggregation rule (CubeLib would ignore it) */
  assert_string_equal(cubex_metric_type(c, pe), "POSTDERIVED");
  assert_false(cubex_metric_stored(c, pe));
  assert_string_equal(cubex_metric_type(c, mu), "PREDERIVED_INCLUSIVE");
  assert_string_equal(cubex_metric_type(c, mt), "PREDERIVED_INCLUSIVE");
  assert_string_equal(cubex_metric_cubepl(c, mu), "${pop_compute}[${calculation::sysres::id}] * metric::useful(i)");
  assert_string_equal(cubex_metric_aggr(c, mu), "max(arg1, arg2)");
  assert_string_equal(cubex_metric_cubepl(c, mt), "${pop_compute}[${calculation::sysres::id}] * metric::time(i)");
  assert_string_equal(cubex_metric_aggr(c, mt), "max(arg1, arg2)");
  assert_string_equal(cubex_metric_cubepl(c, lb),
                      "metric::pop_useful_c(i) / (metric::pop_nsel(i) * metric::pop_max_useful(i))");
  assert_string_equal(cubex_metric_cubepl(c, pe),
                      "metric::pop_useful_c(i) / (metric::pop_nsel(i) * metric::pop_max_time(i))");
  assert_string_equal(cubex_metric_cubepl(c, ce), "metric::pop_max_useful(i) / metric::pop_max_time(i)");
  assert_null(cubex_metric_aggr(c, lb));
  assert_string_equal(cubex_metric_cubepl(c, cubex_metric_find(c, "pop_nsel")), "min(4, metric::pop_nloc(i))");
  double sum = 0, maxu = 0, maxt = 0;
  for (int l = 0; l < 4; l++) {
    double u = val(c, "useful", FX_MAIN, l, CUBEX_INCL), t = val(c, "time", FX_MAIN, l, CUBEX_INCL);
    sum += u;
    if (u > maxu) maxu = u;
    if (t > maxt) maxt = t;
  }
  assert_double_equal(sum, 42.25, 0);
  assert_double_equal(maxu, 16.25, 0);
  assert_double_equal(maxt, 17.5625, 0);
  assert_double_equal(sum / (4 * maxu), 0.65, 1e-15);
  assert_double_equal(sum / (4 * maxt), (sum / (4 * maxu)) * (maxu / maxt), 1e-15);
  /* the models' run-level values agree with the per-call-path formulas at the root */
  assert_double_equal(atof(cubex_attr(c, "popmeter::model::basic/pe/lb")), 0.65, 1e-9);
  assert_double_equal(atof(cubex_attr(c, "popmeter::model::basic/pe/comme")), 16.25 / 17.5625, 1e-9);
  assert_double_equal(atof(cubex_attr(c, "popmeter::model::basic/pe")), 42.25 / 70.25, 1e-9);
  assert_non_null(strstr(cubex_attr(c, "popmeter::model::basic/pe/comme/sere"), "n/a"));
  pm_model_set_free(&set);
}

/* Names with <, &, " and ' reach the file escaped and come back unchanged. */
static void test_escaping(void **state) {
  fx *f = *state;
  const char *nasty = "a<b & \"c\" 'd' >e";
  free(f->p->reg[FX_SOLVE].name);
  f->p->reg[FX_SOLVE].name = strdup(nasty);
  snprintf(f->p->loc[0].name, sizeof f->p->loc[0].name, "<t&\"1\">");
  snprintf(f->p->proc[1].host, sizeof f->p->proc[1].host, "h&<1>");
  snprintf(f->p->app, sizeof f->p->app, "x\"y<z&");
  snprintf(f->p->command, sizeof f->p->command, "run\n--flag\t'q'");
  cubex *c = f->c = write_and_open(f, NULL, 0);
  assert_string_equal(cubex_cnode_name(c, FX_SOLVE), nasty);
  assert_string_equal(cubex_location_name(c, L0), "<t&\"1\">");
  assert_string_equal(cubex_attr(c, "popmeter::app"), "x\"y<z&");
  assert_string_equal(cubex_attr(c, "popmeter::command"), "run --flag 'q'"); /* control characters -> spaces */
  char path[600];
  snprintf(path, sizeof path, "main/%s/MPI_Send", nasty);
  assert_int_equal(cubex_cnode_find(c, path), FX_SEND);
}

static void test_unwritable_path(void **state) {
  fx *f = *state;
  char err[512] = "";
  assert_int_equal(pm_cube_write(f->p, NULL, 0, "/nonexistent-dir-pmcube/profile.cubex", 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot create"));
  assert_non_null(strstr(err, "/nonexistent-dir-pmcube/"));
  /* a regular file where a directory is expected */
  char file[600], under[700];
  snprintf(file, sizeof file, "%s/plain", f->dir);
  assert_int_equal(cube_fixture_save(file, "x", 1), 0);
  snprintf(under, sizeof under, "%s/profile.cubex", file);
  err[0] = '\0';
  assert_int_equal(pm_cube_write(f->p, NULL, 0, under, 0, err, sizeof err), -1);
  assert_true(strlen(err) > 0);
  /* no error buffer at all is fine too */
  assert_int_equal(pm_cube_write(f->p, NULL, 0, under, 0, NULL, 0), -1);
  err[0] = '\0';
  assert_int_equal(pm_cube_write(f->p, NULL, 0, "profile.json", 0, err, sizeof err), -1);
  assert_non_null(strstr(err, ".cubex"));
  assert_int_equal(cube_fixture_count_files(f->dir), 1); /* only "plain": no temporary file left */
}

/* Never overwritten silently; replaced atomically on request. */
static void test_existing_file(void **state) {
  fx *f = *state;
  char err[512];
  assert_int_equal(cube_fixture_save(f->path, "old", 3), 0);
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "already exists"));
  size_t n;
  unsigned char *b = cube_fixture_read(f->path, &n);
  assert_int_equal(n, 3);
  free(b);
  /* a dangling symlink at the target is not followed nor replaced */
  char link_path[600];
  snprintf(link_path, sizeof link_path, "%s/link.cubex", f->dir);
  assert_int_equal(symlink("/nonexistent-target-pmcube", link_path), 0);
  assert_int_equal(pm_cube_write(f->p, NULL, 0, link_path, 0, err, sizeof err), -1);
  struct stat st;
  assert_int_equal(lstat(link_path, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 1, err, sizeof err), 0);
  cubex *c = f->c = cubex_open(f->path, err, sizeof err);
  assert_non_null(c);
  assert_int_equal(cube_fixture_count_files(f->dir), 2); /* profile.cubex and the link */
}

/* A profile that breaks the contract (from a hand-edited JSON) is refused with a message. */
static void test_bad_profile(void **state) {
  fx *f = *state;
  char err[512];
  f->p->cnode[FX_INIT].parent = FX_SEND; /* a child before its parent */
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "parents-first"));
  f->p->cnode[FX_INIT].parent = FX_MAIN;
  int loc = f->p->val[3].location;
  f->p->val[3].location = 9;
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "out of range"));
  f->p->val[3].location = loc;
  int n = f->p->ncnodes;
  f->p->ncnodes = 0;
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 0, err, sizeof err), -1);
  assert_non_null(strstr(err, "call path"));
  f->p->ncnodes = n;
  assert_int_equal(cube_fixture_count_files(f->dir), 0);
}

/* The padding trap end to end: the command line is lengthened until the writer's anchor.xml is an
 * exact multiple of 512 bytes; the anchor is then followed by a whole zero block (CubeLib's rule)
 * and the two end blocks, and the checker (which rejects standard padding) accepts the file. */
static void test_anchor_multiple_of_512(void **state) {
  fx *f = *state;
  cubex *c = write_and_open(f, NULL, 0);
  size_t s = cubex_member_size(c, cubex_nmembers(c) - 1);
  cubex_close(c);
  size_t len = strlen(f->p->command), add = (512 - s % 512) % 512;
  if (add == 0) add = 512;
  assert_true(len + add < sizeof f->p->command);
  memset(f->p->command + len, 'x', add); /* plain characters: one byte each in the anchor */
  f->p->command[len + add] = '\0';
  char err[512];
  assert_int_equal(pm_cube_write(f->p, NULL, 0, f->path, 1, err, sizeof err), 0);
  c = f->c = cubex_open(f->path, err, sizeof err);
  if (!c) fail_msg("%s", err);
  int a = cubex_nmembers(c) - 1;
  size_t size = cubex_member_size(c, a), off = cubex_member_offset(c, a), n;
  assert_int_equal(size % 512, 0);
  assert_int_equal(size, s + add);
  unsigned char *b = cube_fixture_read(f->path, &n);
  assert_int_equal(n, off + size + 512 + 1024); /* data, the extra block, the two end blocks */
  for (size_t i = off + size; i < n; i++) assert_int_equal(b[i], 0);
  free(b);
}

/* A device location switches the anchor to version 4.7 with a gpu location. */
static void test_device_location(void **state) {
  fx *f = *state;
  f->p->loc[3].role = PM_ROLE_DEVICE;
  cubex *c = f->c = write_and_open(f, NULL, 0);
  assert_string_equal(cubex_version(c), "4.7");
  assert_string_equal(cubex_location_type(c, L3), "gpu");
  assert_string_equal(cubex_attr(c, "popmeter::compute_locations"), "3");
  assert_string_equal(cubex_metric_cubepl(c, cubex_metric_find(c, "pop_nsel")), "min(3, metric::pop_nloc(i))");
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_golden_structure),
      T(test_golden_exclusive_values),
      T(test_golden_inclusive_values),
      T(test_golden_derived),
      T(test_escaping),
      T(test_unwritable_path),
      T(test_existing_file),
      T(test_bad_profile),
      T(test_anchor_multiple_of_512),
      T(test_device_location),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
