#!/bin/sh
# Set up, build and run the whole test suite; the last line is "N passed, N failed".
# Two stages, counted together: the normal build (./build) and its tests, then the sanitizer build
# (./build-san, tools/build.sh --sanitizers: ASan + UBSan, every finding fatal) running the same unit
# and integration tests and the fuzz targets (tests/fuzz). A sanitizer report is one more failure
# wherever it appears, also in a process whose exit status no test looks at.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
passed=0 failed=0 skipped=0

# check_tree DIR PREFIX: make check in DIR; its failures printed (each line after PREFIX), its
# counts added to passed / failed / skipped.
check_tree() {
  cd "$top/$1" || return
  make -j"$(nproc)" check > check.log 2>&1
  rc=$?
  grep -E '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' check.log | grep -v '^PASS' | head -100 | sed "s|^|$2|"
  # Count individual test cases from the TAP driver's result files.
  counts=$(find tests -name '*.trs' -exec cat {} + 2>/dev/null | awk '
    /^:test-result: (PASS|XFAIL)/ {p++} /^:test-result: (FAIL|XPASS|ERROR)/ {f++} /^:test-result: SKIP/ {s++}
    END {printf "%d %d %d", p, f, s}')
  set -- $counts "$2"
  p=$1 f=$2 s=$3 prefix=$4
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    tail -40 check.log; f=1   # the harness itself failed (build error in a test program)
  fi
  for log in $(grep -l -E '^not ok|^ERROR' $(find tests -name '*.log' ! -name test-suite.log) 2>/dev/null); do
    echo "---- $prefix$log"; grep -E '^not ok|^#' "$log" | head -40
  done
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

check_tree build ""

if "$top/tools/build.sh" --sanitizers; then
  rm -rf "$top/build-san/tests/san-logs"
  check_tree build-san "build-san: "
  # ASan reports (tests/sanitizers.am: log_path) and UBSan reports (in the tests' logs); the fuzz
  # test reports its own findings.
  cd "$top/build-san"
  for r in $(find tests/san-logs -type f 2>/dev/null | sort) \
    $(grep -l -E 'runtime error:|ERROR: (Address|Leak)Sanitizer' $(find tests -name '*.log' ! -name test-suite.log \
      ! -path 'tests/fuzz/*') 2>/dev/null); do
    echo "---- build-san: sanitizer report in $r"
    grep -E -A30 'runtime error:|ERROR: (Address|Leak)Sanitizer' "$r" | head -40
    failed=$((failed + 1))
  done
else
  echo "build-san: the sanitizer build failed"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
