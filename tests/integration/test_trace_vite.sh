#!/bin/sh
# ViTE, a real OTF2 reader (Debian package vite), on popmeter's traces: run headless (xvfb-run) it
# exports each trace as SVG, one arrow head (<polygon>) per point-to-point message it could place.
# - standard definitions: location ids numbered as Score-P does (rank r's MPI thread is location r),
#   so ViTE's fallback finds the MPI thread of a classic MPI program: every message of trace_mpi is
#   drawn and ViTE does not crash (it warns that it cannot read OTF2's communicator groups);
# - POPMETER_TRACE_VITE=1: communicators as ViTE reads them: every message drawn, no warning, for
#   trace_mpi and for mfsolve on 2 ranks x 2 workers (whose point-to-point traffic is on the
#   StarPU-MPI progress threads while the main threads make the collective calls); python3-otf2
#   still matches every send with its receive.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/trace_common.sh"
need_readers
if ! command -v vite >/dev/null 2>&1 || ! command -v xvfb-run >/dev/null 2>&1; then
  skip "ViTE or xvfb-run is not installed (Debian packages vite, xvfb)"
  tap_done
fi
if [ -z "$MPIRUN" ] || [ "$MPIRUN" = no ]; then skip "no mpirun"; tap_done; fi
STARPU_SILENT=1; export STARPU_SILENT

# vite_export LABEL ARCHIVE EXPECTED_MESSAGES [no-warning]
vite_export() {
  timeout 120 xvfb-run -a -s "-screen 0 1600x1000x24" vite -f "$2" -e "$work/$1.svg" >"$work/$1.vite" 2>&1
  check "$1: ViTE exports the trace (exit 0)" test $? -eq 0
  n=$(grep -c '<polygon' "$work/$1.svg" 2>/dev/null)
  check "$1: ViTE draws every message ($n of $3)" test "${n:-0}" -eq "$3"
  if [ "${4:-}" = no-warning ]; then
    w=$(grep -iE 'warning|not yet implemented' "$work/$1.vite" | grep -v '0 errors and 0 warnings' | head -n 1)
    check "$1: ViTE prints no warning${w:+ ($w)}" test -z "$w"
  fi
}

# messages written in an archive: sends (blocking and not)
messages() { echo $(($($tcheck count "$1" MpiSend) + $($tcheck count "$1" MpiIsend))); }

run_mpi() { # OUTDIR [VITE]
  timeout 120 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_TRACE=1 -x POPMETER_TRACE_VITE="${2:-0}" \
    -x POPMETER_REPORT=0 -x POPMETER_OUTPUT="$1" "$progs/trace_mpi" >"$1.out" 2>"$1.err"
  check "trace_mpi 2 ranks${2:+ (POPMETER_TRACE_VITE=1)}: exit 0" test $? -eq 0
}
run_mpi "$work/std"
a="$work/std/traces.otf2"
m=$(messages "$a")
check "trace_mpi: point-to-point messages in the trace ($m)" test "$m" -gt 0
vite_export "standard" "$a" "$m"
run_mpi "$work/vite" 1
a="$work/vite/traces.otf2"
vite_export "trace_mpi, POPMETER_TRACE_VITE=1" "$a" "$(messages "$a")" no-warning
$tcheck check "$a" "trace_mpi, POPMETER_TRACE_VITE=1" >"$work/check.out" 2>&1
tap_lines "$work/check.out"

mfsolve="$top_builddir/solver/mfsolve"
if [ -x "$mfsolve" ] && "$mfsolve" --help | grep -q "StarPU + StarPU-MPI"; then
  timeout 180 $MPIRUN -np 2 --bind-to none -x STARPU_SILENT -x POPMETER_TRACE=1 -x POPMETER_TRACE_VITE=1 \
    -x POPMETER_REPORT=0 "$launcher" run --output "$work/mf" -- "$mfsolve" -q --gen lap3d:15 --workers 2 \
    >"$work/mf.out" 2>"$work/mf.err"
  check "mfsolve 2 ranks x 2 workers (POPMETER_TRACE_VITE=1): exit 0" test $? -eq 0
  a="$work/mf/traces.otf2"
  m=$(messages "$a")
  check "mfsolve: point-to-point messages in the trace ($m)" test "$m" -gt 0
  vite_export "mfsolve, POPMETER_TRACE_VITE=1" "$a" "$m" no-warning
  $tcheck check "$a" "mfsolve, POPMETER_TRACE_VITE=1" >"$work/check.out" 2>&1
  tap_lines "$work/check.out"
else
  skip "mfsolve with StarPU-MPI not built"
fi
tap_done
