#define _GNU_SOURCE
/* The CUDA module in libpopmeter (pm_module.h). libpopmeter itself never
 * links CUDA: at activation it opens the driver (libcuda.so.1) with dlopen, asks it for devices,
 * and only when there is one loads the plugin, which links libcupti. Without a driver or a device
 * the reason becomes this process's CUDA note ("no CUDA device (...)") and nothing else happens.
 *
 * The plugin is not registered as CUDA_INJECTION64_PATH: the driver would load it in every process
 * that inherits the variable (children, launchers) where popmeter is not measuring, it could not
 * reach libpopmeter's hidden core from there, and setting the variable would change the
 * application's environment. Subscribing at activation works whether the program initialised CUDA
 * before (CUPTI attaches to a running driver) or does so later. Programs that do not use CUDA are
 * left alone (pm_cuda_program_uses_cuda): no driver call, no note. */
#include "cuda_module.h"
#include "pm_module.h"
#include "pm_lifecycle.h"
#include "pm_profile.h"
#include "config.h"
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char status[160]; /* see pm_cuda_status */
static const pm_cuda_plugin *plugin;
static int module_open;

/* ------------------------------------------------------------------------- table for the plugin */
static uint64_t host_now(void) { return pm_clock_now(); }
static const pm_cuda_host host_api = {
    .abi = PM_CUDA_ABI,
    .now = host_now,
    .clock_sync = pm_cuda_streams_clock_sync,
    .clock_is_host = pm_cuda_streams_clock_is_host,
    .activity = pm_cuda_streams_feed,
    .dropped = pm_cuda_streams_dropped,
    .host_enter = pm_cuda_host_enter,
    .host_exit = pm_cuda_host_exit,
};
const pm_cuda_host *pm_cuda_host_api(void) { return &host_api; }

const char *pm_cuda_status(void) { return status; }

void pm_cuda_module_open(void) {
  pm_cuda_streams_open();
  module_open = 1;
  snprintf(status, sizeof status, "measured");
}

/* --------------------------------------------------------------------------------------- driver */
/* 0 when the driver reports at least one device; otherwise the reason in 'why'. The driver stays
 * loaded (the application will use it; unloading a driver is never safe). */
static int probe_driver(char *why, size_t n) {
  void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD); /* the program loaded it already */
  if (!h) h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    snprintf(why, n, "no CUDA device (libcuda.so.1 not found)");
    return -1;
  }
  int (*init)(unsigned) = NULL, (*count)(int *) = NULL, (*err_name)(int, const char **) = NULL;
  *(void **)&init = dlsym(h, "cuInit");
  *(void **)&count = dlsym(h, "cuDeviceGetCount");
  *(void **)&err_name = dlsym(h, "cuGetErrorName");
  if (!init || !count) {
    snprintf(why, n, "no CUDA device (libcuda.so.1 has no cuInit / cuDeviceGetCount)");
    return -1;
  }
  int nd = 0, rc = init(0);
  const char *call = "cuInit", *name = NULL;
  if (rc == 0) {
    rc = count(&nd);
    call = "cuDeviceGetCount";
  }
  if (rc != 0) {
    if (err_name && err_name(rc, &name) == 0 && name)
      snprintf(why, n, "no CUDA device (%s failed: %s)", call, name);
    else
      snprintf(why, n, "no CUDA device (%s failed: CUDA error %d)", call, rc); /* a stub driver names none */
    return -1;
  }
  if (nd <= 0) {
    snprintf(why, n, "no CUDA device (the driver reports 0 devices)");
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- plugin */
/* The plugin lives in $(pkglibdir) (lib/popmeter/ next to an installed libpopmeter) or, in the build
 * tree, next to libpopmeter itself. */
static void *open_plugin(char *why, size_t n) {
  Dl_info info;
  char dir[4096] = "", path[4200];
  if (dladdr((void *)&pm_cuda_host_api, &info) && info.dli_fname) {
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    if (slash)
      *slash = '\0';
    else
      snprintf(dir, sizeof dir, ".");
  }
  const char *fmt[] = {"%s/popmeter/" PM_CUDA_PLUGIN_NAME, "%s/" PM_CUDA_PLUGIN_NAME};
  for (unsigned i = 0; dir[0] && i < 2; i++) {
    snprintf(path, sizeof path, fmt[i], dir);
    if (access(path, R_OK) != 0) continue;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, n, "CUDA activity not measured: %s", dlerror());
    return h;
  }
#ifdef PM_PKGLIBDIR
  snprintf(path, sizeof path, "%s/%s", PM_PKGLIBDIR, PM_CUDA_PLUGIN_NAME);
  if (access(path, R_OK) == 0) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, n, "CUDA activity not measured: %s", dlerror());
    return h;
  }
#endif
#ifdef PM_HAVE_CUPTI
  snprintf(why, n, "CUDA activity not measured: %s not found next to libpopmeter", PM_CUDA_PLUGIN_NAME);
#else
  snprintf(why, n, "CUDA activity not measured: popmeter was built without CUPTI");
#endif
  return NULL;
}

/* ------------------------------------------------------------------------ is it a CUDA program? */
/* The driver is initialised only in programs that use CUDA themselves: cuInit in every process of a
 * GPU node would cost time and would break a program that forks and uses CUDA in the child (CUDA
 * forbids that after cuInit in the parent). A program uses CUDA when a CUDA library is mapped
 * (libcudart, libcuda, the CUDA math libraries...) or when its executable carries device code (a
 * .nv_fatbin section: nvcc links the CUDA runtime statically by default). */
