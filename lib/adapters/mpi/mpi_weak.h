/* Weak references to everything of Open MPI that the hand-written parts of the MPI adapter use.
 * Included after <mpi.h>: '#pragma weak' applies to the existing declarations, so every use
 * (a call, or the address of a predefined object behind MPI_COMM_WORLD, MPI_BYTE...) becomes a weak
 * undefined symbol ('w' / 'v' in nm) instead of a hard one. A process without libmpi (mpirun, a
 * shell, /bin/true under LD_BIND_NOW=1) then loads libpopmeter.so without error; the wrappers that
 * use these symbols are only ever called by MPI programs. The generated wrapper files add their own
 * '#pragma weak PMPI_X' / 'pmpi_x_' lines. A test (tests/integration/mpi_symbols.test) fails when a
 * strong undefined MPI symbol appears in libpopmeter.so. */
#ifndef PM_MPI_WEAK_H
#define PM_MPI_WEAK_H

/* predefined objects (the targets of Open MPI's handle macros) */
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_mpi_comm_null
#pragma weak ompi_request_null
#pragma weak ompi_message_null
#pragma weak ompi_message_no_proc
#pragma weak ompi_mpi_byte
#pragma weak ompi_mpi_uint64_t
#pragma weak ompi_mpi_int
#pragma weak ompi_mpi_char
#pragma weak ompi_mpi_op_max
#pragma weak ompi_mpi_op_min
#pragma weak ompi_mpi_datatype_null
#pragma weak ompi_mpi_info_null
#pragma weak ompi_mpi_errors_return
#pragma weak MPI_F_STATUS_IGNORE
#pragma weak MPI_F_STATUSES_IGNORE
#pragma weak OMPI_C_MPI_COMM_NULL_COPY_FN
#pragma weak OMPI_C_MPI_COMM_NULL_DELETE_FN

/* Fortran sentinels (common blocks defined by libmpi and the Fortran module libraries) */
extern char mpi_fortran_in_place_[] __attribute__((weak));
extern char mpi_fortran_bottom_[] __attribute__((weak));
extern char mpi_fortran_status_ignore_[] __attribute__((weak));
extern char mpi_fortran_statuses_ignore_[] __attribute__((weak));

/* C profiling interface used by the hand-written code */
#pragma weak PMPI_Init
#pragma weak PMPI_Init_thread
#pragma weak PMPI_Finalize
#pragma weak PMPI_Abort
#pragma weak PMPI_Initialized
#pragma weak PMPI_Finalized
#pragma weak PMPI_Query_thread
#pragma weak PMPI_Comm_rank
#pragma weak PMPI_Comm_size
#pragma weak PMPI_Comm_remote_size
#pragma weak PMPI_Comm_test_inter
#pragma weak PMPI_Comm_dup
#pragma weak PMPI_Comm_split
#pragma weak PMPI_Comm_split_type
#pragma weak PMPI_Comm_create_group
#pragma weak PMPI_Comm_group
#pragma weak PMPI_Group_free
#pragma weak PMPI_Comm_free
#pragma weak PMPI_Comm_create_keyval
#pragma weak PMPI_Comm_free_keyval
#pragma weak PMPI_Comm_set_attr
#pragma weak PMPI_Comm_get_attr
#pragma weak PMPI_Comm_delete_attr
#pragma weak PMPI_Comm_set_errhandler
#pragma weak PMPI_Topo_test
#pragma weak PMPI_Cartdim_get
#pragma weak PMPI_Graph_neighbors_count
#pragma weak PMPI_Dist_graph_neighbors_count
#pragma weak PMPI_Type_size
#pragma weak PMPI_Type_size_x
#pragma weak PMPI_Get_count
#pragma weak PMPI_Test_cancelled
#pragma weak PMPI_Status_f2c
#pragma weak PMPI_Type_f2c
#pragma weak PMPI_Comm_f2c
#pragma weak PMPI_Request_f2c
#pragma weak PMPI_Message_f2c
#pragma weak PMPI_File_f2c
#pragma weak PMPI_Win_f2c
#pragma weak PMPI_Isend
#pragma weak PMPI_Send
#pragma weak PMPI_Recv
#pragma weak PMPI_Sendrecv
#pragma weak PMPI_Wait
#pragma weak PMPI_Irecv
#pragma weak PMPI_Waitall
#pragma weak PMPI_Test
#pragma weak PMPI_Request_free
#pragma weak PMPI_Improbe
#pragma weak PMPI_Iprobe
#pragma weak PMPI_Mrecv
#pragma weak PMPI_Allreduce
#pragma weak PMPI_Bcast
#pragma weak PMPI_Barrier
#pragma weak PMPI_Wtime

#endif
