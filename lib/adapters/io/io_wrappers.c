/* POSIX and stdio file I/O interposition (docs/runtime-facts.md §6): open/openat (+64, fortified), read/write
 * (+fortified), pread/pwrite (+64), readv/writev, fsync/fdatasync, close, and the stdio family
 * (fopen, fread, fwrite, fgets, fputs, fprintf, fflush, fclose, + fortified variants), because
 * stdio reaches the kernel through glibc-internal calls that bypass the PLT.
 *
 * Only regular files and block devices count (io_fdclass.h). Nothing is measured while popmeter is
 * inactive or when the call comes from popmeter itself (its own output files) or from inside
 * another measured call (MPI-IO's internal POSIX I/O is MPI-IO time, not counted twice).
 * Descriptor creators that are not files (socket, pipe, dup...) reset the class cache entry of the
 * descriptor they return, so a reused descriptor number is classified afresh. */
#undef _FILE_OFFSET_BITS /* define open, not open64-under-another-name */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "pm_core.h"
#include "io_fdclass.h"

#define PM_EXPORT __attribute__((visibility("default")))

enum io_call {
  IO_OPEN,
  IO_READ,
  IO_WRITE,
  IO_PREAD,
  IO_PWRITE,
  IO_READV,
  IO_WRITEV,
  IO_FSYNC,
  IO_CLOSE,
  IO_FOPEN,
  IO_FCLOSE,
  IO_FREAD,
  IO_FWRITE,
  IO_FGETS,
  IO_FPUTS,
  IO_FPRINTF,
  IO_FFLUSH,
  IO_COUNT
};
static const char *const io_names[IO_COUNT] = {"open",   "read",  "write", "pread",   "pwrite", "readv",
                                               "writev", "fsync", "close", "fopen",   "fclose", "fread",
                                               "fwrite", "fgets", "fputs", "fprintf", "fflush"};
static pm_region_id io_region[IO_COUNT];
static int regions_ready;

static void register_regions(void) {
  for (int i = 0; i < IO_COUNT; i++) io_region[i] = pm_region_register(io_names[i], PM_PARADIGM_IO, PM_ROLE_FILE_IO);
  __atomic_store_n(&regions_ready, 1, __ATOMIC_RELEASE);
}

