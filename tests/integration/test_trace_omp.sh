#!/bin/sh
# OTF2 trace of programs without MPI (progs/trace_omp.c), read back with otf2-print and
# trace_check.py: OpenMP fork/join and thread teams with the user regions of both threads; the
# filter (excluded names, minimum duration: the rule is in lib/trace/trace_loc.c); bad settings
# (a bad POPMETER_TRACE_FILTER item, an output directory that cannot be created) give a clear
# message and the profile is still written; POPMETER_TRACE=0 writes no trace.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/trace_common.sh"
need_readers
prog="$progs/trace_omp"
run() {   # NAME [ENV=VALUE...] -- ARGS: `popmeter run` with the trace on, output in $work/NAME
  name=$1; shift
  env POPMETER_TRACE=1 POPMETER_REPORT=0 POPMETER_OUTPUT="$work/$name" "$@" >"$work/$name.out" 2>"$work/$name.err"
}

# ---- OpenMP: 4 parallel regions of 2 threads, "work" in each thread, then "serial"
if ldd "$prog" | grep -q gomp; then
  run omp OMP_NUM_THREADS=2 "$launcher" run -- "$prog" omp
  check "OpenMP: exits 0" test $? -eq 0
  a="$work/omp/traces.otf2"
  readback "OpenMP" "$a"
  expect "master: ThreadFork per parallel region" 4 "$a" ThreadFork location=main
  expect "master: ThreadJoin per parallel region" 4 "$a" ThreadJoin location=main
  expect "both threads: ThreadTeamBegin (4 regions x 2 threads)" 8 "$a" ThreadTeamBegin
  expect "both threads: ThreadTeamEnd" 8 "$a" ThreadTeamEnd
  expect "the worker thread's team events" 4 "$a" ThreadTeamBegin location=OpenMP
  expect "user region 'work' on both threads (4 x 2)" 8 "$a" Enter region=work
  expect "user region 'work' on the worker" 4 "$a" Enter region=work location=OpenMP
  expect "user region 'serial'" 1 "$a" Enter region=serial
  expect_done
else
  skip "OpenMP: trace_omp is not built with OpenMP"
fi

# ---- the filter: names matching skip* excluded, regions shorter than 20 ms dropped
run filter POPMETER_TRACE_FILTER="skip*, min=20000" "$launcher" run -- "$prog" filter
check "filter: exits 0" test $? -eq 0
a="$work/filter/traces.otf2"
readback "filter" "$a"
expect "filter: 'long' (30 ms, x3) kept" 3 "$a" Enter region=long
expect "filter: 'tiny' (empty, x28) dropped" 0 "$a" Enter region=tiny
expect "filter: 'skip_outer' excluded by name" 0 "$a" Enter region=skip_outer
expect "filter: its child 'inner' kept, at the outermost level" 1 "$a" Enter region=inner depth=1
expect "filter: 'outer' (60 ms) kept" 1 "$a" Enter region=outer depth=1
expect "filter: 'mid' (40 ms) kept inside 'outer'" 1 "$a" Enter region=mid depth=2
expect "filter: 'short' (empty, holding only short regions) dropped" 0 "$a" Enter region=short
expect_done

# ---- bad settings: the trace and the profile are still written
run badfilter POPMETER_TRACE_FILTER="min=abc,skip*" "$launcher" run -- "$prog" filter
check "bad filter: exits 0" test $? -eq 0
check "bad filter: the message names the variable and the item" \
  grep -q "POPMETER_TRACE_FILTER: 'min=abc' is not a duration" "$work/badfilter.err"
check "bad filter: popmeter.json and the trace are written" test -s "$work/badfilter/popmeter.json" -a -s "$work/badfilter/traces.otf2"
expect "bad filter: the valid pattern still applies" 0 "$work/badfilter/traces.otf2" Enter region=skip_outer
expect "bad filter: no minimum duration ('tiny' kept)" 28 "$work/badfilter/traces.otf2" Enter region=tiny
expect_done

