/* Definitions of the trace. Each process describes what its events refer to -- its locations, its
 * regions and communicators under process-local ids -- as a small text part; rank 0 (or a process
 * alone) unifies the parts: regions by (name, paradigm), MPI communicators by (members, creation
 * ordinal), thread teams per process; then it writes the global definitions and, for every
 * location, the mapping tables that translate the local region and communicator ids of its events.
 *
 * Part format, one record per line, names last and escaped (\\ and \n):
 *   P <rank> <nprocs> <pid> <first time> <last time> <MPI location> <host>
 *   L <location> <role> <events> <name>
 *   R <local id> <paradigm> <role> <name>
 *   C <local id> <kind> <key> <n> <member>...            (kind: PM_TCOMM_*) */
#define _GNU_SOURCE
#include "pm_trace.h"
#include "pm_text.h"
#include "pm_lifecycle.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------- communicators */
#define PM_TR_MAX_COMMS 16384
typedef struct {
  int kind;
  uint32_t key, n;
  uint64_t *m;
} tcomm;
static tcomm *comms[PM_TR_MAX_COMMS];
static uint32_t ncomms;

uint32_t pm_tcomm_add(int kind, int n, const uint64_t *members, uint32_t key) {
  if (n < 0) return UINT32_MAX;
  tcomm *c = calloc(1, sizeof *c);
  uint64_t *m = calloc((size_t)n + 1, sizeof *m);
  if (!c || !m) {
    free(c);
    free(m);
    return UINT32_MAX;
  }
  for (int i = 0; i < n; i++) m[i] = members ? members[i] : UINT64_MAX;
  *c = (tcomm){kind, key, (uint32_t)n, m};
  pthread_mutex_lock(&pm_tr.lock);
  uint32_t id = ncomms;
  if (id >= PM_TR_MAX_COMMS) {
    pthread_mutex_unlock(&pm_tr.lock);
    free(m);
    free(c);
    return UINT32_MAX;
  }
  if (kind == PM_TCOMM_MPI) { /* ordinal among this process's communicators of the same members */
    key = 0;
    for (uint32_t i = 0; i < id; i++)
      if (comms[i]->kind == kind && comms[i]->n == (uint32_t)n && !memcmp(comms[i]->m, m, (size_t)n * sizeof *m)) key++;
    c->key = key;
  }
  __atomic_store_n(&comms[id], c, __ATOMIC_RELEASE);
  __atomic_store_n(&ncomms, id + 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&pm_tr.lock);
  return id;
}

