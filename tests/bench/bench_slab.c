/* Benchmark (not a test): the record pools (lib/tasks/pm_slab.c) when one thread allocates and
 * another frees, as with StarPU tasks (the application thread submits, a worker ends them). A
 * producer takes 256-byte objects from a pool and writes them, a consumer touches and frees each one;
 * a ring of pointers between them keeps at most RING / 4 objects in flight. What it measures is the
 * exchange of objects between the two threads' caches through the pool's global list; the best of
 * 5 runs is printed in ns per object.
 *   bench/bench_slab [N]   (default 2,000,000 objects per run) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "pm_slab.h"

#define RING 4096
#define OBJECT 256

static void *ring[RING];
static unsigned long ring_head, ring_tail; /* consumer's and producer's positions */
static pm_slab pool;
static long count;

static void *consume(void *arg) {
  (void)arg;
  for (long i = 0; i < count; i++) {
    unsigned long h = __atomic_load_n(&ring_head, __ATOMIC_RELAXED);
    while (__atomic_load_n(&ring_tail, __ATOMIC_ACQUIRE) == h) __builtin_ia32_pause();
    char *o = ring[h % RING];
    o[OBJECT / 2] = 1; /* a worker writes the record it ends */
    pm_slab_free(&pool, o);
    __atomic_store_n(&ring_head, h + 1, __ATOMIC_RELEASE);
  }
  return NULL;
}

static double one_run(void) {
  ring_head = ring_tail = 0;
  pthread_t consumer;
  if (pthread_create(&consumer, NULL, consume, NULL) != 0) return -1;
  double t0 = bench_now_s();
  for (long i = 0; i < count; i++) {
    unsigned long t = __atomic_load_n(&ring_tail, __ATOMIC_RELAXED);
    while (t - __atomic_load_n(&ring_head, __ATOMIC_ACQUIRE) >= RING / 4) __builtin_ia32_pause();
    void *o = pm_slab_alloc_uninit(&pool);
    if (!o) {
      fprintf(stderr, "bench_slab: out of memory\n");
      exit(1);
    }
    memset(o, 0, OBJECT); /* a submission writes the whole record */
    ring[t % RING] = o;
    __atomic_store_n(&ring_tail, t + 1, __ATOMIC_RELEASE);
  }
  pthread_join(consumer, NULL);
  return (bench_now_s() - t0) / (double)count * 1e9;
}

int main(int argc, char **argv) {
  count = argc > 1 ? atol(argv[1]) : 2000000;
  if (count <= 0) {
    fprintf(stderr, "usage: %s [objects per run]\n", argv[0]);
    return 2;
  }
  pm_slab_init(&pool, OBJECT, 1024);
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double ns = one_run();
    if (ns < 0) {
      fprintf(stderr, "bench_slab: no thread\n");
      return 1;
    }
    if (ns < best) best = ns;
  }
  printf("record pool, allocated on one thread and freed on another: %.1f ns per object (best of 5 runs of %ld)\n",
         best, count);
  pm_slab_destroy(&pool);
  return 0;
}
