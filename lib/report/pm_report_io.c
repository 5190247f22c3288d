/* File I/O per file system in the end-of-run table: where the I/O time went, so that a user sees at
 * once whether the slow part is the shared parallel file system or a local scratch. */
#include "pm_report_io.h"
#include "pm_profile_io.h"
#include "pm_report_format.h"
#include <string.h>

void pm_report_io(FILE *out, const pm_profile *p, int width) {
  const pm_prof_io *io = p->io;
  if (!io || io->nclasses == 0) return;
  int name_w = width - 62;
  if (name_w < 16) name_w = 16;
  fprintf(out, " File I/O per file system (summed over locations):\n");
  for (int c = 0; c < io->nclasses; c++) {
    pm_prof_io_total t;
    pm_prof_io_class_total(io, c, &t);
    char name[200], tm[32], rd[32], wr[32];
    snprintf(name, sizeof name, "%s (%s)", io->cls[c].mount, io->cls[c].fstype);
    fprintf(out, "   %-*.*s %10s %10llu calls  read %10s  written %10s\n", name_w, name_w, name,
            pm_fmt_time(t.time, tm, sizeof tm), (unsigned long long)t.calls,
            pm_fmt_bytes((double)t.bytes_read, rd, sizeof rd), pm_fmt_bytes((double)t.bytes_written, wr, sizeof wr));
  }
}
