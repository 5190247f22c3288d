/* The OpenMP runtime behind the GOMP entry points: real functions, thread numbers, and whether
 * the wrappers should measure at all.
 *
 * libomp implements the GOMP ABI too. A GCC binary run on libomp (LD_PRELOAD=libomp.so.5, see
 * docs/openmp.md) is measured by the OMPT adapter, and the wrappers must then pass through. But
 * libomp starts its tool lazily, inside its first entry point, which is the very GOMP_parallel
 * call being wrapped: so before deciding, the first fork initializes libomp (omp_get_max_threads
 * does) when libomp is the provider. */
#define _GNU_SOURCE
#include "gomp_adapter.h"
#include "pm_lifecycle.h"
#include <dlfcn.h>
#include <stdlib.h>

static void *find(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  static const char *const sonames[] = {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so", NULL};
  for (int i = 0; !f && sonames[i]; i++) {
    void *h = dlopen(sonames[i], RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      f = dlsym(h, name);
      dlclose(h);
    }
  }
  return f;
}

void *pm_gomp_sym(const char *name) {
  void *f = find(name);
  if (!f) {
    pm_error("%s called, but no OpenMP runtime defines it (libgomp or libomp not loaded?)", name);
    abort();
  }
  return f;
}

typedef int (*int_fn)(void);
static int_fn f_thread_num, f_num_threads, f_max_threads;
static int call_int(int_fn *f, const char *name) {
  if (PM_UNLIKELY(!*f)) *(void **)f = pm_gomp_sym(name);
  return (*f)();
}
int pm_gomp_thread_num(void) { return call_int(&f_thread_num, "omp_get_thread_num"); }
int pm_gomp_num_threads(void) { return call_int(&f_num_threads, "omp_get_num_threads"); }
int pm_gomp_max_threads(void) { return call_int(&f_max_threads, "omp_get_max_threads"); }

/* Whether the object defining GOMP_parallel is libomp (it also defines __kmpc_fork_call). */
static int provider_is_libomp(void) {
  Dl_info info;
  void *gp = find("GOMP_parallel");
  if (!gp || !dladdr(gp, &info) || !info.dli_fname) return 0;
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  int r = h && dlsym(h, "__kmpc_fork_call") != NULL;
  if (h) dlclose(h);
  return r;
}

pm_loc *pm_gomp_enter(void) {
  if (__atomic_load_n(&pm_omp_ompt_active, __ATOMIC_ACQUIRE)) return NULL;
  return pm_enter_tool();
}

pm_loc *pm_gomp_enter_fork(void) {
  static int provider_checked;
  if (PM_UNLIKELY(!__atomic_load_n(&provider_checked, __ATOMIC_ACQUIRE))) {
    if (provider_is_libomp()) pm_gomp_max_threads(); /* starts libomp and its OMPT tool */
    __atomic_store_n(&provider_checked, 1, __ATOMIC_RELEASE);
  }
  if (__atomic_load_n(&pm_omp_ompt_active, __ATOMIC_ACQUIRE)) return NULL;
  pm_loc *L = pm_enter_tool();
  if (!L && !pm_core_is_active() && pm_core_activate()) L = pm_enter_tool(); /* first region */
  return L;
}
