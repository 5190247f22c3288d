/* reports/: a POP scaling study built from the popmeter.json of many runs (internal API).
 *
 * The study holds the runs as read, groups them into configurations (processes x threads), picks
 * the reference configuration and computes, for every run, the scaling tree against the reference
 * (metrics/ pm_model_scaling, with the parallel-efficiency hierarchy of the run's basic model) and
 * the same per region. Repeated runs of a configuration are summarised node by node: median, min
 * and max. Every efficiency comes from metrics/; this module only gathers inputs and summarises.
 * The writers (text, CSV, Markdown, JSON, plots, HTML) read the computed study and compute nothing. */
#ifndef RP_STUDY_H
#define RP_STUDY_H
#include <stddef.h>
#include <stdio.h>
#include "pm_profile.h"
#include "popmetrics.h"

/* Summaries of repeated runs, index of rp_config.tree[] and friends. */
enum { RP_MEDIAN = 0, RP_MIN, RP_MAX, RP_NSTATS };

/* A region (all regions of that name, whatever the paradigm) in one run, with inclusive time. */
typedef struct {
  int present;       /* some location spent time in it */
  pm_scaling_run sr; /* runtime = longest inclusive time of a location in the region */
  pm_metric *basic;  /* basic model over the locations that entered the region */
  pm_metric *tree;   /* region scaling tree against the reference (rp_tree_region) */
} rp_region_run;

typedef struct {
  char *path; /* the popmeter.json read */
  pm_profile *prof;
  int dropped;        /* left out of the study (foreign application); see problems */
  pm_scaling_run sr;  /* this run's input to pm_model_scaling */
  pm_metric *basic;   /* basic POP model of the run */
  int has_cp;         /* critical path measured */
  double g_cue;       /* critical path of useful work, seconds (when has_cp) */
  double max_useful;  /* largest useful time of a compute location, seconds */
  double *rank_pe;    /* [nprocesses] parallel efficiency of each process's locations */
  rp_region_run *reg; /* [study.nregions] */
  pm_metric *tree;    /* composed scaling tree against the reference (rp_tree_scaling) */
  int cfg;            /* configuration index */
} rp_run;

typedef struct {
  int nprocesses, nthreads; /* threads = compute locations per process (the most of any process) */
  char label[48];           /* "4x2" (diff: "A 4x2") */
  int nruns;
  int *runs;                    /* indices into study.runs, in input order */
  pm_scaling_run median;        /* field-wise median of the repeats: reference and detection input */
  pm_scaling_run *rmedian;      /* [nregions] the same per region (present = some repeat entered it) */
  int *rpresent;                /* [nregions] */
  pm_metric *tree[RP_NSTATS];   /* summaries of the runs' scaling trees */
  pm_metric **rtree[RP_NSTATS]; /* [nregions] summaries of the region trees (NULL: absent) */
  double *rank_pe[RP_NSTATS];   /* [nprocesses] */
  int has_cp;                   /* every repeat measured the critical path */
  double runtime[RP_NSTATS], g_cue[RP_NSTATS], max_useful[RP_NSTATS];
} rp_config;

typedef struct {
  char *name;
  double ref_time; /* the region's time (longest inclusive) in the reference, median */
  double time_max; /* the largest such time over all runs (ranking when absent there) */
} rp_region;

typedef struct {
  pm_scaling_mode mode;  /* PM_SCALING_AUTO: detect (docs/metrics.md §8.2) */
  const char *reference; /* NULL: the smallest configuration; else "PxT" or a run's path */
  int diff;              /* two-run comparison: one configuration per run, in input order */
  /* reference runs of the task model (docs/metrics.md §6.3): the program on one worker and its
   * sequential kernels, given as run arguments; read by rp_report_build into ref_one / ref_seq */
  const char *ref_one_arg, *ref_seq_arg;
  int refs_found; /* popmeter scale chose them: a reference that does not fit is left out, not an error */
  const pm_profile *ref_one, *ref_seq;
} rp_options;

typedef struct {
  char app[256];
  int nruns, caprun;
  rp_run *runs;
  int ncfg;
  rp_config *cfg;       /* sorted by processes x threads, then processes (diff: input order) */
  int ref;              /* reference configuration */
  pm_scaling_mode mode; /* STRONG or WEAK once computed */
  int mode_declared;
  int diff;
  int prepared; /* rp_study_prepare done */
  int nregions;
  rp_region *regions; /* sorted by name */
  int nproblems;
  char **problems; /* inputs left out, each message naming the file */
  int nnotes;
  char **notes; /* what the reader should know to read the values (rp_study_note) */
} rp_study;

void rp_study_init(rp_study *s);
void rp_study_free(rp_study *s);
/* Records a problem with an input (printf-style; the message names the file). Also printed on
 * stderr with the prefix given to rp_study_set_prog. */
