/* Fault injection for test_mpi_critpath.sh: preloaded before libpopmeter, it makes MPI fail the
 * first FAIL_CLOCK_POSTS posts of each kind (PMPI_Isend, PMPI_Irecv) of popmeter's clock messages
 * between 2 ranks -- 3 MPI_UINT64_T on a communicator of its own -- as a library out of resources
 * would, and hands every other call to MPI unchanged. FAIL_CLOCK_POSTS_RANK (a rank of
 * MPI_COMM_WORLD) and FAIL_CLOCK_POSTS_KIND (send or recv) narrow the failures to one rank, one kind. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int clock_message(int count, MPI_Datatype type, MPI_Comm comm) {
  return count == 3 && type == MPI_UINT64_T && comm != MPI_COMM_WORLD;
}

/* 1 while this kind of post still has failures to give here (counted per kind and process) */
static int fail_now(int *failed, const char *kind) {
  const char *e = getenv("FAIL_CLOCK_POSTS"), *r = getenv("FAIL_CLOCK_POSTS_RANK"),
             *k = getenv("FAIL_CLOCK_POSTS_KIND"), *me = getenv("OMPI_COMM_WORLD_RANK");
  int limit = e ? atoi(e) : 0;
  if (r && (!me || atoi(r) != atoi(me))) return 0;
  if (k && strcmp(k, kind) != 0) return 0;
  if (*failed >= limit) return 0;
  (*failed)++;
  return 1;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
  static int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
  static int failed;
  if (clock_message(count, type, comm) && fail_now(&failed, "send")) return MPI_ERR_OTHER;
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Isend");
  return real(buf, count, type, dest, tag, comm, req);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req) {
  static int (*real)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
  static int failed;
  if (clock_message(count, type, comm) && fail_now(&failed, "recv")) return MPI_ERR_OTHER;
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Irecv");
  return real(buf, count, type, source, tag, comm, req);
}
