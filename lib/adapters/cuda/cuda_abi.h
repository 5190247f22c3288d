/* The interface between libpopmeter and its CUDA plugin (libpopmeter-cuda.so).
 *
 * libpopmeter has no CUDA dependency: at activation it looks for a CUDA driver and, when one with a
 * device is there, dlopens the plugin, which links libcupti. The plugin cannot reach libpopmeter's
 * hidden core, so each side hands the other a table of functions: libpopmeter gives a pm_cuda_host
 * (clock, device activity, host synchronisation), the plugin returns a pm_cuda_plugin (start,
 * flush, stop) from its one exported symbol, PM_CUDA_PLUGIN_ENTRY. Nothing here uses a CUDA type:
 * the plugin translates CUPTI records into pm_cuda_activity. Both tables carry PM_CUDA_ABI; a
 * plugin from another popmeter version is refused. */
#ifndef PM_CUDA_ABI_H
#define PM_CUDA_ABI_H
#include <stddef.h>
#include <stdint.h>

#define PM_CUDA_ABI 1
#define PM_CUDA_PLUGIN_NAME "libpopmeter-cuda.so"
#define PM_CUDA_PLUGIN_ENTRY "pm_cuda_plugin_entry"

typedef enum { PM_CUDA_ACT_KERNEL = 0, PM_CUDA_ACT_MEMCPY, PM_CUDA_ACT_MEMSET, PM_CUDA_ACT_COUNT } pm_cuda_act_kind;
typedef enum {
  PM_CUDA_COPY_HTOD = 0,
  PM_CUDA_COPY_DTOH,
  PM_CUDA_COPY_DTOD,
  PM_CUDA_COPY_HTOH,
  PM_CUDA_COPY_PTOP,
  PM_CUDA_COPY_OTHER,
  PM_CUDA_COPY_COUNT
} pm_cuda_copy_kind;

/* One operation that ran on a device stream, as CUPTI reported it. */
typedef struct {
  int kind;      /* pm_cuda_act_kind */
  int copy_kind; /* pm_cuda_copy_kind (memcpy only) */
  uint32_t device, context, stream;
  uint64_t start, end; /* CUPTI timestamps, ns (converted to the host clock by libpopmeter) */
  uint64_t bytes;      /* memcpy / memset */
  const char *name;    /* kernel name (CUPTI keeps it alive while the process runs), or NULL */
} pm_cuda_activity;

/* The largest call index the plugin may pass to host_enter (its table of synchronising calls). */
#define PM_CUDA_MAX_CALLS 64

typedef struct pm_cuda_host {
  int abi;
  /* the host clock (CLOCK_MONOTONIC ns, or the tests' virtual clock) */
  uint64_t (*now)(void);
  /* two readings taken back to back: CUPTI's clock and the host clock (libpopmeter's clock map) */
  void (*clock_sync)(uint64_t cupti_ns, uint64_t host_ns);
  /* CUPTI's timestamps are the host clock itself (the plugin registered 'now' as CUPTI's clock) */
  void (*clock_is_host)(void);
  /* a device operation ended (any thread; records of one stream arrive in order) */
  void (*activity)(const pm_cuda_activity *a);
  /* CUPTI dropped n records (its buffers were full) */
  void (*dropped)(uint64_t n);
  /* the calling host thread enters / leaves synchronising CUDA call 'call' (< PM_CUDA_MAX_CALLS),
   * named 'name' (a static string); host_enter returns 1 when it was recorded, and only then must
   * host_exit follow */
  int (*host_enter)(unsigned call, const char *name);
  void (*host_exit)(void);
} pm_cuda_host;

typedef struct pm_cuda_plugin {
  int abi;
  /* Subscribes to CUPTI. 0 when measuring; otherwise -1 and 'why' says what failed (the plugin
   * then holds nothing: every CUPTI subscription it made is undone). */
  int (*start)(const pm_cuda_host *host, char *why, size_t whylen);
  /* Hands every buffered record to host->activity (finalize: before the profile is built). */
  void (*flush)(void);
  /* Stops recording (after flush); later CUDA calls are not seen. */
  void (*stop)(void);
} pm_cuda_plugin;

typedef const pm_cuda_plugin *(*pm_cuda_plugin_entry_fn)(void);
#endif
