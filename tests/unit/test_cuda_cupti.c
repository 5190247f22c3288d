/* The plugin's record path with real CUPTI record structs (the version cupti_records.h picks for
 * this toolkit: CUpti_ActivityKernel10 / Memcpy6 / Memset4 in CUDA 13), on a machine without a
 * driver: a buffer laid out as CUPTI lays it out goes through pm_cupti_process_buffer, with this
 * test's record iterator in place of cuptiActivityGetNextRecord, into libpopmeter's side of the
 * module, and on to the profile and the §5 models. Expected values are derived by hand below. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_assert.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "cupti_records.c" /* the plugin's decoding, compiled into the test */
#include "cuda_module.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_profile.h"
#include "pm_profile_input.h"
#include "popmetrics.h"

#define T0 1000000000ull
#define MS 1000000ull
#define C0 (5000 * MS) /* CUPTI's clock at host T0 (its real-time clock is elsewhere) */

static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_cuda_module_reset_for_tests();
  setenv("POPMETER_REPORT", "0", 1);
  pm_clock_use_virtual(T0);
  assert_int_equal(pm_core_activate(), 1);
  pm_cuda_module_open();
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_cuda_module_reset_for_tests();
  pm_core_reset_for_tests();
  return 0;
}

/* ------------------------------------------------------------------ a buffer as CUPTI fills it */
static uint8_t buffer[4096] __attribute__((aligned(8)));
static size_t used;

static size_t record_size(CUpti_ActivityKind k) {
  switch (k) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(pm_cupti_kernel);
  case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(pm_cupti_memcpy);
  case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(pm_cupti_memset);
  case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
  default: return 0;
  }
}
static void put(const void *rec, size_t size) {
  assert_true(used + size <= sizeof buffer);
  memcpy(buffer + used, rec, size);
  used += (size + 7) & ~(size_t)7; /* records are 8-byte aligned */
}
/* cuptiActivityGetNextRecord's contract: *rec NULL starts, MAX_LIMIT_REACHED ends */
static CUptiResult next_record(uint8_t *buf, size_t valid, CUpti_Activity **rec) {
  size_t off = 0;
  if (*rec) {
    CUpti_ActivityKind kind;
    memcpy(&kind, *rec, sizeof kind);
    off = (size_t)((uint8_t *)*rec - buf) + ((record_size(kind) + 7) & ~(size_t)7);
  }
  if (off >= valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *rec = (CUpti_Activity *)(buf + off);
  return CUPTI_SUCCESS;
}

/* CUPTI times for host ms m: its clock is C0 ahead at T0 and runs 1 us per second fast, so host
 * T0 + m ms reads C0 + m ms + m ns on CUPTI's clock (1 us / 1000 ms = 1 ns per ms). */
static uint64_t cupti_at(uint64_t m) { return C0 + m * MS + m; }

static void kernel(uint32_t dev, uint32_t stream, uint64_t s, uint64_t e, const char *name) {
  pm_cupti_kernel k;
  memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.deviceId = dev;
  k.contextId = 1;
  k.streamId = stream;
  k.start = s;
  k.end = e;
  k.name = name;
  put(&k, sizeof k);
}

/* The scenario (host ms after T0; window [0,1000]):
 *   device 0 stream 7: kernel vecadd [100,400], memcpy DtoH 4096 B [400,500]
 *   device 0 stream 9: memset 256 B [200,300] (under the kernel of stream 7: overlapped 100)
 * plus two records the module must skip: a runtime API record and a kernel without timestamps.
 * Stream 7: useful 300, device 100, idle 600.  Stream 9: device 100, idle 900, overlapped 100.
 * §5, G = 2: kernel 300, 0; kernel + non-overlapped copy 400, 0.
 *   Device PE = 300 / (1000*2) = 0.15;  LB = 300 / (2*300) = 0.5;  CommE = 300/400 = 0.75;
 *   Orch = 400/1000 = 0.4  (0.5 * 0.75 * 0.4 = 0.15). */
static const char *const MANGLED = "_Z6vecaddPfPKfi";
static pm_profile *scenario(size_t *handed) {
  const pm_cuda_host *h = pm_cuda_host_api();
  /* the plugin's clock pairs: at start and at the buffer's completion (1 s later) */
  h->clock_sync(cupti_at(0), T0);
  h->clock_sync(cupti_at(1000), T0 + 1000 * MS);
  used = 0;
  kernel(0, 7, cupti_at(100), cupti_at(400), MANGLED);
  CUpti_ActivityAPI api;
  memset(&api, 0, sizeof api);
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.start = cupti_at(10);
  api.end = cupti_at(20);
  put(&api, sizeof api);
  pm_cupti_memcpy m;
  memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.bytes = 4096;
  m.deviceId = 0;
  m.contextId = 1;
  m.streamId = 7;
  m.start = cupti_at(400);
  m.end = cupti_at(500);
  put(&m, sizeof m);
  kernel(0, 7, 0, 0, MANGLED); /* not timed: skipped */
  pm_cupti_memset z;
  memset(&z, 0, sizeof z);
  z.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  z.bytes = 256;
  z.deviceId = 0;
  z.contextId = 1;
  z.streamId = 9;
  z.start = cupti_at(200);
  z.end = cupti_at(300);
  put(&z, sizeof z);
  *handed = pm_cupti_process_buffer(h, buffer, used, next_record);
  uint64_t t_end = T0 + 1000 * MS;
  pm_clock_advance(t_end - pm_clock_now());
  for (uint32_t i = 0; i < pm_loc_count(); i++) pm_loc_flush(pm_loc_at(i), t_end);
  pm_cuda_finalize(t_end);
  pm_profile *p = pm_profile_build_process(pm_core_window_start(), t_end);
  assert_non_null(p);
  pm_profile_finish(p);
  return p;
}

static const pm_prof_location *loc_named(const pm_profile *p, const char *name) {
  for (int i = 0; i < p->nlocations; i++)
    if (!strcmp(p->loc[i].name, name)) return &p->loc[i];
  fail_msg("no location named %s", name);
  return NULL;
}

static void test_decode(void **state) {
  (void)state;
  pm_cuda_activity a;
  pm_cupti_memcpy m;
  memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.bytes = 12;
  m.deviceId = 3;
  m.contextId = 4;
  m.streamId = 5;
  m.start = 100;
  m.end = 90;
  assert_int_equal(pm_cupti_decode((CUpti_Activity *)&m, &a), 1);
  assert_int_equal(a.kind, PM_CUDA_ACT_MEMCPY);
  assert_int_equal(a.copy_kind, PM_CUDA_COPY_PTOP);
  assert_int_equal(a.device, 3);
  assert_int_equal(a.context, 4);
  assert_int_equal(a.stream, 5);
  assert_int_equal(a.bytes, 12);
  assert_int_equal(a.start, 100);
  assert_int_equal(a.end, 100); /* an end before the start is clamped */
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;
  assert_int_equal(pm_cupti_decode((CUpti_Activity *)&m, &a), 1);
  assert_int_equal(a.copy_kind, PM_CUDA_COPY_HTOD);
  CUpti_ActivityAPI api;
  memset(&api, 0, sizeof api);
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  api.start = 1;
  api.end = 2;
  assert_int_equal(pm_cupti_decode((CUpti_Activity *)&api, &a), 0);
}

static void test_sync_calls(void **state) {
  (void)state;
  const pm_cupti_sync_call *c =
      pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
  assert_non_null(c);
  assert_string_equal(c->name, "cudaDeviceSynchronize");
  const pm_cupti_sync_call *a =
      pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  const pm_cupti_sync_call *b =
      pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a->call, b->call); /* per-thread default stream variant: same region */
  assert_string_equal(b->name, "cudaMemcpy");
  assert_non_null(pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize));
  assert_null(pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020));
  /* same cbid number, other domain: not a match */
  assert_null(
      pm_cupti_find_sync_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
  for (unsigned i = 0; i < pm_cupti_nsync_calls; i++) assert_true(pm_cupti_sync_calls[i].call < PM_CUDA_MAX_CALLS);
}

