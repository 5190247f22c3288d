#!/bin/sh
# File I/O accounting: exact bytes for a program writing and reading known volumes through the
# POSIX and stdio families (progs/io_volumes.c derives the totals), with popmeter's own output
# files and the terminal/pipe output excluded.
. "$top_srcdir/tests/tap.sh"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
POPMETER_REPORT=full "$top_builddir/tools/popmeter" run --output "$work/out" -- "$top_builddir/tests/integration/progs/io_volumes" "$work" \
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

# POPMETER_IO_AS_USEFUL: the critical path counts I/O as useful when the run does (so that the
# basic model's SerE = max useful / G-CUE stays <= 1: one thread, all of its useful time and I/O on
# the path, SerE = 1); shown with the other setting, SerE and TE are n/a with the reason
sere() { # RUN_JSON [ENV...]: the basic model's serialization efficiency, or its n/a reason
  f=$1; shift
  env "$@" "$top_builddir/tools/popmeter" show --json "$f" | /usr/bin/python3 -c '
import json, sys
n = json.load(sys.stdin)["basic"]
for part in ("pe", "comme", "sere"):
    n = next(c for c in n["children"] if c["id"] == part)
print(n["value"] if n.get("value") is not None else n["na_reason"])'
}
check "run without POPMETER_IO_AS_USEFUL, shown with it: SerE n/a, saying why" \
  test "$(sere "$j" POPMETER_IO_AS_USEFUL=1)" = "the critical path counted I/O as not useful (POPMETER_IO_AS_USEFUL=1 at run time counts it)"
POPMETER_IO_AS_USEFUL=1 POPMETER_REPORT=0 "$top_builddir/tools/popmeter" run --output "$work/iou" -- \
  "$top_builddir/tests/integration/progs/io_volumes" "$work" >/dev/null 2>&1
check "run with POPMETER_IO_AS_USEFUL=1: popmeter.json says its critical path counted I/O" \
  grep -q '"critical_path_io_useful": *true' "$work/iou/popmeter.json"
v=$(sere "$work/iou/popmeter.json" POPMETER_IO_AS_USEFUL=1)
check "run and shown with POPMETER_IO_AS_USEFUL=1: one thread, SerE = 1 ($v)" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if abs(float('$v') - 1) < 1e-9 else 1)"
check "run with it, shown without: SerE n/a, saying why" \
  test "$(sere "$work/iou/popmeter.json" POPMETER_IO_AS_USEFUL=0)" = "the critical path counted I/O as useful (the run had POPMETER_IO_AS_USEFUL=1)"

# File classes (file systems). Every call above went to the work directory's file system:
# open 1 + write 8 + pwrite 4 + fsync 1 + read 8 + pread 4 + close 1 + fopen 2 + fwrite 10 +
# fprintf 100 + fclose 2 + fread 10 = 151 calls.
mnt=$(findmnt -n -o TARGET --target "$work" 2>/dev/null | head -n 1)
fst=$(findmnt -n -o FSTYPE --target "$work" 2>/dev/null | head -n 1)
if [ -n "$mnt" ]; then
  check "one file class" test "$($pmjson "$j" --io-class-count)" = 1
  check "the class is $mnt ($fst)" test "$($pmjson "$j" --io-class "$mnt" fstype)" = "$fst"
  check "class calls: 151" test "$($pmjson "$j" --io-class "$mnt" calls)" = 151
  check "class bytes written: 551672" test "$($pmjson "$j" --io-class "$mnt" bytes_written)" = 551672
  check "class bytes read: 550672" test "$($pmjson "$j" --io-class "$mnt" bytes_read)" = 550672
  ct=$($pmjson "$j" --io-class "$mnt" time)
  check "class time equals the POSIX I/O time ($ct s vs $iot s)" \
    /usr/bin/python3 -c "import sys; sys.exit(0 if abs($ct - $iot) < 1e-6 and $ct > 0 else 1)"
  check "the table lists the file system" grep -q "$mnt ($fst)" "$work/stderr"
  "$top_builddir/tools/popmeter" show --full "$j" >"$work/show" 2>&1
  check "popmeter show reads the file classes back" grep -q "$mnt ($fst) .* 151 calls" "$work/show"
  /usr/bin/python3 -c "
import json, sys
d = json.load(open('$j'))
d['io_classes']['values'][0]['class'] = 7
json.dump(d, open('$work/bad.json', 'w'))"
  "$top_builddir/tools/popmeter" show "$work/bad.json" >"$work/show_bad" 2>&1
  check "a file class out of range is named as the problem" grep -q 'io_classes: values\[0\]: "class" 7 out of range' "$work/show_bad"
else
  for t in 1 2 3 4 5 6 7 8 9; do skip "file classes" "findmnt cannot tell the work directory's file system"; done
fi
# A second file system (/dev/shm, tmpfs) gets a class of its own: open 1 + write 3 + pread 1 +
# close 1 = 6 calls, 3 x 8192 = 24576 B written, 8192 B read; the first class is unchanged.
shm_fst=$(findmnt -n -o FSTYPE --target /dev/shm 2>/dev/null | head -n 1)
shm_mnt=$(findmnt -n -o TARGET --target /dev/shm 2>/dev/null | head -n 1)
shm=$(mktemp -d /dev/shm/pmtest.XXXXXX 2>/dev/null)
if [ -n "$mnt" ] && [ -n "$shm" ] && [ "$shm_mnt" != "$mnt" ]; then
  "$top_builddir/tools/popmeter" run --output "$work/out2" -- "$top_builddir/tests/integration/progs/io_volumes" \
    "$work" "$shm" >"$work/stdout2" 2>"$work/stderr2"
  j2="$work/out2/popmeter.json"
  check "two file classes" test "$($pmjson "$j2" --io-class-count)" = 2
  check "$shm_mnt class is $shm_fst" test "$($pmjson "$j2" --io-class "$shm_mnt" fstype)" = "$shm_fst"
  check "$shm_mnt calls: 6" test "$($pmjson "$j2" --io-class "$shm_mnt" calls)" = 6
  check "$shm_mnt bytes written: 24576" test "$($pmjson "$j2" --io-class "$shm_mnt" bytes_written)" = 24576
  check "$shm_mnt bytes read: 8192" test "$($pmjson "$j2" --io-class "$shm_mnt" bytes_read)" = 8192
  check "first class unchanged: 551672 B written" test "$($pmjson "$j2" --io-class "$mnt" bytes_written)" = 551672
  check "totals: 576248 B written" test "$($pmjson "$j2" --sum bytes_written)" = 576248
else
  for t in 1 2 3 4 5 6 7; do skip "second file class" "no /dev/shm on a file system of its own"; done
fi
[ -n "$shm" ] && rm -rf "$shm"
tap_done
