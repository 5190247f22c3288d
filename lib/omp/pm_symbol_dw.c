/* Code address -> "function @file:line", for parallel regions, with elfutils' libdw (configure
 * finds it; pm_symbol.c is the fallback without it).
 *
 * libdw reads the process's modules from /proc/self/maps, their symbol tables (.symtab too, so
 * the local functions that identify OpenMP regions are found: GCC's outlined bodies
 * "main._omp_fn.0", static functions holding a fork call) and, when the binary was built with -g,
 * the DWARF line table: a region is then named as Score-P names it, by where it is in the source.
 * An address at a function's entry (GOMP: the outlined body) is looked up as is; any other
 * address is a return address (OMPT's codeptr_ra), whose call instruction is the byte before it.
 *
 * Called once per new region under the region table's lock, inside the tool guard (the I/O
 * adapter does not count libdw's reads). One Dwfl session serves the whole run; a module loaded
 * after it was opened (dlopen) is picked up by re-reading the maps once per unknown address. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef PM_HAVE_LIBDW
#include "pm_symbol.h"
#include <dlfcn.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static Dwfl *dwfl;
static int dwfl_failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

/* (Re-)reads the process's modules; 0 on success. */
static int report_modules(void) {
  if (!dwfl) {
    dwfl = dwfl_begin(&callbacks);
    if (!dwfl) return -1;
  }
  dwfl_report_begin(dwfl); /* keeps the modules already known, adds new ones */
  int rc = dwfl_linux_proc_report(dwfl, getpid());
  return dwfl_report_end(dwfl, NULL, NULL) == 0 && rc == 0 ? 0 : -1;
}

static Dwfl_Module *module_of(Dwarf_Addr a) {
  if (dwfl_failed) return NULL;
  if (!dwfl && report_modules() != 0) {
    dwfl_failed = 1;
    return NULL;
  }
  Dwfl_Module *m = dwfl_addrmodule(dwfl, a);
  if (!m && report_modules() == 0) m = dwfl_addrmodule(dwfl, a);
  return m;
}

/* The source file and line of address a of module m, NULL without line information. */
static const char *source_line(Dwfl_Module *m, Dwarf_Addr a, int *lineno) {
  Dwfl_Line *line = dwfl_module_getsrc(m, a);
  if (line) return dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
  /* libdw's address lookup misses the compilation units of clang's DWARF 5 (their ranges are
   * indexed attributes; elfutils 0.188): ask each unit whether it holds the address */
  Dwarf_Addr bias;
  for (Dwarf_Die *cu = dwfl_module_nextcu(m, NULL, &bias); cu; cu = dwfl_module_nextcu(m, cu, &bias)) {
    if (dwarf_haspc(cu, a - bias) <= 0) continue;
    Dwarf_Line *l = dwarf_getsrc_die(cu, a - bias);
    if (l && dwarf_lineno(l, lineno) == 0) return dwarf_linesrc(l, NULL, NULL);
  }
  return NULL;
}

/* Without libdw's help: "object+0xOFF" from the dynamic linker. */
static int name_from_object(const void *addr, char *buf, size_t n) {
  Dl_info info;
  if (!dladdr(addr, &info) || !info.dli_fname) {
    snprintf(buf, n, "%p", addr);
    return 0;
  }
  const char *base = strrchr(info.dli_fname, '/');
  base = base ? base + 1 : info.dli_fname;
  if (!base[0]) base = program_invocation_short_name; /* the main program */
  snprintf(buf, n, "%s+0x%lx", base, (unsigned long)((uintptr_t)addr - (uintptr_t)info.dli_fbase));
  return 0;
}

int pm_symbol_name(const void *addr, char *buf, size_t n) {
  Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)addr;
  pthread_mutex_lock(&lock);
  Dwfl_Module *m = module_of(a);
  GElf_Off off = 0;
  GElf_Sym sym;
  const char *name = m ? dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL, NULL) : NULL;
  int lineno = 0;
  const char *file = NULL;
  if (m) file = source_line(m, off == 0 ? a : a - 1, &lineno);
  int found = name != NULL;
  if (name && file && lineno > 0) {
    /* GCC's outlined body "f._omp_fn.N" is region N of f: the source line tells them apart */
    const char *outlined = strstr(name, "._omp_fn.");
    int len = outlined ? (int)(outlined - name) : (int)strlen(name);
    const char *base = strrchr(file, '/');
    snprintf(buf, n, "%.*s @%s:%d", len, name, base ? base + 1 : file, lineno);
  } else if (name && off) {
    snprintf(buf, n, "%s+0x%lx", name, (unsigned long)off);
  } else if (name) {
    snprintf(buf, n, "%s", name);
  }
  pthread_mutex_unlock(&lock);
  return found ? 1 : name_from_object(addr, buf, n);
}

void pm_symbol_reset(void) {
  pthread_mutex_lock(&lock);
  if (dwfl) dwfl_end(dwfl);
  dwfl = NULL;
  dwfl_failed = 0;
  pthread_mutex_unlock(&lock);
}
#endif /* PM_HAVE_LIBDW */
