/* The CUDA module without a driver (lib/adapters/cuda): the test plays the plugin, handing device
 * records and host synchronising calls to libpopmeter's side through the same table the plugin gets
 * (pm_cuda_host_api), on the virtual clock. Every expected value is derived by hand below. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda_module.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_profile.h"
#include "pm_profile_input.h"
#include "pm_report_cuda.h"
#include "popmetrics.h"
#include "pm_cube.h"
#include "cubex_read.h"

#define T0 1000000000ull /* the virtual clock starts at 1 s */
#define MS 1000000ull    /* the scenarios are written in milliseconds after T0 */

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_cuda_module_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  unsetenv("POPMETER_CUDA");
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1); /* the loader runs here: no plugin is found */
  pm_cuda_module_open();                   /* ... so the test plays the plugin */
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_cuda_module_reset_for_tests();
  pm_core_reset_for_tests();
  return 0;
}

static void feed(int kind, int copy, uint32_t dev, uint32_t stream, uint64_t s_ms, uint64_t e_ms, uint64_t bytes,
                 const char *name) {
  pm_cuda_activity a = {kind, copy, dev, 1, stream, T0 + s_ms * MS, T0 + e_ms * MS, bytes, name};
  pm_cuda_host_api()->activity(&a);
}

static const pm_prof_location *loc_named(const pm_profile *p, const char *name) {
  for (int i = 0; i < p->nlocations; i++)
    if (!strcmp(p->loc[i].name, name)) return &p->loc[i];
  fail_msg("no location named %s", name);
  return NULL;
}

/* Ends the window at T0 + end_ms the way pm_core_finalize does (flush, then the CUDA module). */
static void end_window(uint64_t end_ms) {
  uint64_t t_end = T0 + end_ms * MS;
  pm_clock_advance(t_end - pm_clock_now());
  for (uint32_t i = 0; i < pm_loc_count(); i++) pm_loc_flush(pm_loc_at(i), t_end);
  pm_cuda_finalize(t_end);
}
static pm_profile *build(uint64_t end_ms) {
  pm_profile *p = pm_profile_build_process(pm_core_window_start(), T0 + end_ms * MS);
  assert_non_null(p);
  pm_profile_finish(p);
  return p;
}
static pm_profile *finish(uint64_t end_ms) {
  end_window(end_ms);
  return build(end_ms);
}
static void no_warn(const char *fmt, ...) {
  (void)fmt;
  fail_msg("unexpected configuration warning");
}

/* The scenario (ms after T0; CUPTI uses the host clock):
 *   device 0 stream 7 : kernel kA [100,400], memcpy HtoD 1000 B [400,500], kernel kA [450,700]
 *                       (starts before the copy ended: clamped to [500,700])
 *   device 0 stream 13: memcpy DtoH 2000 B [600,900], kernel kB [900,1000]
 *   device 1 stream 7 : kernel kB [200,800], memset 64 B [800,850]
 *   main thread       : cudaDeviceSynchronize [300,700]
 * fed in the order the buffers could hold them (streams interleaved, each in order):
 *   (0,13) copy, (1,7) kernel, (0,7) kernel, (0,7) copy, (1,7) memset, (0,7) kernel, (0,13) kernel.
 * Window: [0,1000].
 * Per stream: (0,7) kernel 300+200 = 500, copy 100, idle 1000-600 = 400;
 *             (0,13) copy 300, kernel 100, idle 600;  (1,7) kernel 600, memset 50, idle 350.
 * Copy time under another stream's kernel (device 0 kernels: [100,400] u [500,700] u [900,1000]):
 *   (0,7) copy [400,500]: 0;  (0,13) copy [600,900]: [600,700] = 100;  device 1: no other stream, 0. */
static pm_profile *scenario(void) {
  const pm_cuda_host *h = pm_cuda_host_api();
  h->clock_is_host();
  pm_loc *main_loc = pm_loc_self();
  assert_non_null(main_loc);
  feed(PM_CUDA_ACT_MEMCPY, PM_CUDA_COPY_DTOH, 0, 13, 600, 900, 2000, NULL);
  feed(PM_CUDA_ACT_KERNEL, 0, 1, 7, 200, 800, 0, "kB");
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 7, 100, 400, 0, "kA");
  feed(PM_CUDA_ACT_MEMCPY, PM_CUDA_COPY_HTOD, 0, 7, 400, 500, 1000, NULL);
  feed(PM_CUDA_ACT_MEMSET, 0, 1, 7, 800, 850, 64, NULL);
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 7, 450, 700, 0, "kA");
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 13, 900, 1000, 0, "kB");
  pm_clock_advance(300 * MS);
  assert_int_equal(h->host_enter(0, "cudaDeviceSynchronize"), 1);
  pm_clock_advance(400 * MS);
  h->host_exit();
  return finish(1000);
}

