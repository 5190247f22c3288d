/* CUDA in the end-of-run table (see pm_report_cuda.h). */
#include "pm_report_cuda.h"
#include "pm_report_format.h"
#include <string.h>

void pm_report_cuda(FILE *out, const pm_profile *p, int width) {
  (void)width;
  int streams = 0, devices = 0;
  double kernel = 0, copy = 0, overlapped = 0, bytes = 0;
  unsigned long long kernels = 0, copies = 0;
  for (int i = 0; i < p->nlocations; i++) {
    const pm_prof_location *l = &p->loc[i];
    if (l->role != PM_ROLE_DEVICE) continue;
    int first = 1; /* first stream of its (process, device) */
    for (int j = 0; j < i && first; j++)
      first = !(p->loc[j].role == PM_ROLE_DEVICE && p->loc[j].process == l->process &&
                p->loc[j].dev.device == l->dev.device);
    devices += first;
    streams++;
    kernel += pm_prof_loc_class(l, PM_CLASS_USEFUL);
    copy += pm_prof_loc_class(l, PM_CLASS_DEVICE);
    overlapped += l->dev.memcpy_overlapped;
    kernels += l->dev.kernels;
    copies += l->dev.copies;
    bytes += (double)l->dev.bytes;
  }
  if (streams == 0) return;
  char a[32], b[32], c[32];
  /* a GPU shared by two processes counts twice: processes number their devices themselves
   * (CUDA_VISIBLE_DEVICES), so two "device 0" may or may not be the same GPU */
  fprintf(out, " CUDA device streams (%d stream%s on %d device%s counted per process; times summed over streams):\n",
          streams, streams == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
  fprintf(out, "   kernels %12s %10llu launches\n", pm_fmt_time(kernel, a, sizeof a), kernels);
  fprintf(out, "   copies  %12s %10llu copies/memsets, %s, %s of it overlapped by kernels\n",
          pm_fmt_time(copy, a, sizeof a), copies, pm_fmt_bytes(bytes, b, sizeof b),
          pm_fmt_time(overlapped, c, sizeof c));
}

int pm_report_cuda_notes(FILE *out, const pm_profile *p) {
  int notes = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    const char *s = p->proc[i].cuda;
    if (!s[0] || strcmp(s, "measured") == 0) continue;
    int seen = 0, count = 0;
    for (int j = 0; j < p->nprocesses; j++) {
      if (strcmp(p->proc[j].cuda, s) != 0) continue;
      if (j < i) seen = 1;
      count++;
    }
    if (seen) continue; /* printed with its first process */
    notes++;
    if (!out) continue;
    const char *prefix = strstr(s, "CUDA") ? "" : "CUDA: "; /* "no CUDA device (...)" says it already */
    if (count == p->nprocesses)
      fprintf(out, "   - %s%s\n", prefix, s);
    else
      fprintf(out, "   - %s%s (%d of %d processes, rank %d first)\n", prefix, s, count, p->nprocesses, p->proc[i].rank);
  }
  return notes;
}
