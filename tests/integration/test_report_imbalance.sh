#!/bin/sh
# An MPI program with a known imbalance (rank r busy-waits (r+1) units, then a barrier) on 2 and 4
# ranks, by LD_PRELOAD, through the launcher and by linking: LB and CommE near the analytic values
# LB = (N+1)/(2N) (tolerance 0.06), CommE = 1 (tolerance 0.08: barrier and finalize costs are not
# zero and grow on a loaded machine; 0.1 s units keep them small against the work).
. "$top_srcdir/tests/tap.sh"
prog="$top_builddir/tests/integration/progs/mpi_imbalance"
lib="$top_builddir/lib/.libs/libpopmeter.so"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT


check_run() {   # $1 label, $2 nranks, $3 output dir
  j="$3/popmeter.json"
  if [ ! -s "$j" ]; then notok "$1: popmeter.json written"; return; fi
  ok "$1: popmeter.json written"
  lb=$($pmjson "$j" basic/pe/lb); comme=$($pmjson "$j" basic/pe/comme)
  expect=$(/usr/bin/python3 -c "print(($2+1)/(2*$2))")
  diag "$1: LB=$lb (expected $expect) CommE=$comme (expected 1)"
  check "$1: load balance near $expect" near "$lb" "$expect" 0.06
  check "$1: communication efficiency near 1" near "$comme" 1 0.08
  check "$1: $2 locations" test "$($pmjson "$j" --count-locations)" = "$2"
  check "$1: barrier visits counted (4 per rank)" test "$($pmjson "$j" --region-visits MPI_Barrier)" = "$((4 * $2))"
}

for n in 2 4; do
  out="$work/preload$n"
  $MPIRUN -np $n -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" "$prog" 0.1 4 >"$work/out$n" 2>"$work/err$n"
  check "preload $n ranks: exit 0" test $? -eq 0
  check "preload $n ranks: table printed once" test "$(grep -c '=== popmeter ' "$work/err$n")" -eq 1
  check "preload $n ranks: application output unchanged" grep -q "checksum 1.000" "$work/out$n"
  check_run "preload $n ranks" $n "$out"
done

out="$work/launcher"
$MPIRUN -np 2 "$top_builddir/tools/popmeter" run --output "$out" -- "$prog" 0.1 4 >/dev/null 2>"$work/errl"
check "launcher 2 ranks: exit 0" test $? -eq 0
check_run "launcher 2 ranks" 2 "$out"

out="$work/linked"
# libtool's wrapper script finds the uninstalled libpopmeter.so; it execs the real program
$MPIRUN -np 2 -x POPMETER_OUTPUT="$out" "$top_builddir/tests/integration/progs/mpi_imbalance_linked" 0.1 4 \
  >/dev/null 2>"$work/errk"
check "linked 2 ranks: exit 0" test $? -eq 0
check_run "linked 2 ranks" 2 "$out"

# popmeter show recomputes the same table offline from the JSON
"$top_builddir/tools/popmeter" show "$work/preload2/popmeter.json" > "$work/show" 2>&1
check "popmeter show exits 0" test $? -eq 0
check "popmeter show prints the same load balance" sh -c "grep 'Load balance' '$work/show' | head -1 | grep -q \"\$(grep 'Load balance' '$work/err2' | head -1 | awk '{print \$NF}')\""
tap_done
