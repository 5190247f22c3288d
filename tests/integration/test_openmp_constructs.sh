#!/bin/sh
# OpenMP constructs beyond plain regions (progs/omp_constructs.c), through both adapters (gcc +
# libgomp: GOMP wrappers, clang + libomp: OMPT), 2 threads, unit U = 0.2 s. Expected, by hand:
#   tasks_region: 4 tasks of U/2 -> the threads' useful time in the region sums to 2U, wherever the
#     bodies ran (mostly inside the barrier ending the single construct: useful, not waiting)
#   loop_region: 4 iterations of U/4 -> useful sums to U
#   critical_region: each thread holds the lock U/4 -> "omp critical": 2 visits, useful 2 x U/4,
#     sync_wait U/4 (the second thread waits for the first)
#   chain_region: 3 dependent tasks of U/4 -> useful sums to 3U/4, in order (output "012")
# Tolerances: sums of useful time +-0.06 s (every busy wait may overrun by a scheduling delay on a
# loaded machine), the critical section's useful time +-0.04 s, its wait -0.04 / +0.09 s (a holder
# preempted inside the section makes the other wait longer, never shorter).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/openmp_lib.sh"
U=0.2
work=$(mktemp -d "${TMPDIR:-/tmp}/pmomp.XXXXXX")
trap 'rm -rf "$work"' EXIT

for v in gomp ompt; do
  case $v in gomp) prog="$progs/omp_constructs_gcc" ;; ompt) prog="$progs/omp_constructs_clang" ;; esac
  if [ ! -x "$prog" ]; then skip "$v: $prog not built"; continue; fi
  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=active POPMETER_OUTPUT="$work/$v" "$launcher" run -- "$prog" $U \
    >"$work/$v.out" 2>"$work/$v.err"
  check "$v: run exits 0" test $? -eq 0
  check "$v: application results intact" grep -q "omp_constructs: tasks 4 loop 4 critical 2 chain 012" "$work/$v.out"
  j="$work/$v/popmeter.json"
  if [ ! -s "$j" ]; then notok "$v: popmeter.json written"; sed 's/^/# /' "$work/$v.err"; continue; fi
  m() { $pmjson "$j" "$@"; }
  check "$v: 4 parallel regions" test "$(m --count-omp-regions)" = 4
  check_near "$v: task bodies are useful (sum 2U)" "$(m --omp-region-sum tasks_region thread_useful)" "$(calc "2 * $U")" 0.06
  check_near "$v: dynamic loop (sum U)" "$(m --omp-region-sum loop_region thread_useful)" "$U" 0.06
  check_near "$v: dependent task chain (sum 3U/4)" "$(m --omp-region-sum chain_region thread_useful)" "$(calc "0.75 * $U")" 0.06
  check "$v: omp critical entered twice" test "$(m --region-visits 'omp critical')" = 2
  check_near "$v: omp critical: held 2 x U/4 (useful)" "$(m --region-time 'omp critical' useful)" "$(calc "$U / 2")" 0.04
  check_wait "$v: omp critical: waited U/4" "$(m --region-time 'omp critical' sync_wait)" "$(calc "$U / 4")" 0.04 0.05
  for i in 0 1; do
    check_near "$v: location $i accounts for its whole window" "$(m --loc-gap $i)" 0 0.001
  done
  if [ $v = gomp ]; then
    check "gomp: 7 task creations" test "$(m --region-visits 'omp task create')" = 7
    check "gomp: loop chunks fetched from the runtime" test "$(m --region-visits 'omp schedule')" -ge 4
  else
    check "ompt: one loop node per thread" test "$(m --region-visits 'omp loop')" = 2
  fi
done
tap_done