void pm_tcomm_set_member(uint32_t id, uint32_t index, uint64_t member) {
  if (id >= __atomic_load_n(&ncomms, __ATOMIC_ACQUIRE)) return;
  tcomm *c = __atomic_load_n(&comms[id], __ATOMIC_ACQUIRE);
  if (index >= c->n) return;
  uint64_t unset = UINT64_MAX;
  __atomic_compare_exchange_n(&c->m[index], &unset, member, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void pm_tcomm_reset(void) {
  for (uint32_t i = 0; i < ncomms; i++) {
    free(comms[i]->m);
    free(comms[i]);
    comms[i] = NULL;
  }
  ncomms = 0;
}

/* ------------------------------------------------------------------------ MPI operations */
static const struct {
  const char *name;
  int op;
} coll_ops[] = {{"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER},
                {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST},
                {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER},
                {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
                {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER},
                {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
                {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
                {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
                {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
                {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
                {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
                {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
                {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE},
                {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
                {"MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
                {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN},
                {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN}};

int pm_tdefs_collective_op(const char *name) {
  for (size_t i = 0; i < sizeof coll_ops / sizeof *coll_ops; i++)
    if (!strcmp(coll_ops[i].name, name)) return coll_ops[i].op;
  return -1;
}

static OTF2_RegionRole region_role(const char *name, int paradigm, int role) {
  if (paradigm == PM_PARADIGM_MPI) {
    switch (pm_tdefs_collective_op(name)) {
    case OTF2_COLLECTIVE_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_REDUCE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_ALLREDUCE: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case -1: break;
    default: return OTF2_REGION_ROLE_COLL_OTHER;
    }
  }
  switch (role) {
  case PM_ROLE_POINT2POINT: return OTF2_REGION_ROLE_POINT2POINT;
  case PM_ROLE_COLLECTIVE: return OTF2_REGION_ROLE_COLL_OTHER;
  case PM_ROLE_BARRIER: return OTF2_REGION_ROLE_BARRIER;
  case PM_ROLE_PARALLEL: return OTF2_REGION_ROLE_PARALLEL;
  case PM_ROLE_TASK: return OTF2_REGION_ROLE_TASK;
  case PM_ROLE_FILE_IO: return OTF2_REGION_ROLE_FILE_IO;
  case PM_ROLE_WRAPPER: return OTF2_REGION_ROLE_WRAPPER;
  case PM_ROLE_ARTIFICIAL: return OTF2_REGION_ROLE_ARTIFICIAL;
  default: return OTF2_REGION_ROLE_FUNCTION;
  }
}

static OTF2_Paradigm paradigm_of(int p) {
  switch (p) {
  case PM_PARADIGM_USER: return OTF2_PARADIGM_USER;
  case PM_PARADIGM_MPI: return OTF2_PARADIGM_MPI;
  case PM_PARADIGM_OPENMP: return OTF2_PARADIGM_OPENMP;
  case PM_PARADIGM_CUDA: return OTF2_PARADIGM_CUDA;
  case PM_PARADIGM_MEASUREMENT: return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
  default: return OTF2_PARADIGM_UNKNOWN; /* StarPU and POSIX I/O have no OTF2 3.0 paradigm */
  }
}

/* ------------------------------------------------------------------------------- local part */
typedef struct {
  char *s;
  size_t n, cap;
  int oom;
} sbuf;
static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) {
      b->oom = 1;
      return;
    }
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t ncap = (b->cap ? 2 * b->cap : 4096) + (size_t)k;
    char *n = realloc(b->s, ncap);
    if (!n) {
      b->oom = 1;
      return;
    }
    b->s = n;
    b->cap = ncap;
  }
}
/* A name as clean text (pm_text.h: OTF2 readers decode UTF-8), one line, backslashes doubled. */
static void sb_name(sbuf *b, const char *raw) {
  char name[1024];
  pm_text_clean(name, sizeof name, raw);
  sb_printf(b, " ");
  for (const char *c = name; *c; c++) {
    if (*c == '\\')
      sb_printf(b, "\\\\");
    else if (*c == '\n')
      sb_printf(b, "\\n");
    else
      sb_printf(b, "%c", *c);
  }
  sb_printf(b, "\n");
}

char *pm_tdefs_local(void) {
  sbuf b = {0};
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  /* the rank's MPI location: the thread with the most point-to-point events (readers draw a
   * message between the listed threads of its two ranks), then with the most MPI events, else
   * the thread that opened the archive */
  uint64_t t_last = pm_tr.t_close, mpi_loc = (uint64_t)pm_tr.rank, best_p2p = 0, best = 0;
  int best_first = 0, found = 0;
  uint32_t nloc = pm_tloc_count_all();
  for (uint32_t i = 0; i < nloc; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (!T || T->failed) continue;
    if (T->t_last > t_last) t_last = T->t_last;
    int first = pm_loc_id(T->L) == pm_tr.first_loc;
    if (!found || T->np2p > best_p2p || (T->np2p == best_p2p && T->nmpi > best) ||
        (T->np2p == best_p2p && T->nmpi == best && first && !best_first)) {
      found = 1;
      best_p2p = T->np2p;
      best = T->nmpi;
      best_first = first;
      mpi_loc = T->ref;
    }
  }
  sb_printf(&b, "P %d %d %ld %llu %llu %llu", pm_tr.rank, pm_tr.nprocs, (long)getpid(),
            (unsigned long long)pm_tr.t_open, (unsigned long long)t_last, (unsigned long long)mpi_loc);
  sb_name(&b, host);
  for (uint32_t i = 0; i < nloc; i++) {
    pm_tloc *T = pm_tloc_at(i);
    if (!T || T->failed) continue;
    sb_printf(&b, "L %llu %d %llu", (unsigned long long)T->ref, (int)T->L->role, (unsigned long long)T->nevents);
    sb_name(&b, T->L->name);
  }
  for (uint32_t r = 0, n = pm_region_count(); r < n; r++) {
    sb_printf(&b, "R %u %d %d", r, (int)pm_region_paradigm(r), (int)pm_region_role_of(r));
    sb_name(&b, pm_region_name(r));
  }
  for (uint32_t i = 0, n = __atomic_load_n(&ncomms, __ATOMIC_ACQUIRE); i < n; i++) {
    tcomm *c = comms[i];
    sb_printf(&b, "C %u %d %u %u", i, c->kind, c->key, c->n);
    for (uint32_t k = 0; k < c->n; k++) sb_printf(&b, " %llu", (unsigned long long)c->m[k]);
    sb_printf(&b, "\n");
  }
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s ? b.s : strdup("");
}

/* --------------------------------------------------------------------------------- parsing */
typedef struct {
  uint64_t ref, nevents;
  int role;
  char *name;
} dloc;
typedef struct {
  uint32_t id;
  int paradigm, role;
  char *name;
} dreg;
typedef struct {
  uint32_t id, key, n;
  int kind;
  uint64_t *m;
} dcomm;
typedef struct {
  int rank, nprocs;
  int placeholder; /* a process whose part is missing (see add_placeholders) */
  uint64_t t0, t1, mpi_loc;
  char *host;
  dloc *loc;
  int nloc;
  dreg *reg;
  int nreg;
  dcomm *comm;
  int ncomm;
  uint32_t *regmap, *commmap; /* local id -> global id */
  uint32_t nregmap, ncommmap;
} dproc;

static char *unescape(char *s) {
  char *o = s, *r = s;
  while (*r) {
    if (*r == '\\' && r[1] == 'n') {
      *o++ = '\n';
      r += 2;
    } else if (*r == '\\' && r[1] == '\\') {
      *o++ = '\\';
      r += 2;
    } else
      *o++ = *r++;
  }
  *o = '\0';
  return s;
}

/* Parses one part in place (text is modified). 0, PART_MALFORMED or PART_NOMEM. */
enum { PART_MALFORMED = -1, PART_NOMEM = -2 };
static int parse_part(char *text, dproc *p) {
  memset(p, 0, sizeof *p);
  p->rank = -1;
  int capl = 0, capr = 0, capc = 0;
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *end;
    if (line[0] == 'P') {
      int off = 0;
      long pid;
      unsigned long long t0, t1, ml;
      if (sscanf(line, "P %d %d %ld %llu %llu %llu %n", &p->rank, &p->nprocs, &pid, &t0, &t1, &ml, &off) < 6 || !off)
        return PART_MALFORMED;
      p->t0 = t0;
      p->t1 = t1;
      p->mpi_loc = ml;
      p->host = unescape(line + off);
    } else if (line[0] == 'L') {
      if (p->nloc == capl) {
        capl = capl ? 2 * capl : 16;
        dloc *n = realloc(p->loc, (size_t)capl * sizeof *n);
        if (!n) return PART_NOMEM;
        p->loc = n;
      }
      dloc *l = &p->loc[p->nloc];
      l->ref = strtoull(line + 2, &end, 10);
      l->role = (int)strtol(end, &end, 10);
      l->nevents = strtoull(end, &end, 10);
      if (*end != ' ') return PART_MALFORMED;
      l->name = unescape(end + 1);
      p->nloc++;
    } else if (line[0] == 'R') {
      if (p->nreg == capr) {
        capr = capr ? 2 * capr : 64;
        dreg *n = realloc(p->reg, (size_t)capr * sizeof *n);
        if (!n) return PART_NOMEM;
        p->reg = n;
      }
      dreg *r = &p->reg[p->nreg];
      r->id = (uint32_t)strtoul(line + 2, &end, 10);
      r->paradigm = (int)strtol(end, &end, 10);
      r->role = (int)strtol(end, &end, 10);
      if (*end != ' ') return PART_MALFORMED;
      r->name = unescape(end + 1);
      if (r->id >= p->nregmap) p->nregmap = r->id + 1;
      p->nreg++;
    } else if (line[0] == 'C') {
      if (p->ncomm == capc) {
        capc = capc ? 2 * capc : 8;
        dcomm *n = realloc(p->comm, (size_t)capc * sizeof *n);
        if (!n) return PART_NOMEM;
        p->comm = n;
      }
      dcomm *c = &p->comm[p->ncomm];
      c->id = (uint32_t)strtoul(line + 2, &end, 10);
      c->kind = (int)strtol(end, &end, 10);
      c->key = (uint32_t)strtoul(end, &end, 10);
      c->n = (uint32_t)strtoul(end, &end, 10);
      if (c->n > (1u << 24)) return PART_MALFORMED;
      if (!(c->m = calloc((size_t)c->n + 1, sizeof *c->m))) return PART_NOMEM;
      for (uint32_t k = 0; k < c->n; k++) c->m[k] = strtoull(end, &end, 10);
      if (c->id >= p->ncommmap) p->ncommmap = c->id + 1;
      p->ncomm++;
    }
  }
  if (p->rank < 0 || !p->host) return PART_MALFORMED;
  p->regmap = malloc(sizeof *p->regmap * (p->nregmap + 1));
  p->commmap = malloc(sizeof *p->commmap * (p->ncommmap + 1));
  if (!p->regmap || !p->commmap) return PART_NOMEM;
  for (uint32_t i = 0; i < p->nregmap; i++) p->regmap[i] = 0;
  for (uint32_t i = 0; i < p->ncommmap; i++) p->commmap[i] = 0;
  return 0;
}

static void free_part(dproc *p) {
  for (int i = 0; i < p->ncomm; i++) free(p->comm[i].m);
  free(p->loc);
  free(p->reg);
  free(p->comm);
  free(p->regmap);
  free(p->commmap);
}

/* ------------------------------------------------------------------------------- string map */
typedef struct {
  char **key;
  uint32_t *val;
  uint32_t cap, n;
} smap;
static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}
/* The id of key (new keys get n); UINT32_MAX out of memory. key is copied. */
static uint32_t smap_get(smap *m, const char *key, int *is_new) {
  if (is_new) *is_new = 0;
  if ((m->n + 1) * 2 > m->cap) {
    uint32_t ncap = m->cap ? 2 * m->cap : 256;
    char **nk = calloc(ncap, sizeof *nk);
    uint32_t *nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
      free(nk);
      free(nv);
      return UINT32_MAX;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
      if (!m->key[i]) continue;
      uint64_t j = str_hash(m->key[i]) & (ncap - 1);
      while (nk[j]) j = (j + 1) & (ncap - 1);
      nk[j] = m->key[i];
      nv[j] = m->val[i];
    }
    free(m->key);
    free(m->val);
    m->key = nk;
    m->val = nv;
    m->cap = ncap;
  }
  uint64_t j = str_hash(key) & (m->cap - 1);
  while (m->key[j]) {
    if (!strcmp(m->key[j], key)) return m->val[j];
    j = (j + 1) & (m->cap - 1);
  }
  if (!(m->key[j] = strdup(key))) return UINT32_MAX;
  m->val[j] = m->n;
  if (is_new) *is_new = 1;
  return m->n++;
}
static void smap_free(smap *m) {
  for (uint32_t i = 0; i < m->cap; i++) free(m->key[i]);
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof *m);
}

/* Strings of the global definitions, written first in id order. */
typedef struct {
  smap map;
  const char **list;
  uint32_t cap;
  int oom;
} strtab;
static uint32_t str_id(strtab *t, const char *s) {
  int is_new;
  uint32_t id = smap_get(&t->map, s, &is_new);
  if (id == UINT32_MAX) {
    t->oom = 1;
    return 0;
  }
  if (is_new) {
    if (id >= t->cap) {
      uint32_t ncap = t->cap ? 2 * t->cap : 256;
      const char **n = realloc(t->list, ncap * sizeof *n);
      if (!n) {
        t->oom = 1;
        return 0;
      }
      t->list = n;
      t->cap = ncap;
    }
    t->list[id] = s; /* s outlives the table (parts or literals) */
  }
  return id;
}

/* --------------------------------------------------------------------------------- writing */
typedef struct {
  dproc *p;
  int np;
  strtab str;
  smap regkey, commkey;
  dreg **greg;
  uint32_t ngreg, capreg; /* global regions (first occurrence) */
  dcomm **gcomm;
  uint32_t ngcomm, capcomm; /* global communicators */
  int oom;
} unify;

static int push_ptr(void ***arr, uint32_t *n, uint32_t *cap, void *x) {
  if (*n == *cap) {
    uint32_t ncap = *cap ? 2 * *cap : 64;
    void **a = realloc(*arr, ncap * sizeof *a);
    if (!a) return -1;
    *arr = a;
    *cap = ncap;
  }
  (*arr)[(*n)++] = x;
  return 0;
}

static int unify_ids(unify *u) {
  char key[512];
  uint32_t *kmap = NULL, nk = 0, capk = 0; /* communicator key -> global communicator */
  int rc = 0;
  for (int i = 0; !rc && i < u->np; i++) {
    dproc *p = &u->p[i];
    for (int k = 0; k < p->nreg; k++) {
      dreg *r = &p->reg[k];
      snprintf(key, sizeof key, "%d/%.500s", r->paradigm, r->name);
      int is_new;
      uint32_t g = smap_get(&u->regkey, key, &is_new);
      if (g == UINT32_MAX || (is_new && push_ptr((void ***)&u->greg, &u->ngreg, &u->capreg, r))) {
        rc = -1;
        break;
      }
      p->regmap[r->id] = g;
    }
    for (int k = 0; !rc && k < p->ncomm; k++) {
      dcomm *c = &p->comm[k];
      uint32_t g = u->ngcomm; /* thread teams are per process: always new */
      int is_new = 1;
      if (c->kind != PM_TCOMM_TEAM) {
        /* MPI: one global communicator per member list and creation ordinal; SELF: one for all */
        size_t len =
            (size_t)snprintf(key, sizeof key, "%d/%u/%u:", c->kind, c->key, c->kind == PM_TCOMM_SELF ? 0 : c->n);
        char *big = malloc(len + 21 * (size_t)c->n + 1);
        if (!big) {
          rc = -1;
          break;
        }
        memcpy(big, key, len + 1);
        for (uint32_t m = 0; c->kind == PM_TCOMM_MPI && m < c->n; m++)
          len += (size_t)sprintf(big + len, "%llu,", (unsigned long long)c->m[m]);
        uint32_t id = smap_get(&u->commkey, big, &is_new);
        free(big);
        if (id == UINT32_MAX) {
          rc = -1;
          break;
        }
        if (is_new) {
          if (nk == capk) {
            capk = capk ? 2 * capk : 64;
            uint32_t *n = realloc(kmap, capk * sizeof *n);
            if (!n) {
              rc = -1;
              break;
            }
            kmap = n;
          }
          kmap[nk++] = g;
        } else {
          g = kmap[id];
        }
      }
      if (is_new && push_ptr((void ***)&u->gcomm, &u->ngcomm, &u->capcomm, c)) {
        rc = -1;
        break;
      }
      p->commmap[c->id] = g;
    }
  }
  free(kmap);
  return rc;
}

static const char *proc_group_name(const dproc *p, char *buf, size_t len) {
  if (p->nprocs > 1)
    snprintf(buf, len, "MPI Rank %d", p->rank);
  else
    snprintf(buf, len, "Process");
  return buf;
}

static uint64_t realtime_of(uint64_t trace_t) {
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  uint64_t rnow = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
  uint64_t tnow = pm_tr_time(pm_clock_now());
  return tnow >= trace_t && rnow >= tnow - trace_t ? rnow - (tnow - trace_t) : OTF2_UNDEFINED_TIMESTAMP;
}

/* The string and system-tree ids the global definitions refer to. */
typedef struct {
  uint32_t empty, machine, node, mpi, omp, world, self, comm, team, mlocs, olocs, useful, useful_d, sec;
  uint32_t attr_name[PM_TT_NATTR], attr_desc[PM_TT_NATTR]; /* task attributes (trace_task.c) */
  uint32_t *group, *host;                                  /* per process: its location group's name and its host's */
  uint32_t *node_of; /* per process: its host's system-tree node (1, 2, ... by first appearance) */
  char **gnames;     /* per process: the location group's name */
  smap hosts;
} gids;

static void gids_free(gids *n, int np) {
  for (int i = 0; n->gnames && i < np; i++) free(n->gnames[i]);
  free(n->gnames);
  free(n->group);
  free(n->host);
  free(n->node_of);
  smap_free(&n->hosts);
}

/* Every string, in the order of first use: they are written first, in id order. 0, or -1 out of
 * memory. */
static int intern_strings(unify *u, gids *n) {
  strtab *S = &u->str;
  char buf[64];
  memset(n, 0, sizeof *n);
  n->empty = str_id(S, "");
  n->machine = str_id(S, "machine");
  n->node = str_id(S, "node");
  n->mpi = str_id(S, "MPI");
  n->omp = str_id(S, "OpenMP");
  n->world = str_id(S, "MPI_COMM_WORLD");
  n->self = str_id(S, "MPI_COMM_SELF");
  n->comm = str_id(S, "MPI communicator");
  n->team = str_id(S, "OpenMP thread team");
  n->mlocs = str_id(S, "MPI locations");
  n->olocs = str_id(S, "OpenMP locations");
  n->useful = str_id(S, "useful time");
  n->useful_d = str_id(S, "cumulative time the location spent in useful computation (popmeter)");
  n->sec = str_id(S, "s");
  for (int i = 0; i < PM_TT_NATTR; i++) {
    const char *name, *desc;
    OTF2_Type type;
    pm_ttask_attr(i, &name, &desc, &type);
    n->attr_name[i] = str_id(S, name);
    n->attr_desc[i] = str_id(S, desc);
  }
  n->group = calloc((size_t)u->np + 1, sizeof *n->group);
  n->host = calloc((size_t)u->np + 1, sizeof *n->host);
  n->node_of = calloc((size_t)u->np + 1, sizeof *n->node_of);
  n->gnames = calloc((size_t)u->np + 1, sizeof *n->gnames);
  if (!n->group || !n->host || !n->node_of || !n->gnames) return -1;
  for (int i = 0; i < u->np; i++) {
    dproc *p = &u->p[i];
    n->node_of[i] = smap_get(&n->hosts, p->host, NULL) + 1;
    n->host[i] = str_id(S, p->host);
    n->gnames[i] = strdup(proc_group_name(p, buf, sizeof buf));
    n->group[i] = str_id(S, n->gnames[i] ? n->gnames[i] : "Process");
    for (int k = 0; k < p->nloc; k++) str_id(S, p->loc[k].name);
  }
  for (uint32_t r = 0; r < u->ngreg; r++) str_id(S, u->greg[r]->name);
  return S->oom ? -1 : 0;
}

/* The clock (the earliest first and latest last event of any process), the strings, the
 * paradigms, the system tree (a machine and its hosts), the processes, their locations and the
 * regions. */
static int write_system(OTF2_GlobalDefWriter *g, unify *u, const gids *n, int mpi, int omp) {
  strtab *S = &u->str;
  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (int i = 0; i < u->np; i++) {
    if (u->p[i].t0 < t0) t0 = u->p[i].t0;
    if (u->p[i].t1 > t1) t1 = u->p[i].t1;
  }
  if (t0 == UINT64_MAX) t0 = 0;
  if (t1 < t0) t1 = t0;
  int rc = OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000ull, t0, t1 - t0, realtime_of(t0)) != OTF2_SUCCESS;
  for (uint32_t s = 0; !rc && s < S->map.n; s++)
    rc = OTF2_GlobalDefWriter_WriteString(g, s, S->list[s]) != OTF2_SUCCESS;
  if (!rc && mpi)
    rc = OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, n->mpi, OTF2_PARADIGM_CLASS_PROCESS) != OTF2_SUCCESS;
  if (!rc && omp)
    rc = OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_OPENMP, n->omp, OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN) !=
         OTF2_SUCCESS;
  if (!rc)
    rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, n->machine, n->machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE) !=
         OTF2_SUCCESS;
  for (int i = 0, done = 0; !rc && i < u->np; i++) {
    if ((int)n->node_of[i] <= done) continue; /* hosts in order of first appearance */
    done = (int)n->node_of[i];
    rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, n->node_of[i], n->host[i], n->node, 0) != OTF2_SUCCESS;
  }
  for (int i = 0; !rc && i < u->np; i++)
    rc = OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)u->p[i].rank, n->group[i],
                                                 OTF2_LOCATION_GROUP_TYPE_PROCESS, n->node_of[i],
                                                 OTF2_UNDEFINED_LOCATION_GROUP) != OTF2_SUCCESS;
  for (int i = 0; !rc && i < u->np; i++) {
    dproc *p = &u->p[i];
    for (int k = 0; !rc && k < p->nloc; k++)
      rc = OTF2_GlobalDefWriter_WriteLocation(g, p->loc[k].ref, str_id(S, p->loc[k].name),
                                              p->loc[k].role == PM_ROLE_DEVICE ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                                                                               : OTF2_LOCATION_TYPE_CPU_THREAD,
                                              p->loc[k].nevents, (uint32_t)p->rank) != OTF2_SUCCESS;
  }
  for (uint32_t r = 0; !rc && r < u->ngreg; r++) {
    dreg *d = u->greg[r];
    uint32_t s = str_id(S, d->name);
    rc = OTF2_GlobalDefWriter_WriteRegion(g, r, s, s, n->empty, region_role(d->name, d->paradigm, d->role),
                                          paradigm_of(d->paradigm), OTF2_REGION_FLAG_NONE, n->empty, 0,
                                          0) != OTF2_SUCCESS;
  }
  return rc;
}

