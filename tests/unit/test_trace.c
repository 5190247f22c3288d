/* The trace writer (lib/trace) on a virtual clock: regions driven through the core, the archive
 * written at finalize, then read back with OTF2's own reader and compared event by event, with
 * exact timestamps (T0 + the offsets written below). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_trace.h"
#include "pm_module.h"
#include "pm_report.h"

#define T0 1000000000ull
static char dir[512];

/* ------------------------------------------------------------------------------ reading back */
typedef struct {
  char names[256][64];       /* string id -> text */
  uint32_t region_name[256]; /* region id -> string id */
  uint64_t loc[16];
  int nloc;
  char log[1 << 16]; /* the events as text (the first 64 KiB) */
  uint64_t events, flush_regions, buffer_flushes;
} rd;

static void logf_(rd *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t n = strlen(r->log);
  vsnprintf(r->log + n, sizeof r->log - n, fmt, ap);
  va_end(ap);
}
static const char *rname(rd *r, OTF2_RegionRef id) { return id < 256 ? r->names[r->region_name[id] & 255] : "?"; }

static OTF2_CallbackCode g_string(void *u, OTF2_StringRef self, const char *s) {
  rd *r = u;
  if (self < 256) snprintf(r->names[self], sizeof r->names[self], "%s", s);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode g_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef cn,
                                  OTF2_StringRef d, OTF2_RegionRole role, OTF2_Paradigm p, OTF2_RegionFlag f,
                                  OTF2_StringRef file, uint32_t b, uint32_t e) {
  (void)cn;
  (void)d;
  (void)role;
  (void)p;
  (void)f;
  (void)file;
  (void)b;
  (void)e;
  rd *r = u;
  if (self < 256) r->region_name[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode g_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                    uint64_t n, OTF2_LocationGroupRef g) {
  (void)name;
  (void)t;
  (void)n;
  (void)g;
  rd *r = u;
  if (r->nloc < 16) r->loc[r->nloc++] = self;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef reg) {
  (void)l;
  (void)a;
  rd *r = u;
  r->events++;
  r->flush_regions += !strcmp(rname(r, reg), "popmeter:flush");
  logf_(r, "E %s %llu\n", rname(r, reg), (unsigned long long)(t - T0));
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef reg) {
  (void)l;
  (void)a;
  rd *r = u;
  r->events++;
  logf_(r, "L %s %llu\n", rname(r, reg), (unsigned long long)(t - T0));
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty, const OTF2_MetricValue *v) {
  (void)l;
  (void)a;
  (void)m;
  (void)n;
  (void)ty;
  rd *r = u;
  r->events++;
  logf_(r, "M %llu %llu\n", (unsigned long long)(t - T0), (unsigned long long)v[0].unsigned_int);
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode e_flush(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_TimeStamp stop) {
  (void)l;
  (void)t;
  (void)a;
  (void)stop;
  rd *r = u;
  r->events++;
  r->buffer_flushes++;
  logf_(r, "F\n");
  return OTF2_CALLBACK_SUCCESS;
}

/* Reads the archive of dir into r (events of every location, merged in time order). */
static int read_archive(rd *r) {
  memset(r, 0, sizeof *r);
  char path[600];
  snprintf(path, sizeof path, "%s/traces.otf2", dir);
  OTF2_Reader *rdr = OTF2_Reader_Open(path);
  if (!rdr) return -1;
  OTF2_Reader_SetSerialCollectiveCallbacks(rdr);
  OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rdr);
  OTF2_GlobalDefReaderCallbacks *gc = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(gc, g_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gc, g_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gc, g_location);
  OTF2_Reader_RegisterGlobalDefCallbacks(rdr, gd, gc, r);
  OTF2_GlobalDefReaderCallbacks_Delete(gc);
  uint64_t n = 0;
  OTF2_Reader_ReadAllGlobalDefinitions(rdr, gd, &n);
  OTF2_Reader_CloseGlobalDefReader(rdr, gd);
  for (int i = 0; i < r->nloc; i++) OTF2_Reader_SelectLocation(rdr, r->loc[i]);
  OTF2_Reader_OpenDefFiles(rdr);
  OTF2_Reader_OpenEvtFiles(rdr);
  for (int i = 0; i < r->nloc; i++) {
    OTF2_DefReader *d = OTF2_Reader_GetDefReader(rdr, r->loc[i]);
    if (d) {
      OTF2_Reader_ReadAllLocalDefinitions(rdr, d, &n);
      OTF2_Reader_CloseDefReader(rdr, d);
    }
    OTF2_Reader_GetEvtReader(rdr, r->loc[i]);
  }
  OTF2_Reader_CloseDefFiles(rdr);
  OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(rdr);
  OTF2_GlobalEvtReaderCallbacks *ec = OTF2_GlobalEvtReaderCallbacks_New();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ec, e_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ec, e_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ec, e_metric);
  OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(ec, e_flush);
  OTF2_Reader_RegisterGlobalEvtCallbacks(rdr, ge, ec, r);
  OTF2_GlobalEvtReaderCallbacks_Delete(ec);
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(rdr, ge, &n);
  OTF2_Reader_CloseGlobalEvtReader(rdr, ge);
  OTF2_Reader_CloseEvtFiles(rdr);
  OTF2_Reader_Close(rdr);
  return rc == OTF2_SUCCESS ? 0 : -1;
}

