! Fortran ('use mpi_f08': symbols mpi_x_f08_) counterpart of mpi_counts.c: traffic of known
! volume, data checks, and the "EXPECT rank key op value" lines read by mpi_profile.py.
program mpi_counts_f08
  use mpi_f08
  implicit none
  integer :: ierr, rank, n, right, left, i, k, errors, all_errors
  integer :: a(10), b(10), idx
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: st
  double precision :: d(100), e(100)
  integer :: nsend, nrecv, bsent, brecv, ncoll, cout, cin, nwaitall, nwaitany, nrecvv, nsendv
  integer :: big(100), s5(5), r5(5)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  right = mod(rank + 1, n)
  left = mod(rank + n - 1, n)
  errors = 0
  nsend = 0; nrecv = 0; bsent = 0; brecv = 0; ncoll = 0; cout = 0; cin = 0
  nwaitall = 0; nwaitany = 0; nrecvv = 0; nsendv = 0

  ! blocking send / receive of 10 integers, status ignored on one side
  do i = 1, 10
    a(i) = rank * 100 + i
  end do
  if (mod(rank, 2) == 0) then
    call MPI_Send(a, 10, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(b, 10, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(b, 10, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
    call MPI_Send(a, 10, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  nsend = nsend + 1; bsent = bsent + 40; nrecv = nrecv + 1; brecv = brecv + 40
  nsendv = nsendv + 1; nrecvv = nrecvv + 1
  if (b(10) /= left * 100 + 10) errors = errors + 1

  ! non-blocking, Waitall with MPI_STATUSES_IGNORE, 100 doubles each way, twice
  do k = 1, 2
    d = rank + k
    call MPI_Irecv(e, 100, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(d, 100, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    nsend = nsend + 1; bsent = bsent + 800; nrecv = nrecv + 1; brecv = brecv + 800
    nwaitall = nwaitall + 1
    if (e(100) /= left + k) errors = errors + 1
  end do

  ! Waitany with MPI_STATUS_IGNORE and a Test loop, 5 integers
  s5 = rank
  call MPI_Irecv(r5, 5, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(s5, 5, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  nsend = nsend + 1; bsent = bsent + 20; nrecv = nrecv + 1; brecv = brecv + 20; nwaitany = nwaitany + 1
  if (r5(5) /= left) errors = errors + 1

  ! Sendrecv with a status
  call MPI_Sendrecv(a, 3, MPI_INTEGER, right, 4, b, 3, MPI_INTEGER, left, 4, MPI_COMM_WORLD, st, ierr)
  nsend = nsend + 1; bsent = bsent + 12; nrecv = nrecv + 1; brecv = brecv + 12
  if (st%MPI_SOURCE /= left) errors = errors + 1

  ! collectives (root 0)
  big = 0
  if (rank == 0) big(100) = 7
  call MPI_Bcast(big, 100, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  ncoll = ncoll + 1
  if (rank == 0) then
    cout = cout + (n - 1) * 400
  else
    cin = cin + 400
  end if
  if (big(100) /= 7) errors = errors + 1
  s5 = 1
  call MPI_Allreduce(s5, r5, 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  ncoll = ncoll + 1; cout = cout + (n - 1) * 20; cin = cin + (n - 1) * 20
  if (r5(1) /= n) errors = errors + 1
  call MPI_Allreduce(MPI_IN_PLACE, r5, 5, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  ncoll = ncoll + 1; cout = cout + (n - 1) * 20; cin = cin + (n - 1) * 20
  call MPI_Reduce(errors, all_errors, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  ncoll = ncoll + 1
  if (rank == 0) then
    cin = cin + (n - 1) * 4
  else
    cout = cout + 4
  end if
  ncoll = ncoll + n     ! the barriers below

  do i = 0, n - 1
    if (i == rank) then
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' msgs_sent == ', nsend
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' msgs_received == ', nrecv
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' bytes_sent == ', bsent
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' bytes_received == ', brecv
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' coll_calls == ', ncoll
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' coll_bytes_out == ', cout
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' coll_bytes_in == ', cin
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' visits:MPI_Send == ', nsendv
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' visits:MPI_Recv == ', nrecvv
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' visits:MPI_Waitall == ', nwaitall
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' visits:MPI_Waitany == ', nwaitany
      write (*, '(A,I0,A,I0)') 'EXPECT ', rank, ' visits:MPI_Init == ', 1
      write (*, '(A,I0,A)') 'EXPECT ', rank, ' polls:MPI_Testall >= 1'
      flush (6)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) then
    if (all_errors == 0) then
      write (*, '(A,I0,A)') 'mpi_counts_f08: ', n, ' ranks, data ok'
    else
      write (*, '(A,I0,A)') 'mpi_counts_f08: ', n, ' ranks, ERRORS'
    end if
  end if
  call MPI_Finalize(ierr)
  if (rank == 0 .and. all_errors /= 0) stop 1
end program mpi_counts_f08