: >"$work/notadir"
fallback_dir="$work/fallback"
mkdir -p "$fallback_dir"
run unwritable TMPDIR="$fallback_dir" POPMETER_OUTPUT="$work/notadir/out" "$launcher" run -- "$prog" filter
check "unwritable output directory: exits 0" test $? -eq 0
check "unwritable output directory: the message names the trace directory" \
  grep -q "cannot create the trace directory $work/notadir" "$work/unwritable.err"
fb=$(ls -d "$fallback_dir"/popmeter-trace_omp-* 2>/dev/null | head -1)
check "unwritable output directory: popmeter.json is written in the fallback directory" test -s "$fb/popmeter.json"
check "unwritable output directory: so is the trace" test -s "$fb/traces.otf2"
[ -s "$fb/traces.otf2" ] && readback "fallback" "$fb/traces.otf2"

# ---- a program that re-executes itself: the first image's staging directory (same process id)
# does not stop the second from tracing, and none is left behind
mkdir -p "$work/exec"
run exec POPMETER_OUTPUT="$work/exec/out" "$launcher" run -- "$prog" exec
check "re-executed program: exits 0" test $? -eq 0
check "re-executed program: no error about the trace directory" sh -c "! grep -q 'trace directory' '$work/exec.err'"
a="$work/exec/out/traces.otf2"
check "re-executed program: the trace is written" test -s "$a"
[ -s "$a" ] && readback "re-executed program" "$a"
expect "re-executed program: the second image's regions ('long', x3)" 3 "$a" Enter region=long
expect_done
check "re-executed program: no staging directory left behind" sh -c "! ls -d '$work/exec'/.popmeter-trace.* >/dev/null 2>&1"
# the same when the first image's staging directory belongs to another user by then: it is left
# alone (never removed), and the trace goes through the fallback under $TMPDIR
mkdir -p "$work/foreign" "$work/foreign_tmp"
run foreign TMPDIR="$work/foreign_tmp" POPMETER_OUTPUT="$work/foreign/out" "$launcher" run -- "$prog" exec-foreign \
  "$work/foreign"
rc=$?
if [ $rc -eq 77 ]; then
  skip "re-executed program, another user's staging directory: $(cat "$work/foreign.err")"
else
  check "another user's staging directory: exits 0" test $rc -eq 0
  check "another user's staging directory: left in place, still that user's, with the first image's files" \
    sh -c "test \"\$(stat -c %u '$work/foreign'/.popmeter-trace.* 2>/dev/null)\" = 65534 && \
      test -d \"\$(ls -d '$work/foreign'/.popmeter-trace.* | head -1)/traces\""
  check "another user's staging directory: the message names it and the fallback" \
    grep -q "cannot create the trace directory $work/foreign/.popmeter-trace.*(File exists); writing the trace into $work/foreign_tmp/" \
    "$work/foreign.err"
  check "another user's staging directory: the trace is written through the fallback" \
    test -s "$work/foreign/out/traces.otf2"
fi

# ---- the statistics in the profile and the table
run table POPMETER_REPORT=full "$launcher" run -- "$prog" filter
check "table: a trace line with the events, size and flushes" \
  grep -qE "^ Trace \(traces.otf2\): [0-9]+ events, .* buffer flush" "$work/table.err"
ev=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['processes'][0]['trace']['events'])" "$work/table/popmeter.json")
nread=$(/usr/bin/python3 -c "
import otf2, sys
with otf2.reader.open(sys.argv[1]) as t:
    print(sum(1 for _ in t.events))" "$work/table/traces.otf2" 2>/dev/null)
check "popmeter.json: the trace's events ($ev) are the events read back ($nread)" test "$ev" = "$nread"

# ---- off by default
env POPMETER_REPORT=0 POPMETER_OUTPUT="$work/off" "$launcher" run -- "$prog" filter >/dev/null 2>&1
check "POPMETER_TRACE unset: no trace written" test ! -e "$work/off/traces.otf2" -a -s "$work/off/popmeter.json"
tap_done
