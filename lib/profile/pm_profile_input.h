/* From a run profile to the models' plain input (metrics/pm_input.h). Used at the end of a run and
 * offline (popmeter show, reports), so the models see exactly the same numbers in both places. */
#ifndef PM_PROFILE_INPUT_H
#define PM_PROFILE_INPUT_H
#include "pm_profile.h"
#include "pm_input.h"
typedef struct {
  pm_run_input in;
  pm_location_input *loc;              /* owned */
  double *pl_cue;                      /* owned */
  pm_omp_region_input *omp;            /* owned array; names and per-thread arrays point into the profile */
  pm_codelet_input *codelets;          /* owned array (task runtime); names point into the profile */
  struct pm_prof_task_cp_store *cp;    /* owned: what lies on the task critical path */
  pm_codelet_input *ref_one, *ref_seq; /* owned arrays: the reference runs' codelets (names point into them) */
} pm_run_input_buf;
/* Fills buf from p; io_as_useful is passed to the models (they count I/O as useful). 0 or -1. */
int pm_profile_to_input(const pm_profile *p, int io_as_useful, pm_run_input_buf *buf);
void pm_run_input_buf_free(pm_run_input_buf *buf);

/* Reference runs of the task model (docs/metrics.md §6.3): the same program with one worker, and its
 * sequential kernels. What a reference run contributes per codelet name: its tasks (a task run), or
 * else the user regions named after codelets (a run without tasks: a program declares its
 * sequential kernels by entering a region named like the codelet around each kernel call,
 * popmeter.h), with their inclusive time and visits. Either may be NULL. The profiles must outlive
 * buf (names point into them). 0, or -1 out of memory. */
int pm_profile_input_references(pm_run_input_buf *buf, const pm_profile *one, const pm_profile *seq);
/* Whether the two profiles can serve as those references: one ran tasks on exactly one worker, seq
 * ran no task worker (a sequential run given as the one-worker run would otherwise match codelets by
 * its regions and give meaningless factors). 0, or -1 with the reason in err. */
int pm_profile_references_check(const pm_profile *one, const pm_profile *seq, char *err, size_t n);
#endif
