/* An accelerator worker without a GPU (tests/integration/test_starpu_opencl.sh): pocl's OpenCL
 * device on the CPU, as a StarPU OpenCL worker (STARPU_NOPENCL=1 STARPU_OPENCL_ON_CPUS=1) with its
 * own memory node, hence real bus transfers.
 *   sp_ocl [NTASKS [N]]
 * NTASKS vectors of N floats (fresh, in main memory) are each scaled by 2 by an OpenCL-only task
 * (each task fetches its vector into the OpenCL node), then summed by a CPU-only task (which
 * fetches it back). Prints "ocl_tasks=<n> cpu_tasks=<n> bytes=<vector size> sum=<total>", the sum
 * checked against the exact value (2 * sum of the initial values). */
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>

static struct starpu_opencl_program programs;
static const char *src = "__kernel void scale(__global float *v, float f, unsigned n) {\n"
                         "  size_t i = get_global_id(0);\n"
                         "  if (i < n) v[i] *= f;\n"
                         "}\n";

static void scale_ocl(void *buffers[], void *arg) {
  (void)arg;
  cl_mem v = (cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(buffers[0]);
  unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
  float f = 2.0f;
  cl_kernel kernel;
  cl_command_queue queue;
  int devid = starpu_worker_get_devid(starpu_worker_get_id());
  if (starpu_opencl_load_kernel(&kernel, &queue, &programs, "scale", devid) != CL_SUCCESS) abort();
  clSetKernelArg(kernel, 0, sizeof v, &v);
  clSetKernelArg(kernel, 1, sizeof f, &f);
  clSetKernelArg(kernel, 2, sizeof n, &n);
  size_t global = n;
  if (clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL) != CL_SUCCESS) abort();
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
}

static double total;
static void sum_cpu(void *buffers[], void *arg) {
  (void)arg;
  float *v = (float *)STARPU_VECTOR_GET_PTR(buffers[0]);
  unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
  double s = 0;
  for (unsigned i = 0; i < n; i++) s += v[i];
  total += s; /* one CPU worker: no race */
}

static struct starpu_codelet cl_scale = {
    .where = STARPU_OPENCL, .opencl_funcs = {scale_ocl}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "ocl_scale"};
static struct starpu_codelet cl_sum = {
    .where = STARPU_CPU, .cpu_funcs = {sum_cpu}, .nbuffers = 1, .modes = {STARPU_R}, .name = "cpu_sum"};

int main(int argc, char **argv) {
  int ntasks = argc > 1 ? atoi(argv[1]) : 8;
  unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 65536;
  if (starpu_init(NULL) != 0 || starpu_opencl_worker_get_count() < 1) {
    fprintf(stderr, "no OpenCL worker\n");
    return 77;
  }
  if (starpu_opencl_load_opencl_from_string(src, &programs, NULL) != 0) return 77;
  float **v = malloc((size_t)ntasks * sizeof *v);
  starpu_data_handle_t *h = malloc((size_t)ntasks * sizeof *h);
  double expect = 0;
  for (int t = 0; t < ntasks; t++) {
    v[t] = malloc(n * sizeof(float));
    for (unsigned i = 0; i < n; i++) {
      v[t][i] = (float)((i + (unsigned)t) % 7);
      expect += 2.0 * v[t][i];
    }
    starpu_vector_data_register(&h[t], STARPU_MAIN_RAM, (uintptr_t)v[t], n, sizeof(float));
  }
  for (int t = 0; t < ntasks; t++) starpu_task_insert(&cl_scale, STARPU_RW, h[t], 0);
  for (int t = 0; t < ntasks; t++) starpu_task_insert(&cl_sum, STARPU_R, h[t], 0);
  starpu_task_wait_for_all();
  for (int t = 0; t < ntasks; t++) {
    starpu_data_unregister(h[t]);
    free(v[t]);
  }
  starpu_opencl_unload_opencl(&programs);
  starpu_shutdown();
  printf("ocl_tasks=%d cpu_tasks=%d bytes=%zu sum=%.0f %s\n", ntasks, ntasks, (size_t)n * sizeof(float), total,
         total == expect ? "correct" : "WRONG");
  free(v);
  free(h);
  return total == expect ? 0 : 1;
}
