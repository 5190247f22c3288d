#!/bin/sh
# Critical-path piggyback: (1) the clocks travel: rank 0 computes T seconds then communicates with
# ranks 1 and 2, which waited; their global CUE clock must reach ~T through every kind of operation
# (blocking, synchronous, non-blocking completed by Wait/Waitany/Test, Sendrecv, persistent,
# matched probe, wildcard receive, collectives, a duplicated communicator; collectives' clocks
# through shared memory, the default on one node, and through messages), and stay small without
# the piggyback. (2) it never changes results nor hangs: a stress program with wildcards, messages
# to self, rendezvous-size messages, hundreds of messages in flight, cancelled and persistent
# requests, communicators created and freed (one while a receive on it is pending),
# intercommunicators, and MPI_THREAD_MULTIPLE with cross-thread completion; a barrier holds the ranks
# until the last one entered, whatever replaces it underneath, also when MPI fails to post the clock
# messages that stand for it; no clock counted as lost
# when a broadcast's root reads the slots of ranks entering after it; ranks whose collectives
# differ (one called past the wrappers) are told so.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"
T=0.4
ge() { $py -c "import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)" "$1" "$2"; }

for mode in send ssend isend irecv-waitany irecv-test sendrecv persistent mprobe wildcard bcast barrier allreduce subcomm; do
  out="$work/cp.$mode"
  run_pm 3 "$out" "$progs/mpi_cpath" $mode $T
  rc=$?
  c1=$($mpiprof "$out" --get 1 cp_global_cue); c2=$($mpiprof "$out" --get 2 cp_global_cue)
  diag "$mode: CUE of rank 1 = $c1 s, rank 2 = $c2 s (rank 0 computed $T s first)"
  check "$mode: exit 0, data ok" sh -c "test $rc -eq 0 && test \$(grep -c 'data ok' '$out.out') -eq 3"
  if ge "$c1" 0.3 && ge "$c2" 0.3; then
    ok "$mode: rank 0's computation is on the critical path of ranks 1 and 2"
  else
    notok "$mode: rank 0's computation is on the critical path of ranks 1 and 2"
  fi
done
# clocks through messages (what communicators spanning several nodes use; on one node they go
# through shared memory): point-to-point clock messages, the collectives' exchange of 2 ranks and
# the clock allreduce of 3
# reaches_rank1 LABEL NP OUT RC: the run in OUT exited with RC = 0, every rank's data ok, and rank
# 0's computation is on rank 1's critical path
reaches_rank1() {
  c1=$($mpiprof "$3" --get 1 cp_global_cue)
  check "$1: exit 0, data ok" sh -c "test $4 -eq 0 && test \$(grep -c 'data ok' '$3.out') -eq $2"
  check "$1: rank 0's computation reaches rank 1 ($c1 s)" ge "$c1" 0.3
}
for np in 2 3; do
  for mode in send irecv-test wildcard mprobe persistent bcast barrier allreduce subcomm; do
    out="$work/msg$np.$mode"
    PM_MPIRUN_OPTS="-x POPMETER_CP_SHARED_MEMORY=0" run_pm $np "$out" "$progs/mpi_cpath" $mode $T
    reaches_rank1 "$mode on $np ranks, clocks through messages" $np "$out" $?
  done
