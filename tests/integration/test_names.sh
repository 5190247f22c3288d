#!/bin/sh
# Names that are not UTF-8 (argv, a user region, the executable's name) lose nothing: every rank's
# profile arrives, popmeter.json parses as strict JSON with the bytes escaped as \xHH, profile.cubex
# passes the checker, and the OTF2 trace reads back; a program without MPI gets its popmeter.json.
. "$top_srcdir/tests/tap.sh"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
cubex_check="$top_builddir/tests/golden/cubex_check"
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/pmnames.XXXXXX")
trap 'rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"
cafe=$(printf 'caf\351')           # Latin-1 e-acute: one byte that is not UTF-8
POPMETER_REPORT=0; export POPMETER_REPORT

# json_has FILE PYTHON-EXPRESSION: the file parses as strict UTF-8 JSON and the expression (over
# the document p) holds
json_has() {
  $py -c 'import json, sys
p = json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
region_names='[r["name"] for r in p["regions"]]'

# one run: its outputs, exactly
outputs_ok() {   # LABEL DIR
  check "$1: exactly popmeter.json and profile.cubex" test "$(ls "$2" | tr '\n' ' ')" = "popmeter.json profile.cubex "
  check "$1: profile.cubex passes the checker" "$cubex_check" "$2/profile.cubex"
}

# a program without MPI, whose executable name and region are not UTF-8
cp "$progs/names" "$work/prog$cafe"
"$launcher" run --output "$work/serial" -- "$work/prog$cafe" "$cafe" >"$work/serial.out" 2>"$work/serial.err"
check "no MPI: the program's result is intact" grep -q "result 1" "$work/serial.out"
check "no MPI: popmeter.json is written" test -f "$work/serial/popmeter.json"
check "no MPI: no error printed" sh -c "! grep -q 'popmeter.*\(error\|out of memory\)' '$work/serial.err'"
outputs_ok "no MPI" "$work/serial"
check "no MPI: the region's name is escaped" json_has "$work/serial/popmeter.json" "'caf\\\\xE9' in $region_names"
check "no MPI: the application's name is escaped" json_has "$work/serial/popmeter.json" "p['app'] == 'progcaf\\\\xE9'"
check "no MPI: the command line is escaped" json_has "$work/serial/popmeter.json" "p['command'].endswith('progcaf\\\\xE9 caf\\\\xE9')"

if [ -n "$MPIRUN" ] && [ -x "$progs/names_mpi" ]; then
  cp "$progs/names_mpi" "$work/mpi$cafe"
  for who in all 1; do
    case $who in all) args="$cafe" ;; *) args="$cafe $who" ;; esac
    # shellcheck disable=SC2086
    timeout 120 $MPIRUN -np 2 "$launcher" run --output "$work/mpi_$who" -- "$work/mpi$cafe" $args \
      >"$work/mpi_$who.out" 2>"$work/mpi_$who.err"
    check "2 ranks, region on $who: exits 0 with the result" grep -q "result 2" "$work/mpi_$who.out"
    check "2 ranks, region on $who: no rank left out" sh -c "! grep -q 'left out' '$work/mpi_$who.err'"
    outputs_ok "2 ranks, region on $who" "$work/mpi_$who"
    check "2 ranks, region on $who: both processes in popmeter.json" json_has "$work/mpi_$who/popmeter.json" "len(p['processes']) == 2"
    check "2 ranks, region on $who: the region's name is escaped" json_has "$work/mpi_$who/popmeter.json" "'caf\\\\xE9' in $region_names"
  done
  # the trace: definitions written as clean text, read back by OTF2's readers
  if command -v otf2-print >/dev/null 2>&1 && $py -c 'import otf2' 2>/dev/null; then
    timeout 120 $MPIRUN -np 2 -x POPMETER_TRACE=1 "$launcher" run --output "$work/traced" -- "$work/mpi$cafe" "$cafe" \
      >"$work/traced.out" 2>"$work/traced.err"
    check "traced: exits 0 with the result" grep -q "result 2" "$work/traced.out"
    check "traced: otf2-print reads the archive" sh -c "otf2-print '$work/traced/traces.otf2' >'$work/print.out' 2>&1"
    check "traced: python3-otf2 decodes every string; the region is escaped" $py -c 'import otf2, sys
with otf2.reader.open(sys.argv[1]) as t:
    names = [r.name for r in t.definitions.regions]
sys.exit(0 if "caf\\xE9" in names else 1)' "$work/traced/traces.otf2"
  else
    skip "otf2-print or python3-otf2 missing"; skip "otf2-print or python3-otf2 missing"; skip "otf2-print or python3-otf2 missing"
  fi
else
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do skip "no MPI"; done
fi
tap_done
