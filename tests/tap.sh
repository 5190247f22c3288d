# Minimal TAP helpers for shell tests: source this file, call ok/fail/skip, then tap_done.
tap_n=0
tap_failed=0
ok()   { tap_n=$((tap_n+1)); echo "ok $tap_n - $*"; }
notok(){ tap_n=$((tap_n+1)); tap_failed=$((tap_failed+1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n+1)); echo "ok $tap_n - # SKIP $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds
check(){ d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
diag() { echo "# $*"; }
tap_done(){ echo "1..$tap_n"; exit 0; }
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
