/*
 * mfs_mmread.c — Matrix Market reader ("matrix coordinate real|integer general|symmetric").
 *
 * Every malformed input ends in MFS_ERR_FORMAT (or UNSUPPORTED / NOT_SYMMETRIC) with the 1-based line
 * number, never in a crash: lines are read with getline (any length), numbers with strtoll/strtod and
 * full end-of-token checks, the entry count is checked both ways, and memory grows with the entries
 * actually read rather than trusting the header's NNZ (a lying header must not allocate terabytes).
 * Nor is the header's order trusted beyond the entries: NNZ >= N is required before the reader goes
 * on, so what is allocated for N is bounded by the entries actually read.
 */
#include "mfs_internal.h"
#include "mfs_matrix_build.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct {
  FILE *f;
  char *buf;
  size_t cap;
  long line;  /* number of the line in buf */
  int errnum; /* errno of a failed read */
} reader;

/* Reads the next line; returns 0 at end of file, -1 on a read error (its errno in r->errnum), -2 when
 * the line holds a NUL byte (not text: the line cannot be shown in a message, nor parsed). */
static int next_line(reader *r) {
  errno = 0;
  ssize_t len = getline(&r->buf, &r->cap, r->f);
  if (len < 0 && (ferror(r->f) || errno == ENOMEM)) {
    r->errnum = errno ? errno : EIO;
    return -1;
  }
  if (len < 0) return 0;
  r->line++;
  return memchr(r->buf, '\0', (size_t)len) ? -2 : 1;
}

/* Splits buf in place into at most max whitespace-separated tokens; returns the count (max+1 means
 * "more than max"). */
static int tokenize(char *s, char **tok, int max) {
  int n = 0;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f') s++;
    if (!*s) break;
    if (n == max) return max + 1;
    tok[n++] = s;
    while (*s && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f')) s++;
    if (*s) *s++ = '\0';
  }
  return n;
}

static int is_skippable(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == '\v' || *s == '\f') s++;
  return *s == '\0' || *s == '%';
}

static int parse_int(const char *t, long long *v) {
  char *end;
  errno = 0;
  *v = strtoll(t, &end, 10);
  return errno == 0 && end != t && *end == '\0';
}

static int parse_real(const char *t, double *v) {
  char *end;
  errno = 0;
  *v = strtod(t, &end);
  /* ERANGE on underflow is harmless (the value rounds to a denormal or 0); overflow gives inf */
  return end != t && *end == '\0';
}

typedef struct {
  int32_t *r, *c;
  double *v;
  long *line;
  int64_t n, cap;
  int64_t limit; /* the declared NNZ: growth never goes beyond it, so an honest file wastes nothing */
} triplets;

static int trip_push(triplets *t, int32_t r, int32_t c, double v, long line) {
  if (t->n == t->cap) {
    int64_t cap = t->cap ? 2 * t->cap : 1024;
    if (cap > t->limit) cap = t->limit > t->n ? t->limit : t->n + 1;
    int32_t *nr = mem__realloc(t->r, (size_t)cap * sizeof *nr);
    if (!nr) return 0;
    t->r = nr;
    int32_t *nc = mem__realloc(t->c, (size_t)cap * sizeof *nc);
    if (!nc) return 0;
    t->c = nc;
    double *nv = mem__realloc(t->v, (size_t)cap * sizeof *nv);
    if (!nv) return 0;
    t->v = nv;
    long *nl = mem__realloc(t->line, (size_t)cap * sizeof *nl);
    if (!nl) return 0;
    t->line = nl;
    t->cap = cap;
  }
  t->r[t->n] = r;
  t->c[t->n] = c;
  t->v[t->n] = v;
  t->line[t->n] = line;
  t->n++;
  return 1;
}

static void trip_free(triplets *t) {
  mem__free(t->r);
  mem__free(t->c);
  mem__free(t->v);
  mem__free(t->line);
  memset(t, 0, sizeof *t);
}

static int values_agree(double a, double b) {
  double m = fmax(fabs(a), fabs(b));
  return fabs(a - b) <= 1e-12 * m;
}

/* A "general" file must describe a symmetric matrix: compare its lower triangle L with the
 * transpose of its strict upper triangle U', column by column (both sorted). Missing = 0. */
