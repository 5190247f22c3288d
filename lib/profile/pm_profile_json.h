/* jansson-level access to the run profile's JSON form (schema: docs/json-schema.md). */
#ifndef PM_PROFILE_JSON_H
#define PM_PROFILE_JSON_H
#include <jansson.h>
#include "pm_profile.h"
json_t *pm_profile_to_json(const pm_profile *p);
pm_profile *pm_profile_from_json(const json_t *root, char *err, size_t errlen);
#endif
