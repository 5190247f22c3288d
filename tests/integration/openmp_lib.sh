# Helpers for the OpenMP integration tests (sourced after tests/tap.sh).
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
lib="$top_builddir/lib/.libs/libpopmeter.so"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"

# (between and near: tests/tap.sh)
# check_near DESCRIPTION VALUE EXPECTED TOL
check_near() { if near "$2" "$3" "$4"; then ok "$1: $2 (expected $3 +- $4)"; else notok "$1: $2 (expected $3 +- $4)"; fi; }
# check_wait DESCRIPTION VALUE EXPECTED TOL LATE: a wait or a span, EXPECTED - TOL <= VALUE <=
# EXPECTED + TOL + LATE. A thread woken late on a loaded machine ends its busy wait late and lengthens
# what the others wait for it; nothing makes a wait shorter. An interval put in the wrong state is
# off by a whole unit, which either bound still rejects.
check_wait() {
  if between "$2" "$3" "$4" "$(awk -v t="$4" -v l="$5" 'BEGIN { print t + l }')"; then
    ok "$1: $2 (expected $3 - $4 / + $4 + $5)"
  else notok "$1: $2 (expected $3 - $4 / + $4 + $5)"; fi
}
# less VALUE BOUND: VALUE < BOUND
less() { awk -v v="$1" -v b="$2" 'BEGIN { exit !(v != "" && v != "na" && v + 0 < b + 0) }'; }
# calc EXPR: arithmetic with awk (floating point)
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# The libomp.so.5 that the clang programs use (for running GCC binaries on libomp).
libomp_so() {
  for f in "$LIBOMP_DIR/libomp.so.5" /usr/lib/x86_64-linux-gnu/libomp.so.5; do
    [ -n "$f" ] && [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 1
}
