/* Internals of the CUBE writer shared by its files (pm_cube*.c); not an API for other modules.
 * Format facts: docs/cube-format.md. */
#ifndef PM_CUBE_INTERNAL_H
#define PM_CUBE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "pm_profile.h"

struct pm_metric;

/* ------------------------------------------------------------------------ growable text buffer */
/* The anchor is built in memory because its size goes into the tar header before its bytes. An
 * allocation failure is sticky (failed = 1) so callers check once at the end. */
typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} pm_cube_buf;
void pm_cube_buf_printf(pm_cube_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pm_cube_buf_puts(pm_cube_buf *b, const char *s);
/* Appends text escaped for XML content and attribute values (&lt; &gt; &amp; &quot; &apos;). Control
 * characters, which XML 1.0 forbids and CubeLib's scanner mangles, become spaces. */
void pm_cube_buf_escaped(pm_cube_buf *b, const char *s);
void pm_cube_buf_free(pm_cube_buf *b);

/* -------------------------------------------------------------------------------- metric table */
/* Stored metrics are all EXCLUSIVE along the call tree (CubeLib derives the inclusive view); a
 * metric stored INCLUSIVE would need its own row order (CubeLib's "wide search"), which only the
 * checker in tests/golden implements. */
typedef enum {
  PM_CUBE_EXCLUSIVE,
  PM_CUBE_POSTDERIVED,
  PM_CUBE_PREDERIVED_INCLUSIVE,
  PM_CUBE_PREDERIVED_EXCLUSIVE
} pm_cube_mtype;
typedef enum { PM_CUBE_DOUBLE, PM_CUBE_UINT64 } pm_cube_dtype;
typedef enum {
  PM_CUBE_SRC_STATES,   /* sum of the exclusive times of the states in `states` */
  PM_CUBE_SRC_COUNT,    /* the uint64_t field of pm_prof_value at `count_offset` */
  PM_CUBE_SRC_DERIVED,  /* no data: CubePL expression */
  PM_CUBE_SRC_COUNTER,  /* hardware counter `count_offset` of the profile's counters (pm_cube_counters.c) */
  PM_CUBE_SRC_TRANSFER, /* pm_prof_value's mpi_transfer (seconds) */
  PM_CUBE_SRC_CPU_WAIT  /* the location's cpu_wait (seconds; unknown: 0), at the first root call path */
} pm_cube_source;

typedef struct {
  const char *uniq, *disp, *uom, *descr;
  int parent; /* index of the parent metric in the table, -1 for a root */
  pm_cube_mtype type;
  pm_cube_dtype dtype;
  pm_cube_source src;
  unsigned states;     /* SRC_STATES: bit (1u << pm_state) per state summed */
  size_t count_offset; /* SRC_COUNT */
  const char *cubepl;  /* SRC_DERIVED: expression; "@N@" stands for the number of compute locations */
  const char *aggr;    /* SRC_DERIVED: system-tree aggregation expression (arg1, arg2), or NULL (sum) */
  /* PREDERIVED only: how CubeLib folds call paths (plus) and takes a call path's exclusive value
   * from its inclusive one (minus); NULL: its defaults (+, -) */
  const char *plus, *minus;
  int ghost; /* a helper the GUI does not show (viztype GHOST) */
  int init;  /* carries the <cubeplinit> that fills ${pop_compute} (pm_cube_init_expression) */
} pm_cube_metric_def;

/* The table, in pre-order of the metric tree (a parent precedes its children, and each subtree is
 * contiguous), so a metric's CUBE id is its index. */
extern const pm_cube_metric_def pm_cube_metrics[];
extern const int pm_cube_nmetrics;
/* How many rows of the table a file of profile p has: the last PM_CUBE_NTRANSFER rows (MPI transfer
 * time and what is derived from it) only when p measured the transfer time (has_mpi_transfer). */
#define PM_CUBE_NTRANSFER 6
int pm_cube_nmetrics_of(const pm_profile *p);
/* The CubePL text of a derived metric with @N@ replaced by ncompute; malloc'd, NULL out of memory. */
char *pm_cube_expression(const pm_cube_metric_def *m, int ncompute);
struct pm_cube_layout;
/* The <cubeplinit> program: the global array ${pop_compute}[location id] = 1 for a compute location,
 * 0 for a progress thread or a device stream. malloc'd, NULL out of memory. */
char *pm_cube_init_expression(const pm_profile *p, const struct pm_cube_layout *lay);
/* Value of a stored metric for one profile value (a UINT64 metric's value is exact in the double
 * only up to 2^53; pm_cube_count gives the exact integer). */
double pm_cube_time_of(const pm_cube_metric_def *m, const pm_prof_value *v);
uint64_t pm_cube_count_of(const pm_cube_metric_def *m, const pm_prof_value *v);
/* A per-location metric's value for location l (PM_CUBE_SRC_CPU_WAIT), written at the first root
 * call path; 0 for every other source. */
double pm_cube_location_value(const pm_cube_metric_def *m, const pm_prof_location *l);

/* ------------------------------------------------------------------------ counter metrics */
/* The hardware-counter metrics of one file (pm_cube_counters.c), ids pm_cube_nmetrics_of(p) + k, all
 * roots after the table; none when the profile counted nothing. */
typedef struct {
  int n;
  pm_cube_metric_def *m;
  char **owned; /* strings the rows point to */
  int nowned;
} pm_cube_counter_metrics;
int pm_cube_counter_metrics_build(const pm_profile *p, pm_cube_counter_metrics *cm); /* 0 or -1 */
void pm_cube_counter_metrics_free(pm_cube_counter_metrics *cm);
/* The count of a PM_CUBE_SRC_COUNTER metric for profile value value_index (0 when not counted). */
uint64_t pm_cube_counter_of(const pm_profile *p, const pm_cube_metric_def *m, int value_index);

/* ---------------------------------------------------------------------------- call-tree order */
/* Fills order[k] = the cnode id stored in row k of the data file of an EXCLUSIVE metric: depth-first
 * pre-order of the call tree, children in id order (the anchor nests them that way), roots in id
 * order. This is also the nesting order of the anchor. cnodes must be parents-first. Returns 0, or
 * -1 out of memory. */
int pm_cube_preorder(const pm_prof_cnode *cn, int n, int *order);

/* ------------------------------------------------------------------------------- system layout */
/* CUBE numbers locations (= data columns) in document order of the system tree, which nests them
 * machine -> node -> process -> location. col[i] is the CUBE location id of profile location i;
 * loc_of_col is the inverse; group_of_proc[p] the location-group id of process p. */
typedef struct pm_cube_layout {
  int *col, *loc_of_col, *group_of_proc, *proc_of_group;
  int ncompute; /* locations counted by the basic POP model (all but progress/device) */
  int has_gpu;  /* a device location exists: needs anchor version 4.7 */
} pm_cube_layout;
int pm_cube_layout_build(const pm_profile *p, pm_cube_layout *lay);
void pm_cube_layout_free(pm_cube_layout *lay);

/* --------------------------------------------------------------------------------------- anchor */
/* Writes the whole anchor.xml into b (check b->failed). models may be NULL; counters may be NULL
 * (no counter metrics). */
void pm_cube_anchor(pm_cube_buf *b, const pm_profile *p, const pm_cube_layout *lay,
                    const struct pm_metric *const *models, int nmodels, const pm_cube_counter_metrics *counters);
#endif
