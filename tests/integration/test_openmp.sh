#!/bin/sh
# OpenMP with known imbalance and serial sections (progs/omp_imbalance.c), measured through each
# adapter: gcc + libgomp (GOMP wrappers), clang + libomp (OMPT), and the gcc binary on libomp
# (OMPT; the GOMP wrappers must pass through, nothing counted twice). 2 threads, unit U = 0.2 s.
#
# The program, per thread t in {0, 1}:  serial 2U | region A: t waits (t+1)U | serial U |
# region B: t waits (2-t)U, barrier, U.   R = 2U + 2U + U + 3U = 8U.
#   master: useful 3U serial + U (A) + 3U (B) = 7U, in parallel regions 5U
#   worker: useful 2U (A) + 2U (B) = 4U, idle U between the regions, sync_wait U (barrier in B)
#   region A: span 2U, useful [U, 2U], idle [U, 0];  region B: span 3U, useful [3U, 2U], idle [0, U]
# Additive (T = 2): avg useful 5.5U -> PE = 5.5/8 = 0.6875; avg serial useful 3U, avg omp 5U:
#   Process = (5 + 3)/8 = 1; Thread = 1 - (5 + 3 - 5.5)/8 = 0.6875; Amdahl = 1 - (3U x 1/2)/8U =
#   0.8125; OpenMP = 1 - ((5 - 4) + (5 - 4))U/2/8U = 0.875; region A: lost (2-1)U + 0 -> 1 - 1/16 =
#   0.9375, region B: 0 + (3-2)U -> 0.9375.
# Multiplicative (no MPI: MPI PE 1): hybrid LB = 5.5/7 = 0.7857, hybrid CommE = 7/8 = 0.875.
# TALP: w = [U, 0] and [0, U]: sched = 0, lb = 2U; ser = R - 5U = 3U (worker); A' = 11U:
#   OMP PE = 11/16 = 0.6875, serialization 11/14 = 0.7857, LB 14/16 = 0.875, scheduling 1.
# Critical path: the fork, barrier and join merges put every useful interval on one chain:
#   G-CUE = 8U = R -> serialization = max useful / G-CUE = 7/8 = 0.875, transfer = 1.
# Tolerances: efficiencies +-0.05, times +-U/4, runtime +0.15 s; waits and spans up to U/4 more
# (wake-up and scheduling delays on a loaded 2-core machine lengthen waits; busy waits keep their
# wall-clock length).
# OMP_WAIT_POLICY=active keeps waiting threads spinning, so a release needs no futex wake-up.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/openmp_lib.sh"
U=0.2
TE=0.05
TT=$(calc "$U / 4")
LATE=$TT
work=$(mktemp -d "${TMPDIR:-/tmp}/pmomp.XXXXXX")
trap 'rm -rf "$work"' EXIT
models=basic,multiplicative,additive,talp,critical-path

run_variant() {   # NAME PROGRAM [extra LD_PRELOAD]
  v=$1 prog=$2
  if [ ! -x "$prog" ]; then skip "$v: $prog not built"; return 1; fi
  LD_PRELOAD="${3:-}" OMP_NUM_THREADS=2 OMP_WAIT_POLICY=active POPMETER_MODELS=$models \
    POPMETER_OUTPUT="$work/$v" "$launcher" run -- "$prog" $U >"$work/$v.out" 2>"$work/$v.err"
  check "$v: run exits 0" test $? -eq 0
  check "$v: application output intact" grep -q "omp_imbalance done (2 threads)" "$work/$v.out"
  j="$work/$v/popmeter.json"
  if [ ! -s "$j" ]; then notok "$v: popmeter.json written"; sed 's/^/# /' "$work/$v.err"; return 1; fi
  ok "$v: popmeter.json written"
  return 0
}

