/* The OTF2 archive of a run: <stage>/traces.otf2 (anchor), traces.def (global definitions) and
 * traces/<location>.{evt,def}, in a staging directory until the report places it in the output
 * directory (trace_main.c).
 *
 * Memory: event chunks come from one pool per process bounded by POPMETER_TRACE_BUFFER. When the
 * pool is empty, the location that needs a chunk flushes its own buffer to disk (OTF2 calls the
 * pre/post flush callbacks around it) and reuses its chunks: memory does not grow with the length
 * of the run. A buffer always gets its first chunk, so the bound is max(budget, locations x chunk).
 * The pool is one reserved mapping, touched chunk by chunk as the trace grows, and marked for
 * transparent huge pages: the first touch of fresh memory costs a page fault per 4 KiB page, which
 * on virtual machines is tens of microseconds, paid on the application's threads.
 *
 * Collectives: an MPI run creates the archive collectively over popmeter's private communicator,
 * through OTF2 collective callbacks built on the pm_ipc gather/bcast/barrier (lib/core/pm_ipc.h);
 * a program without MPI uses OTF2's serial callbacks. */
#define _GNU_SOURCE
#include "pm_trace.h"
#include "pm_text.h"
#include "pm_lifecycle.h"
#include <otf2/OTF2_Pthread_Locks.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------------ memory pool */
typedef struct {
  void **chunk;
  uint32_t n, cap;
} bufmem; /* OTF2's perBufferData */

static struct {
  pthread_mutex_t lock;
  uint64_t chunk;    /* event chunk size */
  size_t max_chunks; /* budget / chunk */
  size_t nalloc, nfree, free_cap;
  void **free;
  size_t peak; /* most event-chunk bytes allocated at once */
  char *arena; /* the reserved mapping the chunks are carved from (NULL: malloc) */
  size_t arena_len, arena_used;
  void *map;
  size_t map_len;
} pool = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, 0, NULL, 0};

#define HUGE_PAGE ((size_t)2 << 20)
static void arena_reserve(size_t len) {
  size_t maplen = len + HUGE_PAGE;
  void *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return; /* malloc then */
  char *a = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
#ifdef MADV_HUGEPAGE
  madvise(a, len, MADV_HUGEPAGE); /* a hint: without huge pages, 4 KiB pages */
#endif
  pool.map = m;
  pool.map_len = maplen;
  pool.arena = a;
  pool.arena_len = len;
  pool.arena_used = 0;
}
static int in_arena(const void *p) {
  return pool.arena && (const char *)p >= pool.arena && (const char *)p < pool.arena + pool.arena_len;
}

static void *m_allocate(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, uint64_t size) {
  (void)ud;
  (void)loc;
  bufmem *b = *pbd;
  if (!b && !(b = *pbd = calloc(1, sizeof *b))) return NULL;
  if (b->n == b->cap) {
    uint32_t ncap = b->cap ? 2 * b->cap : 8;
    void **n = realloc(b->chunk, ncap * sizeof *n);
    if (!n) return NULL;
    b->chunk = n;
    b->cap = ncap;
  }
  void *p = NULL;
  if (ft == OTF2_FILETYPE_EVENTS && size == pool.chunk) {
    pthread_mutex_lock(&pool.lock);
    if (pool.nfree) {
      p = pool.free[--pool.nfree];
    } else if (pool.nalloc < pool.max_chunks || b->n == 0) {
      if (pool.arena && pool.arena_used + size <= pool.arena_len) {
        p = pool.arena + pool.arena_used;
        pool.arena_used += size;
      } else {
        p = malloc(size);
      }
      if (p) {
        pool.nalloc++;
        if (pool.nalloc * size > pool.peak) pool.peak = pool.nalloc * size;
      }
    }
    pthread_mutex_unlock(&pool.lock);
  } else {
    p = malloc(size); /* definitions, at finalize */
  }
  if (p) b->chunk[b->n++] = p;
  return p; /* NULL: OTF2 flushes this buffer and asks again */
}

