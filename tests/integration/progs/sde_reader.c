/* Reads popmeter's software-defined events (sde:::popmeter::<name>) through PAPI while running
 * under popmeter, around actions whose effect is known exactly:
 *   - writes 4096 bytes to DIR/sde.bin: io_bytes_written grows by exactly 4096;
 *   - computes for 100 ms of wall time: useful_ns grows by about that much;
 *   - starts a thread that writes 100 bytes: locations grows by 1 and io_bytes_written by 100.
 * Prints one "name value" line per quantity (deltas between two reads, or the instant value).
 * Exit 3 when the events cannot be added (popmeter not loaded: libsde absent). Usage: sde_reader DIR */
#include <papi.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const names[] = {"sde:::popmeter::locations", "sde:::popmeter::io_bytes_written",
                                    "sde:::popmeter::useful_ns", "sde:::popmeter::io_ns"};
enum { LOCATIONS, IO_WRITTEN, USEFUL, IO_NS, N };
static char path[4096];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int write_bytes(size_t n) {
  static char buf[4096];
  int fd = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
  if (fd < 0) return -1;
  ssize_t w = write(fd, buf, n);
  close(fd);
  return w == (ssize_t)n ? 0 : -1;
}
static void *thread_main(void *arg) {
  (void)arg;
  write_bytes(100);
  return NULL;
}

int main(int argc, char **argv) {
  snprintf(path, sizeof path, "%s/sde.bin", argc > 1 ? argv[1] : ".");
  int rc = PAPI_library_init(PAPI_VER_CURRENT), es = PAPI_NULL;
  if (rc != PAPI_VER_CURRENT) {
    printf("sde: PAPI_library_init failed (%d)\n", rc);
    return 3;
  }
  if (PAPI_create_eventset(&es) != PAPI_OK) return 3;
  for (int i = 0; i < N; i++)
    if ((rc = PAPI_add_named_event(es, names[i])) != PAPI_OK) {
      printf("sde: %s not available: %s\n", names[i], PAPI_strerror(rc));
      return 3;
    }
  long long v0[N], v1[N], v2[N], v3[N];
  if (PAPI_start(es) != PAPI_OK || PAPI_read(es, v0) != PAPI_OK) return 3;
  if (write_bytes(4096) != 0) return 1;
  PAPI_read(es, v1);
  double t0 = now(), x = 1;
  while (now() - t0 < 0.1) x = x * 1.0000001 + 1e-9; /* useful: application code */
  double wall = now() - t0;
  PAPI_read(es, v2);
  pthread_t t;
  pthread_create(&t, NULL, thread_main, NULL);
  pthread_join(t, NULL);
  PAPI_read(es, v3);
  PAPI_stop(es, v3);
  printf("locations_before %lld\nlocations_after %lld\n", v2[LOCATIONS], v3[LOCATIONS]);
  printf("io_bytes_written_4096 %lld\nio_bytes_written_100 %lld\n", v1[IO_WRITTEN] - v0[IO_WRITTEN],
         v3[IO_WRITTEN] - v2[IO_WRITTEN]);
  printf("io_ns %lld\n", v1[IO_NS] - v0[IO_NS]);
  printf("useful_ns %lld\nwall_ns %.0f\n", v2[USEFUL] - v1[USEFUL], wall * 1e9);
  printf("sde: done %g\n", x > 0 ? 1.0 : 0.0);
  return 0;
}
