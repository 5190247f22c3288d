/* Shared internals of the .cubex reader (cubex_*.c). */
#ifndef CUBEX_INTERNAL_H
#define CUBEX_INTERNAL_H
#include "cubex_read.h"
#include "cubex_xml.h"

/* ------------------------------------------------------------------------------------- tar layer */
typedef struct {
  char name[101];
  size_t off, size;
} cx_member;
/* Lists the members of a CubeLib tar archive, checking the layout (see cubex_read.h). Returns 0, or
 * -1 with a message. *mem is malloc'd. */
int cx_tar_scan(const unsigned char *buf, size_t size, cx_member **mem, int *nmem, char *err, size_t errlen);

/* -------------------------------------------------------------------------------------- the file */
typedef struct {
  const cx_node *node;
  int id;
  const char *uniq, *type, *dtype, *uom, *cubepl, *aggr;
  int parent, derived, ghost;
  int dsize; /* bytes per value */
  char kind; /* 'f' IEEE float/double, 'u' unsigned, 'i' signed, 0 not a plain number */
  int index_member, data_member;
  int nrows;      /* rows in the data file */
  int *row_cnode; /* row -> cnode */
  int *cnode_row; /* cnode -> row, -1 when a sparse file has no row for it */
} cx_metric;

struct cubex {
  unsigned char *buf;
  size_t size;
  cx_member *mem;
  int nmem;
  cx_node *root;
  const char *version;
  cx_metric *met;
  int nmet;
  const cx_node **reg; /* by id */
  int nreg;
  int ncn;
  int *cn_region, *cn_parent;
  int *cn_first, *cn_next; /* children in document order */
  int cn_root;             /* first root; roots chained through cn_next */
  const cx_node **loc;     /* by id */
  int *loc_group;
  int nloc;
  int *group_rank;
  int ngroup;
};

/* Row orders of CubeLib (cubex_values.c): fills m->row_cnode/cnode_row from the call tree. */
int cx_row_order(cubex *c, cx_metric *m, const uint32_t *sparse_pos, int npos);
#endif