static mfs_status check_symmetric(const mfs_matrix *L, const long *lline, const mfs_matrix *U, const long *uline,
                                  const char *name, mfs_error *err) {
  for (int32_t j = 0; j < L->n; j++) {
    int64_t p = L->colptr[j], pe = L->colptr[j + 1];
    int64_t q = U->colptr[j], qe = U->colptr[j + 1];
    if (p < pe && L->rowind[p] == j) p++; /* the diagonal has no mirror */
    while (p < pe || q < qe) {
      int32_t i;
      double a = 0.0, b = 0.0;
      long line;
      if (q >= qe || (p < pe && L->rowind[p] < U->rowind[q])) {
        i = L->rowind[p];
        a = L->val[p];
        line = lline[p++];
      } else if (p >= pe || U->rowind[q] < L->rowind[p]) {
        i = U->rowind[q];
        b = U->val[q];
        line = uline[q++];
      } else {
        i = L->rowind[p];
        a = L->val[p];
        b = U->val[q];
        line = lline[p++];
        q++;
      }
      if (!values_agree(a, b))
        return err__set(err, MFS_ERR_NOT_SYMMETRIC, line, -1,
                        "%s:%ld: matrix is not symmetric: A(%d,%d) = %.17g but A(%d,%d) = %.17g", name, line, i + 1,
                        j + 1, a, j + 1, i + 1, b);
    }
  }
  return MFS_OK;
}

/* In the functions below: fail with a message naming the current line (rd->line). */
#define FAIL(status, ...) return err__set(err, status, rd->line, -1, __VA_ARGS__)
/* rc: next_line's -1 (read error) or -2 (NUL byte) */
#define READ_FAIL(rc)                                                                                             \
  FAIL(rc == -2 ? MFS_ERR_FORMAT : MFS_ERR_IO,                                                                    \
       rc == -2 ? "%s:%ld: the line holds a NUL byte (not a text file?)%s" : "%s: read error after line %ld: %s", \
       name, rd->line, rc == -2 ? "" : strerror(rd->errnum))

/* The banner, "%%MatrixMarket matrix coordinate <field> <symmetry>"; *symmetric: whether the file
 * stores one triangle. */
static mfs_status read_banner(reader *rd, const char *name, int *symmetric, mfs_error *err) {
  char *tok[6];
  int rc = next_line(rd);
  if (rc < 0) READ_FAIL(rc);
  if (rc == 0) {
    rd->line = 1;
    FAIL(MFS_ERR_FORMAT, "%s:1: empty file (expected a %%%%MatrixMarket banner)", name);
  }
  int nt = tokenize(rd->buf, tok, 5);
  if (nt < 1 || strcmp(tok[0], "%%MatrixMarket") != 0)
    FAIL(MFS_ERR_FORMAT, "%s:1: missing '%%%%MatrixMarket' banner", name);
  if (nt != 5)
    FAIL(MFS_ERR_FORMAT, "%s:1: banner must read '%%%%MatrixMarket matrix coordinate <field> <symmetry>'", name);
  if (strcasecmp(tok[1], "matrix") != 0)
    FAIL(MFS_ERR_UNSUPPORTED, "%s:1: object '%s' is not supported (only 'matrix')", name, tok[1]);
  if (strcasecmp(tok[2], "array") == 0)
    FAIL(MFS_ERR_UNSUPPORTED, "%s:1: dense 'array' format is not supported (use 'coordinate')", name);
  if (strcasecmp(tok[2], "coordinate") != 0)
    FAIL(MFS_ERR_FORMAT, "%s:1: unknown format '%s' (expected 'coordinate')", name, tok[2]);
  if (strcasecmp(tok[3], "complex") == 0 || strcasecmp(tok[3], "pattern") == 0)
    FAIL(MFS_ERR_UNSUPPORTED, "%s:1: field '%s' is not supported (only real or integer values)", name, tok[3]);
  if (strcasecmp(tok[3], "real") != 0 && strcasecmp(tok[3], "integer") != 0 && strcasecmp(tok[3], "double") != 0)
    FAIL(MFS_ERR_FORMAT, "%s:1: unknown field '%s'", name, tok[3]);
  if (strcasecmp(tok[4], "symmetric") == 0)
    *symmetric = 1;
  else if (strcasecmp(tok[4], "general") == 0)
    *symmetric = 0;
  else if (strcasecmp(tok[4], "skew-symmetric") == 0 || strcasecmp(tok[4], "hermitian") == 0)
    FAIL(MFS_ERR_UNSUPPORTED, "%s:1: '%s' matrices are not supported (Cholesky needs symmetric)", name, tok[4]);
  else
    FAIL(MFS_ERR_FORMAT, "%s:1: unknown symmetry '%s'", name, tok[4]);
  return MFS_OK;
}

/* The size line 'M N NNZ' (after comments and blank lines): a square matrix of order *n whose
 * file declares *nnz entries, both within what the index types and the matrix can hold. */
