#define _GNU_SOURCE
/* Device streams as locations. Each (device, context, stream) gets a virtual location (role device)
 * when its first record arrives: useful while a kernel runs, device while a copy or memset runs,
 * idle otherwise. No thread owns these locations: records arrive on CUPTI's buffer thread (or on the
 * thread that flushes), so each stream is fed under its own lock; a table lock covers the lookup,
 * the clock map and the region caches. Records of one stream arrive in order; streams interleave
 * in any order.
 *
 * The finalize-time flush of every location happens before the plugin's last buffers are drained
 * (pm_module.h), and would charge a stream's idle state up to the end of the window before its
 * last kernels are known. So stream locations are marked closed from the start (the core's flush
 * skips closed locations) and this module charges them itself, up to t_end, in
 * pm_cuda_streams_close. */
#include "cuda_module.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t device, context, stream;
  pm_loc *L;
  pthread_mutex_t lock;
  uint64_t last_end; /* end of the stream's last record (host ns) */
  uint64_t kernels, copies, bytes;
  uint64_t overlapped; /* copy time during which another stream's kernel ran (ns) */
} cuda_stream;

typedef struct {
  uint64_t s, e;
} ival;
typedef struct {
  uint64_t s, e;
  uint32_t stream;
} copy_ival;
typedef struct {
  pthread_mutex_t lock;
  ival *k;
  size_t nk, capk;
  copy_ival *c;
  size_t nc, capc;
  int partial; /* some intervals were not kept: overlap is a lower bound */
} device_ivals;

#define STREAM_SLOTS (2 * PM_CUDA_MAX_STREAMS)
#define NAME_SLOTS 4096

