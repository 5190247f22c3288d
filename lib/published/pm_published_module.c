/* The module that adds what the program published (popmeter.h: tag tree, quantities) to the
 * process profile. It needs no other step: publishing works from the first call on. */
#include "pm_published.h"
#include "pm_module.h"
#include "pm_profile.h"
#include "pm_profile_published.h"

PM_HIDDEN void pm_tag_tree_reset(void);
PM_HIDDEN void pm_quantity_reset(void);

static int to_profile(pm_profile *p, uint64_t t_start) {
  if (pm_tag_tree_to_profile(&p->published) != 0) return -1;
  return pm_quantity_to_profile(&p->published, t_start);
}

void pm_published_reset(void) {
  pm_tag_tree_reset();
  pm_quantity_reset();
}

/* after the substrates, before the outputs: nothing depends on it */
const pm_module pm_published_module = {.name = "published", .order = PM_ORDER_IO + 1, .to_profile = to_profile};