static void m_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, bool final) {
  (void)ud;
  (void)loc;
  bufmem *b = *pbd;
  if (!b) return;
  pthread_mutex_lock(&pool.lock);
  for (uint32_t i = 0; i < b->n; i++) {
    if (ft == OTF2_FILETYPE_EVENTS && pool.chunk) {
      if (pool.nfree == pool.free_cap) {
        size_t ncap = pool.free_cap ? 2 * pool.free_cap : 64;
        void **n = realloc(pool.free, ncap * sizeof *n);
        if (!n) {
          if (!in_arena(b->chunk[i])) {
            free(b->chunk[i]);
            pool.nalloc--;
          }
          continue; /* (an arena chunk is lost to the pool: never happens) */
        }
        pool.free = n;
        pool.free_cap = ncap;
      }
      pool.free[pool.nfree++] = b->chunk[i];
    } else {
      free(b->chunk[i]);
    }
  }
  pthread_mutex_unlock(&pool.lock);
  b->n = 0;
  if (final) {
    free(b->chunk);
    free(b);
    *pbd = NULL;
  }
}

/* After the archive is closed: every chunk is back in the pool. */
static void pool_release(void) {
  pthread_mutex_lock(&pool.lock);
  for (size_t i = 0; i < pool.nfree; i++)
    if (!in_arena(pool.free[i])) free(pool.free[i]);
  pool.nalloc -= pool.nfree;
  pool.nfree = 0;
  free(pool.free);
  pool.free = NULL;
  pool.free_cap = 0;
  if (pool.map && pool.nalloc == 0) {
    munmap(pool.map, pool.map_len);
    pool.map = NULL;
    pool.arena = NULL;
  }
  pthread_mutex_unlock(&pool.lock);
}

size_t pm_tarchive_memory_peak(void) { return pool.peak; }

static const OTF2_MemoryCallbacks memory_callbacks = {m_allocate, m_free_all};

