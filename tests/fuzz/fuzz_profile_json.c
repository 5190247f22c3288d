/* Fuzz target: popmeter.json as `popmeter show` reads it. The input is the file's text; a profile
 * the reader accepts then goes through every model and both tables (the full table and the
 * summary), written to /dev/null, and is written as JSON again, which must read back. The reader
 * must refuse what it cannot use with a message, and whatever it accepts must be safe to compute,
 * print and write (docs/conventions.md, "Errors"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pm_profile.h"
#include "pm_report_models.h"
#include "pm_report_summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *devnull;
  if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[512];
  pm_profile *p = pm_profile_from_json_string(text, err, sizeof err);
  free(text);
  if (!p) return 0;
  pm_report_options o = {.models = "all", .width = 100, .io_as_useful = 0};
  pm_report_print_table(devnull, p, &o, "fuzz", 0.25);
  pm_summary_options so = {.width = 100, .where = "fuzz/", .note = "fuzz"};
  pm_report_write_summary(devnull, p, &so);
  /* the same profile once more with the defaults `popmeter show` uses */
  o.models = "auto";
  o.io_as_useful = 1;
  pm_report_print_table(devnull, p, &o, NULL, 0);
  so.width = 60;
  so.io_as_useful = 1;
  pm_report_write_summary(devnull, p, &so);
  /* what the reader accepts, the writer writes and the reader reads back */
  char *again = pm_profile_to_json_string(p);
  if (again) {
    pm_profile *q = pm_profile_from_json_string(again, err, sizeof err);
    if (!q) {
      fprintf(stderr, "the profile read does not read back once written: %s\n", err);
      abort();
    }
    pm_profile_free(q);
    free(again);
  }
  pm_profile_free(p);
  return 0;
}
