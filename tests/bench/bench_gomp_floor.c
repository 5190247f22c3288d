/* The least a tool that times libgomp's events can do, preloaded like popmeter (bench_events.sh's
 * "floor" column on the libgomp rows): what no design of the accounting can go below on a host.
 *
 * Each wrapper reads the time stamp counter around the event and adds the difference to a
 * thread-local total, nothing else: no call path, no states, no critical-path clocks, no exchange
 * between threads, no output. A parallel region and an explicit task run their body through a
 * trampoline, as any tool must that times the members' or the task's body in libgomp (it has no
 * callbacks): the region passes libgomp a block holding the real function and its argument; the
 * task passes a larger argument block, [header | the caller's block], which libgomp copies, as
 * popmeter's wrapper does. Detachable tasks and tasks with a copy function go through untouched
 * (neither occurs in the benchmark). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_floor_stamp.h"

/* The thread's total, exported so that the compiler keeps every read (nobody reads it). */
__thread uint64_t bench_gomp_floor_total __attribute__((tls_model("initial-exec")));
#define total bench_gomp_floor_total

typedef void (*body_fn)(void *);

static void *real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "bench_gomp_floor: %s not found in the OpenMP runtime\n", name);
    abort();
  }
  return f;
}

typedef struct {
  body_fn fn;
  void *data;
} region_block;

static void member(void *arg) {
  const region_block *b = arg;
  uint64_t t0 = floor_stamp();
  b->fn(b->data);
  total += floor_stamp() - t0;
}

void GOMP_parallel(body_fn fn, void *data, unsigned num_threads, unsigned flags) {
  static void (*next)(body_fn, void *, unsigned, unsigned);
  if (!next) next = (void (*)(body_fn, void *, unsigned, unsigned))real("GOMP_parallel");
  region_block b = {fn, data};
  next(member, &b, num_threads, flags);
}

/* A wait without arguments (barrier, taskwait), timed around the runtime's own. */
#define TIMED_WAIT(name)                           \
  void name(void) {                                \
    static void (*next)(void);                     \
    if (!next) next = (void (*)(void))real(#name); \
    uint64_t t0 = floor_stamp();                   \
    next();                                        \
    total += floor_stamp() - t0;                   \
  }
TIMED_WAIT(GOMP_barrier)
TIMED_WAIT(GOMP_taskwait)

typedef struct {
  body_fn fn;
  long off; /* the caller's block, behind the header */
} task_header;

static void task_body(void *arg) {
  const task_header *h = arg;
  uint64_t t0 = floor_stamp();
  h->fn((char *)arg + h->off);
  total += floor_stamp() - t0;
}

#define GOMP_TASK_FLAG_DETACH (1u << 13)
typedef void (*task_fn)(body_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **, int, void *);

void GOMP_task(body_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size, long arg_align, bool if_clause,
               unsigned flags, void **depend, int priority, void *detach) {
  static task_fn next;
  if (!next) next = (task_fn)real("GOMP_task");
  long align = arg_align > (long)_Alignof(task_header) ? arg_align : (long)_Alignof(task_header);
  long off = ((long)sizeof(task_header) + align - 1) / align * align;
  _Alignas(64) char block[1024];
  if (cpyfn || (flags & GOMP_TASK_FLAG_DETACH) || arg_size < 0 || align > 64 || off + arg_size > (long)sizeof block) {
    next(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
    return;
  }
  *(task_header *)block = (task_header){fn, off};
  if (arg_size > 0) memcpy(block + off, data, (size_t)arg_size);
  next(task_body, block, NULL, off + arg_size, align, if_clause, flags, depend, priority, detach);
}
