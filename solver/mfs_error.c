/*
 * mfs_error.c — the one error enum of libmfsolve and the message helper every module uses.
 */
#include "mfs_internal.h"

#include <stdarg.h>
#include <stdio.h>

const char *mfs_strerror(mfs_status s) {
  switch (s) {
  case MFS_OK: return "success";
  case MFS_ERR_ARG: return "invalid argument";
  case MFS_ERR_NOMEM: return "out of memory";
  case MFS_ERR_IO: return "input/output error";
  case MFS_ERR_FORMAT: return "malformed Matrix Market file";
  case MFS_ERR_UNSUPPORTED: return "unsupported matrix";
  case MFS_ERR_NOT_SYMMETRIC: return "matrix is not symmetric";
  case MFS_ERR_NOT_SPD: return "matrix is not positive definite";
  case MFS_ERR_ORDERING: return "ordering failed";
  case MFS_ERR_OVERFLOW: return "problem too large for the index types";
  case MFS_ERR_INTERNAL: return "internal error";
  }
  return "unknown error";
}

mfs_status err__set(mfs_error *err, mfs_status status, long line, int64_t column, const char *fmt, ...) {
  if (!err) return status;
  err->status = status;
  err->line = line;
  err->column = column;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return status;
}
