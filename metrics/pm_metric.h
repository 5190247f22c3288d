/* The metric tree shared by every POP model, the renderers and the writers.
 *
 * A node is one named quantity ("Parallel efficiency", id "pe") with either a finite value, an
 * explicit "n/a" plus the reason, or no value at all (a heading such as a model's root). Children
 * say how they combine into their parent (product, additive inefficiencies, or not at all), so the
 * renderers and the tests can check and explain the hierarchy.
 *
 * Invariant kept by this module: a stored value is always finite. Setting NaN or +-inf turns the
 * node into n/a, so no renderer can ever print "nan" or "inf".
 *
 * The struct is public so that writers (JSON, CUBE, table) can walk it directly; build and modify
 * nodes only through the functions below. */
#ifndef PM_METRIC_H
#define PM_METRIC_H
#include <stddef.h>

typedef enum {
  PM_COMBINE_NONE = 0, /* children are related information, not a decomposition */
  PM_COMBINE_PRODUCT,  /* parent = product of the children */
  PM_COMBINE_ADDITIVE  /* 1 - parent = sum over children of (1 - child) */
} pm_combine;

typedef enum {
  PM_METRIC_HEADING = 0, /* no value by design (a model root, a group) */
  PM_METRIC_VALUE,       /* value is set and finite */
  PM_METRIC_NA           /* cannot be computed from this run; na_reason says why */
} pm_metric_state;

typedef struct pm_metric {
  char *id;          /* [a-z0-9_]+, unique within one model tree */
  char *name;        /* human name, e.g. "Parallel efficiency" */
  char *unit;        /* "" for efficiencies (fractions), "s", "%", ... */
  char *description; /* one sentence for the user */
  pm_metric_state state;
  double value;       /* valid (and finite) only when state == PM_METRIC_VALUE */
  char *na_reason;    /* non-NULL exactly when state == PM_METRIC_NA */
  char *warning;      /* optional warning attached to the value (NULL: none) */
  pm_combine combine; /* how the children combine into this node */
  int may_exceed_one; /* derived contribution: may exceed 1, shown unclamped and flagged */
  struct pm_metric *parent;
  struct pm_metric **children;
  size_t nchildren;
  size_t cap_;       /* internal: capacity of children */
  int alloc_failed_; /* internal: an allocation for this node or a descendant failed */
} pm_metric;

/* Safe division: stores num/den in *out and returns 1 when den != 0 and the quotient is finite;
 * otherwise stores 0 and returns 0. Every ratio in libpopmetrics goes through this. */
int pm_safe_div(double num, double den, double *out);

/* A new detached node (heading state, no value). id must match [a-z0-9_]+; name must be non-empty;
 * unit and description may be NULL (stored as ""). Returns NULL on a bad id/name or no memory. */
pm_metric *pm_metric_new(const char *id, const char *name, const char *unit, const char *description);

/* Appends child to parent and returns child. If child is NULL (allocation failed) or the append
 * fails, the parent is marked failed (see pm_metric_ok) and the child freed; returns NULL.
 * parent NULL: frees child, returns NULL. */
pm_metric *pm_metric_add(pm_metric *parent, pm_metric *child);

/* pm_metric_new + pm_metric_add in one call. */
pm_metric *pm_metric_add_new(pm_metric *parent, const char *id, const char *name, const char *unit,
                             const char *description);

/* Sets a value; a non-finite value makes the node n/a ("non-finite result") instead. */
void pm_metric_set_value(pm_metric *m, double value);
/* Makes the node n/a with the given reason (NULL or "" -> "not available"). */
void pm_metric_set_na(pm_metric *m, const char *reason);
/* printf-style variant of pm_metric_set_na. */
void pm_metric_set_na_fmt(pm_metric *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void pm_metric_set_warning(pm_metric *m, const char *warning); /* NULL clears */
void pm_metric_set_combine(pm_metric *m, pm_combine combine);
void pm_metric_set_may_exceed_one(pm_metric *m, int flag);

/* 1 when the node and all its descendants were built without allocation failure. */
int pm_metric_ok(const pm_metric *m);

/* Frees a node and its subtree (detaching it from its parent is the caller's business: free only
 * roots, or nodes never added). NULL is fine. */
void pm_metric_free(pm_metric *m);

/* Finds a node by a '/'-separated path of ids below root, e.g. "pe/lb". A leading component equal
 * to root's own id is accepted too ("basic/pe/lb"). "" returns root. NULL when not found.
 * Returns a non-const pointer into the tree given (like strchr). */
pm_metric *pm_metric_find(const pm_metric *root, const char *path);

/* Value access: returns 1 and stores the value when the node (or the node at path) has one. */
int pm_metric_get(const pm_metric *m, double *value);
int pm_metric_get_path(const pm_metric *root, const char *path, double *value);

/* Names of the combine kinds as used in JSON: "none", "product", "additive". */
const char *pm_combine_name(pm_combine c);

/* 1 when id matches [a-z0-9_]+ */
int pm_metric_id_valid(const char *id);

#endif
