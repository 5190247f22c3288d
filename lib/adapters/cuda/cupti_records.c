/* CUPTI records -> pm_cuda_activity (see cupti_records.h). */
#include "cupti_records.h"
#include <stddef.h>
#include <string.h>

/* The fields read below sit at these offsets in every record version from CUDA 11.2 to 13.0; a
 * header that moved one must fail here rather than be misread at run time. */
_Static_assert(offsetof(pm_cupti_kernel, start) == 16 && offsetof(pm_cupti_kernel, end) == 24 &&
                   offsetof(pm_cupti_kernel, deviceId) == 40 && offsetof(pm_cupti_kernel, contextId) == 44 &&
                   offsetof(pm_cupti_kernel, streamId) == 48 && offsetof(pm_cupti_kernel, name) == 104,
               "kernel record layout changed");
_Static_assert(offsetof(pm_cupti_memcpy, copyKind) == 4 && offsetof(pm_cupti_memcpy, bytes) == 8 &&
                   offsetof(pm_cupti_memcpy, start) == 16 && offsetof(pm_cupti_memcpy, end) == 24 &&
                   offsetof(pm_cupti_memcpy, deviceId) == 32 && offsetof(pm_cupti_memcpy, contextId) == 36 &&
                   offsetof(pm_cupti_memcpy, streamId) == 40,
               "memcpy record layout changed");
_Static_assert(offsetof(pm_cupti_memset, bytes) == 8 && offsetof(pm_cupti_memset, start) == 16 &&
                   offsetof(pm_cupti_memset, end) == 24 && offsetof(pm_cupti_memset, deviceId) == 32 &&
                   offsetof(pm_cupti_memset, contextId) == 36 && offsetof(pm_cupti_memset, streamId) == 40,
               "memset record layout changed");

static int copy_kind(uint8_t k) {
  switch (k) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return PM_CUDA_COPY_HTOD;
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return PM_CUDA_COPY_DTOH;
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
  case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return PM_CUDA_COPY_DTOD;
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return PM_CUDA_COPY_HTOH;
  case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return PM_CUDA_COPY_PTOP;
  default: return PM_CUDA_COPY_OTHER;
  }
}

/* Records are read through copies: a buffer holds records of several types, and reading one
 * through a pointer of another type is undefined behaviour the optimiser does exploit. */
int pm_cupti_decode(const CUpti_Activity *rec, pm_cuda_activity *a) {
  CUpti_ActivityKind kind;
  memcpy(&kind, rec, sizeof kind);
  *a = (pm_cuda_activity){0};
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    pm_cupti_kernel k;
    memcpy(&k, rec, sizeof k);
    *a = (pm_cuda_activity){PM_CUDA_ACT_KERNEL, 0, k.deviceId, k.contextId, k.streamId, k.start, k.end, 0, k.name};
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    pm_cupti_memcpy m;
    memcpy(&m, rec, sizeof m);
    *a = (pm_cuda_activity){
        PM_CUDA_ACT_MEMCPY, copy_kind(m.copyKind), m.deviceId, m.contextId, m.streamId, m.start, m.end, m.bytes, NULL};
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    pm_cupti_memset m;
    memcpy(&m, rec, sizeof m);
    *a = (pm_cuda_activity){PM_CUDA_ACT_MEMSET, 0, m.deviceId, m.contextId, m.streamId, m.start, m.end, m.bytes, NULL};
    break;
  }
  default: return 0;
  }
  if (a->start == 0 && a->end == 0) return 0; /* CUPTI could not time it */
  if (a->end < a->start) a->end = a->start;
  return 1;
}

size_t pm_cupti_process_buffer(const pm_cuda_host *host, uint8_t *buffer, size_t valid, pm_cupti_next_fn next) {
  CUpti_Activity *rec = NULL;
  size_t n = 0;
  pm_cuda_activity a;
  while (next(buffer, valid, &rec) == CUPTI_SUCCESS && rec) {
    if (!pm_cupti_decode(rec, &a)) continue;
    host->activity(&a);
    n++;
  }
  return n;
}

