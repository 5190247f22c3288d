# Minimal TAP helpers for shell tests: source this file, call ok/fail/skip, then tap_done.
tap_n=0
tap_failed=0
ok()   { tap_n=$((tap_n+1)); echo "ok $tap_n - $*"; }
notok(){ tap_n=$((tap_n+1)); tap_failed=$((tap_failed+1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n+1)); echo "ok $tap_n - # SKIP $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds
check(){ d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
diag() { echo "# $*"; }
# between VALUE EXPECTED BELOW ABOVE: EXPECTED - BELOW <= VALUE <= EXPECTED + ABOVE (VALUE "na" or
# empty fails)
between() { awk -v v="$1" -v e="$2" -v b="$3" -v a="$4" 'BEGIN { exit !(v != "" && v != "na" && v >= e - b && v <= e + a) }'; }
# near VALUE EXPECTED TOL: |VALUE - EXPECTED| <= TOL
near() { between "$1" "$2" "$3" "$3"; }
# Open MPI keeps every job's session files under one directory per user and machine
# ($TMPDIR/ompi.<host>.<uid>); a job that ends removes it once it looks empty, and a job starting
# at that moment fails in orte_init ("orte_session_dir failed"). make check runs test scripts side
# by side, so each script's jobs get a directory of their own, removed by tap_done.
if [ -z "${OMPI_MCA_orte_tmpdir_base:-}" ] && tap_ompi_tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmompi.XXXXXX"); then
  OMPI_MCA_orte_tmpdir_base=$tap_ompi_tmp; export OMPI_MCA_orte_tmpdir_base
fi
tap_done(){ echo "1..$tap_n"; if [ -n "${tap_ompi_tmp:-}" ]; then rm -rf "$tap_ompi_tmp"; fi; exit 0; }
# tap_lines FILE: a checker's "PASS text" / "FAIL text" / "SKIP text" lines as TAP, other lines as
# diagnostics (read from a file, not a pipe: the TAP counters live in this shell)
tap_lines() {
  while IFS= read -r line; do
    case "$line" in
      PASS\ *) ok "${line#PASS }" ;;
      FAIL\ *) notok "${line#FAIL }" ;;
      SKIP\ *) skip "${line#SKIP }" ;;
      *) diag "$line" ;;
    esac
  done <"$1"
}
