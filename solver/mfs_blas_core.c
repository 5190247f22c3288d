/*
 * mfs_blas_core.c — OpenBLAS's kernels on virtual machines that hide the CPU model.
 *
 * OpenBLAS (DYNAMIC_ARCH, as Debian builds it) picks its kernels once, when the library loads, from
 * the CPUID family and model. A hypervisor that reports a generic model ("Intel Xeon Processor")
 * makes it fall back to its oldest x86-64 kernels (Prescott: SSE3) although the CPU has AVX-512: on
 * the development VM DGEMM then runs at 13.6 GFlop/s on one core instead of 72 with the SkylakeX
 * kernels, and a whole factorization (lap3d:50) takes 7.4 s instead of 2.6. The kernel set can only
 * be chosen before the library loads, through OPENBLAS_CORETYPE; so mfsolve, when OpenBLAS chose a
 * kernel set without AVX2 on a CPU that has AVX2 + FMA (Haswell kernels) or AVX-512 (SkylakeX),
 * sets OPENBLAS_CORETYPE and starts itself again, once (MFSOLVE_BLAS_RESTARTED guards the loop). A
 * user's own OPENBLAS_CORETYPE, or MFSOLVE_KEEP_BLAS_CORE=1, is left alone.
 */
#include "mfs_internal.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* OpenBLAS's x86-64 kernel sets without AVX2 (its corename table). */
static const char *const pre_avx2[] = {
    "Unknown",     "Katmai",     "Coppermine", "Northwood",  "Prescott",    "Banias",        "Atom",      "Core2",
    "Penryn",      "Dunnington", "Nehalem",    "Athlon",     "Opteron",     "Opteron(SSE3)", "Barcelona", "Nano",
    "Sandybridge", "Bobcat",     "Bulldozer",  "Piledriver", "Steamroller", "Excavator"};

const char *mfs_blas_core_for(const char *current, int avx512, int avx2_fma) {
  if (!current) return NULL;
  int old = 0;
  for (size_t i = 0; i < sizeof pre_avx2 / sizeof pre_avx2[0] && !old; i++) old = !strcasecmp(current, pre_avx2[i]);
  if (!old) return NULL; /* OpenBLAS recognised the CPU, or chose a set with AVX2 already */
  if (avx512) return "SkylakeX";
  if (avx2_fma) return "Haswell";
  return NULL;
}

static char note[160];

const char *mfs_blas_core_note(void) {
  const char *core = openblas_get_corename();
  const char *chosen_by = getenv("MFSOLVE_BLAS_RESTARTED");
  if (chosen_by && *chosen_by)
    snprintf(note, sizeof note, "OpenBLAS, %s kernels (OPENBLAS_CORETYPE set by mfsolve: OpenBLAS had chosen %s)",
             core ? core : "?", chosen_by);
  else
    snprintf(note, sizeof note, "OpenBLAS, %s kernels", core ? core : "?");
  return note;
}

void mfs_blas_core_restart(char **argv) {
  const char *keep = getenv("MFSOLVE_KEEP_BLAS_CORE");
  if (getenv("OPENBLAS_CORETYPE") || getenv("MFSOLVE_BLAS_RESTARTED") || (keep && strcmp(keep, "0") != 0)) return;
#if defined(__x86_64__)
  __builtin_cpu_init();
  int avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  int avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const char *current = openblas_get_corename();
  const char *want = mfs_blas_core_for(current, avx512, avx2_fma);
  if (!want) return;
  if (setenv("OPENBLAS_CORETYPE", want, 1) != 0 || setenv("MFSOLVE_BLAS_RESTARTED", current, 1) != 0) return;
  execv("/proc/self/exe", argv);
  /* not restarted (no /proc): go on with the kernels OpenBLAS chose */
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("MFSOLVE_BLAS_RESTARTED");
#else
  (void)argv;
#endif
}
