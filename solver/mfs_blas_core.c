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
 *
 * The same restart on AMD Zen 4 (family 19h with AVX-512), for which OpenBLAS 0.3.21 picks its
 * AVX-512 kernels (Cooperlake, SkylakeX): Zen 4 runs 512-bit instructions as two 256-bit halves, and
 * OpenBLAS's Zen (AVX2) kernels are as fast for DGEMM and faster for the triangular solve and the
 * symmetric update. One core of an EPYC (Zen 4) VM, OpenBLAS 0.3.21: DTRSM (Right, Lower, Trans) on
 * 512 x 512 34.9 GFlop/s with Cooperlake's kernels against 47.3 with Zen's, DSYRK (512) 44.9 against
 * 47.9, DGEMM (1024) 51.5 against 51.0; mfsolve's whole factorization, interleaved pairs: lap3d:60 on
 * one core -0.19 s of 5.4 (faster in 5 of 6), on 2 workers -0.08 s of 2.8 (6 of 6), lap3d27:40 on
 * one core -0.02 s of 0.81 (5 of 8); CHOLMOD on one thread (lap3d:60) -0.09 s of 5.9 (4 of 5). Zen 5
 * (family 1Ah) was not measured and keeps OpenBLAS's choice. Only an OpenBLAS that chooses its kernels
 * at load time (DYNAMIC_ARCH, as Debian builds it) reads OPENBLAS_CORETYPE: with any other build
 * mfsolve does not restart.
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

/* Its AVX-512 kernel sets, which a Zen 4 runs slower than the Zen set. */
static const char *const avx512_sets[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};

static int in_list(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcasecmp(name, list[i])) return 1;
  return 0;
}

const char *mfs_blas_core_for(const char *current, int avx512, int avx2_fma, int zen4) {
  if (!current) return NULL;
  int old = in_list(current, pre_avx2, sizeof pre_avx2 / sizeof pre_avx2[0]);
  if (zen4 && (old || in_list(current, avx512_sets, sizeof avx512_sets / sizeof avx512_sets[0]))) return "Zen";
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
  const char *config = openblas_get_config();
  if (!config || !strstr(config, "DYNAMIC_ARCH")) return; /* one kernel set built in: nothing to choose */
  const char *current = openblas_get_corename();
  /* an AMD CPU of family 19h (Zen 3 and Zen 4) with AVX-512: a Zen 4 */
  const int zen4 = avx512 && __builtin_cpu_is("amdfam19h");
  const char *want = mfs_blas_core_for(current, avx512, avx2_fma, zen4);
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
