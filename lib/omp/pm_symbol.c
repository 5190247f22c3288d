/* Code address -> function name, for parallel regions, without elfutils' libdw (pm_symbol_dw.c is
 * used when configure found it: it adds source lines).
 *
 * dladdr only sees dynamic symbols, and the functions that identify OpenMP regions are usually
 * local: GCC's outlined bodies ("main._omp_fn.0") and the static functions of an executable that
 * contain a call site (OMPT gives the return address of the fork call). So when dladdr finds no
 * name, the object's own .symtab is searched (when not stripped). The last object read is cached:
 * the regions of a program mostly live in one executable. Called once per new region, under the
 * region table's lock and inside the tool guard (the I/O adapter does not count these reads). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef PM_HAVE_LIBDW
#include "pm_symbol.h"
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SECTION (256u << 20) /* a symbol or string table larger than this is not read */

typedef struct {
  char path[4096];
  Elf64_Sym *sym;
  size_t nsym;
  char *str;
  size_t nstr;
} symtab;

static symtab cache;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int read_at(int fd, void *buf, size_t n, off_t off) {
  char *p = buf;
  while (n) {
    ssize_t r = pread(fd, p, n, off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
    off += r;
  }
  return 0;
}

static void *read_section(int fd, const Elf64_Shdr *s) {
  if (s->sh_size == 0 || s->sh_size > MAX_SECTION) return NULL;
  void *b = malloc(s->sh_size);
  if (b && read_at(fd, b, s->sh_size, (off_t)s->sh_offset) != 0) {
    free(b);
    b = NULL;
  }
  return b;
}

/* Loads the .symtab of an ELF64 file into st (left empty when there is none). */
static void load(const char *path, symtab *st) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
    goto out;
  sh = malloc(sizeof *sh * eh.e_shnum);
  if (!sh || read_at(fd, sh, sizeof *sh * eh.e_shnum, (off_t)eh.e_shoff) != 0) goto out;
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh.e_shnum) continue;
    st->sym = read_section(fd, &sh[i]);
    st->str = read_section(fd, &sh[sh[i].sh_link]);
    if (!st->sym || !st->str) {
      free(st->sym);
      free(st->str);
      st->sym = NULL;
      st->str = NULL;
      break;
    }
    st->nsym = sh[i].sh_size / sizeof(Elf64_Sym);
    st->nstr = sh[sh[i].sh_link].sh_size;
    break;
  }
out:
  free(sh);
  close(fd);
}

/* The function symbol containing vaddr (a link-time address of the object). */
static const char *lookup(const symtab *st, uintptr_t vaddr, uintptr_t *start) {
  for (size_t i = 0; i < st->nsym; i++) {
    const Elf64_Sym *s = &st->sym[i];
    if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || s->st_name >= st->nstr) continue;
    if (vaddr >= s->st_value && vaddr < s->st_value + s->st_size) {
      *start = s->st_value;
      return st->str + s->st_name;
    }
  }
  return NULL;
}

static void format(char *buf, size_t n, const char *name, uintptr_t off) {
  if (off)
    snprintf(buf, n, "%s+0x%lx", name, (unsigned long)off);
  else
    snprintf(buf, n, "%s", name);
}

int pm_symbol_name(const void *addr, char *buf, size_t n) {
  Dl_info info;
  struct link_map *lm = NULL;
  uintptr_t a = (uintptr_t)addr;
  if (!dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) {
    snprintf(buf, n, "%p", addr);
    return 0;
  }
  if (info.dli_sname && info.dli_saddr) {
    format(buf, n, info.dli_sname, a - (uintptr_t)info.dli_saddr);
    return 1;
  }
  int is_exe = !lm->l_name || !lm->l_name[0]; /* the main program has an empty name */
  const char *path = is_exe ? "/proc/self/exe" : lm->l_name;
  uintptr_t start = 0;
  pthread_mutex_lock(&lock);
  if (strcmp(cache.path, path) != 0) {
    free(cache.sym);
    free(cache.str);
    memset(&cache, 0, sizeof cache);
    snprintf(cache.path, sizeof cache.path, "%s", path); /* also on failure: never read twice */
    load(path, &cache);
  }
  const char *name = lookup(&cache, a - lm->l_addr, &start);
  if (name) format(buf, n, name, a - lm->l_addr - start);
  pthread_mutex_unlock(&lock);
  if (name) return 1;
  const char *base = is_exe ? program_invocation_short_name : strrchr(path, '/');
  base = base ? (base[0] == '/' ? base + 1 : base) : path;
  format(buf, n, base, a - (uintptr_t)info.dli_fbase);
  return 0;
}

void pm_symbol_reset(void) {
  pthread_mutex_lock(&lock);
  free(cache.sym);
  free(cache.str);
  memset(&cache, 0, sizeof cache);
  pthread_mutex_unlock(&lock);
}
#endif /* !PM_HAVE_LIBDW */
