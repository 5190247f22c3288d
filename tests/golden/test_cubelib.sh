#!/bin/sh
# CubeLib, the real reader, computes popmeter's POP derived metrics (pop_lb, pop_pe, pop_comme,
# pop_sere, pop_te and the maxima; the Advisor's comp, execution and max_total_time_ideal) as
# docs/cube.md defines them: at every call path, over the whole system and for every single
# location, equal to the values recomputed from popmeter.json of the same run
# (cubelib_pop_compare.py). Runs: MPI (4 ranks), MPI with known serialization and transfer (2 ranks),
# OpenMP (gcc and clang), MPI + OpenMP, a StarPU DAG and mfsolve on 2 ranks (StarPU-MPI progress
# threads: non-compute locations).
#
# CubeLib is not a Debian package: the test runs when its cube_dump is found in $CUBELIB_BIN or on
# PATH (README "Checking profiles with CubeLib") and reports itself skipped otherwise.
. "$top_srcdir/tests/tap.sh"
dump=
if [ -n "${CUBELIB_BIN:-}" ] && [ -x "$CUBELIB_BIN/cube_dump" ]; then
  dump="$CUBELIB_BIN/cube_dump"
elif command -v cube_dump >/dev/null 2>&1; then
  dump=$(command -v cube_dump)
fi
if [ -z "$dump" ]; then
  skip "CubeLib's cube_dump not found (set CUBELIB_BIN to its bin directory)"
  tap_done
fi
: "${MPIRUN:=mpirun}"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
compare="/usr/bin/python3 $top_srcdir/tests/golden/cubelib_pop_compare.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmcubelib.XXXXXX")
trap 'rm -rf "$work"' EXIT
POPMETER_REPORT=off STARPU_SILENT=1 OMP_NUM_THREADS=2
export POPMETER_REPORT STARPU_SILENT OMP_NUM_THREADS

# compare NAME: CubeLib's values of the run in $work/NAME against its popmeter.json
compare_run() {
  if [ ! -s "$work/$1/profile.cubex" ]; then
    notok "$1: profile.cubex written"
    sed 's/^/# /' "$work/$1.err"
    return
  fi
  $compare "$dump" "$work/$1" >"$work/$1.cmp" 2>&1
  rc=$?
  check "$1: CubeLib's pop_* values equal popmeter.json's ($(tail -n 1 "$work/$1.cmp"))" test $rc -eq 0
  [ $rc -eq 0 ] || sed 's/^/# /' "$work/$1.cmp" | head -n 20
}

# mpirun_run NAME NP PROGRAM ARGS...
mpirun_run() {
  name=$1 np=$2
  shift 2
  if [ ! -x "$1" ]; then skip "$name: $1 not built"; return; fi
  if ! command -v "$MPIRUN" >/dev/null 2>&1; then skip "$name: no mpirun"; return; fi
  timeout 180 $MPIRUN -np "$np" --bind-to none -x POPMETER_REPORT -x STARPU_SILENT -x OMP_NUM_THREADS \
    "$launcher" run --output "$work/$name" -- "$@" >"$work/$name.out" 2>"$work/$name.err"
  check "$name: exit 0" test $? -eq 0
  compare_run "$name"
}

# single_run NAME PROGRAM ARGS...
single_run() {
  name=$1
  shift
  if [ ! -x "$1" ]; then skip "$name: $1 not built"; return; fi
  timeout 120 "$launcher" run --output "$work/$name" -- "$@" >"$work/$name.out" 2>"$work/$name.err"
  check "$name: exit 0" test $? -eq 0
  compare_run "$name"
}

mpirun_run mpi4 4 "$progs/mpi_imbalance" 0.02 2
# serialization and transfer per call path (pop_sere, pop_te): a waiting chain and large swaps
mpirun_run sertrans 2 "$progs/mpi_sertrans" 0.05 4194304 5
single_run omp_gcc "$progs/omp_imbalance_gcc" 0.03
single_run omp_clang "$progs/omp_imbalance_clang" 0.03
mpirun_run hybrid_gcc 2 "$progs/omp_hybrid_gcc" 0.03
STARPU_NCPU=2 single_run starpu_dag "$progs/sp_dag" forkjoin 5
mpirun_run mfsolve 2 "$top_builddir/solver/mfsolve" -q --gen lap3d:12 --workers 1
tap_done
