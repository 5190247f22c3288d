/* Hardware counters per thread: configuration, the location observer that reads the counters at
 * the boundaries of useful time, and the counter part of the process profile (a module: pm_module.h).
 *
 * Reads happen on the owning thread only (a backend reads the calling thread's counters). Three
 * consequences, all documented in docs/counters.md:
 *  - the finalizer's flush of another thread's open useful interval reads nothing: that interval's
 *    counts are lost (threads still running at the end are usually idle, not useful);
 *  - a window restart (MPI_Init returning) seen from another thread drops that thread's current
 *    interval: its next read only sets a new base;
 *  - "outside useful" totals cover measured non-useful time up to a thread's last read. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "pm_counters.h"
#include "pm_location.h"
#include "pm_lifecycle.h"
#include "pm_module.h"
#include "pm_profile.h"
#include "pm_profile_counters.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------------------------- module state */
typedef struct ctr_loc {
  struct ctr_loc *next_all; /* every context of this activation (freed at the next one) */
  pm_loc *L;
  void *ctx;      /* backend per-thread context; NULL: not counting now */
  int counting;   /* counting started on this thread (data are valid) */
  int base_valid; /* last[] is the base of the current interval */
  uint64_t read_errors;
  uint64_t last[PM_CTR_MAX];
  uint64_t useful[PM_CTR_MAX], outside[PM_CTR_MAX];
  uint64_t *node[PM_MAX_NODE_CHUNKS]; /* per call-path node: PM_NODE_CHUNK x nev useful counts */
} ctr_loc;

static struct {
  int mode;                 /* pm_ctr_mode */
  const pm_ctr_backend *be; /* the backend that was set up (NULL: none); counting: nev > 0 */
  int slot;                 /* observer slot */
  int user_list;            /* the events came from POPMETER_PAPI_EVENTS */
  int nreq;                 /* requested events (what the profile lists) */
  char req[PM_CTR_MAX][PM_CTR_NAME];
  int req_ok[PM_CTR_MAX];
  char req_why[PM_CTR_MAX][PM_CTR_WHY];
  int nev;                       /* accepted events, in counting order */
  int ev_req[PM_CTR_MAX];        /* accepted event -> index in req */
  char why_all[PM_CTR_WHY + 64]; /* nothing is counted: why ("" otherwise) */
  char fp_note[2 * PM_CTR_WHY];  /* the default list found no FP class: why */
  int vector_width;
  int finalized;
  int threads_failed; /* threads that could not start counting */
  char thread_why[PM_CTR_WHY];
} M;

static const pm_ctr_backend *test_backend;
static __thread ctr_loc *tls_self __attribute__((tls_model("initial-exec")));

void pm_counters_use_backend(const pm_ctr_backend *b) { test_backend = b; }
#ifndef PM_HAVE_PAPI
const pm_ctr_backend *pm_ctr_papi_backend(void) { return NULL; }
#endif

/* "PAPI" for the PAPI backend: the prefix of every reason, so the user knows who said it */
static const char *who(void) { return M.be && !strcmp(M.be->name, "papi") ? "PAPI" : M.be ? M.be->name : "counters"; }

/* ------------------------------------------------------------------------------------- parsing */
int pm_ctr_parse_mode(const char *s) {
  if (!s || !strcasecmp(s, "auto")) return PM_CTR_MODE_AUTO;
  if (!strcasecmp(s, "papi")) return PM_CTR_MODE_PAPI;
  if (!strcasecmp(s, "off")) return PM_CTR_MODE_OFF;
  return -1;
}

int pm_ctr_parse_events(const char *list, char (*names)[PM_CTR_NAME], int max, int *dropped) {
  int n = 0;
  *dropped = 0;
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    const char *a = p, *b = end ? end : p + strlen(p);
    while (a < b && isspace((unsigned char)*a)) a++;
    while (b > a && isspace((unsigned char)b[-1])) b--;
    if (b > a) {
      if (n < max && b - a < PM_CTR_NAME) {
        memcpy(names[n], a, (size_t)(b - a));
        names[n++][b - a] = '\0';
      } else {
        (*dropped)++;
      }
    }
    p = end ? end + 1 : b + strlen(b);
  }
  return n;
}

