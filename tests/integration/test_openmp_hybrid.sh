#!/bin/sh
# MPI + OpenMP, 2 ranks x 2 threads (progs/omp_hybrid.c), unit U = 0.3 s: the hybrid models must
# separate the MPI-level imbalance from the thread-level one. Rank r, thread t:
#   barrier | serial U | region: t waits (t+1)(r+1)U | barrier.  Rank 1's region lasts 4U, rank 0's
#   2U, so rank 0 then waits 2U in MPI_Barrier: R = U + 4U = 5U.
#   useful: r0 master U + U = 2U, r0 worker 2U, r1 master U + 2U = 3U, r1 worker 4U (sum 11U, max 4U)
# Multiplicative: Hybrid PE = 11U/4/5U = 0.55, hybrid LB = 2.75/4 = 0.6875, CommE = 4/5 = 0.8;
#   outside MPI: r0 5U - 2U = 3U, r1 5U: MPI PE = (3 x 2 + 5 x 2)/(5 x 4) = 0.8, MPI CommE = 5/5 = 1,
#   MPI LB = 0.8; thread level: X PE = 0.55/0.8 = 0.6875, X LB = 0.6875/0.8 = 0.859375, X CommE 0.8.
# Additive: avg serial useful U, avg omp (2U + 4U)/2 = 3U: Process = 4/5 = 0.8 (MPI CommE 5/5 = 1,
#   Process LB = 1 - (5 - 3 - 1)/5 = 0.8); Thread = 1 - (3 + 1 - 2.75)/5 = 0.75; Amdahl = 1 - (U x 1
#   x 2 ranks/4)/5U = 0.9; OpenMP = 1 - ((2-1) + 0 + (4-2) + 0)U/4/5U = 0.85.
# popmeter is preloaded with mpirun -x LD_PRELOAD (activation in MPI_Init), so MPI_Init is outside
# the window. Tolerances: efficiencies +-0.06. 4 busy threads share 2 cores, so starting the
# workers and waking up at barriers is delayed; those delays (~50 ms, mostly at the first fork)
# stretch R, which U = 0.3 s keeps to a few percent. Busy waits keep their wall-clock length.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/openmp_lib.sh"
U=0.3
TE=0.06
work=$(mktemp -d "${TMPDIR:-/tmp}/pmomp.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$MPIRUN" ] || [ "$MPIRUN" = no ]; then skip "no mpirun"; tap_done; fi

for v in gomp ompt; do
  case $v in gomp) prog="$progs/omp_hybrid_gcc" ;; ompt) prog="$progs/omp_hybrid_clang" ;; esac
  if [ ! -x "$prog" ]; then skip "$v: $prog not built"; continue; fi
  $MPIRUN -np 2 -x OMP_NUM_THREADS=2 -x OMP_WAIT_POLICY=active -x LD_PRELOAD="$lib" \
    -x POPMETER_OUTPUT="$work/$v" -x POPMETER_MODELS=multiplicative,additive "$prog" $U \
    >"$work/$v.out" 2>"$work/$v.err"
  check "$v: mpirun exits 0" test $? -eq 0
  check "$v: application output intact" grep -q "omp_hybrid done (2 ranks x 2 threads)" "$work/$v.out"
  j="$work/$v/popmeter.json"
  # The ranks' profiles reach rank 0 through the MPI adapter's finalize-time reduction; without it
  # each rank reports alone, noting that MPI_Finalize did not collect it.
  if grep -q "this report covers this process only" "$work/$v.err"; then
    skip "$v: the MPI adapter did not reduce the ranks' profiles (MPI finalize reduction not built)"
    continue
  fi
  if [ ! -s "$j" ]; then notok "$v: popmeter.json written"; sed 's/^/# /' "$work/$v.err"; continue; fi
  m() { $pmjson "$j" "$@"; }
  check "$v: 4 locations (2 ranks x 2 threads)" test "$(m --count-locations)" = 4
  check "$v: one region per rank" test "$(m --count-omp-regions)" = 2
  check_near "$v: hybrid PE" "$(m multiplicative/pe)" 0.55 $TE
  check_near "$v: hybrid load balance" "$(m multiplicative/hybrid_lb)" 0.6875 $TE
  check_near "$v: MPI parallel efficiency" "$(m multiplicative/pe/mpi_pe)" 0.8 $TE
  check_near "$v: MPI load balance" "$(m multiplicative/pe/mpi_pe/mpi_lb)" 0.8 $TE
  check_near "$v: MPI communication efficiency" "$(m multiplicative/pe/mpi_pe/mpi_comme)" 1.0 $TE
  check_near "$v: thread-level PE" "$(m multiplicative/pe/x_pe)" 0.6875 $TE
  check_near "$v: thread-level load balance" "$(m multiplicative/pe/x_pe/x_lb)" 0.859375 $TE
  check_near "$v: thread-level CommE" "$(m multiplicative/pe/x_pe/x_comme)" 0.8 $TE
  check_near "$v: additive process efficiency" "$(m additive/pe/process)" 0.8 $TE
  check_near "$v: additive process LB" "$(m additive/pe/process/process_lb)" 0.8 $TE
  check_near "$v: additive thread efficiency" "$(m additive/pe/thread)" 0.75 $TE
  check_near "$v: additive Amdahl efficiency" "$(m additive/pe/thread/amdahl)" 0.9 $TE
  check_near "$v: additive OpenMP efficiency" "$(m additive/pe/thread/omp)" 0.85 $TE
done
tap_done
