#!/bin/sh
# The default end-of-run table (POPMETER_REPORT=summary): its layout for an MPI run, a hybrid
# MPI + OpenMP run, a StarPU run and mfsolve on 2 ranks (summary_check.py: the values may vary, the
# lines may not), within 40 lines of 100 columns; no escape code when standard error is not a
# terminal, nor on a terminal with NO_COLOR; red flagged values on a terminal; `popmeter show` prints
# the same summary, `--full` and POPMETER_REPORT=full every model.
. "$top_srcdir/tests/tap.sh"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
mfsolve="$top_builddir/solver/mfsolve"
chk="/usr/bin/python3 $top_srcdir/tests/integration/summary_check.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmsum.XXXXXX")
trap 'rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"
POPMETER_CUBE=0; export POPMETER_CUBE
unset POPMETER_REPORT NO_COLOR

layout() {   # KIND: checks the table in $work/KIND.err
  $chk "$work/$1.err" "$1" >"$work/$1.chk" 2>&1 || echo "FAIL summary_check.py crashed" >>"$work/$1.chk"
  tap_lines "$work/$1.chk"
}
have_mpi=0; [ -n "$MPIRUN" ] && [ "$MPIRUN" != no ] && have_mpi=1

if [ $have_mpi = 1 ]; then
  $MPIRUN -np 2 "$launcher" run --output "$work/mpi" -- "$progs/mpi_imbalance" 0.02 2 >/dev/null 2>"$work/mpi.err"
  layout mpi
  if [ -x "$progs/omp_hybrid_gcc" ]; then
    $MPIRUN -np 2 -x OMP_NUM_THREADS=2 "$launcher" run --output "$work/hybrid" -- "$progs/omp_hybrid_gcc" 0.05 \
      >/dev/null 2>"$work/hybrid.err"
    layout hybrid
  else
    skip "omp_hybrid_gcc not built"
  fi
  if [ -x "$mfsolve" ] && [ -x "$progs/sp_dag" ]; then
    timeout 180 $MPIRUN -np 2 --bind-to none -x STARPU_SILENT=1 "$launcher" run --output "$work/mfsolve" -- \
      "$mfsolve" -q --gen lap3d:14 --nb 24 --workers 1 >/dev/null 2>"$work/mfsolve.err"
    layout mfsolve
  else
    skip "mfsolve not built (StarPU, MPI, OpenBLAS)"
  fi
else
  skip "no MPI"
fi
if [ -x "$progs/sp_dag" ]; then
  STARPU_SILENT=1 STARPU_NCPU=2 "$launcher" run --output "$work/starpu" -- "$progs/sp_dag" forkjoin 10 \
    >/dev/null 2>"$work/starpu.err"
  layout starpu
else
  skip "sp_dag not built (StarPU)"
fi

# threads that wait for a CPU: 3 OpenMP threads on one CPU (their spinning regions leave 2 of 3
# waiting); the note says it, popmeter.json has every thread's wait
if [ -x "$progs/omp_imbalance_gcc" ] && command -v taskset >/dev/null 2>&1; then
  OMP_NUM_THREADS=3 taskset -c 0 "$launcher" run --output "$work/crowded" -- "$progs/omp_imbalance_gcc" 0.05 \
    >/dev/null 2>"$work/crowded.err"
  check "3 threads on one CPU: the summary notes their wait for a CPU" \
    grep -q "^   Note: threads waited for a CPU [0-9]* % of their time" "$work/crowded.err"
  check "3 threads on one CPU: every thread's wait is in popmeter.json, some of it long" /usr/bin/python3 -c '
import json, sys
locs = json.load(open(sys.argv[1]))["locations"]
waits = [l.get("cpu_wait", -1) for l in locs]
sys.exit(0 if len(locs) == 3 and min(waits) >= 0 and max(waits) > 0.05 else 1)' "$work/crowded/popmeter.json"
  "$launcher" show --full "$work/crowded" >"$work/crowded.full" 2>&1
  check "3 threads on one CPU: the full table's time breakdown has their wait" \
    grep -q "^   CPU wait .* of runtime on average, within the above)$" "$work/crowded.full"
else
  skip "omp_imbalance_gcc or taskset missing"
fi

# offline: the same summary from the directory; the full table carries every model
j=$(ls -d "$work"/mpi "$work"/starpu 2>/dev/null | head -1)
kind=$(basename "$j")
"$launcher" show "$j" >"$work/show.err" 2>&1
check "popmeter show DIR: exit 0" test $? -eq 0
$chk "$work/show.err" "$kind" >"$work/show.chk" 2>&1
tap_lines "$work/show.chk"
check "popmeter show: the summary ends with the directory's command" grep -q "popmeter show --full $j" "$work/show.err"
"$launcher" show --full "$j/popmeter.json" >"$work/full.out" 2>&1
for m in "Basic POP model" "Critical-path model" "File I/O" "Vectorization" "Time per location"; do
  check "popmeter show --full: has '$m'" grep -q "$m" "$work/full.out"
done
check "popmeter show --full: longer than the summary" test "$(wc -l <"$work/full.out")" -gt "$(wc -l <"$work/show.err")"

# a terminal: flagged values red; NO_COLOR (and TERM=dumb) none (script gives the command a pty).
# 4 ranks of mpi_imbalance: load balance 0.625, far below the flag.
if command -v script >/dev/null 2>&1 && [ $have_mpi = 1 ]; then
  $MPIRUN -np 4 "$launcher" run --output "$work/mpi4" -- "$progs/mpi_imbalance" 0.02 2 >/dev/null 2>"$work/mpi4.err"
  j="$work/mpi4"; kind=mpi
  script -qec "'$launcher' show '$j'" /dev/null >"$work/tty.out" 2>&1
  $chk "$work/tty.out" "$kind" --color >"$work/tty.chk" 2>&1
  tap_lines "$work/tty.chk"
  NO_COLOR=1 script -qec "'$launcher' show '$j'" /dev/null >"$work/nocolor.out" 2>&1
  check "NO_COLOR on a terminal: no escape code" sh -c "! grep -q \"$(printf '\033')\" '$work/nocolor.out'"
  TERM=dumb script -qec "'$launcher' show '$j'" /dev/null >"$work/dumb.out" 2>&1
  check "TERM=dumb on a terminal: no escape code" sh -c "! grep -q \"$(printf '\033')\" '$work/dumb.out'"
else
  skip "script (util-linux) or MPI missing"; skip "script or MPI missing"; skip "script or MPI missing"
fi

# POPMETER_REPORT=full at run time: every model; =off: nothing; a bad value: one warning, the default
POPMETER_REPORT=full "$launcher" run --output "$work/full_run" -- "$progs/names" region >/dev/null 2>"$work/full_run.err"
check "POPMETER_REPORT=full: the full table (Basic POP model)" grep -q "Basic POP model" "$work/full_run.err"
POPMETER_REPORT=off "$launcher" run --output "$work/off_run" -- "$progs/names" region >/dev/null 2>"$work/off_run.err"
check "POPMETER_REPORT=off: no table" sh -c "! grep -q '=== popmeter' '$work/off_run.err'"
POPMETER_REPORT=bogus "$launcher" run --output "$work/bad_run" -- "$progs/names" region >/dev/null 2>"$work/bad_run.err"
check "POPMETER_REPORT=bogus: a warning naming the variable" grep -q "POPMETER_REPORT='bogus'" "$work/bad_run.err"
check "POPMETER_REPORT=bogus: the summary" grep -q "Where the time went" "$work/bad_run.err"
tap_done
