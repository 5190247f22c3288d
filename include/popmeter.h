/* popmeter: POP-style efficiency measurement for MPI + OpenMP / StarPU (+CUDA) programs.
 *
 * Nothing here is required: popmeter measures an unmodified program when preloaded
 * (LD_PRELOAD=libpopmeter.so, or `popmeter run -- app`) or linked (-lpopmeter before -lmpi).
 * This API adds user regions (they appear in the call tree of the JSON and CUBE outputs),
 * pause/resume of the measurement, and a query of the calling thread's accounting so far.
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

#ifdef __cplusplus
}
#endif
#endif
