/* Fixtures of the CUBE tests (see cube_fixture.h). */
#define _GNU_SOURCE
#include "cube_fixture.h"
#include "pm_tar.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values per (call path c, profile location l), all exact binary fractions so that sums compare
 * exactly:
 *   useful     = (c + 1) + 0.25 l             at every cell present
 *   mpi_p2p    = 0.5 (l + 1)                  at MPI_Send
 *   posix_io   = 0.125 (l + 1)                at io
 *   mpi_mgmt   = 0.0625                       at main
 *   off        = 100                          at main (not measured: must not reach "time")
 *   idle       = 1.5                          at main on the thread locations (l = 2, 3)
 *   sync_wait  = 0.375                        at solve on the thread locations
 *   visits     = 10 c + l + 1,  bytes_sent = 1000 (l + 1) at MPI_Send
 * Cells present: every call path on the main locations (l = 0, 1); main and solve on the threads.
 * A second value for (solve, l = 0) with useful 0.5 and 1 visit checks that duplicates are summed. */
static void add_value(pm_profile *p, int c, int l) {
  pm_prof_value *v = &p->val[p->nvalues++];
  memset(v, 0, sizeof *v);
  v->cnode = c;
  v->location = l;
  v->visits = (uint64_t)(10 * c + l + 1);
  v->time[PM_STATE_USEFUL] = (c + 1) + 0.25 * l;
  if (c == FX_SEND) {
    v->time[PM_STATE_MPI_P2P] = 0.5 * (l + 1);
    v->bytes_sent = 1000u * (unsigned)(l + 1);
  }
  if (c == FX_IO) v->time[PM_STATE_POSIX_IO] = 0.125 * (l + 1);
  if (c == FX_MAIN) {
    v->time[PM_STATE_MPI_MGMT] = 0.0625;
    v->time[PM_STATE_OFF] = 100;
  }
  if (c == FX_MAIN && l >= 2) v->time[PM_STATE_IDLE] = 1.5;
  if (c == FX_SOLVE && l >= 2) v->time[PM_STATE_SYNC_WAIT] = 0.375;
}

