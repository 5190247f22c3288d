// Device side of cuda_mpi.c: one busy kernel of a known duration, copies both ways, synchronisation.
#include <cuda_runtime.h>
#include <stdio.h>

// Spins for 'cycles' GPU clock cycles (one small block: no waves of blocks stretch it): device time
// as far as any tool can tell.
__global__ void spin(long long cycles, int *sink) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {}
  if (threadIdx.x == 0) atomicAdd(sink, 1);
}

__global__ void add_one(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

// Returns the number of devices, or -1 with the reason in why.
extern "C" int cm_device_count(char *why, size_t n) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    snprintf(why, n, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
    return -1;
  }
  if (count == 0) snprintf(why, n, "cudaGetDeviceCount: 0 devices");
  return count;
}

// On device dev: copy x (n floats) in, run 'launches' kernels of 'cycles' cycles each, synchronise,
// copy x back. Returns 0, or -1 with the reason in why.
extern "C" int cm_device_work(int dev, float *x, int n, int launches, long long cycles, char *why, size_t wn) {
  float *d = NULL;
  int *sink = NULL;
  cudaError_t e;
  if ((e = cudaSetDevice(dev)) != cudaSuccess || (e = cudaMalloc(&d, n * sizeof(float))) != cudaSuccess ||
      (e = cudaMalloc(&sink, sizeof(int))) != cudaSuccess)
    goto fail;
  if ((e = cudaMemcpy(d, x, n * sizeof(float), cudaMemcpyHostToDevice)) != cudaSuccess) goto fail;
  for (int k = 0; k < launches; k++) spin<<<1, 32>>>(cycles, sink);
  add_one<<<(n + 255) / 256, 256>>>(d, n);
  if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaDeviceSynchronize()) != cudaSuccess) goto fail;
  if ((e = cudaMemcpy(x, d, n * sizeof(float), cudaMemcpyDeviceToHost)) != cudaSuccess) goto fail;
  cudaFree(sink);
  cudaFree(d);
  return 0;
fail:
  snprintf(why, wn, "%s", cudaGetErrorString(e));
  if (sink) cudaFree(sink);
  if (d) cudaFree(d);
  return -1;
}

// Clock rate of device dev in kHz (for cycles <-> seconds), 0 if unknown.
extern "C" int cm_clock_khz(int dev) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess) return 0;
  return khz;
}