check_variant() {   # NAME: the analytic checks on $work/NAME/popmeter.json
  v=$1 j="$work/$1/popmeter.json"
  m() { $pmjson "$j" "$@"; }
  check "$v: 2 locations (main + 1 OpenMP thread)" test "$(m --count-locations)" = 2
  check "$v: worker named 'OpenMP thread 1'" test "$(m --loc-name 1)" = "OpenMP thread 1"
  check "$v: 2 parallel regions" test "$(m --count-omp-regions)" = 2
  for r in imbalanced_region barrier_region; do
    check "$v: $r: 1 instance" test "$(m --omp-region $r instances)" = 1
    check "$v: $r: 2 threads" test "$(m --omp-region $r nthreads)" = 2
  done
  check_near "$v: runtime 8U (+ up to 0.15 s of start-up and delays)" "$(m --top runtime)" "$(calc "8 * $U + 0.075")" 0.075
  check_wait "$v: region A span 2U" "$(m --omp-region imbalanced_region span)" "$(calc "2 * $U")" "$TT" "$LATE"
  check_near "$v: region A master useful U" "$(m --omp-region imbalanced_region thread_useful 0)" "$U" "$TT"
  check_near "$v: region A worker useful 2U" "$(m --omp-region imbalanced_region thread_useful 1)" "$(calc "2 * $U")" "$TT"
  check_wait "$v: region A master idle U (join)" "$(m --omp-region imbalanced_region thread_idle 0)" "$U" "$TT" "$LATE"
  check_near "$v: region A worker idle 0" "$(m --omp-region imbalanced_region thread_idle 1)" 0 "$TT"
  check_wait "$v: region B span 3U" "$(m --omp-region barrier_region span)" "$(calc "3 * $U")" "$TT" "$LATE"
  check_near "$v: region B master useful 3U" "$(m --omp-region barrier_region thread_useful 0)" "$(calc "3 * $U")" "$TT"
  check_near "$v: region B worker useful 2U" "$(m --omp-region barrier_region thread_useful 1)" "$(calc "2 * $U")" "$TT"
  check_near "$v: region B master idle 0" "$(m --omp-region barrier_region thread_idle 0)" 0 "$TT"
  check_wait "$v: region B worker idle U (barrier)" "$(m --omp-region barrier_region thread_idle 1)" "$U" "$TT" "$LATE"
  # the worker between regions is idle, never useful; its waits inside regions are sync_wait
  check "$v: worker never useful outside regions" less "$(m --loc-time 1 serial useful)" 0.001
  check_wait "$v: worker idle between regions U" "$(m --loc-time 1 serial idle)" "$U" "$TT" "$LATE"
  check_wait "$v: worker sync_wait U" "$(m --loc-time 1 parallel sync_wait)" "$U" "$TT" "$LATE"
  check_near "$v: master serial useful 3U" "$(m --loc-time 0 serial useful)" "$(calc "3 * $U")" "$TT"
  check_wait "$v: master sync_wait U" "$(m --loc-time 0 parallel sync_wait)" "$U" "$TT" "$LATE"
  for i in 0 1; do
    check_near "$v: location $i accounts for its whole window" "$(m --loc-gap $i)" 0 0.001
  done
  check_near "$v: additive PE" "$(m additive/pe)" 0.6875 $TE
  check_near "$v: additive process efficiency" "$(m additive/pe/process)" 1.0 $TE
  check_near "$v: additive thread efficiency" "$(m additive/pe/thread)" 0.6875 $TE
  check_near "$v: additive Amdahl efficiency" "$(m additive/pe/thread/amdahl)" 0.8125 $TE
  check_near "$v: additive OpenMP region efficiency" "$(m additive/pe/thread/omp)" 0.875 $TE
  check_near "$v: additive region A" "$(m additive/pe/thread/omp/region_0)" 0.9375 $TE
  check_near "$v: additive region B" "$(m additive/pe/thread/omp/region_1)" 0.9375 $TE
  check_near "$v: multiplicative MPI PE" "$(m multiplicative/pe/mpi_pe)" 1.0 $TE
  check_near "$v: multiplicative hybrid LB" "$(m multiplicative/hybrid_lb)" 0.7857 $TE
  check_near "$v: multiplicative hybrid CommE" "$(m multiplicative/hybrid_comme)" 0.875 $TE
  check_near "$v: TALP OpenMP PE" "$(m talp/omp_pe)" 0.6875 $TE
  check_near "$v: TALP serialization" "$(m talp/omp_pe/omp_ser)" 0.7857 $TE
  check_near "$v: TALP load balance" "$(m talp/omp_pe/omp_lb)" 0.875 $TE
  check_near "$v: TALP scheduling" "$(m talp/omp_pe/omp_sched)" 1.0 $TE
  check_near "$v: serialization efficiency (critical path)" "$(m basic/pe/comme/sere)" 0.875 $TE
  check_near "$v: transfer efficiency (critical path)" "$(m basic/pe/comme/te)" 1.0 $TE
}

