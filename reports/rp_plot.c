/* Plots of the study through gnuplot: efficiencies vs scale, speedup with the ideal line, the
 * per-rank load heatmap and the critical-path share of the runtime. Each plot is a gnuplot script
 * plots/<name>.gp holding its data inline, so a user can restyle and re-run it; gnuplot renders
 * SVG and PNG (pngcairo when this gnuplot has it, else libgd's png). gnuplot is an optional
 * runtime tool: without it the scripts are still written and the report says why plots are
 * missing. Only values of the study are plotted; nothing is computed here. */
#include "rp_output.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const palette = "set palette defined (0 '#d73027', 0.5 '#fdae61', 0.8 '#a6d96a', 1 '#1a9850')\n";

static void xtics_by_config(FILE *f, const rp_study *s) {
  int c;
  fputs("set xtics (", f);
  for (c = 0; c < s->ncfg; c++) fprintf(f, "%s\"%s\" %d", c ? ", " : "", s->cfg[c].label, c);
  fprintf(f, ")\nset xrange [-0.5:%d.5]\nset xlabel 'processes x threads'\n", s->ncfg - 1);
}

/* value, min, max of one metric path in configuration c, "?" (missing) when n/a */
static void triple(FILE *f, const rp_config *c, const char *path) {
  double v[RP_NSTATS];
  int k;
  for (k = 0; k < RP_NSTATS; k++)
    if (!pm_metric_get_path(c->tree[k], path, &v[k])) break;
  if (k < RP_NSTATS)
    fputs(" ? ? ?", f);
  else
    fprintf(f, " %.9g %.9g %.9g", v[RP_MEDIAN], v[RP_MIN], v[RP_MAX]);
}

static int any_value(const rp_study *s, const char *path) {
  double v;
  int c;
  for (c = 0; c < s->ncfg; c++)
    if (pm_metric_get_path(s->cfg[c].tree[RP_MEDIAN], path, &v)) return 1;
  return 0;
}

static int efficiency_plot(FILE *f, const rp_study *s) {
  static const struct {
    const char *path, *title;
  } m[] = {{"ge", "Global efficiency"},
           {"ge/pe", "Parallel efficiency"},
           {"ge/pe/lb", "Load balance"},
           {"ge/pe/comme", "Communication efficiency"},
           {"ge/pe/comme/sere", "Serialization efficiency"},
           {"ge/pe/comme/te", "Transfer efficiency"},
           {"ge/compscal", "Computation scalability"}};
  unsigned i;
  int c, first = 1;
  fputs("$data << EOD\n# config label then median min max of:", f);
  for (i = 0; i < sizeof m / sizeof *m; i++) fprintf(f, " %s", m[i].path);
  fputc('\n', f);
  for (c = 0; c < s->ncfg; c++) {
    fprintf(f, "%d \"%s\"", c, s->cfg[c].label);
    for (i = 0; i < sizeof m / sizeof *m; i++) triple(f, &s->cfg[c], m[i].path);
    fputc('\n', f);
  }
  fputs("EOD\nset datafile missing '?'\nset title 'POP efficiencies vs scale'\n"
        "set ylabel 'efficiency'\nset yrange [0:1.1<*]\nset key outside right\nset grid y\n"
        "set arrow 1 from graph 0, first 0.8 to graph 1, first 0.8 nohead dt 2 lc rgb '#1a9850'\n"
        "set arrow 2 from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 2 lc rgb '#d73027'\n",
        f);
  xtics_by_config(f, s);
  fputs("plot", f);
  for (i = 0; i < sizeof m / sizeof *m; i++) {
    if (!any_value(s, m[i].path)) continue; /* e.g. SerE/TE without critical path: no empty key entries */
    fprintf(f, "%s $data using 1:%u:%u:%u with yerrorlines lw 2 title '%s'", first ? "" : ",", 3 + 3 * i, 4 + 3 * i,
            5 + 3 * i, m[i].title);
    first = 0;
  }
  if (first) fputs(" 1 notitle", f);
  fputc('\n', f);
  return 0;
}

