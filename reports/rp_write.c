/* Writes every output of a study into one directory. Existing outputs are checked before anything
 * is written, so that a refused report leaves the directory as it was. */
#include "rp_output.h"
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const files[] = {"report.txt", "scaling.csv", "scaling.md", "scaling.json", "report.html"};

static int taken(const char *dir, const char *name, char *err, size_t errlen) {
  char p[PATH_MAX];
  struct stat st;
  if (rp_path(p, sizeof p, "%s/%s", dir, name) != 0) {
    snprintf(err, errlen, "%s: path too long", dir);
    return 1;
  }
  if (lstat(p, &st) != 0) return 0;
  snprintf(err, errlen, "%s already exists (use --force to replace it)", p);
  return 1;
}

static int check_free(const char *dir, int plots, char *err, size_t errlen) {
  static const char *const stems[] = {"efficiency", "speedup", "load", "critical_path"};
  static const char *const exts[] = {"gp", "svg", "png"};
  char plotdir[PATH_MAX], name[64];
  unsigned i, j;
  for (i = 0; i < sizeof files / sizeof *files; i++)
    if (taken(dir, files[i], err, errlen)) return -1;
  if (rp_path(plotdir, sizeof plotdir, "%s/plots", dir) != 0) {
    snprintf(err, errlen, "%s: path too long", dir);
    return -1;
  }
  for (i = 0; plots && i < sizeof stems / sizeof *stems; i++)
    for (j = 0; j < sizeof exts / sizeof *exts; j++) {
      snprintf(name, sizeof name, "%s.%s", stems[i], exts[j]);
      if (taken(plotdir, name, err, errlen)) return -1;
    }
  return 0;
}

typedef int (*writer)(FILE *, const rp_study *, const rp_plots *, const rp_write_options *);

static int csv_writer(FILE *f, const rp_study *s, const rp_plots *p, const rp_write_options *o) {
  (void)p;
  (void)o;
  return rp_write_csv(f, s);
}

int rp_write_all(const rp_study *s, const char *dir, int force, int plots, const char *gnuplot,
                 const rp_write_options *o, char *err, size_t errlen) {
  const writer writers[] = {rp_write_text, csv_writer, rp_write_markdown, rp_write_json, rp_write_html};
  rp_plots pl;
  char plotdir[PATH_MAX];
  unsigned i;
  memset(&pl, 0, sizeof pl);
  if (rp_make_dirs(dir, err, errlen) != 0 || (!force && check_free(dir, plots, err, errlen) != 0)) return -1;
  if (plots) {
    if (rp_path(plotdir, sizeof plotdir, "%s/plots", dir) != 0) {
      snprintf(err, errlen, "%s: path too long", dir);
      return -1;
    }
    if (rp_plots_make(s, plotdir, gnuplot, force, &pl, err, errlen) != 0) return -1;
  } else {
    snprintf(pl.note, sizeof pl.note, "plots not drawn (--no-plots)");
  }
  /* report.html last: it inlines the plots */
  for (i = 0; i < sizeof writers / sizeof *writers; i++) {
    rp_file f;
    if (rp_file_open(&f, dir, files[i], force, err, errlen) != 0) return -1;
    if (writers[i](f.f, s, &pl, o) != 0) {
      snprintf(err, errlen, "writing %s failed (out of memory or disk full)", f.path);
      rp_file_abort(&f); /* no half report under the final name */
      return -1;
    }
    if (rp_file_close(&f, err, errlen) != 0) return -1;
  }
  return 0;
}
