/* MPI initialised and finalised on a thread that is not the main thread (as StarPU-MPI does):
 * the thread calls MPI_Init_thread, exchanges a message with the partner rank, and finalises. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static void *mpi_thread(void *arg) {
  (void)arg;
  int provided, rank, size, v = 0;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    v = 42;
    MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
  } else if (rank == 1)
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("mpi_offthread: received %d\n", v);
  MPI_Finalize();
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, mpi_thread, NULL);
  pthread_join(t, NULL);
  return 0;
}