/* The group of the MPI locations, one per process in rank order. */
static int write_mpi_locations(OTF2_GlobalDefWriter *g, const unify *u, const gids *n, uint32_t id) {
  uint64_t *members = calloc((size_t)u->np + 1, sizeof *members);
  if (!members) return -1;
  for (int i = 0; i < u->np; i++) members[u->p[i].rank < u->np ? u->p[i].rank : i] = u->p[i].mpi_loc;
  int rc = OTF2_GlobalDefWriter_WriteGroup(g, id, n->mlocs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, (uint32_t)u->np, members) != OTF2_SUCCESS;
  free(members);
  return rc;
}

/* The group of every location that took part in a thread team, in order of appearance; omplocs
 * gets each one's index in it. */
static int write_omp_locations(OTF2_GlobalDefWriter *g, const unify *u, const gids *n, uint32_t id, smap *omplocs) {
  char buf[64];
  uint64_t *members = NULL;
  uint32_t nm = 0, cap = 0;
  int rc = 0;
  for (uint32_t c = 0; !rc && c < u->ngcomm; c++) {
    dcomm *d = u->gcomm[c];
    if (d->kind != PM_TCOMM_TEAM) continue;
    for (uint32_t k = 0; k < d->n; k++) {
      if (d->m[k] == UINT64_MAX) continue;
      snprintf(buf, sizeof buf, "%llu", (unsigned long long)d->m[k]);
      int is_new;
      if (smap_get(omplocs, buf, &is_new) == UINT32_MAX) {
        rc = -1;
        break;
      }
      if (!is_new) continue;
      if (nm == cap) {
        cap = cap ? 2 * cap : 64;
        uint64_t *m = realloc(members, cap * sizeof *m);
        if (!m) {
          rc = -1;
          break;
        }
        members = m;
      }
      members[nm++] = d->m[k];
    }
  }
  if (!rc)
    rc = OTF2_GlobalDefWriter_WriteGroup(g, id, n->olocs, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                         OTF2_GROUP_FLAG_NONE, nm, members) != OTF2_SUCCESS;
  free(members);
  return rc;
}

