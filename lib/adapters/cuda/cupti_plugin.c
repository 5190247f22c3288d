/* libpopmeter-cuda.so: the CUPTI side of the CUDA module, loaded by libpopmeter (cuda_loader.c)
 * only when a CUDA driver with a device is present. It records through two CUPTI interfaces:
 *  - the Activity API: kernels (CONCURRENT_KERNEL), copies (MEMCPY) and memsets (MEMSET), delivered
 *    in buffers on CUPTI's thread and handed to libpopmeter as pm_cuda_activity (cupti_records.c);
 *  - the Callback API, on the synchronising runtime and driver calls (cupti_records.c's table): the
 *    calling thread is in state device for the outermost such call.
 * Timestamps: CUPTI is asked to use libpopmeter's clock (cuptiActivityRegisterTimestampCallback),
 * so device times need no conversion; when that is refused, each completed buffer comes with a pair
 * of back-to-back readings of both clocks, from which libpopmeter maps CUPTI's clock (cuda_clock.c).
 * Exports one symbol, pm_cuda_plugin_entry. */
#include "cupti_records.h"
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))
#define BUFFER_BYTES (8u << 20)

static const pm_cuda_host *host;
static CUpti_SubscriberHandle subscriber;
static int subscribed;
static const struct {
  CUpti_ActivityKind kind;
  const char *name;
} kinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
};
#define NKINDS (sizeof kinds / sizeof *kinds)
static int enabled[NKINDS];

static const char *result_name(CUptiResult r) {
  const char *s = NULL;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
  return s;
}

/* A pair of readings of CUPTI's clock and the host clock, the host one taken around CUPTI's. */
static void clock_pair(void) {
  uint64_t c, h0 = host->now();
  if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) return;
  uint64_t h1 = host->now();
  host->clock_sync(c, h0 + (h1 - h0) / 2);
}

#if CUPTI_API_VERSION >= 130000
static uint64_t CUPTIAPI host_clock(void) { return host->now(); }
#endif

/* ------------------------------------------------------------------------------- activity buffers */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(8, BUFFER_BYTES); /* CUPTI needs 8-byte alignment */
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)size;
  clock_pair(); /* every record here is older than this pair */
  if (buffer && valid > 0) pm_cupti_process_buffer(host, buffer, valid, cuptiActivityGetNextRecord);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) host->dropped(dropped);
  free(buffer);
}

/* ------------------------------------------------------------------------- synchronising calls */
/* Only the outermost call counts: a runtime call runs driver calls that are in the table too. */
static __thread int api_depth, api_recorded;

static void CUPTIAPI api_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data) {
  (void)userdata;
  const CUpti_CallbackData *cb = data;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (api_depth++ == 0) {
      const pm_cupti_sync_call *c = pm_cupti_find_sync_call(domain, cbid);
      api_recorded = c && host->host_enter(c->call, c->name);
    }
  } else if (api_depth > 0 && --api_depth == 0 && api_recorded) {
    api_recorded = 0;
    host->host_exit();
  }
}

/* --------------------------------------------------------------------------------------- control */
static void undo(void) {
  for (unsigned i = 0; i < NKINDS; i++)
    if (enabled[i]) {
      cuptiActivityDisable(kinds[i].kind);
      enabled[i] = 0;
    }
  if (subscribed) {
    cuptiUnsubscribe(subscriber);
    subscribed = 0;
  }
}

static int start(const pm_cuda_host *h, char *why, size_t n) {
  host = h;
  CUptiResult r;
#if CUPTI_API_VERSION >= 130000
  /* before any kind is enabled, so that every record uses it */
  if (cuptiActivityRegisterTimestampCallback(host_clock) == CUPTI_SUCCESS) host->clock_is_host();
#endif
  clock_pair();
  if ((r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS) {
    snprintf(why, n, "cuptiActivityRegisterCallbacks failed: %s", result_name(r));
    return -1;
  }
  for (unsigned i = 0; i < NKINDS; i++) {
    if ((r = cuptiActivityEnable(kinds[i].kind)) != CUPTI_SUCCESS) {
      snprintf(why, n, "cuptiActivityEnable(%s) failed: %s", kinds[i].name, result_name(r));
      undo();
      return -1;
    }
    enabled[i] = 1;
  }
  if ((r = cuptiSubscribe(&subscriber, api_callback, NULL)) != CUPTI_SUCCESS) {
    snprintf(why, n, "cuptiSubscribe failed: %s", result_name(r));
    undo();
    return -1;
  }
  subscribed = 1;
  /* a call the driver does not know (an older driver) is simply not seen */
  for (unsigned i = 0; i < pm_cupti_nsync_calls; i++)
    cuptiEnableCallback(1, subscriber, pm_cupti_sync_calls[i].domain, pm_cupti_sync_calls[i].cbid);
  return 0;
}

static void flush(void) { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }
static void stop(void) { undo(); }

static const pm_cuda_plugin plugin = {PM_CUDA_ABI, start, flush, stop};
EXPORT const pm_cuda_plugin *pm_cuda_plugin_entry(void) { return &plugin; }
