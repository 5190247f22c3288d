#!/bin/sh
# OTF2 trace of an MPI program on 2 ranks (progs/trace_mpi.c: the traffic is listed there), read
# back with otf2-print and trace_check.py: every message matched per (communicator, sender,
# receiver, tag), collectives paired with the same sequence on every rank, and exact counts of what
# the program did. Then the same program leaving without MPI_Finalize: each rank writes an archive
# of its own, valid, with the region it left open closed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/trace_common.sh"
need_readers
mpirun_pm() {   # OUTDIR ARGS...
  out=$1; shift
  timeout 120 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_TRACE=1 -x POPMETER_REPORT=0 -x POPMETER_CUBE=0 \
    -x POPMETER_OUTPUT="$out" "$progs/trace_mpi" "$@" >"$out.out" 2>"$out.err"
}

mpirun_pm "$work/run"
check "2 ranks: exits 0" test $? -eq 0
a="$work/run/traces.otf2"
check "the archive is in the output directory, next to popmeter.json" test -s "$a" -a -s "$work/run/popmeter.json"
check "no staging directory is left behind" sh -c "! ls -d '$work'/.popmeter-trace.* >/dev/null 2>&1"
readback "2 ranks" "$a"
# point to point, hand-counted from trace_mpi.c (per rank)
expect "rank 0: MPI_Send tag 1, 400 bytes" 10 "$a" MpiSend rank=0 tag=1 bytes=400 comm=MPI_COMM_WORLD
expect "rank 1: MPI_Recv tag 1, 400 bytes" 10 "$a" MpiRecv rank=1 tag=1 bytes=400 comm=MPI_COMM_WORLD
expect "rank 1: MPI_Send tag 2, 200 bytes" 10 "$a" MpiSend rank=1 tag=2 bytes=200
expect "rank 0: MPI_Recv tag 2, 200 bytes" 10 "$a" MpiRecv rank=0 tag=2 bytes=200
expect "both ranks: MPI_Isend on the dup'd communicator, 512 bytes" 10 "$a" MpiIsend tag=3 bytes=512 "comm=MPI communicator"
expect "both ranks: MpiIsendComplete" 10 "$a" MpiIsendComplete
expect "both ranks: MpiIrecvRequest" 10 "$a" MpiIrecvRequest
expect "both ranks: MPI_Irecv completed, 512 bytes" 10 "$a" MpiIrecv tag=3 bytes=512
expect "both ranks: MPI_Sendrecv's send and receive" 2 "$a" MpiSend tag=4 bytes=8
expect "both ranks: MPI_Sendrecv's receive" 2 "$a" MpiRecv tag=4 bytes=8
# collectives: 2 Barrier, 1 Bcast, 3+1 Allreduce, 1 Reduce, 1 Gather, 1 Allgather, 1 Alltoall per rank
expect "rank 0: 11 collective operations" 11 "$a" MpiCollectiveEnd rank=0
expect "rank 1: 11 collective operations" 11 "$a" MpiCollectiveEnd rank=1
expect "MPI_Barrier on MPI_COMM_WORLD (x2 x2 ranks)" 4 "$a" MpiCollectiveEnd op=BARRIER comm=MPI_COMM_WORLD
expect "MPI_Allreduce on the split communicators (x1 x2 ranks)" 2 "$a" MpiCollectiveEnd op=ALLREDUCE "comm=MPI communicator"
expect "MPI_Bcast root 0 sends 40 bytes" 1 "$a" MpiCollectiveEnd op=BCAST rank=0 sent=40 received=0
expect "MPI_Bcast rank 1 receives 40 bytes" 1 "$a" MpiCollectiveEnd op=BCAST rank=1 sent=0 received=40
expect "MPI_Send regions on rank 0 (ping-pong)" 10 "$a" Enter region=MPI_Send rank=0
expect "MPI_Finalize is entered and left on both ranks" 2 "$a" Leave region=MPI_Finalize
expect_done

# leaving without MPI_Finalize, inside the user region "leaving"
mpirun_pm "$work/exit" exit
for r in 0 1; do
  a="$work/exit.rank$r/traces.otf2"
  check "exit without MPI_Finalize: rank $r has an archive of its own" test -s "$a"
  otf2-print "$a" >/dev/null 2>"$work/print.err"
  check "exit without MPI_Finalize: rank $r: otf2-print exits 0 without error" \
    sh -c "test $? -eq 0 && ! grep -qiE 'error' '$work/print.err'"
  $tcheck check "$a" "rank $r alone" >"$work/check.out" 2>&1
  # messages and collectives with the other rank cannot match in a one-process archive
  grep -v -e 'messages matched' -e 'collective operations' "$work/check.out" >"$work/check.own"
  tap_lines "$work/check.own"
  expect "rank $r alone: the open region 'leaving' is entered" 1 "$a" Enter region=leaving
  expect "rank $r alone: ... and left at exit" 1 "$a" Leave region=leaving
  expect "rank $r alone: its 11 collectives" 11 "$a" MpiCollectiveEnd rank=$r
  expect_done
done
tap_done