/* The MPI location (OTF2 id) of world rank r. */
static uint64_t rank_location(const unify *u, uint64_t r) {
  for (int i = 0; i < u->np; i++)
    if ((uint64_t)u->p[i].rank == r) return u->p[i].mpi_loc;
  return r;
}

/* POPMETER_TRACE_VITE: ViTE keeps only groups of type COMM_LOCATIONS and maps a communicator's
 * rank i to members[i] of the group its Comm names; a COMM_GROUP (the standard form, ranks into
 * the MPI locations group) is dropped with a warning. So each communicator names a COMM_LOCATIONS
 * group of its own: the MPI location of each member rank, or the team's threads. Not standard OTF2
 * (otf2-print warns); opt-in. */
static int write_vite_group(OTF2_GlobalDefWriter *g, const unify *u, const dcomm *d, uint32_t grp, const gids *n) {
  uint64_t *loc = malloc(sizeof *loc * ((size_t)d->n + 1));
  uint32_t k, m = 0;
  if (!loc) return -1;
  for (k = 0; k < d->n; k++) {
    if (d->m[k] == UINT64_MAX) continue;
    loc[m++] = d->kind == PM_TCOMM_MPI ? rank_location(u, d->m[k]) : d->m[k];
  }
  int rc = OTF2_GlobalDefWriter_WriteGroup(g, grp, n->empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                           d->kind == PM_TCOMM_MPI ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_OPENMP,
                                           OTF2_GROUP_FLAG_NONE, m, loc) != OTF2_SUCCESS;
  free(loc);
  return rc;
}