/* ------------------------------------------------------------------------------------ helpers */
static int setup(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_trace_reset_for_tests();
  static int k;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/test_trace.%ld.%d", tmp && tmp[0] ? tmp : "/tmp", (long)getpid(), k++);
  setenv("POPMETER_OUTPUT", dir, 1);
  setenv("POPMETER_REPORT", "0", 1);
  setenv("POPMETER_CUBE", "0", 1);
  setenv("POPMETER_TRACE", "1", 1);
  unsetenv("POPMETER_TRACE_FILTER");
  unsetenv("POPMETER_TRACE_BUFFER");
  pm_clock_use_virtual(T0);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  pm_core_reset_for_tests();
  pm_trace_reset_for_tests();
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return -1;
  return 0;
}

static pm_region_id R(const char *name) { return pm_region_register(name, PM_PARADIGM_USER, PM_ROLE_FUNCTION); }
static void at(uint64_t t) {
  uint64_t now = pm_clock_now();
  if (T0 + t > now) pm_clock_advance(T0 + t - now);
}
static void enter(pm_loc *L, const char *name, uint64_t t) {
  at(t);
  pm_region_enter(L, R(name), pm_clock_now());
}
static void leave(pm_loc *L, uint64_t t) {
  at(t);
  pm_region_exit(L, pm_clock_now());
}
static void finish(uint64_t t) {
  at(t);
  pm_core_finalize(&pm_ipc_serial, NULL);
}

/* ------------------------------------------------------------------------------------- tests */
/* Nesting and an exclusion pattern: "skip*" is neither entered nor left, its child B appears
 * directly inside A. The useful-time metric closes the location at the end (t = 30: the whole
 * window [0, 30] was useful). */
