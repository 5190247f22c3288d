/* profile.cubex: the run profile as a CUBE 4 profile for the Cube GUI (docs/cube.md).
 *
 * Written by popmeter itself (CubeW is not available), following docs/cube-format.md: a tar
 * archive with CubeLib's padding rule, one dense uncompressed data file per stored metric in the
 * row order CubeLib expects, and anchor.xml last. Pure: no global state, no MPI; used by the live
 * library at the end of a run and by offline tools. */
#ifndef PM_CUBE_H
#define PM_CUBE_H
#include <stddef.h>
#include "pm_profile.h"

struct pm_metric;

/* Writes p to path (which must end in ".cubex", CubeLib's requirement). The file appears
 * atomically: it is written to a temporary name in the same directory (created with
 * O_EXCL|O_NOFOLLOW) and then moved into place. Without overwrite an existing path is never
 * replaced (error); with overwrite it is replaced in one step.
 *
 * models (NULL or nmodels trees, NULL entries allowed) are the computed POP models; their values
 * become attributes "popmeter::model::<model>/<id>/..." of the file. The per-call-path POP
 * efficiencies are CubePL derived metrics computed by the Cube GUI from the stored useful time.
 *
 * Returns 0, or -1 with a one-line message in err (nothing is left behind at path or at the
 * temporary name). */
int pm_cube_write(const pm_profile *p, const struct pm_metric *const *models, int nmodels, const char *path,
                  int overwrite, char *err, size_t errlen) __attribute__((visibility("hidden")));
#endif