# Region names: with libdw and -g (both test programs), "function @file:line" of the parallel
# construct, the same for gcc and clang; without libdw the function of the outlined body (GCC) or
# of the fork call (OMPT).
line=$(grep -n "pragma omp parallel" "$top_srcdir/tests/integration/progs/omp_imbalance.c" | head -n 1 | cut -d: -f1)
located="imbalanced_region @omp_imbalance.c:$line"
region_name() { $pmjson "$work/$1/popmeter.json" --omp-region imbalanced_region name; }
ran=""
if run_variant gomp "$progs/omp_imbalance_gcc"; then
  check_variant gomp
  if [ "${PM_LIBDW:-}" = yes ]; then
    check "gomp: region named by its source line ($located): $(region_name gomp)" test "$(region_name gomp)" = "$located"
  else
    check "gomp: region named after GCC's outlined function" test "$(region_name gomp)" = "imbalanced_region._omp_fn.0"
  fi
  ran="$ran gomp"
fi
if run_variant ompt "$progs/omp_imbalance_clang"; then
  check_variant ompt
  if [ "${PM_LIBDW:-}" = yes ]; then
    check "ompt: region named by its source line ($located): $(region_name ompt)" test "$(region_name ompt)" = "$located"
  else
    check "ompt: region named after the function of the fork call" \
      sh -c "$pmjson '$work/ompt/popmeter.json' --omp-region imbalanced_region name | grep -q '^imbalanced_region+0x'"
  fi
  ran="$ran ompt"
fi
# A GCC binary on libomp: libomp serves the GOMP ABI and reports through OMPT (docs/openmp.md).
so=$(libomp_so)
if [ -n "$so" ] && run_variant gomp_on_libomp "$progs/omp_imbalance_gcc" "$so"; then
  check_variant gomp_on_libomp
  if [ "${PM_LIBDW:-}" = yes ]; then
    check "gomp_on_libomp: region named by the source line of its call site: $(region_name gomp_on_libomp)" \
      test "$(region_name gomp_on_libomp)" = "$located"
  else
    check "gomp_on_libomp: measured by OMPT (region named by its call site)" \
      sh -c "$pmjson '$work/gomp_on_libomp/popmeter.json' --omp-region imbalanced_region name | grep -q '^imbalanced_region+0x'"
  fi
elif [ -z "$so" ]; then
  skip "gomp_on_libomp: libomp.so.5 not found"
fi
# gcc and clang measure the same program alike
case "$ran" in *gomp*ompt*)
  for p in additive/pe additive/pe/thread/amdahl additive/pe/thread/omp multiplicative/hybrid_lb \
           talp/omp_pe/omp_ser talp/omp_pe/omp_lb; do
    a=$($pmjson "$work/gomp/popmeter.json" $p) b=$($pmjson "$work/ompt/popmeter.json" $p)
    check_near "gcc vs clang: $p" "$a" "$b" $TE
  done ;;
esac
tap_done
