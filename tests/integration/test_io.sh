#!/bin/sh
# File I/O accounting: exact bytes for a program writing and reading known volumes through the
# POSIX and stdio families (progs/io_volumes.c derives the totals), with popmeter's own output
# files and the terminal/pipe output excluded.
. "$top_srcdir/tests/tap.sh"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$top_builddir/tools/popmeter" run --output "$work/out" -- "$top_builddir/tests/integration/progs/io_volumes" "$work" \
  >"$work/stdout" 2>"$work/stderr"
check "I/O program exits 0 under popmeter" test $? -eq 0
check "application output intact" grep -q "io_volumes: done" "$work/stdout"
j="$work/out/popmeter.json"
check "JSON written" test -s "$j"
check "bytes written exact: 551672" test "$($pmjson "$j" --sum bytes_written)" = 551672
check "bytes read exact: 550672" test "$($pmjson "$j" --sum bytes_read)" = 550672
check "write calls counted: 8" test "$($pmjson "$j" --region-visits write)" = 8
check "fprintf calls counted: 100" test "$($pmjson "$j" --region-visits fprintf)" = 100
check "open calls counted: 1 (fopen is counted apart)" test "$($pmjson "$j" --region-visits open)" = 1
iot=$($pmjson "$j" --sum posix_io)
check "I/O time attributed (> 0)" /usr/bin/python3 -c "import sys; sys.exit(0 if float('$iot') > 0 else 1)"
check "the table shows the I/O model" grep -q "File I/O efficiency" "$work/stderr"
tap_done
