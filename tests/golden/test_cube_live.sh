#!/bin/sh
# End to end: real MPI runs (preloaded) write profile.cubex at finalize next to popmeter.json; the
# project's checker validates it (cube_dump is not available and would accept broken files) and
# the values read back from the cube equal those of popmeter.json of the same run. (How many
# processes the run profile holds is the reduction's business, tested in integration/.)
. "$top_srcdir/tests/tap.sh"
lib="$top_builddir/lib/.libs/libpopmeter.so"
check_bin="$top_builddir/tests/golden/cubex_check"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmcube.XXXXXX")
trap 'rm -rf "$work"' EXIT

# sum of the third column of a --dump over the rows whose call path matches $2 (a regex)
dumpsum() { awk -F'\t' -v re="$2" 'NF == 3 && $1 ~ re { s += $3 } END { printf "%.0f\n", s }' "$1"; }

# rank r busy-waits (r+1) units, then calls MPI_Barrier 4 times (tests/integration/progs)
out="$work/imb"
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" -x POPMETER_REPORT=0 \
  "$top_builddir/tests/integration/progs/mpi_imbalance" 0.02 4 >/dev/null 2>"$work/err"
check "mpi_imbalance 2 ranks: exit 0" test $? -eq 0
j="$out/popmeter.json"
c="$out/profile.cubex"
check "profile.cubex written next to popmeter.json" test -s "$c" -a -s "$j"
"$check_bin" "$c" >"$work/check" 2>&1
check "cubex_check accepts it" test $? -eq 0
diag "$(cat "$work/check")"
n=$($pmjson "$j" --count-locations)
check "as many locations as popmeter.json ($n)" grep -q " $n locations)" "$work/check"
"$check_bin" --dump visits "$c" >"$work/visits" 2>&1
check "MPI_Barrier visits in the cube = popmeter.json ($($pmjson "$j" --region-visits MPI_Barrier))" \
  test "$(dumpsum "$work/visits" '^MPI_Barrier[(]')" = "$($pmjson "$j" --region-visits MPI_Barrier)"
check "derived load balance over at most the $n compute locations" \
  grep -qF "min($n, metric::pop_nloc(i))" "$c"

# threads calling MPI: 3 threads per rank exchange 40 messages of 1000 bytes with their peer
out="$work/thr"
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" -x POPMETER_REPORT=0 \
  "$top_builddir/tests/integration/progs/mpi_threads" 3 40 1000 >/dev/null 2>"$work/err2"
check "mpi_threads 2 ranks: exit 0" test $? -eq 0
j="$out/popmeter.json"
c="$out/profile.cubex"
"$check_bin" "$c" >"$work/check2" 2>&1
check "cubex_check accepts the threaded profile" test $? -eq 0
diag "$(cat "$work/check2")"
n=$($pmjson "$j" --count-locations)
check "all $n locations in the system tree" grep -q " $n locations)" "$work/check2"
"$check_bin" --dump bytes_sent --dump messages_received "$c" >"$work/comm" 2>&1
sed -n '/^# bytes_sent/,/^# messages_received/p' "$work/comm" >"$work/bytes"
sed -n '/^# messages_received/,$p' "$work/comm" >"$work/msgs"
check "bytes sent in the cube = popmeter.json ($($pmjson "$j" --sum bytes_sent))" \
  test "$(dumpsum "$work/bytes" .)" = "$($pmjson "$j" --sum bytes_sent)"
check "messages received in the cube = popmeter.json ($($pmjson "$j" --sum msgs_received))" \
  test "$(dumpsum "$work/msgs" .)" = "$($pmjson "$j" --sum msgs_received)"

# point-to-point and collective bytes keep one meaning in both files (progs/mpi_counts: traffic of
# every kind): the cube's bytes_sent is point-to-point, its coll_bytes_out / coll_bytes_in collective
out="$work/counts"
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" -x POPMETER_REPORT=0 \
  "$top_builddir/tests/integration/progs/mpi_counts" "$work/scratch.dat" >/dev/null 2>"$work/err3"
check "mpi_counts 2 ranks: exit 0" test $? -eq 0
j="$out/popmeter.json"
c="$out/profile.cubex"
"$check_bin" --dump bytes_sent --dump coll_bytes_out --dump coll_bytes_in "$c" >"$work/comm3" 2>&1
for m in bytes_sent coll_bytes_out coll_bytes_in; do
  awk -v m="$m" '/^# / { on = ($2 == m) } on' "$work/comm3" >"$work/$m"
  want=$($pmjson "$j" --sum $m)
  check "$m in the cube = popmeter.json's locations ($want)" test "$(dumpsum "$work/$m" .)" = "$want"
done
check "collective bytes were counted" test "$($pmjson "$j" --sum coll_bytes_out)" -gt 0

# POPMETER_CUBE=0: no cube
out="$work/off"
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" -x POPMETER_REPORT=0 -x POPMETER_CUBE=0 \
  "$top_builddir/tests/integration/progs/mpi_imbalance" 0.01 1 >/dev/null 2>&1
check "POPMETER_CUBE=0: popmeter.json only" test -s "$out/popmeter.json" -a ! -e "$out/profile.cubex"
tap_done
