/* A stand-in for a StarPU library of another version (tests/integration/test_starpu14_tool.sh):
 * starpu_get_version says 1.5, starpu_initialize succeeds without touching its arguments. popmeter's
 * StarPU 1.3 adapter must leave such a library alone (its structs are not 1.3's). */
struct starpu_conf;
void starpu_get_version(int *major, int *minor, int *release);
int starpu_initialize(struct starpu_conf *conf, int *argc, char ***argv);
void starpu_shutdown(void);

void starpu_get_version(int *major, int *minor, int *release) {
  *major = 1;
  *minor = 5;
  *release = 0;
}
int starpu_initialize(struct starpu_conf *conf, int *argc, char ***argv) {
  (void)conf;
  (void)argc;
  (void)argv;
  return 0;
}
void starpu_shutdown(void) {}
