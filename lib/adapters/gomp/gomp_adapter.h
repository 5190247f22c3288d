/* GOMP adapter: interposes GCC's OpenMP entry points (GOMP_*), which libgomp implements without
 * any tool interface. Parallel regions run through a trampoline around the outlined function, so
 * every member reports the start and end of its implicit task; barriers, loop scheduling, single,
 * critical and tasks are wrapped calls. Everything is translated into lib/omp/pm_omp.h. */
#ifndef PM_GOMP_ADAPTER_H
#define PM_GOMP_ADAPTER_H
#include <stdbool.h>
#include <stdint.h>
#include "pm_core.h"
#include "pm_omp.h"

#define PM_EXPORT __attribute__((visibility("default")))

typedef void (*pm_gomp_fn)(void *);

/* The next definition of a GOMP_ symbol (libgomp's, or libomp's GOMP ABI). Looked up once; a
 * runtime loaded privately (dlopen RTLD_LOCAL) is found by its soname. Never returns NULL: without
 * an OpenMP runtime in the process nobody could have called GOMP_*, so that is reported and the
 * process stopped instead of jumping to address 0. */
PM_HIDDEN void *pm_gomp_sym(const char *name);
#define PM_GOMP_REAL(ret, name, params)                                         \
  static ret(*real_##name) params;                                              \
  static inline ret(*get_##name(void)) params {                                 \
    if (PM_UNLIKELY(!real_##name)) *(void **)&real_##name = pm_gomp_sym(#name); \
    return real_##name;                                                         \
  }

/* omp_get_thread_num / omp_get_num_threads / omp_get_max_threads of the runtime. */
PM_HIDDEN int pm_gomp_thread_num(void);
PM_HIDDEN int pm_gomp_num_threads(void);
PM_HIDDEN int pm_gomp_max_threads(void);

/* The calling thread's location for a wrapper (reentrancy-guarded), or NULL to pass through:
 * popmeter inactive, or OMPT active (libomp reports these constructs itself). Release with
 * pm_leave_tool before calling the real function. */
PM_HIDDEN pm_loc *pm_gomp_enter(void);
/* The same at the start of a parallel region, which activates popmeter (first region), and which
 * first makes sure a libomp serving the GOMP ABI has started its OMPT tool. */
PM_HIDDEN pm_loc *pm_gomp_enter_fork(void);
#endif
