/*
 * mfs_matrix_build.h — CSC construction shared by the triplet builder and the Matrix Market reader.
 */
#ifndef MFS_MATRIX_BUILD_H
#define MFS_MATRIX_BUILD_H

#include "mfs.h"

/* Builds A (rows sorted, duplicates summed) from nz triplets that are already in the stored
 * triangle (the caller decides which). When line_out is non-NULL it receives, per stored entry, the
 * line[] value of its first triplet — the reader uses it to name the line of an asymmetric entry. */
mfs_status csc__build(int32_t n, int64_t nz, const int32_t *ri, const int32_t *ci, const double *v, const long *line,
                      mfs_matrix *A, long **line_out, mfs_error *err);

#endif
