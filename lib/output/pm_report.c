#include "pm_report.h"
#include "pm_report_models.h"
#include "pm_report_summary.h"
#include "pm_profile_json.h"
#include "pm_output.h"
#include "pm_file.h"
#include "pm_cube.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* popmeter.json, atomically (pm_file.h): the whole file or none, one message when it fails. */
static int write_json(const char *dir, const pm_profile *run, const pm_model_set *set, int overwrite) {
  char path[4200], err[4600];
  snprintf(path, sizeof path, "%s/popmeter.json", dir);
  json_t *root = pm_profile_to_json(run);
  if (!root) {
    pm_error("out of memory while writing %s", path);
    return -1;
  }
  json_object_set_new(root, "models", pm_report_models_json(set));
  pm_afile af;
  int rc = pm_afile_open(&af, path, overwrite, err, sizeof err);
  if (rc == 0) {
    errno = 0;
    if (json_dumpf(root, af.f, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) == 0 && fputc('\n', af.f) != EOF) {
      rc = pm_afile_commit(&af, err, sizeof err);
    } else {
      snprintf(err, sizeof err, "writing %s failed: %s", path, errno ? strerror(errno) : "cannot encode the profile");
      pm_afile_abort(&af);
      rc = -1;
    }
  }
  if (rc != 0) pm_error("%s", err);
  json_decref(root);
  return rc;
}

void pm_report_run(pm_profile *run, const char *note, double reduce_seconds) {
  const pm_config *cfg = pm_config_get();
  pm_report_options o = {.models = cfg->s[PM_CFG_MODELS],
                         .width = (int)cfg->i[PM_CFG_TABLE_WIDTH],
                         .io_as_useful = (int)cfg->i[PM_CFG_IO_AS_USEFUL]};
  pm_model_set set;
  if (pm_report_compute(run, &o, &set) != 0) pm_warn("out of memory while computing the models: some are missing");
  if (set.bad_model[0]) pm_warn("POPMETER_MODELS: unknown model '%s'; using the default models", set.bad_model);
  char dir[4096] = "";
  /* any output asked for needs the directory: POPMETER_JSON=0 leaves profile.cubex and the trace */
  int want_files = cfg->i[PM_CFG_JSON] || cfg->i[PM_CFG_CUBE] || cfg->i[PM_CFG_TRACE];
  int overwrite = (int)cfg->i[PM_CFG_OVERWRITE];
  /* A process of a parallel run that reports alone (no MPI_Finalize, failed reduction) writes into
   * a directory of its own, so the ranks never race for one. */
  char suffix[32] = "";
  if (run->nprocesses == 1 && pm_core_size() > 1) snprintf(suffix, sizeof suffix, ".rank%d", pm_core_rank());
  if (want_files &&
      pm_output_prepare(cfg->s[PM_CFG_OUTPUT], run->app, run->start_time, overwrite, suffix, dir, sizeof dir) != 0)
    want_files = 0;
  pm_modules_place(want_files ? dir : NULL); /* the trace's archive joins the other files */
  /* the files first: if the table crashes a terminal or stderr is closed, the data is on disk */
  int json_ok = want_files && cfg->i[PM_CFG_JSON] && write_json(dir, run, &set, overwrite) == 0;
  if (json_ok) pm_info("wrote %s/popmeter.json", dir);
  if (want_files && cfg->i[PM_CFG_CUBE]) {
    char cube[4200], why[512];
    snprintf(cube, sizeof cube, "%s/profile.cubex", dir);
    if (pm_cube_write(run, (const pm_metric *const *)set.tree, set.n, cube, overwrite, why, sizeof why) == 0)
      pm_info("wrote %s", cube);
    else
      pm_error("%s", why);
  }
  if (cfg->i[PM_CFG_REPORT] == PM_REPORT_FULL) {
    pm_report_write_table(stderr, run, &set, o.width, note, reduce_seconds);
    if (json_ok) fprintf(stderr, " Output: %s/\n", dir);
  } else if (cfg->i[PM_CFG_REPORT] == PM_REPORT_SUMMARY) {
    char where[4200];
    snprintf(where, sizeof where, "%s/", dir);
    pm_summary_options so = {.width = o.width,
                             .color = pm_report_color_wanted(stderr),
                             .where = json_ok ? where : NULL,
                             .note = note,
                             .io_as_useful = o.io_as_useful,
                             .bad_model = set.bad_model};
    pm_report_write_summary(stderr, run, &so);
  }
  fflush(stderr);
  pm_model_set_free(&set);
}

/* The end-of-run outputs as a module (pm_module.h): the consumer of the run profile. */
const pm_module pm_output_module = {.name = "output", .order = PM_ORDER_OUTPUT, .report = pm_report_run};
