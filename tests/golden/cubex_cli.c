/* The command line of cubex_check, as a function so that the unit tests can run it. */
#include "cubex_read.h"
#include <string.h>

static int usage(FILE *err) {
  fprintf(err, "usage: cubex_check [--dump METRIC [--inclusive | --exclusive]]... FILE.cubex...\n"
               "  Checks each .cubex structurally (tar layout as CubeLib reads it, anchor.xml grammar and ids,\n"
               "  index and data files); exit 0 when all are valid, 1 otherwise, 2 on a usage error.\n"
               "  --dump METRIC   print the stored values of METRIC (uniq_name) as\n"
               "                  \"cnode(id=K)<TAB>location<TAB>value\", rows in file order\n"
               "  --inclusive     values inclusive of callees (call tree), --exclusive: of the call path alone\n");
  return 2;
}

int cubex_cli(int argc, char **argv, FILE *out, FILE *errout) {
  const char *dump[64];
  cubex_view view[64];
  int ndump = 0, nfiles = 0, bad = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dump")) {
      if (i + 1 >= argc || ndump == 64) return usage(errout);
      dump[ndump] = argv[++i];
      view[ndump++] = CUBEX_STORED;
    } else if (!strcmp(argv[i], "--inclusive") || !strcmp(argv[i], "--exclusive")) {
      if (ndump == 0) return usage(errout);
      view[ndump - 1] = argv[i][2] == 'i' ? CUBEX_INCL : CUBEX_EXCL;
    } else if (argv[i][0] == '-') {
      return usage(errout);
    } else {
      nfiles++;
    }
  }
  if (nfiles == 0) return usage(errout);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-') {
      i += !strcmp(argv[i], "--dump");
      continue;
    }
    char err[600];
    cubex *c = cubex_open(argv[i], err, sizeof err);
    if (!c) {
      fprintf(errout, "cubex_check: INVALID %s\n", err);
      bad = 1;
      continue;
    }
    int stored = 0;
    for (int m = 0; m < cubex_nmetrics(c); m++) stored += cubex_metric_stored(c, m);
    fprintf(out, "%s: OK (cube %s, %d metrics of which %d stored, %d call paths, %d locations)\n", argv[i],
            cubex_version(c), cubex_nmetrics(c), stored, cubex_ncnodes(c), cubex_nlocations(c));
    for (int d = 0; d < ndump; d++)
      if (cubex_dump(out, c, dump[d], view[d]) != 0) bad = 1;
    cubex_close(c);
  }
  return bad;
}
