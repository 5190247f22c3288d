/* The project's own .cubex reader and structural checker.
 *
 * cube_dump is not available here, and it accepts many broken files silently (all-zero metrics,
 * byte-swapped values, rc 0), so this reader is what the tests rely on. cubex_open checks
 * everything listed in docs/cube-format.md that can be checked without CubePL:
 *   tar:    ustar headers and checksums, CubeLib's padding rule (an exact multiple of 512 is followed
 *           by an extra zero block; standard-tar padding is detected and named), zero padding,
 *           the two end blocks, member names, no duplicates, anchor.xml present and last;
 *   anchor: the CubeLib XML subset (cubex_xml.h), element order and required children, known
 *           dtypes and metric types, derived metrics with <cubepl> and no data files, unique
 *           uniq_names, metric/region/cnode/location/location-group ids unique and 0..k-1, valid
 *           calleeIds, GPU locations only with version 4.7;
 *   data:   index marker, endianness word 1, version 0, DENSE (18 bytes) or SPARSE (increasing
 *           positions), data marker, data size = 10 + rows * L * sizeof(dtype).
 * Values are then read in CubeLib's row order for the metric's type (EXCLUSIVE: depth-first
 * pre-order; INCLUSIVE: "wide search"; SIMPLE: id order). A wrong row order is not detectable
 * structurally; reading values back by call path (golden tests) is what catches it. */
#ifndef CUBEX_READ_H
#define CUBEX_READ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cubex cubex;

/* Reads and checks a file / a buffer (copied). NULL with a one-line message in err when invalid. */
cubex *cubex_open(const char *path, char *err, size_t errlen);
cubex *cubex_open_buffer(const void *data, size_t size, char *err, size_t errlen);
void cubex_close(cubex *c);

const char *cubex_version(const cubex *c);               /* "4.4" */
const char *cubex_attr(const cubex *c, const char *key); /* top-level <attr>, NULL when absent */
int cubex_nmetrics(const cubex *c);
int cubex_ncnodes(const cubex *c);
int cubex_nregions(const cubex *c);
int cubex_nlocations(const cubex *c);
int cubex_nmembers(const cubex *c);
const char *cubex_member_name(const cubex *c, int i); /* in archive order */
size_t cubex_member_size(const cubex *c, int i);
size_t cubex_member_offset(const cubex *c, int i); /* of the member's data in the file */

/* Metrics by id. */
int cubex_metric_find(const cubex *c, const char *uniq_name); /* id, or -1 */
const char *cubex_metric_uniq(const cubex *c, int m);
const char *cubex_metric_type(const cubex *c, int m); /* "EXCLUSIVE", "INCLUSIVE", "POSTDERIVED", ... */
const char *cubex_metric_dtype(const cubex *c, int m);
const char *cubex_metric_uom(const cubex *c, int m);
const char *cubex_metric_cubepl(const cubex *c, int m); /* NULL when none */
const char *cubex_metric_aggr(const cubex *c, int m);   /* <cubeplaggr cubeplaggrtype=aggr>, NULL when none */
int cubex_metric_parent(const cubex *c, int m);         /* -1 for a root */
int cubex_metric_stored(const cubex *c, int m);         /* 1 when it has data files */

/* Call tree and regions. */
const char *cubex_region_name(const cubex *c, int r);
const char *cubex_region_child_text(const cubex *c, int r, const char *tag); /* e.g. "paradigm", NULL if absent */
int cubex_cnode_region(const cubex *c, int cn);
int cubex_cnode_parent(const cubex *c, int cn);
const char *cubex_cnode_name(const cubex *c, int cn); /* the callee region's name */
/* The call path "main/solve/MPI_Send" (region names from a root, '/'-separated); -1 if none. */
int cubex_cnode_find(const cubex *c, const char *path);
/* The cnode stored in row k of a metric of this type (CubeLib's order). */
int cubex_row_cnode(const cubex *c, int m, int k);

/* System tree. */
const char *cubex_location_name(const cubex *c, int loc);
const char *cubex_location_type(const cubex *c, int loc);
int cubex_location_group(const cubex *c, int loc); /* location-group id */
int cubex_group_rank(const cubex *c, int g);

/* Values of stored metrics. view: stored as the file holds it, or along the call tree inclusive
 * (the call path and its callees) / exclusive (the call path alone), derived from the storage type
 * the way CubeLib does. Returns 0, or -1 (not a stored numeric metric, index out of range). */
typedef enum { CUBEX_STORED, CUBEX_INCL, CUBEX_EXCL } cubex_view;
int cubex_value(const cubex *c, int m, int cnode, int loc, cubex_view view, double *v);

/* Prints "cnode(id=K)<TAB>location<TAB>value" for every stored row, in file order; view as above.
 * Returns 0, or -1 with a message on out (unknown or derived metric, non-numeric dtype). */
int cubex_dump(FILE *out, const cubex *c, const char *uniq_name, cubex_view view);

/* The command line of cubex_check (see cubex_check.c for the usage). Writes results to out and
 * diagnostics to errout; returns the exit status: 0 valid, 1 invalid, 2 usage error. */
int cubex_cli(int argc, char **argv, FILE *out, FILE *errout);
#endif
