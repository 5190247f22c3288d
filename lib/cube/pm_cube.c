/* pm_cube_write: validation, data files, and the atomic creation of the .cubex archive.
 *
 * Member order follows cubew: <id>.data and <id>.index per stored metric in id order, anchor.xml
 * last, then the two end blocks. The anchor is the only member whose size can be a multiple of 512
 * (data files are 10 + 8k bytes, indexes 18); last, it cannot hide other members even from a
 * reader that uses standard tar padding (GNU tar, Python's tarfile). Data rows are
 * DENSE (one row per call path, one value per location, little-endian) because a profile has values
 * for most call paths of most locations and a dense index is 18 bytes. */
#define _GNU_SOURCE
#include "pm_cube.h"
#include "pm_file.h"
#include "pm_cube_internal.h"
#include "pm_tar.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char *err;
  size_t errlen;
} errbuf;

static int fail(errbuf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(errbuf *e, const char *fmt, ...) {
  if (e->err && e->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* The writer trusts nothing about a profile read from JSON by an offline tool: every index it
 * will dereference is checked here, and CubeLib's minimum (a metric, a region, a call path and a
 * location) is required. */
static int validate(const pm_profile *p, const char *path, errbuf *e) {
  size_t n = strlen(path);
  if (n > 4000) return fail(e, "output path too long (%zu bytes)", n);
  if (n < 6 || strcmp(path + n - 6, ".cubex") != 0)
    return fail(e, "%s: a CUBE file name must end in .cubex (CubeLib finds it by that suffix)", path);
  if (p->nlocations <= 0 || p->ncnodes <= 0 || p->nregions <= 0 || p->nprocesses <= 0)
    return fail(e, "%s: the profile has no %s; CUBE needs at least one", path,
                p->nprocesses <= 0   ? "process"
                : p->nlocations <= 0 ? "location"
                                     : "call path");
  for (int i = 0; i < p->nprocesses; i++)
    if (p->proc[i].node < 0 || p->proc[i].node >= p->nnodes)
      return fail(e, "%s: process %d has node %d outside 0..%d (profile not finished?)", path, i, p->proc[i].node,
                  p->nnodes - 1);
  for (int i = 0; i < p->nlocations; i++)
    if (p->loc[i].process < 0 || p->loc[i].process >= p->nprocesses)
      return fail(e, "%s: location %d refers to process %d of %d", path, i, p->loc[i].process, p->nprocesses);
  for (int i = 0; i < p->ncnodes; i++)
    if (p->cnode[i].parent < -1 || p->cnode[i].parent >= i || p->cnode[i].region < 0 ||
        p->cnode[i].region >= p->nregions)
      return fail(e, "%s: call path %d has parent %d and region %d: not parents-first or out of range", path, i,
                  p->cnode[i].parent, p->cnode[i].region);
  for (int i = 0; i < p->nvalues; i++)
    if (p->val[i].cnode < 0 || p->val[i].cnode >= p->ncnodes || p->val[i].location < 0 ||
        p->val[i].location >= p->nlocations)
      return fail(e, "%s: value %d refers to call path %d / location %d out of range", path, i, p->val[i].cnode,
                  p->val[i].location);
  return 0;
}

/* ------------------------------------------------------------------------------- data members */
static void put_le(unsigned char *o, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++, v >>= 8) o[i] = (unsigned char)(v & 0xff);
}

/* Per-call-path lists of value indices (CSR), so a row is built from its own values only. */
typedef struct {
  int *start, *idx;
} by_cnode;

static int index_values(const pm_profile *p, by_cnode *bc) {
  bc->start = calloc((size_t)p->ncnodes + 1, sizeof(int));
  bc->idx = malloc(sizeof(int) * (size_t)(p->nvalues + 1));
  int *fill = malloc(sizeof(int) * (size_t)(p->ncnodes + 1));
  if (!bc->start || !bc->idx || !fill) {
    free(fill);
    return -1;
  }
  for (int i = 0; i < p->nvalues; i++) bc->start[p->val[i].cnode + 1]++;
  for (int c = 0; c < p->ncnodes; c++) bc->start[c + 1] += bc->start[c];
  memcpy(fill, bc->start, sizeof(int) * (size_t)p->ncnodes);
  for (int i = 0; i < p->nvalues; i++) bc->idx[fill[p->val[i].cnode]++] = i;
  free(fill);
  return 0;
}

typedef struct {
  const pm_profile *p;
  const pm_cube_layout *lay;
  const int *order; /* row k holds call path order[k] */
  by_cnode bc;
  double *dacc; /* one row of sums, by column */
  uint64_t *uacc;
  unsigned char *row; /* the encoded row */
  uint64_t mtime;
} data_ctx;

/* Several values for one (call path, location) are summed: the profile does not promise
 * uniqueness, and a sum is what the call path's time is. */
static int write_data(FILE *f, data_ctx *d, int id, const pm_cube_metric_def *m) {
  const pm_profile *p = d->p;
  int L = p->nlocations;
  uint64_t size = 10 + (uint64_t)p->ncnodes * (uint64_t)L * 8;
  char name[32];
  snprintf(name, sizeof name, "%d.data", id);
  if (pm_tar_write_header(f, name, size, d->mtime) != 0 || fwrite("CUBEX.DATA", 1, 10, f) != 10) return -1;
  for (int k = 0; k < p->ncnodes; k++) {
    int c = d->order[k];
    if (m->dtype == PM_CUBE_DOUBLE)
      memset(d->dacc, 0, sizeof(double) * (size_t)L);
    else
      memset(d->uacc, 0, sizeof(uint64_t) * (size_t)L);
    for (int j = d->bc.start[c]; j < d->bc.start[c + 1]; j++) {
      const pm_prof_value *v = &p->val[d->bc.idx[j]];
      int col = d->lay->col[v->location];
      if (m->dtype == PM_CUBE_DOUBLE)
        d->dacc[col] += pm_cube_time_of(m, v);
      else if (m->src == PM_CUBE_SRC_COUNTER)
        d->uacc[col] += pm_cube_counter_of(p, m, d->bc.idx[j]);
      else
        d->uacc[col] += pm_cube_count_of(m, v);
    }
    if (m->src == PM_CUBE_SRC_CPU_WAIT && k == 0) /* the first row: a root call path */
      for (int l = 0; l < L; l++) d->dacc[d->lay->col[l]] = pm_cube_location_value(m, &p->loc[l]);
    for (int col = 0; col < L; col++) {
      uint64_t bits = d->uacc[col];
      if (m->dtype == PM_CUBE_DOUBLE) memcpy(&bits, &d->dacc[col], sizeof bits);
      put_le(d->row + 8 * col, bits, 8);
    }
    if (fwrite(d->row, 8, (size_t)L, f) != (size_t)L) return -1;
  }
  return pm_tar_write_padding(f, size);
}

/* DENSE index: "CUBEX.INDEX", uint32 endianness mark 1, uint16 version 0, uint8 format 3. */
static int write_index(FILE *f, int id, uint64_t mtime) {
  unsigned char ix[18];
  memcpy(ix, "CUBEX.INDEX", 11);
  put_le(ix + 11, 1, 4);
  put_le(ix + 15, 0, 2);
  ix[17] = 3;
  char name[32];
  snprintf(name, sizeof name, "%d.index", id);
  return pm_tar_write_member(f, name, ix, sizeof ix, mtime);
}

static int write_archive(FILE *f, const pm_profile *p, const pm_cube_layout *lay, const struct pm_metric *const *models,
                         int nmodels, errbuf *e) {
  data_ctx d = {.p = p, .lay = lay, .mtime = (uint64_t)time(NULL)};
  int L = p->nlocations, rc = -1;
  int *order = malloc(sizeof(int) * (size_t)p->ncnodes);
  d.dacc = malloc(sizeof(double) * (size_t)L);
  d.uacc = malloc(sizeof(uint64_t) * (size_t)L);
  d.row = malloc(8 * (size_t)L);
  pm_cube_buf anchor = {0};
  pm_cube_counter_metrics counters = {0};
  if (!order || !d.dacc || !d.uacc || !d.row || index_values(p, &d.bc) != 0 ||
      pm_cube_preorder(p->cnode, p->ncnodes, order) != 0 || pm_cube_counter_metrics_build(p, &counters) != 0) {
    fail(e, "out of memory");
    goto out;
  }
  d.order = order;
  if (10 + (uint64_t)p->ncnodes * (uint64_t)L * 8 > PM_TAR_MAX_SIZE) {
    fail(e,
         "%d call paths x %d locations need data members of 8 GiB or more, which this writer does not "
         "support",
         p->ncnodes, L);
    goto out;
  }
  int nfixed = pm_cube_nmetrics_of(p);
  for (int i = 0; i < nfixed; i++) {
    if (pm_cube_metrics[i].src == PM_CUBE_SRC_DERIVED) continue; /* CubePL only, no files */
    if (write_data(f, &d, i, &pm_cube_metrics[i]) != 0 || write_index(f, i, d.mtime) != 0) {
      fail(e, "write error: %s", strerror(errno));
      goto out;
    }
  }
  for (int k = 0; k < counters.n; k++) { /* hardware counters, when present */
    int id = nfixed + k;
    if (counters.m[k].src == PM_CUBE_SRC_DERIVED) continue;
    if (write_data(f, &d, id, &counters.m[k]) != 0 || write_index(f, id, d.mtime) != 0) {
      fail(e, "write error: %s", strerror(errno));
      goto out;
    }
  }
  pm_cube_anchor(&anchor, p, lay, models, nmodels, &counters);
  if (anchor.failed) {
    fail(e, "out of memory");
    goto out;
  }
  if (pm_tar_write_member(f, "anchor.xml", anchor.s, anchor.len, d.mtime) != 0 || pm_tar_write_end(f) != 0) {
    fail(e, "write error: %s", strerror(errno));
    goto out;
  }
  rc = 0;
out:
  pm_cube_buf_free(&anchor);
  pm_cube_counter_metrics_free(&counters);
  free(order);
  free(d.dacc);
  free(d.uacc);
  free(d.row);
  free(d.bc.start);
  free(d.bc.idx);
  return rc;
}

int pm_cube_write(const pm_profile *p, const struct pm_metric *const *models, int nmodels, const char *path,
                  int overwrite, char *err, size_t errlen) {
  errbuf e = {err, errlen};
  if (err && errlen) err[0] = '\0';
  if (!p || !path) return fail(&e, "no profile or no path given");
  if (validate(p, path, &e) != 0) return -1;
  pm_cube_layout lay;
  if (pm_cube_layout_build(p, &lay) != 0) return fail(&e, "out of memory");
  pm_afile af;
  if (pm_afile_open(&af, path, overwrite, err, errlen) != 0) {
    pm_cube_layout_free(&lay);
    return -1;
  }
  setvbuf(af.f, NULL, _IOFBF, 1 << 16);
  char why[512] = "";
  errbuf ew = {why, sizeof why};
  int rc = -1;
  if (write_archive(af.f, p, &lay, models, nmodels, &ew) != 0) {
    pm_afile_abort(&af);
    fail(&e, "writing %s failed: %s", path, why);
  } else {
    rc = pm_afile_commit(&af, err, errlen); /* flushed and synced: the whole new file or nothing */
  }
  pm_cube_layout_free(&lay);
  return rc;
}