static void test_exclusion_keeps_nesting(void **state) {
  (void)state;
  setenv("POPMETER_TRACE_FILTER", "skip*", 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  enter(L, "A", 10);
  enter(L, "skip_x", 12);
  enter(L, "B", 13);
  leave(L, 15);
  leave(L, 16);
  leave(L, 20);
  finish(30);
  rd r;
  assert_int_equal(read_archive(&r), 0);
  assert_string_equal(r.log, "E A 10\nE B 13\nL B 15\nL A 20\nM 30 30\n");
}

/* Minimum duration 5 us (5000 ns): A [0, 10000] is kept; its child "tiny" [100, 200] is dropped,
 * "long" [1000, 8000] kept; S [20000, 21000] and its child [20100, 20200] are both dropped; X
 * [22000, 40000] holds only a short child: X kept, the child not. */
static void test_minimum_duration(void **state) {
  (void)state;
  setenv("POPMETER_TRACE_FILTER", " min=5 ", 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  enter(L, "A", 0);
  enter(L, "tiny", 100);
  leave(L, 200);
  enter(L, "long", 1000);
  leave(L, 8000);
  leave(L, 10000);
  enter(L, "S", 20000);
  enter(L, "tiny", 20100);
  leave(L, 20200);
  leave(L, 21000);
  enter(L, "X", 22000);
  enter(L, "tiny", 23000);
  leave(L, 23500);
  leave(L, 40000);
  finish(50000);
  rd r;
  assert_int_equal(read_archive(&r), 0);
  assert_string_equal(r.log, "E A 0\nE long 1000\nL long 8000\nL A 10000\nE X 22000\nL X 40000\nM 50000 50000\n");
  assert_int_equal(pm_tr.stats.dropped_short, 4); /* tiny x3 and S */
}

/* Regions still open at the end are left at the end time, innermost first. */
static void test_open_regions_closed_at_end(void **state) {
  (void)state;
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  enter(L, "outer", 5);
  enter(L, "inner", 7);
  finish(11);
  rd r;
  assert_int_equal(read_archive(&r), 0);
  assert_string_equal(r.log, "E outer 5\nE inner 7\nL inner 11\nL outer 11\nM 11 11\n");
}

/* A bad item of POPMETER_TRACE_FILTER is ignored, the others apply. */
static void test_bad_filter_item(void **state) {
  (void)state;
  setenv("POPMETER_TRACE_FILTER", "min=abc,B", 1);
  assert_int_equal(pm_core_activate(), 1);
  assert_int_equal(pm_tr.filter.min_ns, 0);
  assert_int_equal(pm_tr.filter.npat, 1);
  pm_loc *L = pm_loc_self();
  enter(L, "A", 1);
  enter(L, "B", 2);
  leave(L, 3);
  leave(L, 4);
  finish(5);
  rd r;
  assert_int_equal(read_archive(&r), 0);
  assert_string_equal(r.log, "E A 1\nL A 4\nM 5 5\n");
}

/* A 1 MiB buffer (4 chunks of 256 KiB) and 300000 regions: the buffer is flushed during the run;
 * every flush becomes a "popmeter:flush" region accounted as popmeter's own time, and the trace
 * stays consistent: 600000 enter/leave pairs' events + flush regions + BufferFlush records. */
static void test_flush_when_buffer_full(void **state) {
  (void)state;
  setenv("POPMETER_TRACE_BUFFER", "1", 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  pm_region_id a = R("a");
  for (int i = 0; i < 300000; i++) {
    pm_clock_advance(1);
    pm_region_enter(L, a, pm_clock_now());
    pm_clock_advance(1);
    pm_region_exit(L, pm_clock_now());
  }
  uint64_t flushes = pm_tr.stats.flushes;
  assert_true(flushes >= 2);
  /* memory stays within the budget however long the run: 4 chunks of 256 KiB */
  assert_int_equal(pm_tarchive_memory_peak(), 1 << 20);
  /* the flush regions went through the core: the call path main/popmeter:flush has that many visits */
  uint64_t visits = 0;
  for (uint32_t i = 0; i < pm_loc_node_count(L); i++)
    if (pm_loc_node(L, i)->region == pm_tr.flush_region) visits += pm_loc_node(L, i)->visits;
  assert_int_equal(visits, flushes);
  finish(700000);
  rd r;
  assert_int_equal(read_archive(&r), 0);
  assert_int_equal(r.flush_regions, flushes);
  assert_int_equal(r.buffer_flushes, flushes); /* OTF2's BufferFlush record, one per flush */
  /* 600000 region events + 2 per flush region + 1 BufferFlush each + metric samples (every 10 ms of
   * virtual time: at t = 10000000? never here, the run is 0.7 ms) + the final sample */
  assert_int_equal(r.events, 600000 + 3 * flushes + 1);
}

/* POPMETER_TRACE=0: no observer, no directory: nothing at all. */
static void test_off_costs_nothing(void **state) {
  (void)state;
  setenv("POPMETER_TRACE", "0", 1);
  assert_int_equal(pm_core_activate(), 1);
  pm_loc *L = pm_loc_self();
  assert_int_equal(L->nobs, 0);
  assert_int_equal(pm_tr_state(), PM_TR_OFF);
  finish(10);
  char path[600];
  snprintf(path, sizeof path, "%s/traces.otf2", dir);
  assert_int_equal(access(path, F_OK), -1);
}

int main(void) {
  pm_module_register(&pm_trace_module);  /* what libpopmeter.so registers (lib/pm_modules.c) */
  pm_module_register(&pm_output_module); /* places the archive into the output directory */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_exclusion_keeps_nesting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_minimum_duration, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_regions_closed_at_end, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_filter_item, setup, teardown),
      cmocka_unit_test_setup_teardown(test_flush_when_buffer_full, setup, teardown),
      cmocka_unit_test_setup_teardown(test_off_costs_nothing, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
