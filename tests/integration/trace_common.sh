# Shared by the trace read-back tests (sourced after tests/tap.sh).
lib="$top_builddir/lib/.libs/libpopmeter.so"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
tcheck="/usr/bin/python3 $top_srcdir/tests/integration/trace_check.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtrace.XXXXXX")
trap 'rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"
POPMETER_CUBE=0; export POPMETER_CUBE

# The reading tools; a test without them prints one skip and stops.
need_readers() {
  if ! command -v otf2-print >/dev/null 2>&1; then skip "otf2-print is not installed (otf2-tools)"; tap_done; fi
  if ! /usr/bin/python3 -c 'import otf2' 2>/dev/null; then skip "python3-otf2 is not installed"; tap_done; fi
}

# readback LABEL ARCHIVE: otf2-print reads the whole archive without an error, then the semantic
# check of trace_check.py
readback() {
  otf2-print "$2" >"$work/print.out" 2>"$work/print.err"
  rc=$?
  check "$1: otf2-print exits 0" test $rc -eq 0
  check "$1: otf2-print reports no error" sh -c "! grep -qiE '^\[OTF2\].*error|error:' '$work/print.err'"
  $tcheck check "$2" "$1" >"$work/check.out" 2>&1
  tap_lines "$work/check.out"
}

# expect DESCRIPTION EXPECTED ARCHIVE TYPE [key=value ...]: queued; expect_done ARCHIVE reads the
# archive once and turns every queued count of it into a TAP line
expect() {
  d=$1; e=$2; a=$3; shift 3
  printf '%s\t%s' "$e" "$d" >>"$work/queries"
  for x in "$@"; do printf '\t%s' "$x" >>"$work/queries"; done
  printf '\n' >>"$work/queries"
  q_archive=$a
}
expect_done() {
  [ -s "$work/queries" ] || return 0
  $tcheck expect "$q_archive" "$work/queries" >"$work/expect.out" 2>&1 || echo "FAIL reading $q_archive" >>"$work/expect.out"
  tap_lines "$work/expect.out"
  rm -f "$work/queries"
}