/* ---------------------------------------------------------------------------------- flushes */
static __thread pm_tloc *tls_flushing;

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *caller, bool final) {
  (void)ud;
  (void)loc;
  tls_flushing = NULL;
  if (ft == OTF2_FILETYPE_EVENTS && !final && caller) {
    void *T = NULL;
    if (OTF2_EvtWriter_GetUserData(caller, &T) == OTF2_SUCCESS && T) {
      tls_flushing = T;
      pm_tloc_flush_started(T, pm_clock_now());
    }
  }
  return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc) {
  (void)ud;
  (void)ft;
  (void)loc;
  uint64_t now = pm_clock_now();
  pm_tloc *T = tls_flushing;
  tls_flushing = NULL;
  if (T) {
    __atomic_add_fetch(&pm_tr.stats.flushes, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pm_tr.stats.flush_ns, now - T->flush_t0, __ATOMIC_RELAXED);
    pm_tloc_flush_done(T, now);
  }
  return pm_tr_time(now);
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* ------------------------------------------------------------------------ collectives (ipc) */
static pm_ipc coll_ipc;

static size_t type_size(OTF2_Type t) {
  switch (t) {
  case OTF2_TYPE_UINT8:
  case OTF2_TYPE_INT8: return 1;
  case OTF2_TYPE_UINT16:
  case OTF2_TYPE_INT16: return 2;
  case OTF2_TYPE_UINT32:
  case OTF2_TYPE_INT32:
  case OTF2_TYPE_FLOAT: return 4;
  case OTF2_TYPE_UINT64:
  case OTF2_TYPE_INT64:
  case OTF2_TYPE_DOUBLE: return 8;
  default: return 0;
  }
}
#define CB_OK(x) ((x) == 0 ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR)

static OTF2_CallbackCode c_size(void *ud, OTF2_CollectiveContext *cc, uint32_t *size) {
  (void)ud;
  (void)cc;
  *size = (uint32_t)coll_ipc.size;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode c_rank(void *ud, OTF2_CollectiveContext *cc, uint32_t *rank) {
  (void)ud;
  (void)cc;
  *rank = (uint32_t)coll_ipc.rank;
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode c_barrier(void *ud, OTF2_CollectiveContext *cc) {
  (void)ud;
  (void)cc;
  return CB_OK(coll_ipc.barrier(&coll_ipc));
}
static OTF2_CallbackCode c_bcast(void *ud, OTF2_CollectiveContext *cc, void *data, uint32_t n, OTF2_Type t,
                                 uint32_t root) {
  (void)ud;
  (void)cc;
  size_t sz = type_size(t);
  if (!sz) return OTF2_CALLBACK_ERROR;
  return CB_OK(coll_ipc.bcast(&coll_ipc, data, n * sz, (int)root));
}
/* gather and gatherv: the ipc gathers to rank 0 only (OTF2 always uses its root 0) */
static OTF2_CallbackCode gather_bytes(const void *in, size_t inlen, void *out, const uint32_t *counts, uint32_t n,
                                      size_t sz, uint32_t root) {
  if (root != 0) return OTF2_CALLBACK_ERROR;
  char **parts = NULL;
  if (coll_ipc.gather(&coll_ipc, in, inlen, &parts) != 0) return OTF2_CALLBACK_ERROR;
  if (coll_ipc.rank == 0) {
    char *o = out;
    for (int i = 0; i < coll_ipc.size; i++) {
      size_t len = (counts ? counts[i] : n) * sz;
      if (parts[i]) memcpy(o, parts[i], len);
      o += len;
      free(parts[i]);
    }
    free(parts);
  }
  return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode c_gather(void *ud, OTF2_CollectiveContext *cc, const void *in, void *out, uint32_t n,
                                  OTF2_Type t, uint32_t root) {
  (void)ud;
  (void)cc;
  size_t sz = type_size(t);
  return sz ? gather_bytes(in, n * sz, out, NULL, n, sz, root) : OTF2_CALLBACK_ERROR;
}
static OTF2_CallbackCode c_gatherv(void *ud, OTF2_CollectiveContext *cc, const void *in, uint32_t inn, void *out,
                                   const uint32_t *outn, OTF2_Type t, uint32_t root) {
  (void)ud;
  (void)cc;
  size_t sz = type_size(t);
  return sz ? gather_bytes(in, inn * sz, out, outn, 0, sz, root) : OTF2_CALLBACK_ERROR;
}
/* scatter(v): the root broadcasts the whole array (these are never on a hot path) */
static OTF2_CallbackCode scatter_bytes(const void *in, const uint32_t *counts, uint32_t n, void *out, size_t sz,
                                       uint32_t root) {
  int P = coll_ipc.size, me = coll_ipc.rank;
  uint32_t *cnt = calloc((size_t)P, sizeof *cnt);
  if (!cnt) return OTF2_CALLBACK_ERROR;
  for (int i = 0; i < P; i++) cnt[i] = counts && me == (int)root ? counts[i] : n;
  OTF2_CallbackCode rc = OTF2_CALLBACK_ERROR;
  if (!counts || coll_ipc.bcast(&coll_ipc, cnt, (size_t)P * sizeof *cnt, (int)root) == 0) {
    size_t total = 0, off = 0;
    for (int i = 0; i < P; i++) {
      if (i == me) off = total;
      total += cnt[i] * sz;
    }
    char *all = me == (int)root ? (char *)(uintptr_t)in : malloc(total ? total : 1);
    if (all && coll_ipc.bcast(&coll_ipc, all, total, (int)root) == 0) {
      memcpy(out, all + off, cnt[me] * sz);
      rc = OTF2_CALLBACK_SUCCESS;
    }
    if (me != (int)root) free(all);
  }
  free(cnt);
  return rc;
}
static OTF2_CallbackCode c_scatter(void *ud, OTF2_CollectiveContext *cc, const void *in, void *out, uint32_t n,
                                   OTF2_Type t, uint32_t root) {
  (void)ud;
  (void)cc;
  size_t sz = type_size(t);
  return sz ? scatter_bytes(in, NULL, n, out, sz, root) : OTF2_CALLBACK_ERROR;
}
static OTF2_CallbackCode c_scatterv(void *ud, OTF2_CollectiveContext *cc, const void *in, const uint32_t *inn,
                                    void *out, uint32_t outn, OTF2_Type t, uint32_t root) {
  (void)ud;
  (void)cc;
  size_t sz = type_size(t);
  return sz ? scatter_bytes(in, inn, outn, out, sz, root) : OTF2_CALLBACK_ERROR;
}

static const OTF2_CollectiveCallbacks collective_callbacks = {.otf2_release = NULL,
                                                              .otf2_get_size = c_size,
                                                              .otf2_get_rank = c_rank,
                                                              .otf2_create_local_comm = NULL,
                                                              .otf2_free_local_comm = NULL,
                                                              .otf2_barrier = c_barrier,
                                                              .otf2_bcast = c_bcast,
                                                              .otf2_gather = c_gather,
                                                              .otf2_gatherv = c_gatherv,
                                                              .otf2_scatter = c_scatter,
                                                              .otf2_scatterv = c_scatterv};

/* ------------------------------------------------------------------------------------ archive */
static uint64_t chunk_size_for(size_t budget) {
  uint64_t c = budget / 16;
  if (c > 1024 * 1024) c = 1024 * 1024;
  if (c < OTF2_CHUNK_SIZE_MIN) c = OTF2_CHUNK_SIZE_MIN;
  return c;
}
#define DEF_CHUNK (4 * 1024 * 1024)

static OTF2_Archive *archive_new(const char *dir, const pm_ipc *ipc) {
  OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, pool.chunk, DEF_CHUNK, OTF2_SUBSTRATE_POSIX,
                                      OTF2_COMPRESSION_NONE);
  if (!a) return NULL;
  OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
  if (rc == OTF2_SUCCESS) rc = OTF2_Archive_SetMemoryCallbacks(a, &memory_callbacks, NULL);
  if (rc == OTF2_SUCCESS) rc = OTF2_Pthread_Archive_SetLockingCallbacks(a, NULL);
  if (rc == OTF2_SUCCESS)
    rc = ipc ? OTF2_Archive_SetCollectiveCallbacks(a, &collective_callbacks, NULL, NULL, NULL)
             : OTF2_Archive_SetSerialCollectiveCallbacks(a);
  if (rc == OTF2_SUCCESS) {
    char raw[256] = "", host[256], app[256]; /* both are byte strings: clean text (pm_text.h) */
    gethostname(raw, sizeof raw - 1);
    pm_text_clean(host, sizeof host, raw);
    pm_text_clean(app, sizeof app, program_invocation_short_name);
    OTF2_Archive_SetMachineName(a, host);
    OTF2_Archive_SetCreator(a, "popmeter " PACKAGE_VERSION);
    OTF2_Archive_SetDescription(a, app);
  }
  if (rc != OTF2_SUCCESS) {
    OTF2_Archive_Close(a);
    return NULL;
  }
  return a;
}

int pm_tarchive_open(const pm_ipc *ipc, char *err, size_t errlen) {
  pm_loc *self = pm_loc_self();
  pm_tr.first_loc = self ? pm_loc_id(self) : UINT32_MAX;
  pool.chunk = chunk_size_for(pm_tr.budget);
  pool.max_chunks = pm_tr.budget / pool.chunk;
  if (!pool.arena) arena_reserve(pool.max_chunks * pool.chunk);
  if (ipc) coll_ipc = *ipc;
  OTF2_Archive *a = archive_new(pm_tr.stage, ipc);
  int ok = a != NULL;
  if (ipc) { /* everyone must have succeeded, or nobody traces */
    char **parts = NULL;
    char mine[2] = {ok ? '1' : '0', 0};
    if (coll_ipc.gather(&coll_ipc, mine, 1, &parts) != 0) ok = 0;
    int all = ok;
    if (coll_ipc.rank == 0 && parts) {
      for (int i = 0; i < coll_ipc.size; i++) {
        if (!parts[i] || parts[i][0] != '1') all = 0;
        free(parts[i]);
      }
      free(parts);
    }
    if (coll_ipc.bcast(&coll_ipc, &all, sizeof all, 0) != 0) all = 0;
    if (!all && a) {
      snprintf(err, errlen, "some process could not create its part of the archive in %s", pm_tr.stage);
      return -1; /* the half-made archive is left alone: closing it could touch the shared files */
    }
    ok = all;
  }
  if (!ok || OTF2_Archive_OpenEvtFiles(a) != OTF2_SUCCESS) {
    snprintf(err, errlen, "cannot create the OTF2 archive in %s", pm_tr.stage);
    return -1;
  }
  pm_tr.archive = a;
  return 0;
}

/* Score-P's numbering: the thread that opened the archive (MPI_Init's) is location `rank`, the
 * others (k << 32) | rank. Readers that fall back to "location id = rank" (ViTE) then find the
 * rank's MPI thread of a classic MPI program. */
uint64_t pm_tarchive_location_id(uint32_t loc_id) {
  uint64_t k = loc_id == pm_tr.first_loc ? 0 : (uint64_t)(loc_id + 1) & 0xffffffffu; /* loc_id < 4096 */
  return k << 32 | (uint32_t)pm_tr.rank;
}

OTF2_EvtWriter *pm_tarchive_writer(pm_tloc *T) {
  T->ref = pm_tarchive_location_id(pm_loc_id(T->L));
  pthread_mutex_lock(&pm_tr.lock);
  OTF2_EvtWriter *w = pm_tr.archive ? OTF2_Archive_GetEvtWriter(pm_tr.archive, T->ref) : NULL;
  pthread_mutex_unlock(&pm_tr.lock);
  if (w) OTF2_EvtWriter_SetUserData(w, T);
  return w;
}

void pm_tarchive_close_events(void) {
  pthread_mutex_lock(&pm_tr.lock);
  OTF2_Archive_CloseEvtFiles(pm_tr.archive);
  pthread_mutex_unlock(&pm_tr.lock);
}

static uint64_t event_bytes(const char *dir) {
  uint64_t b = 0;
  for (uint32_t i = 0, n = pm_tloc_count_all(); i < n; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (!T || T->failed) continue;
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/traces/%llu.evt", dir, (unsigned long long)T->ref);
    if (stat(p, &st) == 0) b += (uint64_t)st.st_size;
  }
  return b;
}

/* Writes the definitions through archive a: from every process (gathered over ipc) or alone. */
static int write_definitions(OTF2_Archive *a, const pm_ipc *ipc) {
  char *mine = pm_tdefs_local();
  char **parts = NULL;
  int n = 1, ok = mine != NULL;
  if (ipc) {
    if (ipc->gather(ipc, mine ? mine : "", mine ? strlen(mine) : 0, &parts) != 0) ok = 0;
    n = ipc->size;
  } else if (mine) {
    parts = &mine;
  }
  int rc = 0;
  if (OTF2_Archive_OpenDefFiles(a) != OTF2_SUCCESS) rc = -1;
  if ((!ipc || ipc->rank == 0) && rc == 0) rc = ok ? pm_tdefs_write(a, parts, n) : -1;
  if (OTF2_Archive_CloseDefFiles(a) != OTF2_SUCCESS) rc = -1;
  if (ipc && parts) {
    for (int i = 0; i < n; i++) free(parts[i]);
    free(parts);
  }
  free(mine);
  return rc;
}

int pm_tarchive_finish(const pm_ipc *ipc) {
  OTF2_Archive *a = pm_tr.archive;
  pm_tr.stats.bytes = event_bytes(pm_tr.stage);
  if (ipc) coll_ipc = *ipc;
  int rc = write_definitions(a, ipc);
  if (OTF2_Archive_Close(a) != OTF2_SUCCESS) rc = -1;
  pm_tr.archive = NULL;
  pool_release();
  return rc;
}

int pm_tarchive_finish_alone(void) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%s.rank%d", pm_tr.stage, pm_tr.rank);
  pm_tr.stats.bytes = event_bytes(pm_tr.stage);
  OTF2_Archive *b = archive_new(dir, NULL);
  if (!b) return -1;
  /* the other processes appear without events (their definitions are placeholders, so that the
   * communicators stay valid): empty event files for their main locations */
  int rc = OTF2_Archive_OpenEvtFiles(b) == OTF2_SUCCESS ? 0 : -1;
  for (int r = 0; !rc && r < pm_tr.nprocs; r++) {
    if (r == pm_tr.rank) continue;
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(b, (uint64_t)r); /* its MPI thread's id (trace_defs.c) */
    if (!w || OTF2_Archive_CloseEvtWriter(b, w) != OTF2_SUCCESS) rc = -1;
  }
  if (OTF2_Archive_CloseEvtFiles(b) != OTF2_SUCCESS) rc = -1;
  if (write_definitions(b, NULL) != 0) rc = -1;
  if (OTF2_Archive_Close(b) != OTF2_SUCCESS) rc = -1;
  /* this process's event files join its own archive */
  for (uint32_t i = 0, n = pm_tloc_count_all(); i < n; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (!T || T->failed) continue;
    char from[4300], to[4300];
    snprintf(from, sizeof from, "%s/traces/%llu.evt", pm_tr.stage, (unsigned long long)T->ref);
    snprintf(to, sizeof to, "%s/traces/%llu.evt", dir, (unsigned long long)T->ref);
    if (rename(from, to) != 0 && errno != ENOENT) rc = -1;
  }
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/traces", pm_tr.stage);
  rmdir(sub); /* the last process out removes the shared directory */
  rmdir(pm_tr.stage);
  if (strlen(dir) < sizeof pm_tr.stage) memcpy(pm_tr.stage, dir, strlen(dir) + 1);
  pm_tr.archive = NULL; /* the shared archive handle is abandoned: the process is exiting */
  pool_release();
  return rc;
}
