#!/bin/sh
# Lifecycle corner cases: fork (only the parent reports), MPI initialised and finalised on a
# non-main thread (the report still comes, with the message counted).
. "$top_srcdir/tests/tap.sh"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
lib="$top_builddir/lib/.libs/libpopmeter.so"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

"$top_builddir/tools/popmeter" run --output "$work/fork" -- "$top_builddir/tests/integration/progs/forker" >"$work/out_fork" 2>"$work/err_fork"
check "fork: program exits 0" test $? -eq 0
check "fork: program output intact" grep -q "child exited with 0" "$work/out_fork"
check "fork: exactly one table (the parent's)" test "$(grep -c '=== popmeter ' "$work/err_fork")" -eq 1
check "fork: one output directory" test "$(ls -d "$work"/fork* | wc -l)" -eq 1

if [ -n "$MPIRUN" ]; then
  $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$work/offthread" \
    "$top_builddir/tests/integration/progs/mpi_offthread" >"$work/out_off" 2>"$work/err_off"
  check "MPI on a non-main thread: exits 0" test $? -eq 0
  check "MPI on a non-main thread: application result intact" grep -q "received 42" "$work/out_off"
  check "MPI on a non-main thread: one table" test "$(grep -c '=== popmeter ' "$work/err_off")" -eq 1
  check "MPI on a non-main thread: 1 message counted" test "$($pmjson "$work/offthread/popmeter.json" --sum msgs_sent)" = 1
else
  skip "no MPI"; skip "no MPI"; skip "no MPI"; skip "no MPI"
fi
tap_done
