/* A compute loop for the hardware-counter tests: N iterations of a dependent scalar double
 * multiply-add chain (it cannot be vectorized: each step needs the previous result), so a machine
 * with counters retires at least N instructions and N scalar-double FP instructions in useful time.
 * Prints the result so the loop is not optimised away. Usage: ctr_work N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000L;
  volatile double seed = 1.0000001;
  double x = seed, y = 0.5;
  for (long i = 0; i < n; i++) y = y * x + 1e-9;
  printf("ctr_work: %ld iterations, result %.6f\n", n, y);
  return 0;
}
