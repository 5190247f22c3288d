/* A stand-in CUDA driver for the tests, put on LD_LIBRARY_PATH as libcuda.so.1: it says there is one
 * device, so popmeter loads its CUDA plugin, whose CUPTI then fails to attach (this is no driver).
 * The run must go on unchanged, with the reason in the CUDA note. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
int cuInit(unsigned flags);
int cuDeviceGetCount(int *count);
int cuDriverGetVersion(int *version);
int cuGetErrorName(int error, const char **name);

/* FAKE_CUDA_INIT_MARK=FILE: cuInit creates FILE, so a test can tell whether the driver was
 * initialised (raw syscall: not the application's I/O) */
int cuInit(unsigned flags) {
  (void)flags;
  const char *mark = getenv("FAKE_CUDA_INIT_MARK");
  if (mark) {
    long fd = syscall(SYS_openat, AT_FDCWD, mark, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) syscall(SYS_close, fd);
  }
  return 0;
}
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDriverGetVersion(int *version) {
  *version = 13000;
  return 0;
}
int cuGetErrorName(int error, const char **name) {
  *name = error ? "CUDA_ERROR_FAKE" : "CUDA_SUCCESS";
  return 0;
}
