/* Hardware-counter part of the run profile (lib/counters measures it; docs/counters.md).
 *
 * Counts are taken over USEFUL time (the POP convention: IPC, frequency and vectorization describe
 * the application's own code), per location and per call path; what a thread counted outside useful
 * time is kept per location as information. The part also says, once per run and per category,
 * why counters are missing ("PAPI: PAPI_TOT_INS not available: ..."), so every counter metric can
 * be n/a with the exact reason.
 *
 * Rows are aligned with the enclosing profile: row i of the location arrays is p->loc[i], row i of
 * the value array is p->val[i]; either array may be shorter than the profile's (missing rows: not
 * counted). A profile without this part (counters == NULL: an old file, or the counter module was
 * not linked) says nothing about counters at all. */
#ifndef PM_PROFILE_COUNTERS_H
#define PM_PROFILE_COUNTERS_H
#include <jansson.h>
#include <stdint.h>
#include "pm_profile.h"
#include "pm_input.h"

#define PM_PROF_MAX_EVENTS 64 /* events of one run (location masks are 64-bit) */

/* What an event measures, as far as the models are concerned. FP classes are Intel's
 * FP_ARITH_INST_RETIRED classes: instructions retired of a precision and vector width. */
typedef enum {
  PM_CTR_OTHER = 0, /* recorded and exported, not used by a model */
  PM_CTR_INSTRUCTIONS,
  PM_CTR_CYCLES,
  PM_CTR_FP_SP_SCALAR,
  PM_CTR_FP_DP_SCALAR,
  PM_CTR_FP_SP_128,
  PM_CTR_FP_DP_128,
  PM_CTR_FP_SP_256,
  PM_CTR_FP_DP_256,
  PM_CTR_FP_SP_512,
  PM_CTR_FP_DP_512,
  PM_CTR_KIND_COUNT
} pm_ctr_kind;

/* The categories a model needs; each has its own n/a reason. */
typedef enum { PM_CTR_CAT_INSTRUCTIONS = 0, PM_CTR_CAT_CYCLES, PM_CTR_CAT_FP, PM_CTR_CAT_COUNT } pm_ctr_category;

const char *pm_ctr_kind_name(pm_ctr_kind k); /* "instructions", "fp_dp_256", ..., "other" */
int pm_ctr_kind_from_name(const char *name); /* -1 when unknown */
/* The kind of a PAPI event by its name: presets (PAPI_TOT_INS, PAPI_TOT_CYC), perf names
 * (perf::INSTRUCTIONS, perf::CYCLES), Intel natives (INST_RETIRED:ANY_P, CPU_CLK_UNHALTED:THREAD_P,
 * FP_ARITH[_INST_RETIRED]:<class>); PM_CTR_OTHER for anything else. */
pm_ctr_kind pm_ctr_kind_of_event(const char *event);
int pm_ctr_kind_is_fp(pm_ctr_kind k);
int pm_ctr_fp_width_index(pm_ctr_kind k);            /* 0: 32-bit scalar, 1: 64-bit scalar, 2: 128, 3: 256, 4: 512 */
int pm_ctr_fp_precision(pm_ctr_kind k);              /* 0 single, 1 double */
int pm_ctr_fp_packed(pm_ctr_kind k);                 /* 1 for the vector classes */
int pm_ctr_fp_ops(pm_ctr_kind k);                    /* operations per instruction (vector lanes) */
const char *pm_ctr_category_name(pm_ctr_category c); /* "instructions", "cycles", "fp" */
pm_ctr_category pm_ctr_category_of(pm_ctr_kind k);   /* PM_CTR_CAT_COUNT for "other" */

typedef struct {
  char name[96]; /* as the counting library names it (PAPI_TOT_INS, FP_ARITH_INST_RETIRED:...) */
  int kind;      /* pm_ctr_kind */
  int counted;   /* counted on at least one location */
  char *why;     /* not counted (anywhere): the counting library's reason; else NULL */
} pm_prof_event;

typedef struct pm_prof_counters {
  char status[16];                /* "counted", "partial", "unavailable", "disabled" */
  char source[16];                /* "papi", the name of a test backend, or "none" */
  char *reason[PM_CTR_CAT_COUNT]; /* why the category is missing on some location (NULL: complete) */
  int vector_width_max;           /* widest vector unit in bits (0: unknown) */
  int nevents;
  pm_prof_event *event;
  int nloc;              /* rows of the location arrays (<= the profile's nlocations) */
  uint64_t *loc_mask;    /* [nloc]: bit e set when event e was counted on the location */
  uint64_t *loc_useful;  /* [nloc * nevents]: counts over useful time */
  uint64_t *loc_outside; /* [nloc * nevents]: counts outside useful time (measured states only) */
  int nval;              /* rows of the value array (<= the profile's nvalues) */
  uint64_t *val;         /* [nval * nevents]: useful-time counts at that call path (exclusive) */
} pm_prof_counters;

pm_prof_counters *pm_prof_counters_new(void);
void pm_prof_counters_free(pm_prof_counters *c);
/* Appends an event (name copied, why copied when not NULL); returns its index, or -1 (out of
 * memory, or PM_PROF_MAX_EVENTS reached). Call before sizing the rows. */
int pm_prof_counters_add_event(pm_prof_counters *c, const char *name, int kind, int counted, const char *why);
/* Grows the location / value arrays to at least nloc / nval rows (new rows zero). 0 or -1. */
int pm_prof_counters_resize(pm_prof_counters *c, int nloc, int nval);
/* Sets the reason of a category (copied; NULL clears). 0 or -1. */
int pm_prof_counters_set_reason(pm_prof_counters *c, pm_ctr_category cat, const char *why);
/* Appends src (a process or a run) to *dst (created when NULL), whose profile had l0 locations and
 * v0 values before src's were appended; events are matched by name. 0, or -1 out of memory or
 * more than PM_PROF_MAX_EVENTS events in all. */
int pm_prof_counters_merge(pm_prof_counters **dst, const pm_prof_counters *src, int l0, int v0);
json_t *pm_prof_counters_to_json(const pm_prof_counters *c);
/* Validating reader; nlocations / nvalues bound the row indices. NULL with err filled on error. */
pm_prof_counters *pm_prof_counters_from_json(const json_t *o, int nlocations, int nvalues, char *err, size_t errlen);

/* ---- what the models see (metrics/pm_input.h) ---- */
/* The useful-time counters of profile location loc. A category is "has" only when the location
 * counted every event of it in the run's list: instructions and cycles need one event each; the FP
 * classes need every FP-class event of the list (classes not in the list count as 0: the list,
 * POPMETER_PAPI_EVENTS, says which classes exist). */
void pm_prof_counters_input(const pm_prof_counters *c, int loc, pm_counters *out);
/* Sums of useful-time instructions and cycles over the compute locations (not progress threads or
 * device streams) for cross-run scalability; returns 1 when every compute location has both, else
 * 0 (sums then 0). */
int pm_prof_counters_sums(const pm_profile *p, double *instructions, double *cycles);
#endif