/* --------------------------------------------------------------------------- synchronising calls */
#define RT(cb, call, name) \
  { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##cb, call, name }
#define DRV(cb, call, name) \
  { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##cb, call, name }
const pm_cupti_sync_call pm_cupti_sync_calls[] = {
    RT(cudaDeviceSynchronize_v3020, 0, "cudaDeviceSynchronize"),
    RT(cudaThreadSynchronize_v3020, 1, "cudaThreadSynchronize"),
    RT(cudaStreamSynchronize_v3020, 2, "cudaStreamSynchronize"),
    RT(cudaStreamSynchronize_ptsz_v7000, 2, "cudaStreamSynchronize"),
    RT(cudaEventSynchronize_v3020, 3, "cudaEventSynchronize"),
    RT(cudaMemcpy_v3020, 4, "cudaMemcpy"),
    RT(cudaMemcpy_ptds_v7000, 4, "cudaMemcpy"),
    RT(cudaMemcpy2D_v3020, 5, "cudaMemcpy2D"),
    RT(cudaMemcpy2D_ptds_v7000, 5, "cudaMemcpy2D"),
    RT(cudaMemcpy3D_v3020, 6, "cudaMemcpy3D"),
    RT(cudaMemcpy3D_ptds_v7000, 6, "cudaMemcpy3D"),
    RT(cudaMemcpyPeer_v4000, 7, "cudaMemcpyPeer"),
    RT(cudaMemcpyToSymbol_v3020, 8, "cudaMemcpyToSymbol"),
    RT(cudaMemcpyToSymbol_ptds_v7000, 8, "cudaMemcpyToSymbol"),
    RT(cudaMemcpyFromSymbol_v3020, 9, "cudaMemcpyFromSymbol"),
    RT(cudaMemcpyFromSymbol_ptds_v7000, 9, "cudaMemcpyFromSymbol"),
    RT(cudaMemcpyToArray_v3020, 10, "cudaMemcpyToArray"),
    RT(cudaMemcpyFromArray_v3020, 11, "cudaMemcpyFromArray"),
    RT(cudaMemcpy2DFromArray_v3020, 12, "cudaMemcpy2DFromArray"),
    RT(cudaFree_v3020, 13, "cudaFree"), /* waits for the device to be idle */
    DRV(cuCtxSynchronize, 20, "cuCtxSynchronize"),
#if CUPTI_API_VERSION >= 130000
    DRV(cuCtxSynchronize_v2, 20, "cuCtxSynchronize"),
#endif
    DRV(cuStreamSynchronize, 21, "cuStreamSynchronize"),
    DRV(cuStreamSynchronize_ptsz, 21, "cuStreamSynchronize"),
    DRV(cuEventSynchronize, 22, "cuEventSynchronize"),
    DRV(cuMemcpy, 23, "cuMemcpy"),
    DRV(cuMemcpy_ptds, 23, "cuMemcpy"),
    DRV(cuMemcpyHtoD_v2, 24, "cuMemcpyHtoD"),
    DRV(cuMemcpyHtoD_v2_ptds, 24, "cuMemcpyHtoD"),
    DRV(cuMemcpyDtoH_v2, 25, "cuMemcpyDtoH"),
    DRV(cuMemcpyDtoH_v2_ptds, 25, "cuMemcpyDtoH"),
    DRV(cuMemcpyDtoD_v2, 26, "cuMemcpyDtoD"),
    DRV(cuMemcpyDtoD_v2_ptds, 26, "cuMemcpyDtoD"),
    DRV(cuMemcpy2D_v2, 27, "cuMemcpy2D"),
    DRV(cuMemcpy3D_v2, 28, "cuMemcpy3D"),
    DRV(cuMemcpyPeer, 29, "cuMemcpyPeer"),
};
const unsigned pm_cupti_nsync_calls = sizeof pm_cupti_sync_calls / sizeof *pm_cupti_sync_calls;
_Static_assert(30 <= PM_CUDA_MAX_CALLS, "call indices must stay below PM_CUDA_MAX_CALLS");

const pm_cupti_sync_call *pm_cupti_find_sync_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  for (unsigned i = 0; i < pm_cupti_nsync_calls; i++)
    if (pm_cupti_sync_calls[i].domain == domain && pm_cupti_sync_calls[i].cbid == cbid) return &pm_cupti_sync_calls[i];
  return NULL;
}