static mfs_status read_size(reader *rd, const char *name, int symmetric, int32_t *n, long long *nnz, mfs_error *err) {
  char *tok[4];
  int rc;
  do {
    if ((rc = next_line(rd)) < 0) READ_FAIL(rc);
    if (rc == 0) {
      rd->line++;
      FAIL(MFS_ERR_FORMAT, "%s:%ld: file ends before the size line 'M N NNZ'", name, rd->line);
    }
  } while (is_skippable(rd->buf));
  long long m, ncols, nz;
  int nt = tokenize(rd->buf, tok, 3);
  if (nt != 3 || !parse_int(tok[0], &m) || !parse_int(tok[1], &ncols) || !parse_int(tok[2], &nz))
    FAIL(MFS_ERR_FORMAT, "%s:%ld: size line must hold exactly 3 integers 'M N NNZ'", name, rd->line);
  if (m <= 0 || ncols <= 0 || nz < 0)
    FAIL(MFS_ERR_FORMAT, "%s:%ld: dimensions must be positive and NNZ non-negative", name, rd->line);
  if (m != ncols)
    FAIL(MFS_ERR_UNSUPPORTED, "%s:%ld: matrix is %lld x %lld; Cholesky needs a square matrix", name, rd->line, m,
         ncols);
  if (m >= INT32_MAX)
    FAIL(MFS_ERR_OVERFLOW, "%s:%ld: dimension %lld exceeds the 32-bit index range", name, rd->line, m);
  if ((double)nz > (double)m * (double)m || (symmetric && (double)nz > (double)m * (m + 1) / 2))
    FAIL(MFS_ERR_FORMAT, "%s:%ld: NNZ = %lld is larger than a %lld x %lld %s matrix can hold", name, rd->line, nz, m, m,
         symmetric ? "symmetric" : "general");
  /* An SPD matrix has a positive diagonal, so its file holds at least n entries (a symmetric one,
   * its lower triangle). Checked here, before anything of size n is allocated: a header declaring
   * a huge n over a handful of entries would otherwise cost gigabytes before failing. */
  if (nz < m)
    FAIL(MFS_ERR_UNSUPPORTED,
         "%s:%ld: NNZ = %lld is less than the order n = %lld: a symmetric positive definite matrix has n nonzero "
         "diagonal entries, so its file holds at least %lld entries",
         name, rd->line, nz, m, m);
  *n = (int32_t)m;
  *nnz = nz;
  return MFS_OK;
}

/* One entry line 'row column value' of an n x n matrix, checked, into the lower triangle lo or (a
 * general file's upper entries) up, transposed. */
static mfs_status read_entry(reader *rd, const char *name, int32_t n, int symmetric, triplets *lo, triplets *up,
                             mfs_error *err) {
  char *tok[4];
  int nt = tokenize(rd->buf, tok, 3);
  if (nt != 3)
    FAIL(MFS_ERR_FORMAT, "%s:%ld: entry must be 'row column value' (found %s%d field%s)", name, rd->line,
         nt > 3 ? "more than " : "", nt > 3 ? 3 : nt, (nt == 1) ? "" : "s");
  long long i, j;
  double v;
  if (!parse_int(tok[0], &i)) FAIL(MFS_ERR_FORMAT, "%s:%ld: row index '%s' is not an integer", name, rd->line, tok[0]);
  if (!parse_int(tok[1], &j))
    FAIL(MFS_ERR_FORMAT, "%s:%ld: column index '%s' is not an integer", name, rd->line, tok[1]);
  if (!parse_real(tok[2], &v)) FAIL(MFS_ERR_FORMAT, "%s:%ld: value '%s' is not a number", name, rd->line, tok[2]);
  if (!isfinite(v)) FAIL(MFS_ERR_FORMAT, "%s:%ld: value '%s' is not finite", name, rd->line, tok[2]);
  if (i < 1 || i > n || j < 1 || j > n)
    FAIL(MFS_ERR_FORMAT, "%s:%ld: index (%lld,%lld) is outside the %d x %d matrix", name, rd->line, i, j, n, n);
  int32_t r = (int32_t)(i - 1), c = (int32_t)(j - 1);
  int ok;
  if (r >= c)
    ok = trip_push(lo, r, c, v, rd->line);
  else if (symmetric) /* upper entry in a symmetric file: same entry, mirrored */
    ok = trip_push(lo, c, r, v, rd->line);
  else
    ok = trip_push(up, c, r, v, rd->line);
  return ok ? MFS_OK : err__nomem(err);
}

/* The entry lines up to the end of the file: exactly the nnz declared (comments and blank lines
 * skipped). */
