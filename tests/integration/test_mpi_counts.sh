#!/bin/sh
# Real counts through popmeter's output: a C program with traffic of known volume (point-to-point
# in every mode, persistent, matched probes, wildcards, MPI_PROC_NULL, collectives (v-variants too), a split
# communicator, MPI-IO) prints what must have been counted; popmeter.json must agree exactly
# (messages, bytes, collective volumes, I/O bytes, visits and polls of MPI regions), by preload on
# 2 and 4 ranks, with and without the critical-path piggyback, and when linked with -lpopmeter.
# mpi_poll: the time of polling calls is MPI time.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"

counts() {   # $1 label, $2 nranks, $3 program, $4 extra mpirun options (PM_PRELOAD: see mpi_common.sh)
  out="$work/$(echo "$1" | tr -c 'a-z0-9\n' _)"
  PM_MPIRUN_OPTS="$4" run_pm "$2" "$out" "$3" "$work/scratch.$$.dat"
  check "$1: exit 0" test $? -eq 0
  check "$1: the program's data checks pass" grep -q "data ok" "$out.out"
  check "$1: counts in popmeter.json match" sh -c "$mpiprof '$out' --check '$out.out' >'$out.chk' 2>&1"
  sed 's/^/  /' "$out.chk" | sed 's/^  #/#/' | head -20
  w=$(pm_warnings "$out.err")
  check "$1: no popmeter warning${w:+ ($w)}" test -z "$w"
}

counts "C, 2 ranks" 2 "$progs/mpi_counts"
counts "C, 4 ranks" 4 "$progs/mpi_counts"
counts "C, 2 ranks, POPMETER_CRITICAL_PATH=0" 2 "$progs/mpi_counts" "-x POPMETER_CRITICAL_PATH=0"
# polling calls are MPI time: a tight MPI_Test loop waiting for a late message, probes between
# chunks of computation (the program prints the expectations)
counts "polls timed, 2 ranks" 2 "$progs/mpi_poll"
if [ -x "$progs/mpi_counts_linked" ]; then
  PM_PRELOAD= counts "C linked with -lpopmeter, 2 ranks" 2 "$progs/mpi_counts_linked"
else
  skip "mpi_counts_linked not built"
fi
tap_done
