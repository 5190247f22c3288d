/* OpenMP fork/join and thread-team events, reported by lib/omp/pm_omp_team.c for both OpenMP
 * adapters (OMPT and GOMP). On the master: ThreadFork before the parallel region's Enter, ThreadJoin
 * after its Leave; on every member (master included): ThreadTeamBegin / ThreadTeamEnd around its
 * implicit task.
 *
 * A thread team is an OTF2 communicator. One is defined per (master location, team size): the
 * runtimes keep their thread pools, so the same master forking the same number of threads gets
 * the same threads; member i of the communicator is the first location seen as thread i. */
#include "pm_trace.h"
#include "pm_module.h"
#include "pm_events.h"

void pm_trace_omp_fork(pm_loc *L, uint32_t nthreads, uint64_t now) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, now, 0, &t) : NULL;
  if (!w) return;
  pm_tloc_count(T, OTF2_EvtWriter_ThreadFork(w, NULL, t, OTF2_PARADIGM_OPENMP, nthreads));
  pm_tloc_end(T);
}

void pm_trace_omp_join(pm_loc *L, uint64_t now) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, now, 0, &t) : NULL;
  if (!w) return;
  pm_tloc_count(T, OTF2_EvtWriter_ThreadJoin(w, NULL, t, OTF2_PARADIGM_OPENMP));
  pm_tloc_end(T);
}

uint32_t pm_trace_omp_team(pm_loc *master, uint32_t nthreads) {
  pm_tloc *T = pm_tloc_of(master);
  if (!T || pm_tr_state() != PM_TR_OPEN || nthreads == 0) return UINT32_MAX;
  if (PM_LIKELY(T->omp_n == nthreads)) return T->omp_team; /* the common case: the same team again */
  /* (master, size) -> team: a linear search of this process's teams, only when the size changes */
  static struct {
    pm_loc *master;
    uint32_t n, id;
  } known[1024];
  static uint32_t nknown;
  uint32_t id = UINT32_MAX;
  pthread_mutex_lock(&pm_tr.lock);
  for (uint32_t i = 0; i < nknown; i++)
    if (known[i].master == master && known[i].n == nthreads) {
      id = known[i].id;
      break;
    }
  pthread_mutex_unlock(&pm_tr.lock);
  if (id == UINT32_MAX) {
    id = pm_tcomm_add(PM_TCOMM_TEAM, (int)nthreads, NULL, pm_loc_id(master));
    pthread_mutex_lock(&pm_tr.lock);
    if (id != UINT32_MAX && nknown < 1024) known[nknown++] = (typeof(known[0])){master, nthreads, id};
    pthread_mutex_unlock(&pm_tr.lock);
  }
  if (id != UINT32_MAX) {
    T->omp_n = nthreads;
    T->omp_team = id;
  }
  return id;
}

void pm_trace_omp_team_begin(pm_loc *L, uint32_t team, uint32_t tid, uint64_t now) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  if (team == UINT32_MAX) return;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, now, 0, &t) : NULL;
  if (!w) return;
  pm_tcomm_set_member(team, tid, T->ref);
  pm_tloc_count(T, OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t, team));
  pm_tloc_end(T);
}

void pm_trace_omp_team_end(pm_loc *L, uint32_t team, uint64_t now) {
  pm_tloc *T = pm_tloc_of(L);
  uint64_t t;
  if (team == UINT32_MAX) return;
  OTF2_EvtWriter *w = T ? pm_tloc_begin(T, now, 0, &t) : NULL;
  if (!w) return;
  pm_tloc_count(T, OTF2_EvtWriter_ThreadTeamEnd(w, NULL, t, team));
  pm_tloc_end(T);
}
