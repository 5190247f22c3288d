/* What kind of object a file descriptor is. Only regular files and block devices count as file
 * I/O: reads and writes on sockets, pipes and terminals (MPI transports, progress pipes, the
 * console) are communication or user interaction, not I/O in the POP sense. */
#ifndef PM_IO_FDCLASS_H
#define PM_IO_FDCLASS_H
enum { PM_FD_UNKNOWN = 0, PM_FD_FILE = 1, PM_FD_OTHER = 2 };
#define PM_FD_TABLE 65536
/* Class of fd, classifying it with fstat on first use (once per descriptor lifetime). */
int pm_io_fd_class(int fd) __attribute__((visibility("hidden")));
void pm_io_fd_set(int fd, int cls) __attribute__((visibility("hidden")));
void pm_io_fd_forget(int fd) __attribute__((visibility("hidden")));
#endif
