#!/bin/sh
# Set up, build and run the whole test suite; the last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
cd "$top/build"
make -j"$(nproc)" check > check.log 2>&1
rc=$?
grep -E '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' check.log | grep -v '^PASS' | head -100
# Count individual test cases from the TAP driver's result files.
counts=$(find tests -name '*.trs' -exec cat {} + 2>/dev/null | awk '
  /^:test-result: (PASS|XFAIL)/ {p++} /^:test-result: (FAIL|XPASS|ERROR)/ {f++} /^:test-result: SKIP/ {s++}
  END {printf "%d %d %d", p, f, s}')
set -- $counts
passed=$1; failed=$2; skipped=$3
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  tail -40 check.log; failed=1   # the harness itself failed (build error in a test program)
fi
for log in $(grep -l -E '^not ok|^ERROR' $(find tests -name '*.log' ! -name test-suite.log) 2>/dev/null); do
  echo "---- $log"; grep -E '^not ok|^#' "$log" | head -40
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