enum { CLOSED = 0, OPEN = 1 };
static struct {
  pthread_mutex_t lock;
  int state;
  int end_set;
  uint64_t t_end;
  pm_cuda_clock clock;
  cuda_stream streams[PM_CUDA_MAX_STREAMS];
  uint32_t nstreams;
  uint16_t slot[STREAM_SLOTS]; /* stream index + 1; 0 = empty */
  struct {
    const char *name;
    pm_region_id id;
  } names[NAME_SLOTS]; /* kernel name -> region */
  pm_region_id copy_region[PM_CUDA_COPY_COUNT], memset_region, kernel_fallback;
  uint64_t dropped;
  device_ivals dev[PM_CUDA_MAX_DEVICES];
  uint64_t partial_devices; /* devices whose overlap is a lower bound */
  int big_device_seen;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ------------------------------------------------------------------------------------- regions */
static const char *const copy_names[PM_CUDA_COPY_COUNT] = {
    [PM_CUDA_COPY_HTOD] = "memcpy HtoD", [PM_CUDA_COPY_DTOH] = "memcpy DtoH", [PM_CUDA_COPY_DTOD] = "memcpy DtoD",
    [PM_CUDA_COPY_HTOH] = "memcpy HtoH", [PM_CUDA_COPY_PTOP] = "memcpy PtoP", [PM_CUDA_COPY_OTHER] = "memcpy"};

static pm_region_id region_or(pm_region_id r, pm_region_id fallback) { return r == PM_REGION_NONE ? fallback : r; }

/* C++ kernel names are mangled; libstdc++ (always there in a CUDA program) demangles them. */
static pm_region_id kernel_region_register(const char *name) {
  static char *(*demangle)(const char *, char *, size_t *, int *);
  static int looked;
  if (!looked) {
    looked = 1;
    *(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
  }
  pm_region_id r = PM_REGION_NONE;
  if (demangle && name[0] == '_' && name[1] == 'Z') {
    int status = -1;
    char *d = demangle(name, NULL, NULL, &status);
    if (d && status == 0) r = pm_region_register(d, PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
    free(d);
  }
  if (r == PM_REGION_NONE) r = pm_region_register(name, PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
  return region_or(r, S.kernel_fallback);
}

/* Called with S.lock held. CUPTI shares one name string among the records of a kernel, so the
 * pointer is the key (a different pointer to the same name only costs a second lookup). */
static pm_region_id kernel_region(const char *name) {
  if (!name || !name[0]) return S.kernel_fallback;
  uint64_t h = ((uint64_t)(uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 52;
  for (unsigned i = 0; i < NAME_SLOTS; i++) {
    unsigned j = (unsigned)(h + i) & (NAME_SLOTS - 1);
    if (S.names[j].name == name) return S.names[j].id;
    if (!S.names[j].name) {
      S.names[j].name = name;
      return S.names[j].id = kernel_region_register(name);
    }
  }
  return kernel_region_register(name); /* cache full */
}

/* ------------------------------------------------------------------------------------- streams */
/* Called with S.lock held: the stream of a record, created with its location on first use. */
static cuda_stream *stream_of(uint32_t device, uint32_t context, uint32_t stream) {
  uint64_t key = ((uint64_t)device << 40) ^ ((uint64_t)context << 20) ^ stream;
  unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 40);
  for (unsigned i = 0; i < STREAM_SLOTS; i++) {
    unsigned j = (h + i) & (STREAM_SLOTS - 1);
    if (S.slot[j]) {
      cuda_stream *st = &S.streams[S.slot[j] - 1];
      if (st->device == device && st->context == context && st->stream == stream) return st;
      continue;
    }
    if (S.nstreams >= PM_CUDA_MAX_STREAMS) return NULL;
    char name[48];
    int clash = 0; /* same stream id in another context */
    for (uint32_t k = 0; k < S.nstreams; k++) clash |= S.streams[k].device == device && S.streams[k].stream == stream;
    if (clash)
      snprintf(name, sizeof name, "CUDA device %u stream %u ctx %u", device, stream, context);
    else
      snprintf(name, sizeof name, "CUDA device %u stream %u", device, stream);
    pm_loc *L = pm_loc_create_virtual(PM_ROLE_DEVICE, name);
    if (!L) return NULL;
    L->closed = 1; /* charged by this module only (see top) */
    uint64_t now = pm_clock_now(), t0 = pm_core_window_start();
    if (t0 == 0 || t0 > now) t0 = now;          /* no window yet (still activating) */
    pm_loc_backdate(L, t0, PM_STATE_IDLE, now); /* the stream existed, idle, since the window opened */
    cuda_stream *st = &S.streams[S.nstreams];
    memset(st, 0, sizeof *st);
    st->device = device;
    st->context = context;
    st->stream = stream;
    st->L = L;
    pthread_mutex_init(&st->lock, NULL);
    S.slot[j] = (uint16_t)(++S.nstreams);
    return st;
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------ overlap */
static int cmp_ival(const void *a, const void *b) {
  uint64_t x = ((const ival *)a)->s, y = ((const ival *)b)->s;
  return (x > y) - (x < y);
}
static int cmp_copy(const void *a, const void *b) {
  uint64_t x = ((const copy_ival *)a)->s, y = ((const copy_ival *)b)->s;
  return (x > y) - (x < y);
}

/* Sorts the kernel intervals and merges them into their union (in place). */
static void kernels_union(device_ivals *d) {
  if (d->nk == 0) return;
  qsort(d->k, d->nk, sizeof *d->k, cmp_ival);
  size_t n = 0;
  for (size_t i = 1; i < d->nk; i++) {
    if (d->k[i].s <= d->k[n].e) {
      if (d->k[i].e > d->k[n].e) d->k[n].e = d->k[i].e;
    } else
      d->k[++n] = d->k[i];
  }
  d->nk = n + 1;
}

static int grow(void **arr, size_t *cap, size_t elem) {
  size_t ncap = *cap ? *cap * 2 : 1024;
  if (ncap > PM_CUDA_MAX_INTERVALS) ncap = PM_CUDA_MAX_INTERVALS;
  if (ncap <= *cap) return -1;
  void *p = realloc(*arr, ncap * elem);
  if (!p) return -1;
  *arr = p;
  *cap = ncap;
  return 0;
}

static void device_keep(uint32_t device, int kernel, uint64_t s, uint64_t e, uint32_t stream) {
  if (e <= s) return;
  if (device >= PM_CUDA_MAX_DEVICES) { /* no overlap kept for it: counted once */
    if (!__atomic_exchange_n(&S.big_device_seen, 1, __ATOMIC_RELAXED))
      __atomic_add_fetch(&S.partial_devices, 1, __ATOMIC_RELAXED);
    return;
  }
  device_ivals *d = &S.dev[device];
  pthread_mutex_lock(&d->lock);
  if (!d->partial) {
    if (kernel) {
      if (d->nk == d->capk && grow((void **)&d->k, &d->capk, sizeof *d->k) != 0) {
        kernels_union(d); /* back-to-back kernels merge */
        if (d->nk > d->capk / 2) d->partial = 1;
      }
      if (!d->partial) d->k[d->nk++] = (ival){s, e};
    } else {
      if (d->nc == d->capc && grow((void **)&d->c, &d->capc, sizeof *d->c) != 0)
        d->partial = 1;
      else
        d->c[d->nc++] = (copy_ival){s, e, stream};
    }
    if (d->partial) __atomic_add_fetch(&S.partial_devices, 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&d->lock);
}

/* Adds to each copy's stream the part of the copy covered by the union of the device's kernels. */
static void device_overlap(device_ivals *d) {
  kernels_union(d);
  if (d->nc == 0 || d->nk == 0) return;
  qsort(d->c, d->nc, sizeof *d->c, cmp_copy);
  size_t j = 0;
  for (size_t i = 0; i < d->nc; i++) {
    const copy_ival *c = &d->c[i];
    while (j < d->nk && d->k[j].e <= c->s) j++; /* later copies start later: skip for good */
    uint64_t ov = 0;
    for (size_t m = j; m < d->nk && d->k[m].s < c->e; m++) {
      uint64_t s = c->s > d->k[m].s ? c->s : d->k[m].s, e = c->e < d->k[m].e ? c->e : d->k[m].e;
      if (e > s) ov += e - s;
    }
    if (c->stream < S.nstreams) S.streams[c->stream].overlapped += ov;
  }
}

/* ---------------------------------------------------------------------------------------- feed */
void pm_cuda_streams_open(void) {
  pthread_mutex_lock(&S.lock);
  pm_cuda_clock_init(&S.clock);
  for (int k = 0; k < PM_CUDA_COPY_COUNT; k++)
    S.copy_region[k] = pm_region_register(copy_names[k], PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
  S.memset_region = pm_region_register("memset", PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
  S.kernel_fallback = pm_region_register("CUDA kernel", PM_PARADIGM_CUDA, PM_ROLE_FUNCTION);
  for (int d = 0; d < PM_CUDA_MAX_DEVICES; d++) pthread_mutex_init(&S.dev[d].lock, NULL);
  __atomic_store_n(&S.state, OPEN, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&S.lock);
}

void pm_cuda_streams_clock_sync(uint64_t cupti, uint64_t host) {
  pthread_mutex_lock(&S.lock);
  pm_cuda_clock_add(&S.clock, cupti, host);
  pthread_mutex_unlock(&S.lock);
}
void pm_cuda_streams_clock_is_host(void) {
  pthread_mutex_lock(&S.lock);
  S.clock.identity = 1;
  pthread_mutex_unlock(&S.lock);
}
void pm_cuda_streams_dropped(uint64_t n) { __atomic_add_fetch(&S.dropped, n, __ATOMIC_RELAXED); }

void pm_cuda_streams_feed(const pm_cuda_activity *a) {
  if (__atomic_load_n(&S.state, __ATOMIC_ACQUIRE) != OPEN || a->kind < 0 || a->kind >= PM_CUDA_ACT_COUNT) return;
  pthread_mutex_lock(&S.lock);
  if (S.state != OPEN) {
    pthread_mutex_unlock(&S.lock);
    return;
  }
  uint64_t s = pm_cuda_clock_to_host(&S.clock, a->start), e = pm_cuda_clock_to_host(&S.clock, a->end);
  if (S.end_set) { /* finalizing: nothing beyond the window */
    if (s > S.t_end) s = S.t_end;
    if (e > S.t_end) e = S.t_end;
  }
  /* Work done before the window (an MPI program's window opens when MPI_Init returns) is not part
   * of the run. A record fed while the core restarts the window (pm_loc_restart, once, when MPI_Init
   * returns) may still leave a few nanoseconds of it on its stream: that restart takes no lock. */
  uint64_t w0 = pm_core_window_start();
  if (e <= w0) {
    pthread_mutex_unlock(&S.lock);
    return;
  }
  if (s < w0) s = w0;
  cuda_stream *st = stream_of(a->device, a->context, a->stream);
  pm_region_id r =
      a->kind == PM_CUDA_ACT_KERNEL ? kernel_region(a->name)
      : a->kind == PM_CUDA_ACT_MEMSET
          ? region_or(S.memset_region, S.kernel_fallback)
          : region_or(S.copy_region[(unsigned)a->copy_kind < PM_CUDA_COPY_COUNT ? a->copy_kind : PM_CUDA_COPY_OTHER],
                      S.kernel_fallback);
  pthread_mutex_unlock(&S.lock);
  if (!st) {
    pm_cuda_streams_dropped(1);
    return;
  }
  pthread_mutex_lock(&st->lock);
  if (s < st->last_end) s = st->last_end; /* one stream runs one thing at a time */
  if (e < s) e = s;
  pm_call_enter(st->L, r, a->kind == PM_CUDA_ACT_KERNEL ? PM_STATE_USEFUL : PM_STATE_DEVICE, s);
  pm_call_exit(st->L, e);
  st->last_end = e;
  if (a->kind == PM_CUDA_ACT_KERNEL)
    st->kernels++;
  else {
    st->copies++;
    st->bytes += a->bytes;
  }
  uint32_t index = (uint32_t)(st - S.streams);
  pthread_mutex_unlock(&st->lock);
  device_keep(a->device, a->kind == PM_CUDA_ACT_KERNEL, s, e, index);
}

void pm_cuda_streams_end_window(uint64_t t_end) {
  pthread_mutex_lock(&S.lock);
  S.end_set = 1;
  S.t_end = t_end;
  pthread_mutex_unlock(&S.lock);
}

void pm_cuda_streams_close(uint64_t t_end) {
  pthread_mutex_lock(&S.lock);
  int was_open = S.state == OPEN;
  __atomic_store_n(&S.state, CLOSED, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&S.lock);
  if (!was_open) return;
  for (uint32_t i = 0; i < S.nstreams; i++) {
    cuda_stream *st = &S.streams[i];
    pthread_mutex_lock(&st->lock);
    pm_state_set(st->L, PM_STATE_IDLE, t_end); /* idle since its last record */
    pthread_mutex_unlock(&st->lock);
  }
  for (int d = 0; d < PM_CUDA_MAX_DEVICES; d++) {
    pthread_mutex_lock(&S.dev[d].lock);
    device_overlap(&S.dev[d]);
    pthread_mutex_unlock(&S.dev[d].lock);
  }
}

/* ------------------------------------------------------------------------------------- profile */
void pm_cuda_streams_to_profile(pm_profile *p) {
  for (uint32_t i = 0; i < S.nstreams; i++) {
    const cuda_stream *st = &S.streams[i];
    for (int j = 0; j < p->nlocations; j++) {
      pm_prof_location *l = &p->loc[j];
      if (l->role != PM_ROLE_DEVICE || strcmp(l->name, st->L->name) != 0) continue;
      l->dev = (pm_prof_device){(int)st->device, (int)st->stream, st->kernels,
                                st->copies,      st->bytes,       (double)st->overlapped * 1e-9};
      break;
    }
  }
}

uint32_t pm_cuda_streams_count(void) { return S.nstreams; }
uint64_t pm_cuda_streams_dropped_count(void) { return __atomic_load_n(&S.dropped, __ATOMIC_RELAXED); }
uint64_t pm_cuda_streams_overlap_partial(void) { return __atomic_load_n(&S.partial_devices, __ATOMIC_RELAXED); }

void pm_cuda_streams_reset(void) {
  pthread_mutex_lock(&S.lock);
  S.state = CLOSED;
  S.end_set = 0;
  S.t_end = 0;
  for (uint32_t i = 0; i < S.nstreams; i++) pthread_mutex_destroy(&S.streams[i].lock);
  S.nstreams = 0;
  memset(S.slot, 0, sizeof S.slot);
  memset(S.names, 0, sizeof S.names);
  for (int d = 0; d < PM_CUDA_MAX_DEVICES; d++) {
    free(S.dev[d].k);
    free(S.dev[d].c);
    memset(&S.dev[d], 0, sizeof S.dev[d]);
  }
  S.dropped = 0;
  S.partial_devices = 0;
  S.big_device_seen = 0;
  pm_cuda_clock_init(&S.clock);
  pthread_mutex_unlock(&S.lock);
}