static void test_stream_times(void **state) {
  (void)state;
  pm_profile *p = scenario();
  assert_int_equal(p->nlocations, 4); /* main + 3 streams */
  assert_int_equal(p->loc[0].role, PM_ROLE_MAIN);
  assert_int_equal(pm_cuda_streams_count(), 3);
  const double e = 1e-12;
  const pm_prof_location *a = loc_named(p, "CUDA device 0 stream 7");
  const pm_prof_location *b = loc_named(p, "CUDA device 0 stream 13");
  const pm_prof_location *c = loc_named(p, "CUDA device 1 stream 7");
  assert_int_equal(a->role, PM_ROLE_DEVICE);
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.5, e);
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.1, e);
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.4, e);
  assert_double_equal(b->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.1, e);
  assert_double_equal(b->time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.3, e);
  assert_double_equal(b->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.6, e);
  assert_double_equal(c->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.6, e);
  assert_double_equal(c->time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.05, e);
  assert_double_equal(c->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.35, e);
  /* the streams existed, idle, since the window opened */
  assert_double_equal(a->registered, 0.0, e);
  /* device fields */
  assert_int_equal(a->dev.device, 0);
  assert_int_equal(a->dev.stream, 7);
  assert_int_equal(a->dev.kernels, 2);
  assert_int_equal(a->dev.copies, 1);
  assert_int_equal(a->dev.bytes, 1000);
  assert_int_equal(b->dev.stream, 13);
  assert_int_equal(b->dev.kernels, 1);
  assert_int_equal(b->dev.bytes, 2000);
  assert_int_equal(c->dev.device, 1);
  assert_int_equal(c->dev.copies, 1);
  assert_int_equal(c->dev.bytes, 64);
  assert_double_equal(a->dev.memcpy_overlapped, 0.0, e);
  assert_double_equal(b->dev.memcpy_overlapped, 0.1, e);
  assert_double_equal(c->dev.memcpy_overlapped, 0.0, e);
  /* main thread: useful 1000 - 400, device (blocked in cudaDeviceSynchronize) 400 */
  assert_double_equal(p->loc[0].time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.6, e);
  assert_double_equal(p->loc[0].time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.4, e);
  assert_string_equal(p->proc[0].cuda, "measured");
  pm_profile_free(p);
}

/* Regions: kernels by name, copies by direction, the host call by name; all paradigm CUDA. On
 * stream (0,7) kernel kA has 2 visits and 500 ms useful; "memcpy HtoD" 100 ms device. */
static void test_regions(void **state) {
  (void)state;
  pm_profile *p = scenario();
  const pm_prof_location *a = loc_named(p, "CUDA device 0 stream 7");
  int loc = (int)(a - p->loc), found = 0;
  for (int i = 0; i < p->nvalues; i++) {
    const pm_prof_value *v = &p->val[i];
    if (v->location != loc) continue;
    const pm_prof_region *r = &p->reg[p->cnode[v->cnode].region];
    if (!strcmp(r->name, "kA")) {
      found++;
      assert_int_equal(r->paradigm, PM_PARADIGM_CUDA);
      assert_int_equal(v->visits, 2);
      assert_double_equal(v->time[PM_STATE_USEFUL], 0.5, 1e-12);
    } else if (!strcmp(r->name, "memcpy HtoD")) {
      found++;
      assert_double_equal(v->time[PM_STATE_DEVICE], 0.1, 1e-12);
    }
  }
  assert_int_equal(found, 2);
  int host = 0;
  for (int i = 0; i < p->nvalues; i++) {
    const pm_prof_region *r = &p->reg[p->cnode[p->val[i].cnode].region];
    if (p->val[i].location == 0 && !strcmp(r->name, "cudaDeviceSynchronize")) {
      host++;
      assert_int_equal(r->paradigm, PM_PARADIGM_CUDA);
      assert_double_equal(p->val[i].time[PM_STATE_DEVICE], 0.4, 1e-12);
    }
  }
  assert_int_equal(host, 1);
  pm_profile_free(p);
}

