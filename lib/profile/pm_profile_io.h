/* File I/O per file class (lib/adapters/io). A file class is the file system a file lives on: its
 * mount point and type ("/scratch" lustre, "/dev/shm" tmpfs...), the unit HPC users reason in. A
 * profile of a run without file I/O has no such part (pm_profile.io == NULL) and its JSON no
 * "io_classes" key. Times in seconds; location indices refer to the enclosing profile. */
#ifndef PM_PROFILE_IO_H
#define PM_PROFILE_IO_H
#include <jansson.h>
#include "pm_profile.h"

typedef struct {
  char mount[128];
  char fstype[32];
} pm_prof_io_class;
typedef struct {
  int location, cls;
  uint64_t calls, bytes_read, bytes_written;
  double time; /* in POSIX / stdio calls on files of this class */
} pm_prof_io_value;

typedef struct pm_prof_io {
  int nclasses;
  pm_prof_io_class *cls;
  int nvalues;
  pm_prof_io_value *val;
} pm_prof_io;

void pm_prof_io_free(pm_prof_io *io);
/* Index of the class (mount, fstype) in *io (allocated when NULL), added if new; -1 out of memory. */
int pm_prof_io_class_index(pm_prof_io **io, const char *mount, const char *fstype);
/* Appends one value; 0, or -1 out of memory. */
int pm_prof_io_add(pm_prof_io *io, const pm_prof_io_value *v);
/* Appends src to *dst, unifying classes by (mount, fstype), shifting locations by l0. */
int pm_prof_io_merge(pm_prof_io **dst, const pm_prof_io *src, int l0);
json_t *pm_prof_io_to_json(const pm_prof_io *io);
/* Validating reader: NULL with err filled when malformed (nlocations bounds the indices). */
pm_prof_io *pm_prof_io_from_json(const json_t *o, int nlocations, char *err, size_t errlen);

/* Totals of one class over all locations (the report's per-file-system lines). */
typedef struct {
  uint64_t calls, bytes_read, bytes_written;
  double time;
} pm_prof_io_total;
void pm_prof_io_class_total(const pm_prof_io *io, int cls, pm_prof_io_total *out);
#endif
