/* popmeter's MPI metrics as PAPI software-defined events, on 2 ranks. Rank 0 sends 3 messages of
 * 1000 bytes to rank 1 (bytes_sent +3000, messages_sent +3 exactly), then waits in MPI_Recv for a
 * message rank 1 sends after sleeping 300 ms (mpi_ns grows by about 300 ms). Rank 0 prints the
 * deltas. Usage: mpirun -np 2 popmeter run -- sde_mpi */
#include <mpi.h>
#include <papi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const names[] = {"sde:::popmeter::bytes_sent", "sde:::popmeter::messages_sent",
                                    "sde:::popmeter::mpi_ns"};
enum { BYTES, MESSAGES, MPI_NS, N };

int main(int argc, char **argv) {
  int rank, es = PAPI_NULL, ok = 1;
  static char buf[1000];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    ok = PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT && PAPI_create_eventset(&es) == PAPI_OK;
    for (int i = 0; ok && i < N; i++) ok = PAPI_add_named_event(es, names[i]) == PAPI_OK;
    if (!ok) printf("sde: events not available\n");
  }
  long long v0[N], v1[N], v2[N];
  if (rank == 0 && ok) {
    PAPI_start(es);
    PAPI_read(es, v0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (ok) PAPI_read(es, v0);
    for (int i = 0; i < 3; i++) MPI_Send(buf, (int)sizeof buf, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    if (ok) PAPI_read(es, v1);
    MPI_Recv(buf, 1, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (ok) {
      PAPI_read(es, v2);
      printf("bytes_sent %lld\nmessages_sent %lld\nmpi_ns %lld\n", v1[BYTES] - v0[BYTES], v1[MESSAGES] - v0[MESSAGES],
             v2[MPI_NS] - v1[MPI_NS]);
    }
  } else if (rank == 1) {
    for (int i = 0; i < 3; i++) MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    usleep(300000);
    MPI_Send(buf, 1, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return ok ? 0 : 3;
}
