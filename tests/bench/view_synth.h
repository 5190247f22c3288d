/* A synthetic task run for popmeter view: the trace (traces.otf2, written with libotf2 as popmeter
 * writes it: task bodies as regions with their attributes on the Leave, submissions on the main
 * threads, StarPU-MPI-like messages between progress threads) and popmeter.json (its processes,
 * locations, task statistics, a tag tree and a memory series), of any size. bench_view.c times
 * the page of a 10^6-task run; test_view_trace.c reads a small one back and compares. */
#ifndef VIEW_SYNTH_H
#define VIEW_SYNTH_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  size_t tasks;
  int ranks, workers, codelets;
  int fronts;    /* tags 0..fronts-1, a tree in postorder */
  int msg_every; /* a message every this many tasks (0: none) */
  unsigned seed;
} vs_params;

/* What was generated (trace times in ns from the trace's start, as popmeter view reads them). */
typedef struct {
  uint64_t start, end, submit, ready, pop, cp_in, cp_out, tag;
  double flops;
  int rank, worker, codelet; /* worker 0..workers-1 */
} vs_task;
typedef struct {
  vs_params p;
  vs_task *task; /* in generation order (by start over all workers) */
  size_t nmsgs;
  uint64_t span;
  uint64_t *cp_chain; /* indices of the critical path, first to last */
  size_t ncp;
} vs_run;

/* Generates the run (deterministic for a seed). 0, or -1 out of memory. */
int vs_generate(const vs_params *p, vs_run *r);
/* Writes DIR/traces.otf2 (+ traces/, traces.def) and DIR/popmeter.json. 0, or -1 with a message on stderr. */
int vs_write(const vs_run *r, const char *dir);
void vs_free(vs_run *r);
#define VS_CODELETS_MAX 8
extern const char *const vs_codelet_names[VS_CODELETS_MAX];
#endif
