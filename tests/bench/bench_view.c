/* The size of popmeter view's page and the time Chromium takes to open it, for a synthetic task run
 * (view_synth.c) of 10^6 tasks by default (make bench). The page's own clock (data-drawn-ms: from
 * the navigation's start to the end of its drawing, JSON parsing included) is read back from the
 * DOM headless Chromium dumps; the wall time of the whole browser run is printed next to that of
 * an empty page, the browser's own start-up.
 *   bench_view [TASKS [RANKS WORKERS]] [--keep DIR]    (Chromium: chromium from PATH, or $CHROMIUM) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench_util.h"
#include "pm_view.h"
#include "view_synth.h"

/* Runs Chromium on url, the DOM into dom (malloc'd); returns the wall time, or -1. */
static double chromium(const char *browser, const char *profile, const char *url, char **dom) {
  char *argv[] = {(char *)browser, "--headless", "--disable-gpu",
                  "--no-sandbox",  NULL,         "--window-size=1400,1000",
                  "--dump-dom",    (char *)url,  NULL};
  char pd[4200];
  snprintf(pd, sizeof pd, "--user-data-dir=%s", profile);
  argv[4] = pd;
  size_t cap = (size_t)256 << 20;
  *dom = malloc(cap);
  if (!*dom) return -1;
  /* the browser's own chatter (no D-Bus in a container...) goes to /dev/null, not over the results */
  int saved = dup(2), null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, 2);
  double t0 = bench_now_s();
  int rc = bench_run_child(argv, NULL, *dom, cap);
  double t = bench_now_s() - t0;
  if (saved >= 0) dup2(saved, 2), close(saved);
  if (null >= 0) close(null);
  return rc == 0 ? t : -1;
}

static long attr(const char *dom, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "%s=\"", name);
  const char *p = strstr(dom, key);
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}
static size_t count(const char *dom, const char *needle) {
  size_t n = 0;
  for (const char *p = dom; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

int main(int argc, char **argv) {
  vs_params p = {
      .tasks = 1000000, .ranks = 4, .workers = 16, .codelets = 6, .fronts = 20000, .msg_every = 50, .seed = 7};
  const char *keep = NULL;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--keep") && i + 1 < argc)
      keep = argv[++i];
    else if (pos == 0 && ++pos)
      p.tasks = strtoul(argv[i], NULL, 10);
    else if (pos == 1 && ++pos)
      p.ranks = atoi(argv[i]);
    else
      p.workers = atoi(argv[i]);
  }
  if (p.tasks < 1 || p.ranks < 1 || p.workers < 1) {
    fprintf(stderr, "usage: bench_view [TASKS [RANKS WORKERS]] [--keep DIR]\n");
    return 2;
  }
  char dir[4096];
  if (keep) {
    snprintf(dir, sizeof dir, "%s", keep);
    mkdir(dir, 0755);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/bench_viewXXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) return 1;
  }
  printf("bench_view: %zu tasks on %d ranks x %d workers (synthetic: tests/bench/view_synth.c)\n", p.tasks, p.ranks,
         p.workers);
  double t0 = bench_now_s();
  vs_run r;
  if (vs_generate(&p, &r) != 0 || vs_write(&r, dir) != 0) return 1;
  printf("  the run (trace, popmeter.json) written in %.1f s into %s\n", bench_now_s() - t0, dir);
  char page[4200], json[4200], url[4300];
  snprintf(page, sizeof page, "%s/view.html", dir);
  snprintf(json, sizeof json, "%s/popmeter.json", dir);
  t0 = bench_now_s();
  printf("  ");
  fflush(stdout);
  if (pm_view_write(json, dir, page, 1, PM_VIEW_BUDGET) != 0) return 1;
  double tv = bench_now_s() - t0;
  struct stat st;
  stat(page, &st);
  printf("  popmeter view: %.1f s, page %.1f MB\n", tv, st.st_size / 1e6);
  const char *browser = getenv("CHROMIUM");
  if (!browser || !*browser) browser = "/usr/bin/chromium";
  if (access(browser, X_OK) != 0) {
    printf("  Chromium: %s is not installed (tools/setup-deps.sh), not measured\n", browser);
    vs_free(&r);
    return 0;
  }
  char profile[4200], empty[4200];
  snprintf(profile, sizeof profile, "%s/chromium", dir);
  snprintf(empty, sizeof empty, "%s/empty.html", dir);
  FILE *f = fopen(empty, "w");
  if (f) fputs("<!DOCTYPE html><html><body></body></html>\n", f), fclose(f);
  snprintf(url, sizeof url, "file://%s", empty);
  char *dom;
  double base = 1e9;
  for (int k = 0; k < 3; k++) {
    double w = chromium(browser, profile, url, &dom);
    free(dom);
    if (w >= 0 && w < base) base = w;
  }
  snprintf(url, sizeof url, "file://%s", page);
  double best = 1e9;
  long drawn_ms = -1, best_drawn = 1 << 30;
  size_t tasks = 0;
  int errors = 0, ok = 0;
  for (int k = 0; k < 3; k++) {
    double w = chromium(browser, profile, url, &dom);
    if (w >= 0 && (drawn_ms = attr(dom, "data-drawn-ms")) >= 0) {
      ok++;
      if (w < best) best = w;
      if (drawn_ms < best_drawn) best_drawn = drawn_ms;
      tasks = count(dom, "class=\"task");
      errors |= strstr(dom, "data-errors=") != NULL;
    }
    free(dom);
  }
  if (!ok) {
    printf("  Chromium: the page did not draw\n");
    return 1;
  }
  printf("  Chromium (best of 3): drawn %ld ms after navigation (the page's clock), browser run %.2f s "
         "(an empty page: %.2f s); %zu task rectangles drawn, %s\n",
         best_drawn, best, base, tasks, errors ? "SCRIPT ERRORS" : "no script error");
  vs_free(&r);
  if (!keep) {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) return 1;
  }
  return errors;
}