/* docs/metrics.md §5.3 over the three streams (G = 3; ms): kernel 500, 100, 600; copy 100, 300, 50;
 * overlapped 0, 100, 0 -> kernel + non-overlapped copy = 600, 300, 650.
 *   Device PE = (500+100+600) / (1000*3) = 0.4
 *   LB_dev    = 1200 / (3*600)          = 2/3
 *   CommE_dev = 600 / 650               = 12/13
 *   Orch      = 650 / 1000              = 0.65          (2/3 * 12/13 * 0.65 = 0.4)
 * Offload (host: useful 600, blocked 400, no OpenMP) = 600 / (600 + 400) = 0.6.
 * The device streams carry no critical path: g_cue is the main thread's useful time, 0.6. */
static void test_models(void **state) {
  (void)state;
  pm_profile *p = scenario();
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(p, 0, &buf), 0);
  const pm_location_input *x = &buf.in.loc[1];
  assert_int_equal(x->kind, PM_LOC_DEVICE);
  assert_double_equal(buf.in.g_cue, 0.6, 1e-12);
  assert_true(pm_models_default(&buf.in) & PM_MODEL_TALP);
  pm_metric *t = pm_model_talp(&buf.in);
  assert_non_null(t);
  double v;
  assert_true(pm_metric_get_path(t, "device_pe", &v));
  assert_double_equal(v, 0.4, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_lb", &v));
  assert_double_equal(v, 2.0 / 3.0, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_comme", &v));
  assert_double_equal(v, 12.0 / 13.0, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_orch", &v));
  assert_double_equal(v, 0.65, 1e-9);
  assert_true(pm_metric_get_path(t, "offload", &v));
  assert_double_equal(v, 0.6, 1e-9);
  pm_metric_free(t);
  pm_run_input_buf_free(&buf);
  pm_profile_free(p);
}

/* The device fields and the CUDA note survive popmeter.json. */
static void test_json_round_trip(void **state) {
  (void)state;
  pm_profile *p = scenario();
  char *s = pm_profile_to_json_string(p);
  assert_non_null(s);
  char err[256];
  pm_profile *q = pm_profile_from_json_string(s, err, sizeof err);
  assert_non_null(q);
  const pm_prof_location *b = loc_named(q, "CUDA device 0 stream 13");
  assert_int_equal(b->dev.stream, 13);
  assert_int_equal(b->dev.copies, 1);
  assert_int_equal(b->dev.bytes, 2000);
  assert_double_equal(b->dev.memcpy_overlapped, 0.1, 1e-12);
  assert_string_equal(q->proc[0].cuda, "measured");
  free(s);
  pm_profile_free(q);
  pm_profile_free(p);
}

/* The table's device section: 3 streams on 2 devices; kernels 500+100+600 = 1.2 s, 4 launches;
 * copies 100+300+50 = 450 ms, 3 of them, 1000+2000+64 = 3064 B, 100 ms overlapped. */
static void test_report_section(void **state) {
  (void)state;
  pm_profile *p = scenario();
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  pm_report_cuda(f, p, 100);
  fclose(f);
  assert_non_null(strstr(out, "CUDA device streams (3 streams on 2 devices counted per process;"));
  assert_non_null(strstr(out, "1.20 s"));
  assert_non_null(strstr(out, " 4 launches"));
  assert_non_null(strstr(out, "450.00 ms"));
  assert_non_null(strstr(out, "3.06 kB"));
  assert_non_null(strstr(out, "100.00 ms of it overlapped by kernels"));
  assert_int_equal(pm_report_cuda_notes(NULL, p), 0); /* "measured": nothing to note */
  free(out);
  pm_profile_free(p);
}

/* profile.cubex with device streams: the project's checker reads it back (CUBE 4.7 for "gpu"
 * locations), with the 4 locations. */
static void test_cube(void **state) {
  (void)state;
  pm_profile *p = scenario();
  const char *tmp = getenv("TMPDIR");
  char dir[512], path[600], err[256];
  snprintf(dir, sizeof dir, "%s/pmcudaXXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/p.cubex", dir);
  assert_int_equal(pm_cube_write(p, NULL, 0, path, 0, err, sizeof err), 0);
  cubex *c = cubex_open(path, err, sizeof err);
  if (!c) fail_msg("%s", err);
  assert_string_equal(cubex_version(c), "4.7");
  assert_int_equal(cubex_nlocations(c), 4);
  cubex_close(c);
  unlink(path);
  rmdir(dir);
  pm_profile_free(p);
}

/* Records arriving while finalizing are clamped to the end of the window: a kernel [950,1200] with
 * the window ending at 1000 counts 50 ms. A record fed after the close is ignored. */
static void test_end_clamp(void **state) {
  (void)state;
  pm_cuda_host_api()->clock_is_host();
  pm_cuda_streams_end_window(T0 + 1000 * MS);
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 3, 950, 1200, 0, "late");
  end_window(1000);
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 3, 960, 990, 0, "after");
  feed(PM_CUDA_ACT_KERNEL, 0, 0, 4, 960, 990, 0, "after");
  pm_profile *p = build(1000);
  assert_int_equal(pm_cuda_streams_count(), 1); /* no stream 4 */
  const pm_prof_location *a = loc_named(p, "CUDA device 0 stream 3");
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.05, 1e-12);
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.95, 1e-12);
  assert_int_equal(a->dev.kernels, 1);
  pm_profile_free(p);
}

