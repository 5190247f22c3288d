/*
 * mfs_generate.c — built-in SPD test matrices: 2D 5-point, 3D 7-point and 3D 27-point stencils on
 * nx x ny x nz grids with Dirichlet boundaries. The diagonal equals the number of neighbours of an
 * interior point, so every row is weakly diagonally dominant and rows at the boundary strictly: the
 * matrices are irreducibly diagonally dominant, hence SPD, at any size.
 *
 * Columns are written directly in CSC order (each column's lower entries are the neighbours with a
 * larger linear index, which come out ascending when offsets are visited z-major), so no sort and
 * exactly one allocation per array.
 */
#include "mfs_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

mfs_status mfs_matrix_stencil(mfs_stencil kind, int nx, int ny, int nz, mfs_matrix *A, mfs_error *err) {
  memset(A, 0, sizeof *A);
  if (nx < 1 || ny < 1 || nz < 1 || (kind == MFS_STENCIL_LAP2D5 && nz != 1))
    return err__set(err, MFS_ERR_ARG, 0, -1, "invalid grid %d x %d x %d", nx, ny, nz);
  int64_t n64 = (int64_t)nx * ny * nz;
  if (n64 >= INT32_MAX)
    return err__set(err, MFS_ERR_OVERFLOW, 0, -1, "grid of %lld points exceeds the 32-bit index range", (long long)n64);
  int32_t n = (int32_t)n64;
  int reach = (kind == MFS_STENCIL_LAP3D27) ? 1 : 0; /* diagonal neighbours allowed */
  double diag = kind == MFS_STENCIL_LAP2D5 ? 4.0 : kind == MFS_STENCIL_LAP3D7 ? 6.0 : 26.0;
  int maxlower = kind == MFS_STENCIL_LAP2D5 ? 3 : kind == MFS_STENCIL_LAP3D7 ? 4 : 14;

  A->colptr = mem__alloc(((size_t)n + 1) * sizeof *A->colptr);
  A->rowind = mem__alloc((size_t)n * maxlower * sizeof *A->rowind);
  A->val = mem__alloc((size_t)n * maxlower * sizeof *A->val);
  if (!A->colptr || !A->rowind || !A->val) {
    mfs_matrix_free(A);
    return err__nomem(err);
  }
  int64_t p = 0;
  int32_t j = 0;
  int64_t sxy = (int64_t)nx * ny;
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++, j++) {
        A->colptr[j] = p;
        A->rowind[p] = j;
        A->val[p++] = diag;
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              int64_t off = dx + (int64_t)nx * dy + sxy * dz;
              if (off <= 0) continue; /* upper triangle or the diagonal */
              if (!reach && abs(dx) + abs(dy) + abs(dz) != 1) continue;
              if (x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny || z + dz < 0 || z + dz >= nz) continue;
              A->rowind[p] = (int32_t)(j + off);
              A->val[p++] = -1.0;
            }
      }
  A->colptr[n] = p;
  A->n = n;
  A->nnz = p;
  return MFS_OK;
}

/* "N" or "NXxNY[xNZ]": returns the number of dimensions parsed (0 on error). */
static int parse_dims(const char *s, int dims[3]) {
  int k = 0;
  for (;;) {
    if (!isdigit((unsigned char)*s) || k == 3) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (v < 1 || v > 100000000) return 0;
    dims[k++] = (int)v;
    if (*end == '\0') return k;
    if (*end != 'x' && *end != 'X') return 0;
    s = end + 1;
  }
}

mfs_status mfs_matrix_generate(const char *spec, mfs_matrix *A, mfs_error *err) {
  memset(A, 0, sizeof *A);
  const char *colon = spec ? strchr(spec, ':') : NULL;
  if (!colon)
    return err__set(err, MFS_ERR_ARG, 0, -1, "generator '%s' must be KIND:SIZE with KIND lap2d, lap3d or lap3d27",
                    spec ? spec : "");
  size_t klen = (size_t)(colon - spec);
  mfs_stencil kind;
  int dim;
  if (klen == 5 && strncmp(spec, "lap2d", 5) == 0) {
    kind = MFS_STENCIL_LAP2D5;
    dim = 2;
  } else if (klen == 5 && strncmp(spec, "lap3d", 5) == 0) {
    kind = MFS_STENCIL_LAP3D7;
    dim = 3;
  } else if (klen == 7 && strncmp(spec, "lap3d27", 7) == 0) {
    kind = MFS_STENCIL_LAP3D27;
    dim = 3;
  } else {
    return err__set(err, MFS_ERR_ARG, 0, -1, "unknown generator '%.*s' (expected lap2d, lap3d or lap3d27)", (int)klen,
                    spec);
  }
  int d[3] = {1, 1, 1};
  int k = parse_dims(colon + 1, d);
  if (k == 1) d[1] = d[2] = d[0];
  if (dim == 2) d[2] = 1;
  if (!(k == 1 || k == dim))
    return err__set(err, MFS_ERR_ARG, 0, -1, "generator '%s': size must be N or %s of positive integers", spec,
                    dim == 2 ? "NXxNY" : "NXxNYxNZ");
  return mfs_matrix_stencil(kind, d[0], d[1], d[2], A, err);
}
