/* The modules libpopmeter.so was built with (pm_module.h), registered when the library is loaded,
 * before any application thread runs. Adding a module: one line here and its object in the
 * library (docs/conventions.md). The unit tests do not link this file; they register what they
 * test. */
#include "config.h"
#include "pm_module.h"

/* declared by each module's own header; listed here so that the core never names a module */
extern const pm_module pm_omp_module, pm_tasks_module, pm_cuda_module, pm_counters_module, pm_io_module,
    pm_published_module, pm_output_module;
#ifdef PM_HAVE_OTF2
extern const pm_module pm_trace_module;
#endif

__attribute__((constructor)) static void register_modules(void) {
  pm_module_register(&pm_omp_module);
  pm_module_register(&pm_tasks_module);
  pm_module_register(&pm_cuda_module);
  pm_module_register(&pm_counters_module);
#ifdef PM_HAVE_OTF2
  pm_module_register(&pm_trace_module);
#endif
  pm_module_register(&pm_io_module);
  pm_module_register(&pm_published_module);
  pm_module_register(&pm_output_module);
}