done
# MPI fails to post clock messages (a library out of resources; a preloaded shim makes it fail):
# the first one each way on both ranks, rank 0's first send only (its peer would wait for that clock
# forever), rank 1's first receive only (its barrier would not hold): each post is done again,
# blocking, so no rank waits for a message that never comes, the barrier made of the exchange
# still holds rank 1 until rank 0 entered, and no clock is lost
failposts="$top_builddir/tests/integration/.libs/libfailclockposts.so"
for fail in both:: rank0-send:0:send rank1-recv:1:recv; do
  label=${fail%%:*} rest=${fail#*:}
  only_rank=${rest%%:*} only_kind=${rest#*:}
  for mode in barrier allreduce; do
    out="$work/failposts.$label.$mode"
    PM_PRELOAD="$failposts:$lib" PM_MPIRUN_OPTS="-x POPMETER_CP_SHARED_MEMORY=0 -x FAIL_CLOCK_POSTS=1 \
${only_rank:+-x FAIL_CLOCK_POSTS_RANK=$only_rank} ${only_kind:+-x FAIL_CLOCK_POSTS_KIND=$only_kind}" \
      run_pm 2 "$out" "$progs/mpi_cpath" $mode $T
    rc=$?
    check "$mode, clock posts failing ($label): no hang" test $rc -ne 124
    reaches_rank1 "$mode on 2 ranks, clock posts failing ($label)" 2 "$out" $rc
    check "$mode, clock posts failing ($label): no clock lost, no warning" \
      sh -c "test -z \"\$(grep popmeter '$out.err')\""
  done
done
# the shared-memory segments are unlinked once every rank has mapped them: none is left behind
# (one younger than a minute may belong to a run of another test going on at the same time)
check "no shared-memory segment of the clocks left in /dev/shm" \
  sh -c "test -z \"\$(find /dev/shm -maxdepth 1 -name 'popmeter-cp.*' -mmin +1 2>/dev/null)\""

# ranks that cannot share memory although MPI runs them on one host: rank 1 in a /dev/shm of its
# own (a mount namespace) cannot open the segment rank 0 made, as a rank of another node could
# not; both take the clock messages (and Open MPI its TCP transport, over the loopback)
own_shm='if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then
  exec unshare -m sh -c "mount -t tmpfs tmpfs /dev/shm && exec \"\$@\"" sh "$@"; fi; exec "$@"'
if unshare -m sh -c 'mount -t tmpfs tmpfs /dev/shm' 2>/dev/null; then
  for mode in send barrier allreduce; do
    out="$work/apart.$mode"
    PM_MPIRUN_OPTS="--mca btl self,vader,tcp --mca btl_tcp_if_include lo" \
      run_pm 2 "$out" sh -c "$own_shm" sh "$progs/mpi_cpath" $mode $T
    reaches_rank1 "$mode, ranks without shared memory" 2 "$out" $?
  done
else
  skip "ranks without shared memory: no mount namespace here (unshare -m, mount)"
fi

# a sender 5000 messages ahead of its receiver: the pair's shared-memory ring keeps 4096 clocks on 2
# ranks, so 904 are lost, and said at the end; through messages none is lost
out="$work/flood"
run_pm 2 "$out" "$progs/mpi_cpath" flood $T
check "flood: exit 0, data ok" sh -c "test \$(grep -c 'data ok' '$out.out') -eq 2"
check "flood: the 904 lost clocks are reported ($(pm_warnings "$out.err" | head -n 1))" \
  grep -q "warning: critical path: 904 clock(s) of MPI messages or collectives were lost" "$out.err"
out="$work/flood-msg"
PM_MPIRUN_OPTS="-x POPMETER_CP_SHARED_MEMORY=0" run_pm 2 "$out" "$progs/mpi_cpath" flood $T
check "flood through messages: exit 0, data ok, no clock lost" \
  sh -c "test \$(grep -c 'data ok' '$out.out') -eq 2 && ! grep -q 'clock(s)' '$out.err'"

# broadcasts whose root goes round: a root reads the others' clock slots as they enter, which is
# no lost clock (it once was counted as one when the entry tore the read)
out="$work/bcast-roots"
run_pm 2 "$out" "$progs/mpi_cpath" bcast-roots $T
check "bcast-roots: exit 0, data ok, no clock lost ($(pm_warnings "$out.err" | head -n 1))" \
  sh -c "test \$(grep -c 'data ok' '$out.out') -eq 2 && ! grep -q 'clock(s)' '$out.err'"

# rank 0 broadcasts past the wrappers (PMPI_Bcast): the ranks' collectives differ, which is said
out="$work/diverge"
run_pm 2 "$out" "$progs/mpi_cpath" diverge $T
check "diverge: exit 0, data ok" sh -c "test \$(grep -c 'data ok' '$out.out') -eq 2"
check "diverge: the differing collectives are named ($(pm_warnings "$out.err" | head -n 1))" \
  grep -q "collective number 1 was MPI_Bcast on rank 1 and MPI_Allreduce on rank 0: the ranks' collectives differ" "$out.err"

for mode in send barrier; do
  out="$work/nocp.$mode"
  PM_MPIRUN_OPTS="-x POPMETER_CRITICAL_PATH=0" run_pm 3 "$out" "$progs/mpi_cpath" $mode $T
  check "$mode, POPMETER_CRITICAL_PATH=0: exit 0" test $? -eq 0
  c1=$($mpiprof "$out" --get 1 cp_global_cue)
  diag "$mode without piggyback: CUE of rank 1 = $c1 s"
  check "$mode, POPMETER_CRITICAL_PATH=0: no propagation" ge 0.2 "$c1"
done

stress() {   # $1 label, $2 nranks, $3... options for mpirun then -- program args
  label=$1; np=$2; shift 2
  out="$work/stress.$(echo "$label" | tr -c 'a-z0-9\n' _)"
  PM_MPIRUN_OPTS="$PM_OPTS" run_pm "$np" "$out" "$progs/mpi_stress" "$@"
  rc=$?
  if [ $rc -eq 124 ]; then notok "$label: no hang (timed out)"; else ok "$label: no hang"; fi
  check "$label: exit 0 and data ok" sh -c "test $rc -eq 0 && grep -q 'data ok' '$out.out'"
  w=$(pm_warnings "$out.err")
  check "$label: no popmeter warning${w:+ ($w)}" test -z "$w"
}
PM_OPTS= stress "stress, 2 ranks" 2
PM_OPTS= stress "stress, 4 ranks" 4
PM_OPTS= stress "stress, 3 ranks" 3
PM_OPTS="-x POPMETER_CRITICAL_PATH=0" stress "stress, 4 ranks, POPMETER_CRITICAL_PATH=0" 4
PM_OPTS="-x POPMETER_CP_SHARED_MEMORY=0" stress "stress, 4 ranks, clocks through messages" 4
PM_OPTS="-x POPMETER_CP_SHARED_MEMORY=0" stress "stress, MPI_THREAD_MULTIPLE, clocks through messages" 3 threads
PM_OPTS= stress "stress, MPI_THREAD_MULTIPLE, 2 threads x 3 ranks" 3 threads
tap_done