static int speedup_plot(FILE *f, const rp_study *s) {
  long nmin = 0, nmax = 0, nref = (long)s->cfg[s->ref].nprocesses * s->cfg[s->ref].nthreads;
  int c;
  fputs("$data << EOD\n# locations, speedup median min max, label\n", f);
  for (c = 0; c < s->ncfg; c++) {
    long n = (long)s->cfg[c].nprocesses * s->cfg[c].nthreads;
    if (c == 0 || n < nmin) nmin = n;
    if (c == 0 || n > nmax) nmax = n;
    fprintf(f, "%ld", n);
    triple(f, &s->cfg[c], "speedup");
    fprintf(f, " \"%s\"\n", s->cfg[c].label);
  }
  fputs("EOD\nset datafile missing '?'\nset xlabel 'locations (processes x threads)'\n"
        "set ylabel 'speedup'\nset key top left\nset grid\n",
        f);
  /* log-log keeps the strong-scaling ideal a straight line over a wide range of sizes */
  if (s->mode == PM_SCALING_STRONG && nmin > 0 && nmax >= 4 * nmin)
    fputs("set logscale xy 2\nset yrange [*:*]\n", f);
  else
    fputs("set yrange [0:*]\n", f);
  fprintf(f, "set xrange [%g:%g]\n", nmin > 0 ? nmin / 1.25 : 0.5, nmax > nmin ? nmax * 1.25 : nmax * 2.0 + 1);
  /* the ideal: linear in the locations for strong scaling, a constant runtime for weak */
  if (s->mode == PM_SCALING_WEAK)
    fputs("ideal(x) = 1\nset title 'Speedup (weak scaling: ideal runtime is constant)'\n", f);
  else
    fprintf(f, "ideal(x) = x / %ld.0\nset title 'Speedup (strong scaling)'\n", nref > 0 ? nref : 1);
  fputs("plot ideal(x) with lines dt 2 lc rgb '#777777' title 'ideal', "
        "$data using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'measured (median, min-max)', "
        "$data using 1:2:5 with labels offset 0,1 notitle\n",
        f);
  return 0;
}

static int load_plot(FILE *f, const rp_study *s) {
  int c, p, pmax = 1;
  fputs("$data << EOD\n# configuration, rank, parallel efficiency of the rank (median)\n", f);
  for (c = 0; c < s->ncfg; c++) {
    if (s->cfg[c].nprocesses > pmax) pmax = s->cfg[c].nprocesses;
    for (p = 0; p < s->cfg[c].nprocesses; p++) fprintf(f, "%d %d %.9g\n", c, p, s->cfg[c].rank_pe[RP_MEDIAN][p]);
  }
  fprintf(f,
          "EOD\nset title 'Per-rank load: useful share of the runtime of each process'\n"
          "set ylabel 'rank'\nset yrange [-0.5:%d.5]\nset cbrange [0:1]\nset cblabel "
          "'parallel efficiency of the rank'\n%sunset key\n%s",
          pmax - 1, palette, pmax <= 32 ? "set ytics 1\n" : "set format y '%.0f'\n");
  xtics_by_config(f, s);
  fputs("plot $data using 1:2:(0.48):(0.48):3 with boxxyerror fs solid 1.0 noborder lc palette\n", f);
  return 0;
}

static int cp_plot(FILE *f, const rp_study *s) {
  int c;
  fputs("$data << EOD\n# configuration, label, runtime, critical path of useful work, largest "
        "useful time (s, medians)\n",
        f);
  for (c = 0; c < s->ncfg; c++) {
    const rp_config *cf = &s->cfg[c];
    fprintf(f, "%d \"%s\" %.9g ", c, cf->label, cf->runtime[RP_MEDIAN]);
    if (cf->has_cp)
      fprintf(f, "%.9g", cf->g_cue[RP_MEDIAN]);
    else
      fputc('?', f);
    fprintf(f, " %.9g\n", cf->max_useful[RP_MEDIAN]);
  }
  fputs("EOD\nset datafile missing '?'\nset title 'Critical-path share of the runtime'\n"
        "set ylabel 'seconds'\nset yrange [0:*]\nset style fill solid 0.8 border -1\n"
        "set boxwidth 0.26\nset key outside right\nset grid y\n",
        f);
  xtics_by_config(f, s);
  fputs("plot $data using ($1-0.27):3 with boxes lc rgb '#9e9e9e' title 'runtime', "
        "$data using 1:4 with boxes lc rgb '#3366cc' title 'critical path (useful)', "
        "$data using ($1+0.27):5 with boxes lc rgb '#66aa55' title 'largest useful time'\n",
        f);
  return 0;
}

/* SVG first (the plot command draws it), then the same plot again as PNG. */
static void svg_output(FILE *f, const char *name) {
  fprintf(f,
          "set terminal svg size 900,500 dynamic enhanced font 'Sans,11' background rgb 'white'\n"
          "set output '%s.svg'\n",
          name);
}