/* Communicator c and its group grp: MPI_COMM_SELF, an MPI communicator (its members are ranks) or
 * a thread team (its members are indices in the OpenMP locations group). */
static int write_comm(OTF2_GlobalDefWriter *g, const unify *u, const dcomm *d, uint32_t c, uint32_t grp, const gids *n,
                      smap *omplocs, int vite) {
  char buf[64];
  uint32_t name = n->comm;
  int rc;
  if (d->kind == PM_TCOMM_SELF) {
    /* (ViTE reads no COMM_SELF group: an empty list of locations stands for it) */
    rc = OTF2_GlobalDefWriter_WriteGroup(g, grp, n->empty,
                                         vite ? OTF2_GROUP_TYPE_COMM_LOCATIONS : OTF2_GROUP_TYPE_COMM_SELF,
                                         OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL) != OTF2_SUCCESS;
    name = n->self;
  } else if (vite) {
    rc = write_vite_group(g, u, d, grp, n);
    name = d->kind == PM_TCOMM_TEAM ? n->team : d->id == 0 ? n->world : n->comm;
  } else if (d->kind == PM_TCOMM_MPI) {
    rc = OTF2_GlobalDefWriter_WriteGroup(g, grp, n->empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                         OTF2_GROUP_FLAG_NONE, d->n, d->m) != OTF2_SUCCESS;
    if (d->id == 0) name = n->world;
  } else {
    uint64_t *idx = malloc(sizeof *idx * ((size_t)d->n + 1));
    uint32_t k, m = 0;
    if (!idx) return -1;
    for (k = 0; k < d->n; k++) {
      if (d->m[k] == UINT64_MAX) continue;
      snprintf(buf, sizeof buf, "%llu", (unsigned long long)d->m[k]);
      idx[m++] = smap_get(omplocs, buf, NULL);
    }
    rc = OTF2_GlobalDefWriter_WriteGroup(g, grp, n->empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                         OTF2_GROUP_FLAG_NONE, m, idx) != OTF2_SUCCESS;
    free(idx);
    name = n->team;
  }
  if (!rc)
    rc = OTF2_GlobalDefWriter_WriteComm(g, c, name, grp, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE) != OTF2_SUCCESS;
  return rc;
}