/* ------------------------------------------------------------------------------- per-thread reads */
static uint64_t *node_counts(ctr_loc *c, uint32_t idx) {
  uint32_t k = idx / PM_NODE_CHUNK;
  if (k >= PM_MAX_NODE_CHUNKS) return NULL;
  /* first useful interval on a chunk of 256 call paths: one allocation, as for the nodes */
  if (PM_UNLIKELY(!c->node[k])) c->node[k] = calloc((size_t)PM_NODE_CHUNK * (size_t)M.nev, sizeof(uint64_t));
  return c->node[k] ? c->node[k] + (size_t)(idx % PM_NODE_CHUNK) * (size_t)M.nev : NULL;
}

/* Closes a useful interval spent on node 'cur': the delta since the base goes to useful. */
static void close_useful(ctr_loc *c, uint32_t cur) {
  uint64_t v[PM_CTR_MAX];
  if (PM_UNLIKELY(M.be->read(c->ctx, v) != 0)) {
    c->read_errors++;
    c->base_valid = 0;
    return;
  }
  if (PM_LIKELY(c->base_valid)) {
    uint64_t *n = node_counts(c, cur);
    for (int e = 0; e < M.nev; e++) {
      uint64_t d = v[e] - c->last[e];
      c->useful[e] += d;
      if (n) n[e] += d;
    }
  }
  memcpy(c->last, v, sizeof(uint64_t) * (size_t)M.nev);
  c->base_valid = 1;
}

/* New base; the delta since the old one goes to "outside useful" when add_outside. */
static void rebase(ctr_loc *c, int add_outside) {
  uint64_t v[PM_CTR_MAX];
  if (PM_UNLIKELY(M.be->read(c->ctx, v) != 0)) {
    c->read_errors++;
    c->base_valid = 0;
    return;
  }
  if (add_outside && c->base_valid)
    for (int e = 0; e < M.nev; e++) c->outside[e] += v[e] - c->last[e];
  memcpy(c->last, v, sizeof(uint64_t) * (size_t)M.nev);
  c->base_valid = 1;
}

static inline ctr_loc *mine(pm_loc *L, unsigned slot) {
  ctr_loc *c = L->obs_data[slot];
  return c && c == tls_self && c->ctx && !__atomic_load_n(&M.finalized, __ATOMIC_RELAXED) ? c : NULL;
}

/* A state change from -> to at a transition (the charge callback has already closed a useful
 * interval that ends here). Reads only when useful opens, or when measurement pauses/resumes. */
static void transition(pm_loc *L, unsigned slot, unsigned from, unsigned to) {
  if (from == to || from == PM_STATE_USEFUL) return;
  if (to != PM_STATE_USEFUL && to != PM_STATE_OFF && from != PM_STATE_OFF) return; /* MPI -> runtime... */
  ctr_loc *c = mine(L, slot);
  if (!c) return;
  if (to == PM_STATE_USEFUL || to == PM_STATE_OFF)
    rebase(c, from != PM_STATE_OFF);
  else if (from == PM_STATE_OFF)
    rebase(c, 0); /* paused time counts nowhere */
}

/* --------------------------------------------------------------------------------- the observer */
static ctr_loc *all_contexts; /* pushed lock-free by the threads whose locations attach */

/* A re-activation (a test's reset) frees what the previous one attached: its locations are gone. */
static void free_contexts(void) {
  ctr_loc *c = __atomic_exchange_n(&all_contexts, NULL, __ATOMIC_ACQ_REL);
  while (c) {
    ctr_loc *n = c->next_all;
    for (int k = 0; k < PM_MAX_NODE_CHUNKS; k++) free(c->node[k]);
    free(c);
    c = n;
  }
}

static void thread_failed(const char *why) {
  if (__atomic_fetch_add(&M.threads_failed, 1, __ATOMIC_RELAXED) == 0) {
    snprintf(M.thread_why, sizeof M.thread_why, "%s", why);
    pm_info("hardware counters: a thread cannot count (%s); its counter metrics are n/a", why);
  }
}

