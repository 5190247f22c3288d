/* Task attributes: what the trace adds to a task body's Leave (raised by a task runtime's adapter
 * through pm_events.h just before the body's region is left): its tag, flops, submission / ready /
 * pop times and its place on the task DAG's critical path, as OTF2 attributes (docs/trace.md).
 *
 * The event only stores the values on the location (the adapter raises it on the worker, which
 * owns the location); the Leave of the frame that was innermost then carries them. The attribute
 * ids are the same in every process, so they need no mapping table. */
#include "pm_trace.h"

/* names: pm_task_attr_name (the vocabulary popmeter view reads them back with) */
static const struct {
  const char *desc;
  OTF2_Type type;
} attrs[PM_TT_NATTR] = {
    [PM_TT_TAG] = {"the task's tag (StarPU's tag_id)", OTF2_TYPE_UINT64},
    [PM_TT_FLOPS] = {"the flops the program declared for the task", OTF2_TYPE_DOUBLE},
    [PM_TT_SUBMIT] = {"when the task was submitted (trace time, ns)", OTF2_TYPE_UINT64},
    [PM_TT_READY] = {"when the task's dependencies were met (trace time, ns)", OTF2_TYPE_UINT64},
    [PM_TT_POP] = {"when a worker took the task, before fetching its data (trace time, ns)", OTF2_TYPE_UINT64},
    [PM_TT_CP_IN] = {"the task DAG's longest path of useful time (ns) before the body", OTF2_TYPE_UINT64},
    [PM_TT_CP_OUT] = {"the same path (ns) ending with the body", OTF2_TYPE_UINT64},
};

void pm_ttask_attr(int i, const char **name, const char **desc, OTF2_Type *type) {
  *name = pm_task_attr_name(i);
  *desc = attrs[i].desc;
  *type = attrs[i].type;
}

void pm_trace_task_end(pm_loc *L, const pm_event_task *t) {
  pm_tloc *T = pm_tloc_of(L);
  if (!T || T->depth == 0 || T->closed) return;
  T->task = *t;
  T->task_depth = T->depth;
}

OTF2_AttributeList *pm_ttask_attributes(pm_tloc *T, uint32_t depth) {
  if (T->task_depth != depth) return NULL;
  T->task_depth = 0;
  if (!T->attrs && !(T->attrs = OTF2_AttributeList_New())) return NULL;
  const pm_event_task *t = &T->task;
  OTF2_AttributeList *a = T->attrs;
  if (t->has_tag) OTF2_AttributeList_AddUint64(a, PM_TT_TAG, t->tag);
  if (t->flops > 0) OTF2_AttributeList_AddDouble(a, PM_TT_FLOPS, t->flops);
  if (t->t_submit) OTF2_AttributeList_AddUint64(a, PM_TT_SUBMIT, pm_tr_time(t->t_submit));
  if (t->t_ready) OTF2_AttributeList_AddUint64(a, PM_TT_READY, pm_tr_time(t->t_ready));
  if (t->t_pop) OTF2_AttributeList_AddUint64(a, PM_TT_POP, pm_tr_time(t->t_pop));
  OTF2_AttributeList_AddUint64(a, PM_TT_CP_IN, t->cp_in);
  OTF2_AttributeList_AddUint64(a, PM_TT_CP_OUT, t->cp_out);
  return a;
}