/* The groups (MPI locations, OpenMP locations, then one per communicator) and the communicators. */
static int write_comms(OTF2_GlobalDefWriter *g, const unify *u, const gids *n, int mpi, int omp) {
  uint32_t next_group = 0;
  smap omplocs = {0};
  int rc = 0, vite = pm_config_get()->i[PM_CFG_TRACE_VITE] != 0;
  if (mpi) rc = write_mpi_locations(g, u, n, next_group++);
  if (!rc && omp) rc = write_omp_locations(g, u, n, next_group++, &omplocs);
  for (uint32_t c = 0; !rc && c < u->ngcomm; c++)
    rc = write_comm(g, u, u->gcomm[c], c, next_group++, n, &omplocs, vite);
  smap_free(&omplocs);
  return rc;
}

/* The one metric of the trace: the useful time of a location, accumulated since the start. */
static int write_metric(OTF2_GlobalDefWriter *g, const gids *n) {
  OTF2_MetricMemberRef member = 0;
  int rc = OTF2_GlobalDefWriter_WriteMetricMember(g, 0, n->useful, n->useful_d, OTF2_METRIC_TYPE_OTHER,
                                                  OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL,
                                                  -9, n->sec) != OTF2_SUCCESS;
  if (!rc)
    rc = OTF2_GlobalDefWriter_WriteMetricClass(g, PM_TR_METRIC, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                               OTF2_RECORDER_KIND_ABSTRACT) != OTF2_SUCCESS;
  return rc;
}

