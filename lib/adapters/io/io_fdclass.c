#include "io_fdclass.h"
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One byte per descriptor, written with relaxed atomics: two threads classifying the same fd
 * compute the same answer, so races are harmless. Descriptors beyond the table are classified on
 * every call (rare: programs with more than 65536 open files). */
static unsigned char fd_class[PM_FD_TABLE];

static int classify(int fd) {
  struct stat st;
  /* the raw syscall: fstat may itself be interposed by someone else */
  if (syscall(SYS_fstat, fd, &st) != 0) return PM_FD_OTHER;
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) return PM_FD_OTHER;
  int cls = pm_io_class_of_dev((uint64_t)(S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev));
  return pm_io_class_is_pseudo(cls) ? PM_FD_OTHER : PM_FD_FILE_BASE + cls;
}

int pm_io_fd_class(int fd) {
  if (fd < 0) return PM_FD_OTHER;
  if (fd >= PM_FD_TABLE) return classify(fd);
  int c = __atomic_load_n(&fd_class[fd], __ATOMIC_RELAXED);
  if (c == PM_FD_UNKNOWN) {
    c = classify(fd);
    __atomic_store_n(&fd_class[fd], (unsigned char)c, __ATOMIC_RELAXED);
  }
  return c;
}

void pm_io_fd_forget(int fd) {
  if (fd >= 0 && fd < PM_FD_TABLE) __atomic_store_n(&fd_class[fd], PM_FD_UNKNOWN, __ATOMIC_RELAXED);
}