static void on_attach(pm_loc *L, unsigned slot) {
  if (L->is_virtual || !M.be) return; /* device streams: no thread to count on */
  ctr_loc *c = calloc(1, sizeof *c);
  if (!c) {
    thread_failed("out of memory");
    return;
  }
  c->L = L;
  L->obs_data[slot] = c;
  c->next_all = __atomic_load_n(&all_contexts, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&all_contexts, &c->next_all, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {}
  char why[PM_CTR_WHY] = "";
  /* the thread's location is being created: a call the backend makes into an interposed function
   * (a file it opens) must pass through, not register the thread a second time */
  int guard = pm_in_tool();
  pm_set_in_tool(1);
  c->ctx = M.be->thread_start(why, sizeof why);
  if (c->ctx) {
    c->counting = 1;
    tls_self = c;
    rebase(c, 0); /* a location starts in useful */
  }
  pm_set_in_tool(guard);
  if (!c->ctx) thread_failed(why[0] ? why : "could not start counting");
}

static void on_charge(pm_loc *L, unsigned slot, uint64_t now) {
  (void)now;
  if (L->state != PM_STATE_USEFUL) return;
  ctr_loc *c = mine(L, slot);
  if (c) close_useful(c, L->cur);
}

static void on_enter(pm_loc *L, unsigned slot, pm_region_id r, pm_state s, uint32_t depth, uint64_t now) {
  (void)r;
  (void)now;
  transition(L, slot, L->stack_state[depth - 1], s); /* depth >= 1 and <= PM_MAX_DEPTH here */
}

static void on_leave(pm_loc *L, unsigned slot, uint32_t depth, uint64_t now) {
  (void)now;
  transition(L, slot, L->state, L->stack_state[depth - 1]);
}

static void on_state(pm_loc *L, unsigned slot, pm_state from, pm_state to, uint64_t now) {
  (void)now;
  transition(L, slot, from, to);
}

static void on_restart(pm_loc *L, unsigned slot, uint64_t now) {
  (void)now;
  ctr_loc *c = L->obs_data[slot];
  if (!c || !c->counting) return;
  memset(c->useful, 0, sizeof c->useful);
  memset(c->outside, 0, sizeof c->outside);
  for (int k = 0; k < PM_MAX_NODE_CHUNKS && c->node[k]; k++)
    memset(c->node[k], 0, sizeof(uint64_t) * (size_t)PM_NODE_CHUNK * (size_t)M.nev);
  if (mine(L, slot))
    rebase(c, 0);
  else
    c->base_valid = 0; /* another thread restarted the window: re-base at the next read */
}

static void on_detach(pm_loc *L, unsigned slot, uint64_t now) {
  (void)now;
  ctr_loc *c = L->obs_data[slot];
  if (!c || c != tls_self || !c->ctx) return;
  int guard = pm_in_tool();
  pm_set_in_tool(1);
  M.be->thread_stop(c->ctx);
  pm_set_in_tool(guard);
  c->ctx = NULL;
  tls_self = NULL;
}

static const pm_loc_observer observer = {on_attach, on_charge, on_enter, on_leave, on_state, on_restart, on_detach};

/* -------------------------------------------------------------------------------- the event list */
static void add_request(const char *name) {
  if (M.nreq < PM_CTR_MAX) snprintf(M.req[M.nreq++], PM_CTR_NAME, "%s", name);
}

/* PAPI_TOT_INS, PAPI_TOT_CYC, then the FP classes this CPU has (double precision first: with few
 * counters, the double-precision classes are the ones that fit). */
static void default_list(void) {
  static const char *const classes[8] = {"SCALAR_DOUBLE",      "128B_PACKED_DOUBLE", "256B_PACKED_DOUBLE",
                                         "512B_PACKED_DOUBLE", "SCALAR_SINGLE",      "128B_PACKED_SINGLE",
                                         "256B_PACKED_SINGLE", "512B_PACKED_SINGLE"};
  static const char *const bases[2] = {"FP_ARITH_INST_RETIRED", "FP_ARITH"};
  add_request("PAPI_TOT_INS");
  add_request("PAPI_TOT_CYC");
  char first_why[PM_CTR_WHY] = "";
  int nfp = 0;
  for (int k = 0; k < 8; k++)
    for (int b = 0; b < 2; b++) {
      char name[PM_CTR_NAME], why[PM_CTR_WHY] = "";
      snprintf(name, sizeof name, "%s:%s", bases[b], classes[k]);
      if (M.be->known(name, why, sizeof why)) {
        add_request(name);
        nfp++;
        break;
      }
      if (k == 0 && b == 0) snprintf(first_why, sizeof first_why, "%s", why);
    }
  if (nfp == 0)
    snprintf(M.fp_note, sizeof M.fp_note,
             "%s: FP_ARITH_INST_RETIRED:SCALAR_DOUBLE not available: %s "
             "(no FP instruction class can be counted)",
             who(), first_why[0] ? first_why : "unknown event");
}

static void user_list(const char *list) {
  int dropped = 0;
  M.nreq = pm_ctr_parse_events(list, M.req, PM_CTR_MAX, &dropped);
  M.user_list = 1;
  if (dropped)
    pm_warn("POPMETER_PAPI_EVENTS: %d event name%s ignored (more than %d events, or a name longer than %d bytes)",
            dropped, dropped == 1 ? "" : "s", PM_CTR_MAX, PM_CTR_NAME - 1);
}

static int vector_width_of_cpu(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 512;
  if (__builtin_cpu_supports("avx")) return 256;
  if (__builtin_cpu_supports("sse2")) return 128;
#endif
  return 0;
}

/* --------------------------------------------------------------------------------- lifecycle hooks */
void pm_counters_activate(const pm_config *cfg) {
  memset(&M, 0, sizeof M);
  /* a re-activation (a forked child, a test's reset) starts without this thread's old context: its
   * location was freed with the old core */
  tls_self = NULL;
  free_contexts();
  M.slot = -1;
#ifdef PM_HAVE_SDE
  pm_sde_activate(); /* popmeter's own live metrics, read through PAPI */
#endif
  const char *ms = cfg->s[PM_CFG_COUNTERS];
  M.mode = pm_ctr_parse_mode(ms);
  if (M.mode < 0) {
    pm_warn("POPMETER_COUNTERS='%s' is not auto, papi or off; using the default auto", ms);
    M.mode = PM_CTR_MODE_AUTO;
  }
  if (M.mode == PM_CTR_MODE_OFF) {
    snprintf(M.why_all, sizeof M.why_all, "counters disabled (POPMETER_COUNTERS=off)");
    return; /* no PAPI at all, no observer: no cost */
  }
  const pm_ctr_backend *be = test_backend ? test_backend : pm_ctr_papi_backend();
  if (!be) {
    snprintf(M.why_all, sizeof M.why_all, "popmeter was built without PAPI (configure found no libpapi)");
  } else {
    char why[PM_CTR_WHY] = "";
    if (be->init(why, sizeof why) != 0) {
      snprintf(M.why_all, sizeof M.why_all, "%s: %s", !strcmp(be->name, "papi") ? "PAPI" : be->name, why);
    } else {
      M.be = be;
      M.vector_width = be->vector_width ? be->vector_width() : vector_width_of_cpu();
      const char *list = cfg->s[PM_CFG_PAPI_EVENTS];
      if (list && list[0])
        user_list(list);
      else
        default_list();
      const char *names[PM_CTR_MAX];
      for (int i = 0; i < M.nreq; i++) names[i] = M.req[i];
      be->select(M.nreq, names, M.req_ok, M.req_why);
      for (int i = 0; i < M.nreq; i++)
        if (M.req_ok[i]) M.ev_req[M.nev++] = i;
      for (int i = 0; i < M.nreq && M.user_list; i++) /* the user named them: say which ones fail */
        if (!M.req_ok[i])
          pm_warn("POPMETER_PAPI_EVENTS: event '%s' is not counted (%s); %s", M.req[i], M.req_why[i],
                  M.nev ? "the other events are" : "no event of the list can be counted");
      if (M.nev == 0)
        snprintf(M.why_all, sizeof M.why_all, "%s: none of the %d event%s can be counted", who(), M.nreq,
                 M.nreq == 1 ? "" : "s");
      else if ((M.slot = pm_loc_observer_add(&observer)) < 0)
        snprintf(M.why_all, sizeof M.why_all, "no room for the counter observer (%d observers already)",
                 PM_MAX_OBSERVERS);
    }
  }
  if (M.slot < 0) M.nev = 0; /* nothing is counted in this process */
  if (M.nev == 0 && M.mode == PM_CTR_MODE_PAPI) {
    if (M.nreq > 0 && !M.req_ok[0])
      pm_warn("POPMETER_COUNTERS=papi, but no hardware counter can be counted: %s: %s not available: %s", who(),
              M.req[0], M.req_why[0]);
    else
      pm_warn("POPMETER_COUNTERS=papi, but no hardware counter can be counted: %s", M.why_all);
  }
  pm_info("hardware counters: %d of %d events counted%s%s", M.nev, M.nreq, M.why_all[0] ? "; " : "", M.why_all);
}

void pm_counters_finalize(uint64_t t_end) {
  (void)t_end;
  ctr_loc *c = tls_self;
  /* the finalizing thread closes its own last non-useful interval */
  if (c && M.be && c->ctx && c->L->state != PM_STATE_USEFUL && !M.finalized) rebase(c, c->L->state != PM_STATE_OFF);
  __atomic_store_n(&M.finalized, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------------ into the profile */
/* Why category cat is missing, or "" when every thread counts it. */
static void category_reason(pm_ctr_category cat, char *out, size_t len) {
  out[0] = '\0';
  if (M.why_all[0] && M.nreq == 0) {
    snprintf(out, len, "%s", M.why_all);
    return;
  } /* off, no PAPI, no init */
  int need = 0, have = 0, requested[PM_CTR_KIND_COUNT] = {0}, accepted[PM_CTR_KIND_COUNT] = {0};
  for (int i = 0; i < M.nreq; i++) {
    int k = pm_ctr_kind_of_event(M.req[i]);
    requested[k]++;
    accepted[k] += M.req_ok[i];
  }
  for (int k = 0; k < PM_CTR_KIND_COUNT; k++)
    if (pm_ctr_category_of((pm_ctr_kind)k) == cat) {
      need += requested[k] > 0;
      have += accepted[k] > 0;
    }
  if (need == 0) {
    if (cat == PM_CTR_CAT_FP && M.fp_note[0])
      snprintf(out, len, "%s", M.fp_note);
    else
      snprintf(out, len, "no %s event in %s", cat == PM_CTR_CAT_FP ? "FP instruction-class" : pm_ctr_category_name(cat),
               M.user_list ? "POPMETER_PAPI_EVENTS" : "the default event list");
    return;
  }
  if (have == need && M.nev > 0) {
    if (M.threads_failed)
      snprintf(out, len, "%s: %d thread%s could not count: %s", who(), M.threads_failed,
               M.threads_failed == 1 ? "" : "s", M.thread_why);
    return;
  }
  /* the first requested event of the category that could not be counted, with the library's reason */
  for (int i = 0; i < M.nreq; i++)
    if (pm_ctr_category_of(pm_ctr_kind_of_event(M.req[i])) == cat && !M.req_ok[i]) {
      snprintf(out, len, "%s: %s not available: %s", who(), M.req[i], M.req_why[i]);
      return;
    }
  snprintf(out, len, "%s", M.why_all[0] ? M.why_all : "not counted");
}

/* The index in p->val of location k's first value (its node 0); -1 if none. */
static int first_value_of(const pm_profile *p, int k) {
  for (int i = 0; i < p->nvalues; i++)
    if (p->val[i].location == k) return i;
  return -1;
}

int pm_counters_to_profile(pm_profile *p) {
  pm_prof_counters *pc = pm_prof_counters_new();
  if (!pc) return -1;
  int ok = 1, any_missing = 0;
  snprintf(pc->source, sizeof pc->source, "%s", M.be ? M.be->name : "none");
  pc->vector_width_max = M.vector_width;
  for (int cat = 0; cat < PM_CTR_CAT_COUNT; cat++) {
    char why[4 * PM_CTR_WHY];
    category_reason((pm_ctr_category)cat, why, sizeof why);
    if (why[0]) {
      any_missing = 1;
      ok &= pm_prof_counters_set_reason(pc, (pm_ctr_category)cat, why) == 0;
    }
  }
  int counting = M.nev > 0;
  snprintf(pc->status, sizeof pc->status, "%s",
           M.mode == PM_CTR_MODE_OFF ? "disabled"
           : !counting               ? "unavailable"
           : any_missing             ? "partial"
                                     : "counted");
  for (int i = 0; i < M.nreq && ok; i++)
    ok &= pm_prof_counters_add_event(pc, M.req[i], pm_ctr_kind_of_event(M.req[i]), counting && M.req_ok[i],
                                     M.req_ok[i] ? NULL : M.req_why[i]) >= 0;
  if (ok && counting) {
    ok = pm_prof_counters_resize(pc, p->nlocations, p->nvalues) == 0;
    int w = pc->nevents;
    uint64_t failed_reads = 0;
    int failed_threads = 0;
    for (uint32_t i = 0, n = pm_loc_count(); ok && i < n; i++) {
      pm_loc *L = pm_loc_at(i);
      ctr_loc *c = L ? L->obs_data[M.slot] : NULL;
      int k = pm_profile_loc_index(i);
      if (!c || !c->counting || k < 0 || k >= p->nlocations) continue;
      failed_reads += c->read_errors;
      failed_threads += c->read_errors > 0;
      for (int e = 0; e < M.nev; e++) {
        int col = M.ev_req[e];
        pc->loc_mask[k] |= 1ull << col;
        pc->loc_useful[(size_t)k * w + col] = c->useful[e];
        pc->loc_outside[(size_t)k * w + col] = c->outside[e];
      }
      int v0 = first_value_of(p, k);
      uint32_t nn = pm_loc_node_count(L);
      for (uint32_t j = 0; v0 >= 0 && j < nn && (int)j + v0 < p->nvalues; j++) {
        if (p->val[v0 + j].location != k) break; /* values of a location are consecutive, by node */
        const uint64_t *src = c->node[j / PM_NODE_CHUNK];
        if (!src) {
          j |= PM_NODE_CHUNK - 1;
          continue;
        }
        src += (size_t)(j % PM_NODE_CHUNK) * (size_t)M.nev;
        for (int e = 0; e < M.nev; e++) pc->val[(size_t)(v0 + j) * w + M.ev_req[e]] = src[e];
      }
    }
    if (failed_reads) /* each failed read loses the interval it closes: the counts are low */
      pm_warn("hardware counters: %llu read%s failed on %d thread%s; their counts miss those intervals",
              (unsigned long long)failed_reads, failed_reads == 1 ? "" : "s", failed_threads,
              failed_threads == 1 ? "" : "s");
  }
  if (!ok) {
    pm_prof_counters_free(pc);
    return -1;
  }
  pm_prof_counters_free(p->counters);
  p->counters = pc;
  return 0;
}

static void counters_finalize(const pm_ipc *ipc, uint64_t t_end) {
  (void)ipc;
  pm_counters_finalize(t_end);
}
static int counters_to_profile(pm_profile *p, uint64_t t_start) {
  (void)t_start;
  return pm_counters_to_profile(p);
}
/* The counter module (pm_module.h). */
const pm_module pm_counters_module = {.name = "counters",
                                      .order = PM_ORDER_COUNTERS,
                                      .activate = pm_counters_activate,
                                      .finalize = counters_finalize,
                                      .to_profile = counters_to_profile};