static mfs_status read_entries(reader *rd, const char *name, int32_t n, long long nnz, int symmetric, triplets *lo,
                               triplets *up, mfs_error *err) {
  long long got = 0;
  lo->limit = up->limit = nnz;
  for (;;) {
    int rc = next_line(rd);
    if (rc < 0) READ_FAIL(rc);
    if (rc == 0) break;
    if (is_skippable(rd->buf)) continue;
    if (got == nnz)
      FAIL(MFS_ERR_FORMAT, "%s:%ld: more entries than the %lld declared in the size line", name, rd->line, nnz);
    mfs_status st = read_entry(rd, name, n, symmetric, lo, up, err);
    if (st != MFS_OK) return st;
    got++;
  }
  if (got < nnz) {
    rd->line++;
    FAIL(MFS_ERR_FORMAT, "%s:%ld: file ends after %lld of the %lld declared entries", name, rd->line, got, nnz);
  }
  return MFS_OK;
}

#undef FAIL
#undef READ_FAIL

/* Every value read is finite, but duplicates are summed, and two entries of 1e308 at one place sum
 * to infinity: refused as a non-finite value is, naming the line of the entry's first occurrence.
 * M holds the file's (row, column) transposed when `transposed` (a general file's upper triangle). */
static mfs_status check_finite(const mfs_matrix *M, const long *mline, int transposed, const char *name,
                               mfs_error *err) {
  for (int32_t j = 0; j < M->n; j++)
    for (int64_t p = M->colptr[j]; p < M->colptr[j + 1]; p++) {
      if (isfinite(M->val[p])) continue;
      int32_t i = M->rowind[p];
      return err__set(err, MFS_ERR_FORMAT, mline[p], -1,
                      "%s:%ld: the entries at (%d,%d) sum to %g, which is not finite (duplicate entries are summed)",
                      name, mline[p], (transposed ? j : i) + 1, (transposed ? i : j) + 1, M->val[p]);
    }
  return MFS_OK;
}

/* A from the triplets (duplicates summed). A general file's upper triangle only serves to check
 * that the matrix is symmetric; the lines kept with the entries let a message name one. */
static mfs_status build_matrix(int32_t n, const triplets *lo, const triplets *up, int symmetric, const char *name,
                               mfs_matrix *A, mfs_error *err) {
  long *lline = NULL, *uline = NULL;
  mfs_matrix U = {0};
  mfs_status st = csc__build(n, lo->n, lo->r, lo->c, lo->v, lo->line, A, &lline, err);
  if (st != MFS_OK) return st;
  st = check_finite(A, lline, 0, name, err);
  if (st == MFS_OK && !symmetric) {
    st = csc__build(n, up->n, up->r, up->c, up->v, up->line, &U, &uline, err);
    if (st == MFS_OK) st = check_finite(&U, uline, 1, name, err);
    if (st == MFS_OK) st = check_symmetric(A, lline, &U, uline, name, err);
    mfs_matrix_free(&U);
  }
  mem__free(lline);
  mem__free(uline);
  if (st != MFS_OK) mfs_matrix_free(A);
  return st;
}

mfs_status mfs_matrix_read_mm_stream(FILE *f, const char *name, mfs_matrix *A, mfs_error *err) {
  reader rd = {f, NULL, 0, 0, 0};
  triplets lo = {0}, up = {0};
  int symmetric = 0;
  int32_t n = 0;
  long long nnz = 0;
  memset(A, 0, sizeof *A);
  if (!name) name = "<stream>";
  mfs_status st = read_banner(&rd, name, &symmetric, err);
  if (st == MFS_OK) st = read_size(&rd, name, symmetric, &n, &nnz, err);
  if (st == MFS_OK) st = read_entries(&rd, name, n, nnz, symmetric, &lo, &up, err);
  if (st == MFS_OK) st = build_matrix(n, &lo, &up, symmetric, name, A, err);
  trip_free(&lo);
  trip_free(&up);
  free(rd.buf);
  return st;
}

mfs_status mfs_matrix_read_mm(const char *path, mfs_matrix *A, mfs_error *err) {
  memset(A, 0, sizeof *A);
  FILE *f = fopen(path, "r");
  if (!f) return err__set(err, MFS_ERR_IO, 0, -1, "%s: cannot open: %s", path, strerror(errno));
  /* a directory opens for reading, and only the first read fails (EISDIR): say what it is */
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(f);
    return err__set(err, MFS_ERR_IO, 0, -1, "%s: is a directory, not a Matrix Market file", path);
  }
  mfs_status st = mfs_matrix_read_mm_stream(f, path, A, err);
  fclose(f);
  return st;
}
