/* Fuzz target: mfsolve's Matrix Market reader (solver/mfs_mmread.c) on an in-memory file. A
 * matrix it accepts must be a valid symmetric lower-triangle CSC matrix (mfs_matrix_check); a file
 * it refuses must leave a message and nothing allocated. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char empty = '\0';
  /* fmemopen refuses a zero-sized buffer: an empty file is one NUL byte read as text */
  FILE *f = size ? fmemopen((void *)data, size, "r") : fmemopen(&empty, 1, "r");
  if (!f) return 0;
  mfs_matrix A;
  mfs_error err;
  memset(&A, 0, sizeof A);
  memset(&err, 0, sizeof err);
  mfs_status st = mfs_matrix_read_mm_stream(f, "fuzz.mtx", &A, &err);
  fclose(f);
  if (st != MFS_OK) {
    if (!err.msg[0]) {
      fprintf(stderr, "mfs_matrix_read_mm_stream failed (%d) without a message\n", (int)st);
      abort();
    }
    return 0;
  }
  mfs_error chk;
  if (mfs_matrix_check(&A, &chk) != MFS_OK) {
    fprintf(stderr, "the reader accepted an invalid matrix: %s\n", chk.msg);
    abort();
  }
  (void)mfs_matrix_norm_inf(&A);
  mfs_matrix_free(&A);
  return 0;
}
