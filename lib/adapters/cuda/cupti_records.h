/* CUPTI records -> pm_cuda_activity, and the table of synchronising CUDA calls. No libcupti call
 * here (only its headers): the unit tests feed records built from the real structs through
 * pm_cupti_process_buffer with their own record iterator, on a machine without a driver.
 *
 * Record structs are versioned (CUpti_ActivityKernel10 in CUDA 13). libcupti writes records of its
 * own version, and the plugin is linked with the libcupti of the headers it was compiled with, so
 * the struct is picked by CUPTI_API_VERSION. Every version keeps the fields read here at the same
 * offsets (they only append fields); the static assertions in cupti_records.c hold that. */
#ifndef PM_CUPTI_RECORDS_H
#define PM_CUPTI_RECORDS_H
#include <cupti.h>
#include "cuda_abi.h"

#if CUPTI_API_VERSION >= 130000 /* CUDA 13.x (the 13.0 structs stay in later headers) */
typedef CUpti_ActivityKernel10 pm_cupti_kernel;
typedef CUpti_ActivityMemcpy6 pm_cupti_memcpy;
typedef CUpti_ActivityMemset4 pm_cupti_memset;
#elif CUPTI_API_VERSION >= 26 /* CUDA 12.8, 12.9 */
typedef CUpti_ActivityKernel9 pm_cupti_kernel;
typedef CUpti_ActivityMemcpy6 pm_cupti_memcpy;
typedef CUpti_ActivityMemset4 pm_cupti_memset;
#elif CUPTI_API_VERSION >= 17 /* CUDA 11.6 .. 12.6 */
typedef CUpti_ActivityKernel5 pm_cupti_kernel;
typedef CUpti_ActivityMemcpy5 pm_cupti_memcpy;
typedef CUpti_ActivityMemset4 pm_cupti_memset;
#else
#error "the CUDA plugin needs CUPTI from CUDA 11.6 or newer"
#endif

/* Fills 'a' from a kernel, memcpy or memset record; 0 for any other record, or one without
 * timestamps. */
int pm_cupti_decode(const CUpti_Activity *rec, pm_cuda_activity *a);

/* Walks a completed buffer with 'next' (cuptiActivityGetNextRecord, or a test's iterator) and hands
 * every decoded record to host->activity. Returns how many were handed over. */
typedef CUptiResult (*pm_cupti_next_fn)(uint8_t *buffer, size_t valid, CUpti_Activity **rec);
size_t pm_cupti_process_buffer(const pm_cuda_host *host, uint8_t *buffer, size_t valid, pm_cupti_next_fn next);

/* The synchronising calls whose duration puts the calling thread in state device. */
typedef struct {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  unsigned call;    /* index passed to host_enter (variants of one call share it) */
  const char *name; /* region name */
} pm_cupti_sync_call;
extern const pm_cupti_sync_call pm_cupti_sync_calls[];
extern const unsigned pm_cupti_nsync_calls;
/* The entry for (domain, cbid), or NULL. */
const pm_cupti_sync_call *pm_cupti_find_sync_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
#endif
