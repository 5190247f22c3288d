#include "pm_report_models.h"
#include "pm_report_format.h"
#include "pm_report_io.h"
#include "pm_report_tasks.h"
#include "pm_report_counters.h"
#include "pm_report_cuda.h"
#include "pm_profile_input.h"
#include <stdlib.h>
#include <string.h>

int pm_report_compute(const pm_profile *p, const pm_report_options *o, pm_model_set *set) {
  memset(set, 0, sizeof *set);
  pm_run_input_buf buf;
  if (pm_profile_to_input(p, o->io_as_useful, &buf) != 0) return -1;
  if (pm_profile_input_references(&buf, o->ref_one, o->ref_seq) != 0) {
    pm_run_input_buf_free(&buf);
    return -1;
  }
  unsigned mask = 0;
  const char *list = o->models && o->models[0] ? o->models : "auto";
  if (strcmp(list, "auto") == 0 || pm_models_parse(list, &mask, set->bad_model, sizeof set->bad_model) != 0)
    mask = pm_models_default(&buf.in) | pm_report_counters_models(p); /* counters tried: say why n/a */
  set->mask = mask;
  int rc = 0;
  for (unsigned bit = 0; bit < PM_MODEL_COUNT; bit++) {
    if (!(mask & (1u << bit))) continue;
    pm_metric *t = pm_model_compute(1u << bit, &buf.in);
    if (!t) {
      rc = -1;
      continue;
    }
    if ((1u << bit) == PM_MODEL_VECTORIZATION) pm_report_counters_explain(p, t); /* the run's own reasons */
    set->tree[set->n++] = t;
  }
  if (p->counters && (mask & PM_MODEL_VECTORIZATION)) { /* with the counter model: the summary */
    if ((set->tree[set->n] = pm_report_counters_tree(p)) != NULL)
      set->n++;
    else
      rc = -1;
  }
  pm_run_input_buf_free(&buf);
  return rc;
}

void pm_model_set_free(pm_model_set *set) {
  for (int i = 0; i < set->n; i++) pm_metric_free(set->tree[i]);
  set->n = 0;
}

json_t *pm_report_models_json(const pm_model_set *set) {
  json_t *o = json_object();
  for (int i = 0; i < set->n; i++) {
    char *s = pm_render_json_string(set->tree[i], 0);
    json_t *t = s ? json_loads(s, 0, NULL) : NULL;
    free(s);
    if (t) json_object_set_new(o, set->tree[i]->id, t);
  }
  return o;
}

/* ----------------------------------------------------------------------------------- the table */
static void rule(FILE *out, int width, char c, const char *title) {
  int n = width;
  if (title) { n -= (int)strlen(title) + 2; }
  for (int i = 0; i < n; i++) fputc(c, out);
  if (title) fprintf(out, " %s ", title);
  fputc('\n', out);
}

/* Average and maximum over the computing locations of each class of states. */
static void time_breakdown(FILE *out, const pm_profile *p) {
  static const struct {
    pm_state_class c;
    const char *name;
  } cls[] = {{PM_CLASS_USEFUL, "useful"},   {PM_CLASS_MPI, "MPI"},        {PM_CLASS_IO, "file I/O"},
             {PM_CLASS_RUNTIME, "runtime"}, {PM_CLASS_IDLE, "idle/wait"}, {PM_CLASS_DEVICE, "device"}};
  int n = 0;
  for (int i = 0; i < p->nlocations; i++) n += pm_prof_loc_computes(&p->loc[i]);
  if (n == 0) return;
  fprintf(out, " Time per location (avg / max over %d locations, runtime %s):\n", n,
          pm_fmt_time(p->runtime, (char[32]){0}, 32));
  for (unsigned k = 0; k < sizeof cls / sizeof *cls; k++) {
    double sum = 0, max = 0;
    for (int i = 0; i < p->nlocations; i++) {
      if (!pm_prof_loc_computes(&p->loc[i])) continue;
      double t = pm_prof_loc_class(&p->loc[i], cls[k].c);
      sum += t;
      if (t > max) max = t;
    }
    if (max == 0 && k > 1) continue;
    char a[32], b[32];
    fprintf(out, "   %-10s %12s / %-12s (%5.1f %% of runtime on average)\n", cls[k].name,
            pm_fmt_time(sum / n, a, sizeof a), pm_fmt_time(max, b, sizeof b), pm_pct(sum / n, p->runtime));
  }
  /* ready to run while other threads had the CPUs: inside the states above (a preempted
   * computation is useful time) */
  double wait, wmax, lived;
  int known = pm_prof_cpu_wait(p, &wait, &wmax, &lived);
  if (known) {
    char a[32], b[32];
    fprintf(out, "   %-10s %12s / %-12s (%5.1f %% of runtime on average, within the above)\n", "CPU wait",
            pm_fmt_time(wait / known, a, sizeof a), pm_fmt_time(wmax, b, sizeof b), pm_pct(wait / known, p->runtime));
  }
}

typedef struct {
  int region;
  double time;
  uint64_t visits;
} region_total;
static int by_time_desc(const void *a, const void *b) {
  double x = ((const region_total *)a)->time, y = ((const region_total *)b)->time;
  return (x < y) - (x > y);
}

/* The regions (MPI calls, user regions, codelets) with the most exclusive non-useful + useful time,
 * excluding the roots. */
