/* File I/O per file class: which file system (mount point + type) each I/O call went to, per
 * location. The class of a descriptor is found once per descriptor (io_fdclass.c: fstat -> st_dev);
 * the device is looked up in /proc/self/mountinfo once per device. Per-thread counters are written
 * only by their thread (no lock on the I/O path); the list of them is read at finalize. */
#define _GNU_SOURCE
#include "io_fdclass.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_profile_io.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ----------------------------------------------------------------------- device -> file class */
typedef struct {
  uint64_t dev;
  char mount[128];
  char fstype[32];
  int pseudo;
} io_class;
static io_class classes[PM_IO_MAX_CLASSES];
static int nclasses;
static pthread_mutex_t class_lock = PTHREAD_MUTEX_INITIALIZER;

/* mountinfo escapes blanks in paths as \ooo */
static void unescape(char *s) {
  char *o = s;
  for (char *p = s; *p; p++) {
    if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
      *o++ = (char)(((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
      p += 3;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
}

/* Parses one mountinfo line: "id parent maj:min root mountpoint opts [optional...] - fstype src
 * superopts". Returns 1 when it describes device dev, filling mount and fstype. */
static int mountinfo_line(char *line, uint64_t dev, char *mount, size_t mlen, char *fstype, size_t flen) {
  unsigned maj, min;
  char mp[4096];
  if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mp) != 3) return 0;
  if (makedev(maj, min) != dev) return 0;
  const char *sep = strstr(line, " - ");
  char fs[64] = "?";
  if (sep && sscanf(sep + 3, "%63s", fs) != 1) snprintf(fs, sizeof fs, "?");
  unescape(mp);
  size_t l = strlen(mp) < mlen ? strlen(mp) : mlen - 1; /* a longer mount point is cut */
  memcpy(mount, mp, l);
  mount[l] = '\0';
  snprintf(fstype, flen, "%s", fs);
  return 1;
}

/* Reads /proc/self/mountinfo with raw syscalls (our own read/open wrappers must not see it) and
 * picks, among the mounts of dev, the shortest mount point (a bind mount of a single file into a
 * container is longer than the file system's own mount). */
static void lookup_mount(uint64_t dev, char *mount, size_t mlen, char *fstype, size_t flen) {
  snprintf(mount, mlen, "device %u:%u", major(dev), minor(dev));
  snprintf(fstype, flen, "?");
  int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  static char buf[1 << 16]; /* under class_lock */
  size_t have = 0, best = (size_t)-1;
  for (;;) {
    ssize_t k = syscall(SYS_read, fd, buf + have, sizeof buf - 1 - have);
    if (k <= 0) break;
    have += (size_t)k;
    buf[have] = '\0';
    char *line = buf, *nl;
    while ((nl = strchr(line, '\n')) != NULL) {
      *nl = '\0';
      char m[128], f[32];
      if (mountinfo_line(line, dev, m, sizeof m, f, sizeof f) && strlen(m) < best) {
        best = strlen(m);
        snprintf(mount, mlen, "%s", m);
        snprintf(fstype, flen, "%s", f);
      }
      line = nl + 1;
    }
    have = (size_t)(buf + have - line);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0; /* an absurdly long line: skipped */
  }
  syscall(SYS_close, fd);
}

/* Kernel interfaces that look like files (hwloc reading /sys, a runtime polling /proc): not storage,
 * so not file I/O (the rule Darshan follows too). */
static int is_pseudo_fs(const char *fstype) {
  static const char *const pseudo[] = {"proc",     "sysfs",   "cgroup",      "cgroup2", "devtmpfs", "devpts",
                                       "debugfs",  "tracefs", "securityfs",  "bpf",     "mqueue",   "pstore",
                                       "configfs", "fusectl", "binfmt_misc", "autofs",  "efivarfs", NULL};
  for (int i = 0; pseudo[i]; i++)
    if (!strcmp(fstype, pseudo[i])) return 1;
  return 0;
}

int pm_io_class_is_pseudo(int cls) {
  return cls >= 0 && cls < __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE) && classes[cls].pseudo;
}

int pm_io_class_of_dev(uint64_t dev) {
  int n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (classes[i].dev == dev) return i;
  pthread_mutex_lock(&class_lock);
  int c;
  for (c = 0; c < nclasses; c++)
    if (classes[c].dev == dev) break;
  if (c == nclasses) {
    if (nclasses < PM_IO_MAX_CLASSES - 1) {
      classes[c].dev = dev;
      lookup_mount(dev, classes[c].mount, sizeof classes[c].mount, classes[c].fstype, sizeof classes[c].fstype);
      classes[c].pseudo = is_pseudo_fs(classes[c].fstype);
      __atomic_store_n(&nclasses, c + 1, __ATOMIC_RELEASE);
    } else { /* the last class gathers the rest */
      c = PM_IO_MAX_CLASSES - 1;
      if (nclasses == PM_IO_MAX_CLASSES - 1) {
        classes[c].dev = UINT64_MAX;
        snprintf(classes[c].mount, sizeof classes[c].mount, "(other file systems)");
        snprintf(classes[c].fstype, sizeof classes[c].fstype, "?");
        __atomic_store_n(&nclasses, PM_IO_MAX_CLASSES, __ATOMIC_RELEASE);
      }
    }
  }
  pthread_mutex_unlock(&class_lock);
  return c;
}

/* ------------------------------------------------------------------------- per-thread counters */
typedef struct {
  uint64_t calls, ns, rd, wr;
} io_stat;
typedef struct io_thread {
  uint32_t loc_id;
  uint64_t epoch; /* the location's t_registered when counted: a window restart
                             * (MPI_Init) moves it, and what was counted before is dropped */
  io_stat st[PM_IO_MAX_CLASSES];
  struct io_thread *next;
} io_thread;
static __thread io_thread *tls_io __attribute__((tls_model("initial-exec")));
static io_thread *all_threads;

void pm_io_class_record(pm_loc *L, int cls, uint64_t ns, uint64_t rd, uint64_t wr) {
  io_thread *t = tls_io;
  if (PM_UNLIKELY(!t || t->loc_id != L->id)) {
    if (!t) {
      if (!(t = calloc(1, sizeof *t))) return;
      t->next = __atomic_load_n(&all_threads, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(&all_threads, &t->next, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
      tls_io = t;
    }
    t->loc_id = L->id;
    t->epoch = L->t_registered;
    memset(t->st, 0, sizeof t->st);
  }
  if (PM_UNLIKELY(t->epoch != L->t_registered)) {
    memset(t->st, 0, sizeof t->st);
    t->epoch = L->t_registered;
  }
  if ((unsigned)cls >= PM_IO_MAX_CLASSES) return;
  io_stat *s = &t->st[cls];
  s->calls++;
  s->ns += ns;
  s->rd += rd;
  s->wr += wr;
}

int pm_io_to_profile(pm_profile *p) {
  int n = __atomic_load_n(&nclasses, __ATOMIC_ACQUIRE);
  for (io_thread *t = __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
    const pm_loc *L = pm_loc_at(t->loc_id);
    if (!L || t->epoch != L->t_registered) continue; /* counted before the window */
    for (int c = 0; c < n; c++) {
      const io_stat *s = &t->st[c];
      if (!s->calls) continue;
      int k = pm_prof_io_class_index(&p->io, classes[c].mount, classes[c].fstype);
      pm_prof_io_value v = {pm_profile_loc_index(t->loc_id), k, s->calls, s->rd, s->wr, (double)s->ns * 1e-9};
      if (k < 0 || pm_prof_io_add(p->io, &v) != 0) return -1;
    }
  }
  return 0;
}

static int io_to_profile(pm_profile *p, uint64_t t_start) {
  (void)t_start;
  return pm_io_to_profile(p);
}
/* File I/O per file system as a module (pm_module.h): its part of the process profile. */
const pm_module pm_io_module = {.name = "io", .order = PM_ORDER_IO, .to_profile = io_to_profile};