static int maps_cuda_library(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
  base = base ? base + 1 : info->dlpi_name;
  return base && !strncmp(base, "libcu", 5) && strncmp(base, "libcurl", 7) != 0; /* libcuda, libcudart, libcublas... */
}

/* 1 when the ELF file at path has a section named 'name'. Raw syscalls: popmeter's own I/O
 * wrappers must not count this as the application's I/O. */
static int elf_has_section(const char *path, const char *name) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int found = 0;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  char *names = NULL;
  if (syscall(SYS_pread64, fd, &eh, sizeof eh, 0) != (long)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shnum > 65000 || eh.e_shstrndx >= eh.e_shnum)
    goto out;
  size_t shbytes = (size_t)eh.e_shnum * sizeof *sh;
  if (!(sh = malloc(shbytes)) || syscall(SYS_pread64, fd, sh, shbytes, (off_t)eh.e_shoff) != (long)shbytes) goto out;
  const Elf64_Shdr *st = &sh[eh.e_shstrndx];
  if (st->sh_size == 0 || st->sh_size > (1u << 24) || !(names = malloc(st->sh_size + 1))) goto out;
  if (syscall(SYS_pread64, fd, names, st->sh_size, (off_t)st->sh_offset) != (long)st->sh_size) goto out;
  names[st->sh_size] = '\0';
  for (unsigned i = 0; i < eh.e_shnum && !found; i++)
    found = sh[i].sh_name < st->sh_size && !strcmp(names + sh[i].sh_name, name);
out:
  free(sh);
  free(names);
  syscall(SYS_close, fd);
  return found;
}

int pm_cuda_program_uses_cuda(void) {
  return dl_iterate_phdr(maps_cuda_library, NULL) != 0 || elf_has_section("/proc/self/exe", ".nv_fatbin");
}

static void load(void);
void pm_cuda_activate(const pm_config *cfg) {
  status[0] = '\0';
  if (!cfg->i[PM_CFG_CUDA]) return; /* POPMETER_CUDA=0: CUDA is not looked for */
  /* POPMETER_CUDA=1 set explicitly looks for CUDA in any program (a program that dlopens CUDA late) */
  if (!cfg->is_set[PM_CFG_CUDA] && !pm_cuda_program_uses_cuda()) return;
  load();
  if (strcmp(status, "measured") != 0) pm_info("%s", status);
}

static void load(void) {
  char why[sizeof status];
  if (probe_driver(why, sizeof why) != 0) {
    snprintf(status, sizeof status, "%s", why);
    return;
  }
  void *h = open_plugin(why, sizeof why);
  if (!h) {
    snprintf(status, sizeof status, "%s", why);
    return;
  }
  pm_cuda_plugin_entry_fn entry;
  *(void **)&entry = dlsym(h, PM_CUDA_PLUGIN_ENTRY);
  const pm_cuda_plugin *p = entry ? entry() : NULL;
  if (!p || p->abi != PM_CUDA_ABI) {
    snprintf(status, sizeof status, "CUDA activity not measured: %s is from another popmeter version",
             PM_CUDA_PLUGIN_NAME);
    return; /* left loaded: it may have started threads */
  }
  pm_cuda_module_open();
  if (p->start(&host_api, why, sizeof why) != 0) {
    pm_cuda_streams_close(pm_clock_now());
    module_open = 0;
    snprintf(status, sizeof status, "CUDA activity not measured: %.128s", why);
    return;
  }
  plugin = p;
  pm_info("CUDA activity recorded through CUPTI");
}

void pm_cuda_finalize(uint64_t t_end) {
  if (!module_open) return;
  pm_cuda_streams_end_window(t_end); /* the last buffers: nothing beyond t_end */
  if (plugin) {
    plugin->flush();
    plugin->stop();
  }
  pm_cuda_streams_close(t_end);
}

int pm_cuda_to_profile(pm_profile *p) {
  if (p->nprocesses < 1) return 0;
  char *note = p->proc[0].cuda;
  size_t n = sizeof p->proc[0].cuda;
  snprintf(note, n, "%s", status);
  if (!module_open) return 0;
  pm_cuda_streams_to_profile(p);
  uint64_t lost = pm_cuda_streams_dropped_count(), partial = pm_cuda_streams_overlap_partial();
  size_t len = strlen(note);
  if (lost && len < n)
    len += (size_t)snprintf(note + len, n - len, "; %llu activity records lost (CUPTI buffers full or over %d streams)",
                            (unsigned long long)lost, PM_CUDA_MAX_STREAMS);
  if (partial && len < n)
    snprintf(note + len, n - len, "; copy/kernel overlap counted in part on %llu device(s)",
             (unsigned long long)partial);
  return 0;
}

void pm_cuda_module_reset_for_tests(void) {
  pm_cuda_streams_reset();
  pm_cuda_host_reset();
  module_open = 0;
  plugin = NULL;
  status[0] = '\0';
}

static void cuda_finalize(const pm_ipc *ipc, uint64_t t_end) {
  (void)ipc;
  pm_cuda_finalize(t_end);
}
static int cuda_to_profile(pm_profile *p, uint64_t t_start) {
  (void)t_start;
  return pm_cuda_to_profile(p);
}
/* The CUDA module (pm_module.h): looks for a driver at activation, drains the device activity at
 * finalize, adds the device streams' status to the profile. */
const pm_module pm_cuda_module = {.name = "cuda",
                                  .order = PM_ORDER_CUDA,
                                  .activate = pm_cuda_activate,
                                  .finalize = cuda_finalize,
                                  .to_profile = cuda_to_profile};
