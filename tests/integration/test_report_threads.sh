#!/bin/sh
# Threads calling MPI concurrently (MPI_THREAD_MULTIPLE): each thread is its own location and the
# message and byte counts are exact: 2 ranks x 3 threads x 40 messages of 1000 bytes.
. "$top_srcdir/tests/tap.sh"
prog="$top_builddir/tests/integration/progs/mpi_threads"
lib="$top_builddir/lib/.libs/libpopmeter.so"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$work/out" "$prog" 3 40 1000 >"$work/stdout" 2>"$work/stderr"
check "threaded MPI run exits 0" test $? -eq 0
check "application output intact" grep -q "2 ranks x 3 threads done" "$work/stdout"
j="$work/out/popmeter.json"
check "JSON written" test -s "$j"
check "8 locations (2 x (main + 3 threads))" test "$($pmjson "$j" --count-locations)" = 8
check "messages sent exact: 240" test "$($pmjson "$j" --sum msgs_sent)" = 240
check "messages received exact: 240" test "$($pmjson "$j" --sum msgs_received)" = 240
check "bytes sent exact: 240000" test "$($pmjson "$j" --sum bytes_sent)" = 240000
check "bytes received exact: 240000" test "$($pmjson "$j" --sum bytes_received)" = 240000
check "Sendrecv visits exact: 240" test "$($pmjson "$j" --region-visits MPI_Sendrecv)" = 240
tap_done