static void png_output(FILE *f, const char *name) {
  fprintf(f,
          "set output\nif (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
          "  set terminal pngcairo size 900,500 enhanced font 'Sans,10' background rgb 'white'\n"
          "} else {\n  set terminal png size 900,500\n}\nset output '%s.png'\nreplot\n"
          "set output\n",
          name);
}

/* gnuplot NAME.gp in dir; its messages go to NAME.log, kept only when it fails. */
static int run_gnuplot(const char *gnuplot, const char *dir, const char *name) {
  char log[PATH_MAX], gp[64];
  pid_t pid;
  int st;
  if (rp_path(log, sizeof log, "%s/%s.log", dir, name) != 0 || rp_path(gp, sizeof gp, "%s.gp", name) != 0) return -1;
  fflush(NULL);
  pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE *l = fopen(log, "w");
    if (chdir(dir) != 0) _exit(126);
    if (l) {
      dup2(fileno(l), 1);
      dup2(fileno(l), 2);
    }
    execlp(gnuplot, gnuplot, gp, (char *)NULL);
    _exit(errno == ENOENT ? 127 : 126);
  }
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
    unlink(log);
    return 0;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *dir, const char *name, const char *ext) {
  char p[PATH_MAX];
  struct stat st;
  if (rp_path(p, sizeof p, "%s/%s.%s", dir, name, ext) != 0) return 0;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static void remove_old(const char *dir, const char *name) {
  char p[PATH_MAX];
  if (rp_path(p, sizeof p, "%s/%s.svg", dir, name) == 0) unlink(p);
  if (rp_path(p, sizeof p, "%s/%s.png", dir, name) == 0) unlink(p);
}

static void note(rp_plots *out, const char *fmt, const char *a) {
  size_t n = strlen(out->note);
  if (n && n + 2 < sizeof out->note) {
    strcat(out->note, "; ");
    n += 2;
  }
  snprintf(out->note + n, sizeof out->note - n, fmt, a);
}

int rp_plots_make(const rp_study *s, const char *dir, const char *gnuplot, int force, rp_plots *out, char *err,
                  size_t errlen) {
  static const struct {
    const char *name, *title;
    int (*write)(FILE *, const rp_study *);
  } kinds[RP_MAX_PLOTS] = {{"efficiency", "POP efficiencies vs scale", efficiency_plot},
                           {"speedup", "Speedup with the ideal line", speedup_plot},
                           {"load", "Per-rank load heatmap", load_plot},
                           {"critical_path", "Critical-path share of the runtime", cp_plot}};
  int i, any_cp = 0, c, missing = 0;
  memset(out, 0, sizeof *out);
  snprintf(out->dir, sizeof out->dir, "%s", dir);
  if (rp_make_dirs(dir, err, errlen) != 0) return -1;
  if (!gnuplot || !gnuplot[0]) gnuplot = "gnuplot";
  for (c = 0; c < s->ncfg; c++) any_cp |= s->cfg[c].has_cp;
  for (i = 0; i < RP_MAX_PLOTS; i++) {
    rp_plot *p = &out->plot[out->n];
    char gpname[64];
    rp_file f;
    int rc;
    if (kinds[i].write == cp_plot && !any_cp) {
      note(out, "%s", "no critical-path plot: no run measured the critical path");
      continue;
    }
    snprintf(p->name, sizeof p->name, "%s", kinds[i].name);
    snprintf(p->title, sizeof p->title, "%s", kinds[i].title);
    snprintf(gpname, sizeof gpname, "%s.gp", p->name);
    if (rp_file_open(&f, dir, gpname, force, err, errlen) != 0) return -1;
    fprintf(f.f, "# popmeter-report: %s (run `gnuplot %s` here to redraw)\n", p->title, gpname);
    svg_output(f.f, p->name);
    kinds[i].write(f.f, s);
    png_output(f.f, p->name);
    if (rp_file_close(&f, err, errlen) != 0) return -1;
    out->n++;
    if (missing) continue;
    if (force) remove_old(dir, p->name);
    rc = run_gnuplot(gnuplot, dir, p->name);
    p->svg = exists(dir, p->name, "svg");
    p->png = exists(dir, p->name, "png");
    if (rc == 127) {
      missing = 1;
      note(out,
           "gnuplot not found (%s; install gnuplot-nox or pass --gnuplot): plot scripts "
           "written, no images",
           gnuplot);
    } else if (rc != 0) {
      note(out, "gnuplot failed on plots/%s.gp (messages in its .log)", p->name);
    }
  }
  return 0;
}