static void test_buffer_to_profile(void **state) {
  (void)state;
  size_t handed = 0;
  pm_profile *p = scenario(&handed);
  assert_int_equal(handed, 3); /* kernel, memcpy, memset */
  assert_int_equal(p->nlocations, 3);
  const pm_prof_location *s7 = loc_named(p, "CUDA device 0 stream 7");
  const pm_prof_location *s9 = loc_named(p, "CUDA device 0 stream 9");
  const double e = 1e-12;
  assert_double_equal(s7->time[PM_CTX_SERIAL][PM_STATE_USEFUL], 0.3, e);
  assert_double_equal(s7->time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.1, e);
  assert_double_equal(s7->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.6, e);
  assert_double_equal(s9->time[PM_CTX_SERIAL][PM_STATE_DEVICE], 0.1, e);
  assert_double_equal(s9->time[PM_CTX_SERIAL][PM_STATE_IDLE], 0.9, e);
  assert_double_equal(s9->dev.memcpy_overlapped, 0.1, e);
  assert_int_equal(s7->dev.kernels, 1);
  assert_int_equal(s7->dev.bytes, 4096);
  assert_int_equal(s9->dev.bytes, 256);
  /* the kernel's region: demangled when libstdc++ is in the process (a CUDA program always has it) */
  const char *want = dlsym(RTLD_DEFAULT, "__cxa_demangle") ? "vecadd(float*, float const*, int)" : MANGLED;
  int found = 0;
  for (int r = 0; r < p->nregions; r++)
    found += !strcmp(p->reg[r].name, want) && p->reg[r].paradigm == PM_PARADIGM_CUDA;
  assert_int_equal(found, 1);
  pm_profile_free(p);
}

static void test_buffer_models(void **state) {
  (void)state;
  size_t handed;
  pm_profile *p = scenario(&handed);
  pm_run_input_buf buf;
  assert_int_equal(pm_profile_to_input(p, 0, &buf), 0);
  pm_metric *t = pm_model_talp(&buf.in);
  assert_non_null(t);
  double v;
  assert_true(pm_metric_get_path(t, "device_pe", &v));
  assert_double_equal(v, 0.15, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_lb", &v));
  assert_double_equal(v, 0.5, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_comme", &v));
  assert_double_equal(v, 0.75, 1e-9);
  assert_true(pm_metric_get_path(t, "device_pe/dev_orch", &v));
  assert_double_equal(v, 0.4, 1e-9);
  pm_metric_free(t);
  pm_run_input_buf_free(&buf);
  pm_profile_free(p);
}

int main(void) {
  pm_module_register(&pm_cuda_module); /* what libpopmeter.so registers (lib/pm_modules.c) */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode),
      cmocka_unit_test(test_sync_calls),
      cmocka_unit_test_setup_teardown(test_buffer_to_profile, setup, teardown),
      cmocka_unit_test_setup_teardown(test_buffer_models, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
