/* What the program publishes through popmeter.h about its own work: a tree of task tags
 * (pm_tag_publish) and quantities over time (pm_quantity_set). Both are kept in bounded memory per
 * process and join the process profile as its "published" part (lib/profile/pm_profile_published.h)
 * through the module below. */
#ifndef PM_PUBLISHED_H
#define PM_PUBLISHED_H
#include "pm_core.h"
struct pm_profile;
struct pm_prof_published;

/* The module (pm_module.h): to_profile adds the published part, when anything was published. */
PM_HIDDEN extern const struct pm_module pm_published_module;

/* The tag tree published so far, sorted by tag, first record of each tag kept; the series with
 * their times relative to t_start. Adds them to *out (allocated when NULL). 0, or -1 out of memory. */
PM_HIDDEN int pm_tag_tree_to_profile(struct pm_prof_published **out);
PM_HIDDEN int pm_quantity_to_profile(struct pm_prof_published **out, uint64_t t_start);

/* The series' bins: PM_QUANTITY_BINS of a width that starts at PM_QUANTITY_BIN0_NS and doubles
 * (pairs of bins merged) whenever a value falls beyond the last bin. */
#define PM_QUANTITY_MAX 16
#define PM_QUANTITY_BINS 1024
#define PM_QUANTITY_BIN0_NS 10000

/* Tests: the same entry points with an explicit time, and forgetting everything. */
PM_HIDDEN void pm_quantity_set_at(const char *name, double value, uint64_t now);
PM_HIDDEN void pm_published_reset(void);
#endif
