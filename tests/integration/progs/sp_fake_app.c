/* Initialises "StarPU" from libsp_fake_version (another version than 1.3) and shuts it down. */
#include <stdio.h>
struct starpu_conf;
int starpu_initialize(struct starpu_conf *conf, int *argc, char ***argv);
void starpu_shutdown(void);

int main(void) {
  int rc = starpu_initialize(NULL, NULL, NULL);
  starpu_shutdown();
  printf("initialize=%d\n", rc);
  return rc;
}
