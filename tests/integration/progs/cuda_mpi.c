/* A small CUDA + MPI program: every rank copies a vector to its GPU (rank r uses device r mod the
 * device count), runs ITER rounds of kernels that spin (r+1) * UNIT seconds in all, synchronises,
 * copies it back; the ranks then meet in MPI_Allreduce. Rank r's kernel time is (r+1) * ITER * UNIT,
 * so on N ranks with one GPU each the device load balance is (N+1)/(2N) (0.75 for 2 ranks).
 * Without a CUDA device it prints "SKIP: <reason>" on rank 0 and exits 0 (the test then skips).
 * Usage: cuda_mpi [UNIT_SECONDS=0.05] [ITER=4] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int cm_device_count(char *why, size_t n);
int cm_device_work(int dev, float *x, int n, int launches, long long cycles, char *why, size_t wn);
int cm_clock_khz(int dev);

int main(int argc, char **argv) {
  double unit = argc > 1 ? atof(argv[1]) : 0.05;
  int iter = argc > 2 ? atoi(argv[2]) : 4;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char why[256] = "";
  int ndev = cm_device_count(why, sizeof why), ok = ndev > 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    if (rank == 0) printf("SKIP: no CUDA device (%s)\n", ok ? "on another rank" : why);
    MPI_Finalize();
    return 0;
  }
  int dev = rank % ndev, n = 1 << 20;
  float *x = malloc(sizeof(float) * (size_t)n);
  for (int i = 0; i < n; i++) x[i] = 1.0f;
  int khz = cm_clock_khz(dev);
  long long cycles = (long long)(unit * (khz > 0 ? khz : 1000000) * 1e3); /* one UNIT per launch */
  double sum = 0;
  for (int it = 0; it < iter; it++) {
    if (cm_device_work(dev, x, n, rank + 1, cycles, why, sizeof why) != 0) {
      fprintf(stderr, "cuda_mpi: rank %d: %s\n", rank, why);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double local = x[0], total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sum = total;
  }
  /* every round adds 1 to x on the device: x[0] = 1 + iter on every rank */
  double expect = size * (1.0 + iter);
  if (rank == 0) printf("cuda_mpi: %d ranks, %d devices, checksum %s\n", size, ndev, sum == expect ? "ok" : "WRONG");
  free(x);
  MPI_Finalize();
  return 0;
}