void rp_study_problem(rp_study *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rp_study_set_prog(const char *prog);
/* Records a note on the study (printf-style): something about the runs that the values alone do
 * not say, shown with the report (not on stderr, not a problem: the exit status is unchanged). */
void rp_study_note(rp_study *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Notes the configurations whose runs executed other tasks than the reference's (rp_work.c). */
void rp_study_compare_work(rp_study *s);
/* Resolves a run argument (a directory holding popmeter.json, or the JSON file itself) into path.
 * Returns 0, or -1 with a message in err. */
int rp_resolve_run(const char *arg, char *path, size_t n, char *err, size_t errlen);
/* Reads one run (rp_resolve_run + pm_profile_read_file). On failure records the problem and
 * returns -1: the study goes on with the other runs. */
int rp_study_load(rp_study *s, const char *arg);
/* Adds an already-read profile (the study takes ownership of p). 0, or -1 out of memory. */
int rp_study_add_profile(rp_study *s, const char *path, pm_profile *p);
/* Fills each run's pm_scaling_run, basic model, per-process efficiencies and region samples. Done
 * by rp_study_compute when not called before; callers that know more about a run than the profile
 * (hardware counters) call it first and then amend runs[i].sr. Returns 0 or -1 (out of memory). */
int rp_study_prepare(rp_study *s, char *err, size_t errlen);
/* Groups, sorts, picks the reference, detects the scaling mode and computes every tree. Runs of
 * another application than the majority's are dropped (recorded as problems). Returns 0, or -1
 * with err set (no usable run, unknown reference, out of memory). */
int rp_study_compute(rp_study *s, const rp_options *o, char *err, size_t errlen);

/* "strong" / "weak" */
const char *rp_mode_name(pm_scaling_mode m);
/* Where a region loses efficiency first: the first configuration (in study order, the reference
 * included: there the global efficiency is the region's own parallel efficiency) whose median
 * region global efficiency is below threshold; -1 if none. */
int rp_region_first_below(const rp_study *s, int region, double threshold);
/* Region indices for display: the max (<= 0: all) regions with the most time (in the reference,
 * then anywhere), ordered by global efficiency at the largest configuration, worst first (regions
 * without a value there last). Returns the count. */
int rp_regions_ranked(const rp_study *s, int *order, int max);

/* Traffic-light thresholds shared by the HTML colours and the region summary. */
#define RP_RED_BELOW 0.5
#define RP_AMBER_BELOW 0.8

/* ------------------------------------------------------------------------------ trees (rp_tree.c) */
/* A deep copy; ids get prefix prepended when prefix is non-NULL. NULL on allocation failure. */
pm_metric *rp_tree_copy(const pm_metric *src, const char *prefix);
/* The scaling tree shown for a run: pm_model_scaling's tree with its "pe" leaf replaced by the
 * basic model's parallel-efficiency hierarchy, plus the measured runtime. */
/* task: the run's task model with reference runs (its "e" subtree is shown), or NULL */
pm_metric *rp_tree_scaling(const pm_metric *scaling, const pm_metric *basic, double runtime, const pm_metric *task);
/* The tree of one region in one run: root named after the region; global efficiency (parallel
 * efficiency with load balance and communication efficiency, computation scalability), speedup
 * and the region's time. */
pm_metric *rp_tree_region(const char *name, const pm_metric *scaling, const pm_metric *basic, double runtime);
/* A tree shaped like trees[0] whose values are the median / min / max (stat) over the trees'
 * values at the same path; n/a where no tree has a value. */
pm_metric *rp_tree_summary(pm_metric *const *trees, int n, int stat);
/* One tree for the text/Markdown/HTML region table of configuration cfg: region nodes "r<k>"
 * named after the region, valued with its global efficiency, children prefixed "r<k>_". Only
 * the regions in order[0..n-1] that the configuration entered. */
pm_metric *rp_tree_regions_table(const rp_study *s, int cfg, int stat, const int *order, int n);

/* ------------------------------------------------------------------------------ stats (rp_stats.c) */
/* median (mean of the middle two for an even count), min or max of v[0..n-1]; v is reordered. */
double rp_stat(double *v, int n, int stat);
/* Field-wise median of runs (processes and threads taken from the first). */
pm_scaling_run rp_scaling_run_median(const pm_scaling_run *const *runs, int n);

/* ------------------------------------------------------------------------ per-run data (rp_run.c) */
int rp_run_prepare(rp_run *r);
void rp_run_free_derived(rp_run *r, int nregions);
/* Region samples of a run (rp_regions.c): fills r->reg[] for the study's region names. */
int rp_run_regions(rp_run *r, const rp_region *regions, int nregions);
/* Collects the region names of all runs into s->regions (sorted, unique). */
int rp_study_collect_regions(rp_study *s);
int rp_region_find(const rp_study *s, const char *name);
#endif