/* Work before the window is not part of the run: a kernel [-300,-100] ms creates nothing; a kernel
 * [-100,+50] ms counts its 50 ms inside the window (idle 950). */
static void test_before_window(void **state) {
  (void)state;
  const pm_cuda_host *h = pm_cuda_host_api();
  h->clock_is_host();
  pm_cuda_activity early = {PM_CUDA_ACT_KERNEL, 0, 0, 1, 2, T0 - 300 * MS, T0 - 100 * MS, 0, "early"};
  h->activity(&early);
  assert_int_equal(pm_cuda_streams_count(), 0);
  pm_cuda_activity across = {PM_CUDA_ACT_KERNEL, 0, 0, 1, 2, T0 - 100 * MS, T0 + 50 * MS, 0, "across"};
  h->activity(&across);
  pm_profile *p = finish(1000);
  const pm_prof_location *a = loc_named(p, "CUDA device 0 stream 2");
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.05, 1e-12);
  assert_double_equal(a->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.95, 1e-12);
  pm_profile_free(p);
}

/* Clock map, with hand values. Pairs (cupti, host): (1000, 5000), (2000, 6010), (3000, 7010).
 *   1500 -> 5000 + 500 * 1010/1000 = 5505;  2500 -> 6010 + 500 * 1000/1000 = 6510
 *   500 (before the first pair)  -> 5000 - 500 = 4500;  3500 (after the last) -> 7010 + 500 = 7510
 *   exact pairs map to their host time. A late pair, older on both clocks, (2900, 6900), is ignored.
 *   A pair stepping back on CUPTI's clock only, (2500, 8000), restarts the map: 2600 -> 8100.
 *   Identity: 1234 -> 1234. */
static void test_clock_map(void **state) {
  (void)state;
  pm_cuda_clock c;
  pm_cuda_clock_init(&c);
  assert_int_equal(pm_cuda_clock_to_host(&c, 77), 77); /* no pair yet: unchanged */
  pm_cuda_clock_add(&c, 1000, 5000);
  pm_cuda_clock_add(&c, 2000, 6010);
  pm_cuda_clock_add(&c, 3000, 7010);
  assert_int_equal(pm_cuda_clock_to_host(&c, 1500), 5505);
  assert_int_equal(pm_cuda_clock_to_host(&c, 2500), 6510);
  assert_int_equal(pm_cuda_clock_to_host(&c, 2000), 6010);
  assert_int_equal(pm_cuda_clock_to_host(&c, 500), 4500);
  assert_int_equal(pm_cuda_clock_to_host(&c, 3500), 7510);
  pm_cuda_clock_add(&c, 2900, 6900); /* older on both clocks: a late pair, ignored */
  assert_int_equal(c.n, 3);
  assert_int_equal(pm_cuda_clock_to_host(&c, 2500), 6510);
  pm_cuda_clock_add(&c, 2500, 8000);
  assert_int_equal(c.n, 1);
  assert_int_equal(pm_cuda_clock_to_host(&c, 2600), 8100);
  /* a full ring drops the oldest pair: after 70 pairs (k*1000, k*1000 + 7) for k = 10..79 the
   * first kept is k = 16, so 10000 maps by its offset: 16007 - 6000 = 10007 */
  pm_cuda_clock_init(&c);
  for (uint64_t k = 10; k < 80; k++) pm_cuda_clock_add(&c, k * 1000, k * 1000 + 7);
  assert_int_equal(c.n, PM_CUDA_SYNC_MAX);
  assert_int_equal(c.pt[0].cupti, 16000);
  assert_int_equal(pm_cuda_clock_to_host(&c, 10000), 10007);
  c.identity = 1;
  assert_int_equal(pm_cuda_clock_to_host(&c, 1234), 1234);
}

/* Drift through the live path: the plugin's pairs say CUPTI's clock is 2 s ahead and runs 1 us per
 * second fast: (cupti, host) = (T0 + 2 s, T0), (T0 + 3 s + 1 us, T0 + 1 s). A kernel at CUPTI
 * [T0 + 2 s + 100.0001 ms, T0 + 2 s + 400.0004 ms] is host [100 ms, 400 ms] (x / 1.000001). */
