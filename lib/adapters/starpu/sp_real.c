/* Resolution of StarPU functions without link-time references (preload hygiene, sp_adapter.h). */
#define _GNU_SOURCE
#include "sp_adapter.h"
#include "pm_lifecycle.h"
#include <dlfcn.h>
#include <string.h>

sp_fns sp_fn;

void *sp_next(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    /* Only reached from a wrapper StarPU (or the application) just called, so the real function
     * must exist: a missing one means a foreign StarPU build; the caller must cope with NULL. */
    pm_error("StarPU adapter: no definition of %s after popmeter's", name);
  }
  return p;
}

#define FN(field, name) (*(void **)&sp_fn.field = dlsym(RTLD_DEFAULT, #name))
int sp_resolve(void) {
  if (sp_fn.task_get_current) return 0;
  int ok = 1;
  ok &= FN(task_get_current, starpu_task_get_current) != NULL;
  ok &= FN(worker_get_id, starpu_worker_get_id) != NULL;
  ok &= FN(worker_get_type, starpu_worker_get_type) != NULL;
  ok &= FN(worker_get_name, starpu_worker_get_name) != NULL;
  ok &= FN(worker_get_memory_node, starpu_worker_get_memory_node) != NULL;
  ok &= FN(data_get_size, starpu_data_get_size) != NULL;
  ok &= FN(sched_ctx_get_sched_policy, starpu_sched_ctx_get_sched_policy) != NULL;
  ok &= FN(sched_ctx_get_context, starpu_sched_ctx_get_context) != NULL;
  /* optional: sequential consistency, node kinds, partitioning, version, home node */
  FN(data_get_sequential_consistency_flag, starpu_data_get_sequential_consistency_flag);
  FN(node_get_kind, starpu_node_get_kind);
  FN(data_get_nb_children, starpu_data_get_nb_children);
  FN(data_get_child, starpu_data_get_child);
  FN(get_version, starpu_get_version);
  FN(data_get_home_node, starpu_data_get_home_node);
  if (!ok) memset(&sp_fn, 0, sizeof sp_fn);
  return ok ? 0 : -1;
}

int sp_runtime_version(int *major, int *minor) {
  void (*get)(int *, int *, int *);
  *(void **)&get = dlsym(RTLD_DEFAULT, "starpu_get_version");
  int release = 0;
  *major = *minor = -1;
  if (!get) return -1;
  get(major, minor, &release);
  return 0;
}
