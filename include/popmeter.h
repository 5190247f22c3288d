/* popmeter: POP-style efficiency measurement for MPI + OpenMP / StarPU (+CUDA) programs.
 *
 * Nothing here is required: popmeter measures an unmodified program when preloaded
 * (LD_PRELOAD=libpopmeter.so, or `popmeter run -- app`) or linked (-lpopmeter before -lmpi).
 * This API adds user regions (they appear in the call tree of the JSON and CUBE outputs),
 * pause/resume of the measurement, a query of the calling thread's accounting so far, and what the
 * program publishes about its work (a tree of task tags, quantities over time).
 * Every function is safe to call when popmeter is inactive (it then does nothing). */
#ifndef POPMETER_H
#define POPMETER_H

#ifdef __cplusplus
extern "C" {
#endif

#define POPMETER_VERSION_MAJOR 0
#define POPMETER_VERSION_MINOR 1

/* Begin / end a named user region on the calling thread. Regions nest; pm_region_end must name
 * the innermost open region (a mismatch is reported once and ignored). */
void pm_region_begin(const char *name);
void pm_region_end(const char *name);

/* Begin / end a named user region in which the calling thread waits for other threads of the
 * program (a condition variable, a semaphore, a flag it polls): its time counts as synchronisation
 * wait, not as useful computation, in the tables, and the thread's critical-path clock does not
 * advance through it. Nests with pm_region_begin/end (pm_wait_end must name the innermost open
 * region). Waits in MPI, OpenMP and StarPU calls are measured without it. */
void pm_wait_begin(const char *name);
void pm_wait_end(const char *name);

/* Stop / restart measuring the calling thread (time while paused counts nowhere). */
void pm_pause(void);
void pm_resume(void);

/* 1 when popmeter is measuring this process. */
int pm_is_active(void);

/* Seconds the calling thread spent so far in each class of states. Returns 0, or -1 when
 * popmeter is inactive (then *out is zeroed). */
typedef struct {
  double useful, mpi, io, runtime, idle, device, other;
} pm_thread_times;
int pm_query_thread(pm_thread_times *out);

/* What the program knows about its own work, published into the run's popmeter.json (docs/json.md
 * "tag_tree" and "series"; `popmeter view` draws both). Publishing is a copy under a lock: call it
 * from the program's set-up or at its own pace, not per instruction. Both are safe to call from any
 * thread, and do nothing when popmeter is inactive. A program that must also run without popmeter
 * declares them weak (#pragma weak pm_tag_publish) and calls them when their address is not NULL. */

/* One node of a tree of task tags: the tasks carrying tag (StarPU's task tag) belong to this node,
 * a child of parent (PM_TAG_NONE for a root). A multifrontal solver publishes its elimination tree
 * this way (node = front); order is the node's position in the program's traversal (its
 * postorder), flops its work, rank the process that owns it (-1: none). Per process, at most
 * PM_TAG_TREE_MAX nodes are kept (later ones are counted as dropped); a tag published twice, by a
 * process or by several, keeps its first record (the lowest rank's). */
#define PM_TAG_NONE 0xffffffffffffffffULL
#define PM_TAG_TREE_MAX 1048576
void pm_tag_publish(unsigned long long tag, unsigned long long parent, long long order, double flops, int rank);

/* The current value of a quantity the program tracks over time (bytes of memory in use, a queue's
 * length). Per process and name (at most 16 names; longer names are cut at 63 bytes) popmeter keeps a
 * bounded series: 1024 bins of equal width (the width doubles as the run goes on), each with the
 * smallest, largest and last value set in it. */
void pm_quantity_set(const char *name, double value);

#ifdef __cplusplus
}
#endif
#endif
