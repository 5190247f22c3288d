/* What kind of object a file descriptor is, and on which file system it lives. Only regular files
 * and block devices count as file I/O: reads and writes on sockets, pipes and terminals (MPI
 * transports, progress pipes, the console) are communication or user interaction, not I/O in the
 * POP sense, nor are the files of kernel pseudo file systems (/proc, /sys). A file's class is the file
 * system (mount point + type) it lives on (io_classes.c). */
#ifndef PM_IO_FDCLASS_H
#define PM_IO_FDCLASS_H
#include <stdint.h>
enum { PM_FD_UNKNOWN = 0, PM_FD_OTHER = 1, PM_FD_FILE_BASE = 2 };
#define PM_IO_MAX_CLASSES 32 /* file systems told apart; further ones share the last class */
#define PM_FD_TABLE 65536
/* Class code of fd (PM_FD_OTHER, or PM_FD_FILE_BASE + file class), classifying it with fstat on
 * first use (once per descriptor lifetime). */
int pm_io_fd_class(int fd) __attribute__((visibility("hidden")));
static inline int pm_io_is_file(int code) { return code >= PM_FD_FILE_BASE; }
static inline int pm_io_file_class(int code) { return code - PM_FD_FILE_BASE; }
void pm_io_fd_forget(int fd) __attribute__((visibility("hidden")));
/* File class of a device number (st_dev), found in /proc/self/mountinfo on first use. */
int pm_io_class_of_dev(uint64_t dev) __attribute__((visibility("hidden")));
/* 1 for kernel pseudo file systems (proc, sysfs, cgroup...): their "files" are not file I/O. */
int pm_io_class_is_pseudo(int cls) __attribute__((visibility("hidden")));
/* Accumulates one call of 'ns' nanoseconds on the calling thread, for file class cls. */
struct pm_loc;
void pm_io_class_record(struct pm_loc *L, int cls, uint64_t ns, uint64_t rd, uint64_t wr)
    __attribute__((visibility("hidden")));
/* The module (pm_module.h): I/O per file class into the process profile. */
struct pm_profile;
struct pm_module;
int pm_io_to_profile(struct pm_profile *p) __attribute__((visibility("hidden")));
extern const struct pm_module pm_io_module __attribute__((visibility("hidden")));
#endif