static void test_drift_feed(void **state) {
  (void)state;
  const pm_cuda_host *h = pm_cuda_host_api();
  h->clock_sync(T0 + 2000 * MS, T0);
  h->clock_sync(T0 + 3000 * MS + 1000, T0 + 1000 * MS);
  pm_cuda_activity a = {PM_CUDA_ACT_KERNEL, 0, 0, 1, 5, T0 + 2000 * MS + 100000100, T0 + 2000 * MS + 400000400, 0, "k"};
  h->activity(&a);
  pm_profile *p = finish(1000);
  const pm_prof_location *s = loc_named(p, "CUDA device 0 stream 5");
  assert_double_equal(s->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.3, 1e-12);
  assert_double_equal(s->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.7, 1e-12);
  pm_profile_free(p);
}

/* The host side records nothing while the application paused popmeter. */
static void test_host_paused(void **state) {
  (void)state;
  pm_core_pause();
  assert_int_equal(pm_cuda_host_api()->host_enter(2, "cudaStreamSynchronize"), 0);
  pm_core_resume();
  assert_int_equal(pm_cuda_host_api()->host_enter(PM_CUDA_MAX_CALLS, "out of range"), 0);
}

/* The loader: POPMETER_CUDA=0 leaves no note; otherwise, on a machine without a driver, the note
 * says why. The table prints a note once, with the count when not every process shares it. */
static void test_loader_and_notes(void **state) {
  (void)state;
  pm_cuda_module_reset_for_tests();
  pm_config cfg;
  setenv("POPMETER_CUDA", "0", 1);
  pm_config_load(&cfg, (const char *(*)(const char *))getenv, no_warn);
  pm_cuda_activate(&cfg);
  assert_string_equal(pm_cuda_status(), "");
  /* the default: this test program uses no CUDA, so CUDA is not looked for */
  unsetenv("POPMETER_CUDA");
  pm_config_load(&cfg, (const char *(*)(const char *))getenv, no_warn);
  assert_int_equal(pm_cuda_program_uses_cuda(), 0);
  pm_cuda_activate(&cfg);
  assert_string_equal(pm_cuda_status(), "");
  /* POPMETER_CUDA=1 set explicitly: looked for in any program */
  setenv("POPMETER_CUDA", "1", 1);
  pm_config_load(&cfg, (const char *(*)(const char *))getenv, no_warn);
  unsetenv("POPMETER_CUDA");
  void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) {
    pm_cuda_activate(&cfg);
    assert_string_equal(pm_cuda_status(), "no CUDA device (libcuda.so.1 not found)");
  }
  pm_profile *p = pm_profile_new();
  p->proc = calloc(3, sizeof *p->proc);
  p->nprocesses = 3;
  p->proc[0].rank = 0;
  p->proc[1].rank = 1;
  p->proc[2].rank = 2;
  snprintf(p->proc[0].cuda, sizeof p->proc[0].cuda, "measured");
  snprintf(p->proc[1].cuda, sizeof p->proc[1].cuda, "no CUDA device (x)");
  snprintf(p->proc[2].cuda, sizeof p->proc[2].cuda, "no CUDA device (x)");
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  assert_int_equal(pm_report_cuda_notes(f, p), 1);
  fclose(f);
  assert_string_equal(out, "   - no CUDA device (x) (2 of 3 processes, rank 1 first)\n");
  free(out);
  /* a status that does not name CUDA gets the prefix */
  snprintf(p->proc[0].cuda, sizeof p->proc[0].cuda, "measured; 5 activity records lost");
  f = open_memstream(&out, &n);
  assert_int_equal(pm_report_cuda_notes(f, p), 2);
  fclose(f);
  assert_non_null(strstr(out, "   - CUDA: measured; 5 activity records lost (1 of 3 processes, rank 0 first)\n"));
  free(out);
  pm_profile_free(p);
}

int main(void) {
  pm_module_register(&pm_cuda_module); /* what libpopmeter.so registers (lib/pm_modules.c) */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_stream_times, setup, teardown),
      cmocka_unit_test_setup_teardown(test_regions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_models, setup, teardown),
      cmocka_unit_test_setup_teardown(test_json_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_report_section, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cube, setup, teardown),
      cmocka_unit_test_setup_teardown(test_end_clamp, setup, teardown),
      cmocka_unit_test_setup_teardown(test_before_window, setup, teardown),
      cmocka_unit_test(test_clock_map),
      cmocka_unit_test_setup_teardown(test_drift_feed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_host_paused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loader_and_notes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
