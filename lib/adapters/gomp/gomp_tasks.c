/* GOMP explicit tasks: GOMP_task, GOMP_taskwait, GOMP_taskgroup_end.
 *
 * A task body must count as useful wherever it runs (often inside a barrier or taskwait of
 * another thread), and its creator's clock must reach it. libgomp copies the task's argument block
 * (memcpy, or cpyfn for firstprivate copy constructors) and later calls fn(copy). So the wrapper
 * hands libgomp a larger block, [header | argument block], and a trampoline: the header holds the
 * real fn, the creator's clocks and, for the copy, the real cpyfn and the original block. The
 * argument block keeps its alignment (the header is padded to a multiple of it).
 * Not wrapped (the task runs unmeasured inside whatever its thread was doing): detachable tasks,
 * whose event handle libgomp writes into the first word of the caller's block, and taskloops,
 * whose argument block libgomp itself reads (bounds) and splits. */
#include "gomp_adapter.h"
#include <stdlib.h>
#include <string.h>

#define GOMP_TASK_FLAG_DETACH (1u << 13) /* gomp-constants.h (GCC 11+) */
#define STACK_BLOCK 1024

typedef struct {
  pm_gomp_fn fn;
  void (*cpyfn)(void *, void *);
  void *src; /* the caller's argument block: valid during GOMP_task only */
  long off;  /* offset of the argument block behind the header */
  pm_omp_cp2 create;
} task_hdr;

/* libgomp's copy of the block: header by value, argument block by the real cpyfn. */
static void task_copy(void *dst, void *src) {
  const task_hdr *h = src;
  memcpy(dst, h, sizeof *h);
  h->cpyfn((char *)dst + h->off, h->src);
}

static void task_run(void *arg) {
  const task_hdr *h = arg;
  pm_state prev = PM_STATE_USEFUL;
  pm_loc *L = pm_enter_tool();
  if (L) {
    prev = pm_omp_task_body_begin(L, &h->create, pm_clock_now());
    pm_leave_tool(L);
  }
  h->fn((char *)arg + h->off);
  if (L && (L = pm_enter_tool())) {
    pm_omp_task_body_end(L, prev, pm_clock_now());
    pm_leave_tool(L);
  }
}

PM_GOMP_REAL(void, GOMP_task,
             (pm_gomp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **, int, void *))
PM_EXPORT void GOMP_task(pm_gomp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                         bool if_clause, unsigned flags, void **depend, int priority, void *detach) {
  pm_loc *L = (flags & GOMP_TASK_FLAG_DETACH) || arg_size < 0 ? NULL : pm_gomp_enter();
  if (!L) {
    get_GOMP_task()(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
    return;
  }
  long align = arg_align > (long)_Alignof(task_hdr) ? arg_align : (long)_Alignof(task_hdr);
  long off = ((long)sizeof(task_hdr) + align - 1) / align * align;
  size_t size = (size_t)(off + arg_size);
  _Alignas(64) char stack_block[STACK_BLOCK];
  char *block = stack_block;
  if (align > 64 || size > sizeof stack_block)
    block = aligned_alloc((size_t)align, (size + (size_t)align - 1) / (size_t)align * (size_t)align);
  if (!block) {
    pm_leave_tool(L);
    get_GOMP_task()(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
    return;
  }
  task_hdr *h = (task_hdr *)block;
  *h = (task_hdr){fn, cpyfn, data, off,
                  pm_omp_task_create_enter(L, pm_omp_region(PM_OMP_R_TASK_CREATE), pm_clock_now())};
  if (!cpyfn && arg_size > 0) memcpy(block + off, data, (size_t)arg_size);
  pm_leave_tool(L);
  /* an undeferred task runs inside this call, as useful time under the "omp task create" node */
  get_GOMP_task()(task_run, block, cpyfn ? task_copy : NULL, (long)size, align, if_clause, flags, depend, priority,
                  detach);
  pm_call_exit(L, pm_clock_now());
  if (block != stack_block) free(block);
}

/* taskwait and the end of a taskgroup: waiting, except for the tasks run meanwhile */
static pm_loc *wait_enter(pm_omp_rkind k) {
  pm_loc *L = pm_gomp_enter();
  if (L) {
    pm_omp_taskwait_enter(L, pm_omp_region(k), pm_clock_now());
    pm_leave_tool(L);
  }
  return L;
}

PM_GOMP_REAL(void, GOMP_taskwait, (void))
PM_EXPORT void GOMP_taskwait(void) {
  pm_loc *L = wait_enter(PM_OMP_R_TASKWAIT);
  get_GOMP_taskwait()();
  if (L) pm_omp_taskwait_exit(L, pm_clock_now());
}

PM_GOMP_REAL(void, GOMP_taskgroup_end, (void))
PM_EXPORT void GOMP_taskgroup_end(void) {
  pm_loc *L = wait_enter(PM_OMP_R_TASKGROUP);
  get_GOMP_taskgroup_end()();
  if (L) pm_omp_taskwait_exit(L, pm_clock_now());
}