/* The attributes of task bodies' Leave events (trace_task.c), with the same ids everywhere. */
static int write_attributes(OTF2_GlobalDefWriter *g, const gids *n) {
  int rc = 0;
  for (int i = 0; !rc && i < PM_TT_NATTR; i++) {
    const char *name, *desc;
    OTF2_Type type;
    pm_ttask_attr(i, &name, &desc, &type);
    rc = OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)i, n->attr_name[i], n->attr_desc[i], type) !=
         OTF2_SUCCESS;
  }
  return rc;
}

static int write_global(OTF2_Archive *a, unify *u) {
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
  if (!g) return -1;
  int mpi = 0, omp = 0; /* the paradigms of the communicators */
  for (uint32_t c = 0; c < u->ngcomm; c++) {
    if (u->gcomm[c]->kind == PM_TCOMM_TEAM)
      omp = 1;
    else
      mpi = 1;
  }
  gids n;
  int rc = intern_strings(u, &n);
  if (!rc) rc = write_system(g, u, &n, mpi, omp);
  if (!rc) rc = write_comms(g, u, &n, mpi, omp);
  if (!rc) rc = write_metric(g, &n);
  if (!rc) rc = write_attributes(g, &n);
  gids_free(&n, u->np);
  return rc ? -1 : 0;
}

