/* The CUDA module inside libpopmeter (no CUDA dependency): the loader (cuda_loader.c), the clock
 * map from CUPTI's clock to the host clock (cuda_clock.c), the device-stream locations fed by the
 * plugin's records (cuda_streams.c) and the host thread's synchronising calls (cuda_host_sync.c).
 * The unit tests drive it without a driver or a plugin: pm_cuda_module_open() is what the loader
 * calls once the plugin measures. */
#ifndef PM_CUDA_MODULE_H
#define PM_CUDA_MODULE_H
#include "cuda_abi.h"
#include "pm_core.h"
struct pm_profile;

/* ------------------------------------------------------------------------------- clock map */
/* CUPTI's timestamps are CLOCK_REALTIME by default; popmeter's are CLOCK_MONOTONIC. The plugin
 * sends a pair of back-to-back readings (cupti, host) when it starts, at every completed buffer and
 * at the end; a timestamp is mapped by linear interpolation between the two pairs around it (offset
 * and drift both corrected), by the offset of the first pair before it, and by the offset of the
 * last pair after it. A pair whose CUPTI reading is not after the previous one starts the map afresh
 * (the real-time clock was stepped back), unless its host reading is not after it either (a pair
 * read earlier on another thread, arriving late: ignored). */
#define PM_CUDA_SYNC_MAX 64
typedef struct {
  uint64_t cupti, host;
} pm_cuda_sync_pt;
typedef struct {
  pm_cuda_sync_pt pt[PM_CUDA_SYNC_MAX]; /* increasing cupti times; the oldest is dropped when full */
  unsigned n;
  int identity; /* CUPTI uses the host clock: no mapping */
} pm_cuda_clock;
PM_HIDDEN void pm_cuda_clock_init(pm_cuda_clock *c);
PM_HIDDEN void pm_cuda_clock_add(pm_cuda_clock *c, uint64_t cupti, uint64_t host);
PM_HIDDEN uint64_t pm_cuda_clock_to_host(const pm_cuda_clock *c, uint64_t cupti);

/* --------------------------------------------------------------------------- device streams */
#define PM_CUDA_MAX_STREAMS 1024
#define PM_CUDA_MAX_DEVICES 64
/* Per device, the kernel and copy intervals kept to compute how much copy time overlapped kernels
 * of other streams; beyond this many of one kind the overlap covers the first ones only. */
#define PM_CUDA_MAX_INTERVALS (1u << 20)

/* Starts accepting records (creates nothing yet: a stream's location appears with its first record). */
PM_HIDDEN void pm_cuda_streams_open(void);
/* One record (any thread). Converted to host time, clamped to the stream's previous record (records
 * of one stream never overlap) and, once closing, to the end of the window. */
PM_HIDDEN void pm_cuda_streams_feed(const pm_cuda_activity *a);
/* Finalize begins: records fed from now on are clamped to t_end (the plugin's last buffers). */
PM_HIDDEN void pm_cuda_streams_end_window(uint64_t t_end);
/* Once the last records were fed: every stream is charged up to t_end, the overlaps are computed,
 * and later records are ignored. */
PM_HIDDEN void pm_cuda_streams_close(uint64_t t_end);
/* Clock-map access for the plugin's readings. */
PM_HIDDEN void pm_cuda_streams_clock_sync(uint64_t cupti, uint64_t host);
PM_HIDDEN void pm_cuda_streams_clock_is_host(void);
PM_HIDDEN void pm_cuda_streams_dropped(uint64_t n);
/* Fills the profile's device fields (pm_prof_location.dev) of this process's stream locations. */
PM_HIDDEN void pm_cuda_streams_to_profile(struct pm_profile *p);
/* Counters for the status note: streams created, records dropped (by CUPTI or for want of room). */
PM_HIDDEN uint32_t pm_cuda_streams_count(void);
PM_HIDDEN uint64_t pm_cuda_streams_dropped_count(void);
PM_HIDDEN uint64_t pm_cuda_streams_overlap_partial(void);
PM_HIDDEN void pm_cuda_streams_reset(void);

/* ------------------------------------------------------------------------ host synchronisation */
PM_HIDDEN int pm_cuda_host_enter(unsigned call, const char *name);
/* 1 when the program uses CUDA: a CUDA library is mapped or the executable has device code. */
PM_HIDDEN int pm_cuda_program_uses_cuda(void);
PM_HIDDEN void pm_cuda_host_exit(void);
PM_HIDDEN void pm_cuda_host_reset(void);

/* -------------------------------------------------------------------------------------- loader */
/* The table given to the plugin (and to the unit tests, which play the plugin). */
PM_HIDDEN const pm_cuda_host *pm_cuda_host_api(void);
/* The module measures from now on (the loader calls it once the plugin started). */
PM_HIDDEN void pm_cuda_module_open(void);
/* What the report says about CUDA in this process: "" when CUDA was not looked for
 * (POPMETER_CUDA=0), "measured", or why nothing was measured ("no CUDA device (...)"). */
PM_HIDDEN const char *pm_cuda_status(void);
PM_HIDDEN void pm_cuda_module_reset_for_tests(void);

/* The module (pm_module.h): activation looks for a driver and loads the plugin; finalize drains
 * the last activity buffers; to_profile writes the status and the device streams' totals. */
#include "pm_config.h"
struct pm_profile;
struct pm_module;
PM_HIDDEN void pm_cuda_activate(const pm_config *cfg);
PM_HIDDEN void pm_cuda_finalize(uint64_t t_end);
PM_HIDDEN int pm_cuda_to_profile(struct pm_profile *p);
PM_HIDDEN extern const struct pm_module pm_cuda_module;
#endif