static void top_regions(FILE *out, const pm_profile *p, int width) {
  region_total *t = calloc((size_t)p->nregions + 1, sizeof *t);
  if (!t) return;
  for (int r = 0; r < p->nregions; r++) t[r].region = r;
  for (int i = 0; i < p->nvalues; i++) {
    const pm_prof_value *v = &p->val[i];
    if (p->cnode[v->cnode].parent < 0) continue;
    region_total *x = &t[p->cnode[v->cnode].region];
    for (int s = 0; s < PM_STATE_COUNT; s++)
      if (s != PM_STATE_OFF) x->time += v->time[s];
    x->visits += v->visits + v->polls;
  }
  qsort(t, (size_t)p->nregions, sizeof *t, by_time_desc);
  int shown = 0;
  double total = p->runtime * (p->nlocations ? p->nlocations : 1);
  for (int i = 0; i < p->nregions && shown < 8; i++) {
    if (t[i].time <= 0) break;
    if (!shown++) fprintf(out, " Top regions (exclusive time summed over locations):\n");
    char a[32];
    fprintf(out, "   %-*.*s %12s %6.1f %%  %10llu calls\n", width - 42, width - 42, p->reg[t[i].region].name,
            pm_fmt_time(t[i].time, a, sizeof a), pm_pct(t[i].time, total), (unsigned long long)t[i].visits);
  }
  free(t);
}

/* The OTF2 trace (POPMETER_TRACE=1): its size, and what its buffer flushes cost the run. */
static void trace_line(FILE *out, const pm_profile *p) {
  uint64_t ev = 0, bytes = 0, flushes = 0;
  double ft = 0;
  for (int i = 0; i < p->nprocesses; i++) {
    ev += p->proc[i].trace_events;
    bytes += p->proc[i].trace_bytes;
    flushes += p->proc[i].trace_flushes;
    ft += p->proc[i].trace_flush_time;
  }
  if (!ev) return;
  char t[32];
  double share = pm_pct(ft, p->runtime * p->nprocesses);
  fprintf(out,
          " Trace (traces.otf2): %llu events, %.1f MiB (%.0f B/event), %llu buffer flush%s during the run: "
          "%s (%.2f %% of the processes' time)\n",
          (unsigned long long)ev, (double)bytes / 1048576.0, (double)bytes / (double)ev, (unsigned long long)flushes,
          flushes == 1 ? "" : "es", pm_fmt_time(ft, t, sizeof t), share);
}

int pm_report_write_table(FILE *out, const pm_profile *p, const pm_model_set *set, int width, const char *note,
                          double finalize_seconds) {
  if (width < 60) width = 60;
  int threads_max = pm_prof_threads_max(p);
  char rt[32];
  rule(out, width, '=', "popmeter");
  fprintf(out, " %s: %d process%s x %d thread%s (max), %d node%s, runtime %s, started %s\n", p->app, p->nprocesses,
          p->nprocesses == 1 ? "" : "es", threads_max, threads_max == 1 ? "" : "s", p->nnodes,
          p->nnodes == 1 ? "" : "s", pm_fmt_time(p->runtime, rt, sizeof rt), p->start_time);
  for (int i = 0; i < set->n; i++) {
    rule(out, width, '-', NULL);
    const pm_metric *tree = set->tree[i];
    pm_render_text(out, &tree, 1, NULL, width);
  }
  rule(out, width, '-', NULL);
  time_breakdown(out, p);
  top_regions(out, p, width);
  pm_report_tasks(out, p, width); /* task runtime: critical path, top codelets */
  pm_report_io(out, p, width);    /* file I/O per file system */
  trace_line(out, p);             /* OTF2 trace: size and flush cost */
  pm_report_cuda(out, p, width);  /* CUDA device streams */
  int truncated = 0;
  for (int i = 0; i < p->nlocations; i++) truncated |= p->loc[i].callpaths_truncated;
  int cuda_notes = pm_report_cuda_notes(NULL, p);
  if (set->bad_model[0] || truncated || note || p->runtime < 0.1 || finalize_seconds > 0 || cuda_notes ||
      p->regions_folded) {
    fprintf(out, " Notes:\n");
    if (note) fprintf(out, "   - %s\n", note);
    pm_report_cuda_notes(out, p); /* "no CUDA device (...)" */
    if (set->bad_model[0])
      fprintf(out, "   - unknown model '%s' in POPMETER_MODELS: showing the default models\n", set->bad_model);
    if (p->runtime < 0.1)
      fprintf(out, "   - the run is short (%s): fixed start-up costs weigh on the efficiencies\n", rt);
    if (truncated)
      fprintf(out, "   - too many call paths on some threads: the deepest were merged into their parents\n");
    if (p->regions_folded)
      fprintf(out, "   - more than 65,529 distinct region names: %llu later ones were merged into \"(more regions)\"\n",
              (unsigned long long)p->regions_folded);
    if (finalize_seconds > 0) {
      char ft[32];
      fprintf(out, "   - popmeter's end-of-run work took %s (not part of the runtime above)\n",
              pm_fmt_time(finalize_seconds, ft, sizeof ft));
    }
  }
  rule(out, width, '=', NULL);
  return ferror(out) ? -1 : 0;
}

int pm_report_print_table(FILE *out, const pm_profile *p, const pm_report_options *o, const char *note,
                          double finalize_seconds) {
  pm_model_set set;
  if (pm_report_compute(p, o, &set) != 0) {
    pm_model_set_free(&set);
    return -1;
  }
  int rc = pm_report_write_table(out, p, &set, o->width, note, finalize_seconds);
  pm_model_set_free(&set);
  return rc;
}
