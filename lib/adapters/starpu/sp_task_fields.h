/* What a task record reads from a struct starpu_task: its codelet (registered once as a region and a
 * statistics entry), its buffers (handles, access classes, sizes), tag and flops. Included by the
 * StarPU 1.3 adapter (sp_task.c) and by the 1.4 tool adapter (sp_tool.c): one source, compiled against
 * each version's headers, because the struct layouts differ between the versions. */
#ifndef SP_TASK_FIELDS_H
#define SP_TASK_FIELDS_H
#include "sp_adapter.h"
#include "pm_location.h"
#include "pm_ptrmap.h"
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------------- codelets */
typedef struct {
  const char *name_ptr;
  uint32_t id;
} codelet_entry;
static pm_ptrmap codelet_cache; /* struct starpu_codelet * -> codelet_entry */

static __thread struct {
  const struct starpu_codelet *cl;
  const char *name_ptr;
  uint32_t id;
} tls_last_cl;

static uint32_t codelet_id(struct starpu_task *task) {
  struct starpu_codelet *cl = task->cl;
  /* a thread usually submits (or runs) runs of tasks of one codelet: a one-entry cache first */
  if (PM_LIKELY(tls_last_cl.cl == cl && tls_last_cl.name_ptr == cl->name)) return tls_last_cl.id;
  codelet_entry *e = pm_ptrmap_get(&codelet_cache, cl);
  if (e && e->name_ptr == cl->name) {
    tls_last_cl.cl = cl;
    tls_last_cl.name_ptr = cl->name;
    tls_last_cl.id = e->id;
    return e->id;
  }
  /* (a codelet struct freed and reused with another name at the same address is re-registered) */
  const char *name = cl->name ? cl->name : cl->model && cl->model->symbol ? cl->model->symbol : task->name;
  char buf[40];
  if (!name) {
    snprintf(buf, sizeof buf, "codelet@%p", (void *)cl);
    name = buf;
  }
  pm_region_id r = pm_region_register(name, PM_PARADIGM_STARPU, PM_ROLE_TASK);
  uint32_t id = pm_ts_codelet(name, r);
  codelet_entry *n = malloc(sizeof *n); /* one per codelet: not a per-task allocation */
  if (n) {
    *n = (codelet_entry){cl->name, id};
    pm_ptrmap_put(&codelet_cache, cl, n); /* a replaced entry leaks: codelets are few */
  }
  return id;
}

/* Codelet, buffers (handles, access classes, sizes), tag, flops. Once per record. */
static void fill_record(pm_tg_task *rec, struct starpu_task *task) {
  rec->flags |= PM_TG_HAS_BODY;
  rec->codelet = codelet_id(task);
  rec->flops = task->flops > 0 ? task->flops : 0;
  rec->tag = task->tag_id;
  if (task->use_tag) rec->flags |= PM_TG_USE_TAG;
  if (task->use_tag || task->tag_id != 0) rec->flags |= SP_HAS_TAG_FLAG;
  unsigned n = STARPU_TASK_GET_NBUFFERS(task);
  for (unsigned i = 0; i < n; i++) {
    starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
    if (!h) continue;
    enum starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
    int acc = sp_access_class(mode);
    /* without sequential consistency StarPU orders nothing through this handle: the
     * application's explicit dependencies carry the order (and are tracked) */
    if (!task->sequential_consistency ||
        (task->handles_sequential_consistency && !task->handles_sequential_consistency[i]) ||
        (sp_fn.data_get_sequential_consistency_flag && !sp_fn.data_get_sequential_consistency_flag(h)))
      acc = PM_TG_ACC_NONE;
    pm_tg_handle *hh = pm_tg_handle_get(h);
    /* a handle registered unseen (before activation, or with no interposition) lives where StarPU says */
    if (hh && PM_UNLIKELY(pm_tg_handle_unplaced(hh)) && sp_fn.data_get_home_node)
      pm_tg_handle_home(hh, sp_fn.data_get_home_node(h));
    if (hh && pm_tg_task_add_buf(rec, hh, acc, sp_fn.data_get_size(h)) == 0)
      pm_tg_task_buf(rec, rec->nbufs - 1)->mode = (uint32_t)mode;
  }
}
#endif