/* The next definition of a symbol (libc's), looked up once. */
#define REAL(ret, name, ...)                                                         \
  static ret (*real_##name)(__VA_ARGS__);                                            \
  static inline ret (*get_##name(void))(__VA_ARGS__) {                               \
    if (PM_UNLIKELY(!real_##name)) *(void **)&real_##name = dlsym(RTLD_NEXT, #name); \
    return real_##name;                                                              \
  }

/* One measured I/O call: the location, when it started, and the file class (-1: not known yet). */
typedef struct {
  pm_loc *L;
  uint64_t t0;
  int cls;
} io_call_ctx;

/* Start measuring an I/O call on fd (fd < 0: not known yet, e.g. open). X.L is NULL when the call
 * is not measured (popmeter inactive, not a file, popmeter's own call). */
static inline io_call_ctx io_begin(int fd, enum io_call c) {
  io_call_ctx X = {NULL, 0, -1};
  if (!pm_core_is_active()) return X;
  if (fd >= 0) {
    int code = pm_io_fd_class(fd);
    if (!pm_io_is_file(code)) return X;
    X.cls = pm_io_file_class(code);
  }
  if (!(X.L = pm_enter_tool())) return X;
  if (PM_UNLIKELY(!__atomic_load_n(&regions_ready, __ATOMIC_ACQUIRE))) register_regions();
  X.t0 = pm_clock_now();
  pm_call_enter(X.L, io_region[c], PM_STATE_POSIX_IO, X.t0);
  return X;
}
static inline void io_end(io_call_ctx *X, long long rd, long long wr) {
  uint64_t t1 = pm_clock_now();
  uint64_t r = rd > 0 ? (uint64_t)rd : 0, w = wr > 0 ? (uint64_t)wr : 0;
  pm_call_exit(X->L, t1);
  pm_add_io(X->L, r, w);
  if (X->cls >= 0) pm_io_class_record(X->L, X->cls, t1 - X->t0, r, w);
  pm_leave_tool(X->L);
}
/* A descriptor just opened: classified now, so that the open is counted for its file system. */
static inline void io_opened(io_call_ctx *X, int fd) {
  if (fd < 0) return;
  pm_io_fd_forget(fd); /* a reused number: its old class is stale */
  if (X->L) {
    int code = pm_io_fd_class(fd);
    if (pm_io_is_file(code)) X->cls = pm_io_file_class(code);
  }
}
static inline int stream_fd(FILE *f) { return f ? fileno_unlocked(f) : -1; }

/* ------------------------------------------------------------------------------------ opening */
static int mode_needed(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(int, openat, int, const char *, int, ...)
REAL(int, openat64, int, const char *, int, ...)
REAL(int, __open_2, const char *, int)
REAL(int, __open64_2, const char *, int)

static int after_open(io_call_ctx *X, int fd) {
  io_opened(X, fd);
  if (X->L) io_end(X, 0, 0);
  return fd;
}

/* The third argument of open: present only when the flags create a file. */
#define OPEN_MODE(mode, flags) \
  int mode = 0;                \
  if (mode_needed(flags)) {    \
    va_list ap;                \
    va_start(ap, flags);       \
    mode = va_arg(ap, int);    \
    va_end(ap);                \
  }

#define OPEN_WRAPPER(name)                                  \
  PM_EXPORT int name(const char *path, int flags, ...) {    \
    OPEN_MODE(mode, flags)                                  \
    io_call_ctx X = io_begin(-1, IO_OPEN);                  \
    return after_open(&X, get_##name()(path, flags, mode)); \
  }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(name)                                        \
  PM_EXPORT int name(int dirfd, const char *path, int flags, ...) { \
    OPEN_MODE(mode, flags)                                          \
    io_call_ctx X = io_begin(-1, IO_OPEN);                          \
    return after_open(&X, get_##name()(dirfd, path, flags, mode));  \
  }
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

PM_EXPORT int __open_2(const char *path, int flags) {
  io_call_ctx X = io_begin(-1, IO_OPEN);
  return after_open(&X, get___open_2()(path, flags));
}
PM_EXPORT int __open64_2(const char *path, int flags) {
  io_call_ctx X = io_begin(-1, IO_OPEN);
  return after_open(&X, get___open64_2()(path, flags));
}

/* --------------------------------------------------------------------------- reading, writing */
REAL(ssize_t, read, int, void *, size_t)
REAL(ssize_t, __read_chk, int, void *, size_t, size_t)
REAL(ssize_t, write, int, const void *, size_t)
REAL(ssize_t, pread, int, void *, size_t, off_t)
REAL(ssize_t, pread64, int, void *, size_t, off64_t)
REAL(ssize_t, __pread_chk, int, void *, size_t, off_t, size_t)
REAL(ssize_t, __pread64_chk, int, void *, size_t, off64_t, size_t)
REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off64_t)
REAL(ssize_t, readv, int, const struct iovec *, int)
REAL(ssize_t, writev, int, const struct iovec *, int)
REAL(int, fsync, int)
REAL(int, fdatasync, int)
REAL(int, close, int)

#define RW_WRAPPER(ret, name, call, isread, params, args)                      \
  PM_EXPORT ret name params {                                                  \
    io_call_ctx X = io_begin(fd, call);                                        \
    ret r = get_##name() args;                                                 \
    if (X.L) io_end(&X, isread ? (long long)r : 0, isread ? 0 : (long long)r); \
    return r;                                                                  \
  }
RW_WRAPPER(ssize_t, read, IO_READ, 1, (int fd, void *b, size_t n), (fd, b, n))
RW_WRAPPER(ssize_t, __read_chk, IO_READ, 1, (int fd, void *b, size_t n, size_t bl), (fd, b, n, bl))
RW_WRAPPER(ssize_t, write, IO_WRITE, 0, (int fd, const void *b, size_t n), (fd, b, n))
RW_WRAPPER(ssize_t, pread, IO_PREAD, 1, (int fd, void *b, size_t n, off_t o), (fd, b, n, o))
RW_WRAPPER(ssize_t, pread64, IO_PREAD, 1, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o))
RW_WRAPPER(ssize_t, __pread_chk, IO_PREAD, 1, (int fd, void *b, size_t n, off_t o, size_t bl), (fd, b, n, o, bl))
RW_WRAPPER(ssize_t, __pread64_chk, IO_PREAD, 1, (int fd, void *b, size_t n, off64_t o, size_t bl), (fd, b, n, o, bl))
RW_WRAPPER(ssize_t, pwrite, IO_PWRITE, 0, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
RW_WRAPPER(ssize_t, pwrite64, IO_PWRITE, 0, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o))
RW_WRAPPER(ssize_t, readv, IO_READV, 1, (int fd, const struct iovec *v, int n), (fd, v, n))
RW_WRAPPER(ssize_t, writev, IO_WRITEV, 0, (int fd, const struct iovec *v, int n), (fd, v, n))
RW_WRAPPER(int, fsync, IO_FSYNC, 0, (int fd), (fd))
RW_WRAPPER(int, fdatasync, IO_FSYNC, 0, (int fd), (fd))

PM_EXPORT int close(int fd) {
  io_call_ctx X = io_begin(fd, IO_CLOSE);
  int r = get_close()(fd);
  pm_io_fd_forget(fd);
  if (X.L) io_end(&X, 0, 0);
  return r;
}

/* ------------------------------------------------------------ descriptors that are not files */
REAL(int, socket, int, int, int)
REAL(int, socketpair, int, int, int, int *)
REAL(int, pipe, int *)
REAL(int, pipe2, int *, int)
REAL(int, dup, int)
REAL(int, dup2, int, int)
REAL(int, dup3, int, int, int)
REAL(int, accept, int, struct sockaddr *, socklen_t *)
REAL(int, accept4, int, struct sockaddr *, socklen_t *, int)
PM_EXPORT int socket(int d, int t, int p) {
  int fd = get_socket()(d, t, p);
  pm_io_fd_forget(fd);
  return fd;
}
PM_EXPORT int socketpair(int d, int t, int p, int sv[2]) {
  int r = get_socketpair()(d, t, p, sv);
  if (r == 0) {
    pm_io_fd_forget(sv[0]);
    pm_io_fd_forget(sv[1]);
  }
  return r;
}
PM_EXPORT int pipe(int fds[2]) {
  int r = get_pipe()(fds);
  if (r == 0) {
    pm_io_fd_forget(fds[0]);
    pm_io_fd_forget(fds[1]);
  }
  return r;
}
PM_EXPORT int pipe2(int fds[2], int flags) {
  int r = get_pipe2()(fds, flags);
  if (r == 0) {
    pm_io_fd_forget(fds[0]);
    pm_io_fd_forget(fds[1]);
  }
  return r;
}
PM_EXPORT int dup(int fd) {
  int r = get_dup()(fd);
  pm_io_fd_forget(r);
  return r;
}
PM_EXPORT int dup2(int fd, int to) {
  int r = get_dup2()(fd, to);
  pm_io_fd_forget(to);
  return r;
}
PM_EXPORT int dup3(int fd, int to, int fl) {
  int r = get_dup3()(fd, to, fl);
  pm_io_fd_forget(to);
  return r;
}
PM_EXPORT int accept(int s, struct sockaddr *a, socklen_t *l) {
  int r = get_accept()(s, a, l);
  pm_io_fd_forget(r);
  return r;
}
PM_EXPORT int accept4(int s, struct sockaddr *a, socklen_t *l, int f) {
  int r = get_accept4()(s, a, l, f);
  pm_io_fd_forget(r);
  return r;
}

/* ------------------------------------------------------------------------------------- stdio */
REAL(FILE *, fopen, const char *, const char *)
REAL(FILE *, fopen64, const char *, const char *)
REAL(int, fclose, FILE *)
REAL(size_t, fread, void *, size_t, size_t, FILE *)
REAL(size_t, __fread_chk, void *, size_t, size_t, size_t, FILE *)
REAL(size_t, fwrite, const void *, size_t, size_t, FILE *)
REAL(char *, fgets, char *, int, FILE *)
REAL(char *, __fgets_chk, char *, size_t, int, FILE *)
REAL(int, fputs, const char *, FILE *)
REAL(int, fflush, FILE *)
REAL(int, vfprintf, FILE *, const char *, va_list)
REAL(int, __vfprintf_chk, FILE *, int, const char *, va_list)

#define FOPEN_WRAPPER(name)                                  \
  PM_EXPORT FILE *name(const char *path, const char *mode) { \
    io_call_ctx X = io_begin(-1, IO_FOPEN);                  \
    FILE *f = get_##name()(path, mode);                      \
    if (f) io_opened(&X, stream_fd(f));                      \
    if (X.L) io_end(&X, 0, 0);                               \
    return f;                                                \
  }
FOPEN_WRAPPER(fopen)
FOPEN_WRAPPER(fopen64)

PM_EXPORT int fclose(FILE *f) {
  int fd = stream_fd(f);
  io_call_ctx X = io_begin(fd, IO_FCLOSE);
  int r = get_fclose()(f); /* flushes through glibc's internal write: counted here */
  pm_io_fd_forget(fd);
  if (X.L) io_end(&X, 0, 0);
  return r;
}
PM_EXPORT size_t fread(void *p, size_t s, size_t n, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FREAD);
  size_t r = get_fread()(p, s, n, f);
  if (X.L) io_end(&X, (long long)(r * s), 0);
  return r;
}
PM_EXPORT size_t __fread_chk(void *p, size_t pl, size_t s, size_t n, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FREAD);
  size_t r = get___fread_chk()(p, pl, s, n, f);
  if (X.L) io_end(&X, (long long)(r * s), 0);
  return r;
}
PM_EXPORT size_t fwrite(const void *p, size_t s, size_t n, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FWRITE);
  size_t r = get_fwrite()(p, s, n, f);
  if (X.L) io_end(&X, 0, (long long)(r * s));
  return r;
}
PM_EXPORT char *fgets(char *s, int n, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FGETS);
  char *r = get_fgets()(s, n, f);
  if (X.L) io_end(&X, r ? (long long)strlen(r) : 0, 0);
  return r;
}
PM_EXPORT char *__fgets_chk(char *s, size_t sl, int n, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FGETS);
  char *r = get___fgets_chk()(s, sl, n, f);
  if (X.L) io_end(&X, r ? (long long)strlen(r) : 0, 0);
  return r;
}
PM_EXPORT int fputs(const char *s, FILE *f) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FPUTS);
  int r = get_fputs()(s, f);
  if (X.L) io_end(&X, 0, r >= 0 ? (long long)strlen(s) : 0);
  return r;
}
PM_EXPORT int fflush(FILE *f) {
  io_call_ctx X = f ? io_begin(stream_fd(f), IO_FFLUSH) : (io_call_ctx){NULL, 0, -1};
  int r = get_fflush()(f);
  if (X.L) io_end(&X, 0, 0);
  return r;
}
PM_EXPORT int vfprintf(FILE *f, const char *fmt, va_list ap) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FPRINTF);
  int r = get_vfprintf()(f, fmt, ap);
  if (X.L) io_end(&X, 0, r);
  return r;
}
PM_EXPORT int fprintf(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vfprintf(f, fmt, ap);
  va_end(ap);
  return r;
}
PM_EXPORT int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) {
  io_call_ctx X = io_begin(stream_fd(f), IO_FPRINTF);
  int r = get___vfprintf_chk()(f, flag, fmt, ap);
  if (X.L) io_end(&X, 0, r);
  return r;
}
PM_EXPORT int __fprintf_chk(FILE *f, int flag, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = __vfprintf_chk(f, flag, fmt, ap);
  va_end(ap);
  return r;
}