/* The local definition file of every location: the mapping tables of its process. */
static int write_local(OTF2_Archive *a, unify *u) {
  int rc = 0;
  for (int i = 0; !rc && i < u->np; i++) {
    dproc *p = &u->p[i];
    /* (an empty map is not readable back: none then) */
    OTF2_IdMap *rm = p->nregmap ? OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, p->nregmap + 1) : NULL;
    OTF2_IdMap *cm = p->ncommmap ? OTF2_IdMap_Create(OTF2_ID_MAP_DENSE, p->ncommmap + 1) : NULL;
    if ((p->nregmap && !rm) || (p->ncommmap && !cm)) rc = -1;
    for (uint32_t k = 0; !rc && k < p->nregmap; k++) rc = OTF2_IdMap_AddIdPair(rm, k, p->regmap[k]) != OTF2_SUCCESS;
    for (uint32_t k = 0; !rc && k < p->ncommmap; k++) rc = OTF2_IdMap_AddIdPair(cm, k, p->commmap[k]) != OTF2_SUCCESS;
    for (int k = 0; !rc && k < p->nloc; k++) {
      OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a, p->loc[k].ref);
      if (!w) {
        rc = -1;
        break;
      }
      if (rm && OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_REGION, rm) != OTF2_SUCCESS) rc = -1;
      if (cm && OTF2_DefWriter_WriteMappingTable(w, OTF2_MAPPING_COMM, cm) != OTF2_SUCCESS) rc = -1;
      if (OTF2_Archive_CloseDefWriter(a, w) != OTF2_SUCCESS) rc = -1;
    }
    if (rm) OTF2_IdMap_Free(rm);
    if (cm) OTF2_IdMap_Free(cm);
  }
  return rc;
}

/* Processes whose part is missing (a process that exited alone writes an archive of its own; an
 * unreadable part) still get a location group and their main location, without events, so that
 * the communicators referring to them stay valid. The caller creates their empty event files. */
static int add_placeholders(unify *u, int nprocs) {
  static char unknown[] = "(not in this archive)";
  static char noname[] = "not traced";
  for (int r = 0; r < nprocs; r++) {
    int found = 0;
    for (int i = 0; i < u->np && !found; i++) found = u->p[i].rank == r;
    if (found) continue;
    dproc *p = &u->p[u->np];
    memset(p, 0, sizeof *p);
    p->rank = r;
    p->nprocs = nprocs;
    p->placeholder = 1;
    p->t0 = u->p[0].t0;
    p->t1 = u->p[0].t0;
    p->mpi_loc = (uint64_t)r; /* the MPI thread's id, as pm_tarchive_location_id numbers it */
    p->host = unknown;
    if (!(p->loc = calloc(1, sizeof *p->loc)) || !(p->regmap = calloc(1, sizeof *p->regmap)) ||
        !(p->commmap = calloc(1, sizeof *p->commmap)))
      return -1;
    p->loc[0] = (dloc){p->mpi_loc, 0, PM_ROLE_MAIN, noname};
    p->nloc = 1;
    u->np++;
  }
  return 0;
}
static int by_rank(const void *a, const void *b) { return ((const dproc *)a)->rank - ((const dproc *)b)->rank; }

int pm_tdefs_write(OTF2_Archive *a, char **parts, int nparts) {
  unify u;
  memset(&u, 0, sizeof u);
  int nprocs = 0;
  for (int i = 0; i < nparts; i++) { /* the size of the run, as the parts say */
    int r, n;
    if (parts[i] && sscanf(parts[i], "P %d %d", &r, &n) == 2 && n > nprocs && n <= (1 << 20)) nprocs = n;
  }
  if (nprocs < nparts) nprocs = nparts;
  u.p = calloc((size_t)nprocs + 1, sizeof *u.p);
  if (!u.p) return -1;
  int rc = 0;
  for (int i = 0; i < nparts; i++) {
    int prc = parts[i] ? parse_part(parts[i], &u.p[u.np]) : PART_MALFORMED;
    if (prc != 0 || u.p[u.np].rank >= nprocs) {
      if (prc == PART_NOMEM)
        pm_warn("trace: out of memory reading the definitions of process %d; its locations are left out", i);
      else
        pm_warn("trace: the definitions of process %d are unreadable; its locations are left out", i);
      free_part(&u.p[u.np]);
      continue;
    }
    u.np++;
  }
  if (u.np == 0 || add_placeholders(&u, nprocs) != 0) rc = -1;
  if (!rc) qsort(u.p, (size_t)u.np, sizeof *u.p, by_rank);
  if (!rc && unify_ids(&u) != 0) rc = -1;
  if (!rc) rc = write_global(a, &u);
  if (!rc) rc = write_local(a, &u);
  for (int i = 0; i < u.np; i++) free_part(&u.p[i]);
  free(u.p);
  free(u.greg);
  free(u.gcomm);
  smap_free(&u.regkey);
  smap_free(&u.commkey);
  smap_free(&u.str.map);
  free(u.str.list);
  return rc;
}