pm_profile *cube_fixture_golden(void) {
  pm_profile *p = pm_profile_new();
  snprintf(p->app, sizeof p->app, "golden");
  snprintf(p->command, sizeof p->command, "./golden --size 4");
  snprintf(p->start_time, sizeof p->start_time, "2024-01-02T03:04:05");
  p->nprocesses = 2;
  p->proc = calloc(2, sizeof *p->proc);
  for (int i = 0; i < 2; i++) {
    p->proc[i].rank = i;
    snprintf(p->proc[i].host, sizeof p->proc[i].host, "n%d", i);
    p->proc[i].pid = 100 + i;
  }
  p->proc[0].window = 16.1875; /* = inclusive time of main on its main thread (see test_cube_writer.c) */
  p->proc[1].window = 17.5625;
  p->nlocations = 4;
  p->loc = calloc(4, sizeof *p->loc);
  for (int l = 0; l < 4; l++) {
    p->loc[l].process = l % 2;
    p->loc[l].thread = l / 2;
    p->loc[l].role = l < 2 ? PM_ROLE_MAIN : PM_ROLE_THREAD;
    snprintf(p->loc[l].name, sizeof p->loc[l].name, l < 2 ? "main" : "omp 1");
  }
  /* threads' wait for a CPU (the metric cpu_wait): location 2 does not know it */
  p->loc[0].cpu_wait = 0.25;
  p->loc[1].cpu_wait = 0.5;
  p->loc[2].cpu_wait = -1;
  p->loc[3].cpu_wait = 0.125;
  int rmain = pm_profile_add_region(p, "main", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int rinit = pm_profile_add_region(p, "init", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int rsolve = pm_profile_add_region(p, "solve", PM_PARADIGM_USER, PM_ROLE_FUNCTION);
  int rio = pm_profile_add_region(p, "io", PM_PARADIGM_IO, PM_ROLE_FILE_IO);
  int rsend = pm_profile_add_region(p, "MPI_Send", PM_PARADIGM_MPI, PM_ROLE_POINT2POINT);
  int cmain = pm_profile_add_cnode(p, -1, rmain);
  int cinit = pm_profile_add_cnode(p, cmain, rinit);
  int csolve = pm_profile_add_cnode(p, cmain, rsolve);
  pm_profile_add_cnode(p, cinit, rio);
  pm_profile_add_cnode(p, csolve, rsend);
  p->val = calloc(16, sizeof *p->val);
  for (int l = 0; l < 4; l++)
    for (int c = 0; c < 5; c++)
      if (l < 2 || c == FX_MAIN || c == FX_SOLVE) add_value(p, c, l);
  pm_prof_value *dup = &p->val[p->nvalues++];
  memset(dup, 0, sizeof *dup);
  dup->cnode = FX_SOLVE;
  dup->location = 0;
  dup->visits = 1;
  dup->time[PM_STATE_USEFUL] = 0.5;
  /* location totals consistent with the call-path values, so the models agree with the file */
  for (int i = 0; i < p->nvalues; i++)
    for (int s = 0; s < PM_STATE_COUNT; s++) p->loc[p->val[i].location].time[PM_CTX_SERIAL][s] += p->val[i].time[s];
  pm_profile_finish(p);
  return p;
}

/* --------------------------------------------------------------------------------------- files */
char *cube_fixture_tmpdir(void) {
  const char *t = getenv("TMPDIR");
  char *dir = NULL;
  if (asprintf(&dir, "%s/pmcube.XXXXXX", t && *t ? t : "/tmp") < 0) return NULL;
  if (!mkdtemp(dir)) {
    free(dir);
    return NULL;
  }
  return dir;
}

void cube_fixture_rmdir(char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char *f;
    if (asprintf(&f, "%s/%s", dir, e->d_name) >= 0) {
      unlink(f);
      free(f);
    }
  }
  if (d) closedir(d);
  rmdir(dir);
  free(dir);
}

int cube_fixture_count_files(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

unsigned char *cube_fixture_read(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return b;
}

int cube_fixture_save(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int rc = fwrite(data, 1, size, f) == size ? 0 : -1;
  return fclose(f) == 0 ? rc : -1;
}

unsigned char *cube_fixture_archive(const cube_member *m, int n, int std_padding, size_t *size) {
  size_t total = 1024;
  for (int i = 0; i < n; i++) total += PM_TAR_BLOCK + pm_tar_span(m[i].size);
  unsigned char *b = calloc(1, total), *o = b;
  for (int i = 0; b && i < n; i++) {
    pm_tar_header(o, m[i].name, m[i].size, 0);
    memcpy(o + PM_TAR_BLOCK, m[i].data, m[i].size);
    size_t span = std_padding ? (m[i].size + PM_TAR_BLOCK - 1) / PM_TAR_BLOCK * PM_TAR_BLOCK : pm_tar_span(m[i].size);
    o += PM_TAR_BLOCK + span;
  }
  *size = b ? (size_t)(o - b) + 1024 : 0; /* the end blocks (calloc'd zeros) */
  return b;
}

const char cube_fixture_min_anchor[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n<metrics>\n<metric id=\"0\">\n"
    "<disp_name>Time</disp_name>\n<uniq_name>time</uniq_name>\n<dtype>DOUBLE</dtype>\n<uom>sec</uom>\n</metric>\n"
    "</metrics>\n<program>\n<region id=\"0\" mod=\"\" begin=\"-1\" end=\"-1\">\n<name>main</name>\n</region>\n"
    "<cnode id=\"0\" calleeId=\"0\">\n</cnode>\n</program>\n<system>\n<systemtreenode Id=\"0\">\n<name>m</name>\n"
    "<class>machine</class>\n<locationgroup Id=\"0\">\n<name>p0</name>\n<rank>0</rank>\n<type>process</type>\n"
    "<location Id=\"0\">\n<name>t0</name>\n<rank>0</rank>\n<type>thread</type>\n</location>\n</locationgroup>\n"
    "</systemtreenode>\n</system>\n</cube>\n";
const unsigned char cube_fixture_min_index[18] = {'C', 'U', 'B', 'E', 'X', '.', 'I', 'N', 'D',
                                                  'E', 'X', 1,   0,   0,   0,   0,   0,   3};
const unsigned char cube_fixture_min_data[18] = {'C', 'U', 'B', 'E', 'X', '.', 'D',  'A',  'T',
                                                 'A', 0,   0,   0,   0,   0,   0x40, 0x45, 0x40};
