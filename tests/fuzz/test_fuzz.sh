#!/bin/sh
# The fuzz targets of tests/fuzz (built by fuzz.am in the sanitizer build, with clang's libFuzzer):
# each replays its committed corpus (fuzz/corpus/<target>/: real popmeter.json files, the golden
# Matrix Market files, environments, and every input that once crashed), then fuzzes for
# PM_FUZZ_SECONDS (default 30) from that corpus. One TAP line per target. A crash, a leak, a hang
# (PM_FUZZ_TIMEOUT s on one input) or an input needing more than 2 GB is a failure: the input is
# kept in fuzz/artifacts/ of the build tree and shown here, to become a corpus file and a test.
. "$top_srcdir/tests/tap.sh"
fuzzdir="$top_builddir/tests/fuzz"
corpus="$top_srcdir/tests/fuzz/corpus"
seconds=${PM_FUZZ_SECONDS:-30}
timeout=${PM_FUZZ_TIMEOUT:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/pmfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$fuzzdir/artifacts"
# The targets run with leak detection on whatever the test environment says; the fuzzer itself
# reports a leak as a finding.
ASAN_OPTIONS="detect_leaks=1"
export ASAN_OPTIONS
unset LSAN_OPTIONS

show_artifacts() { # NAME: each input that failed, as a hex dump (the first 1 KB)
  for a in "$fuzzdir/artifacts/$1"-*; do
    [ -f "$a" ] || continue
    diag "input kept in $a ($(wc -c <"$a") bytes):"
    head -c 1024 "$a" | od -A d -t x1z | sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
  done
}

run_target() { # NAME [extra libFuzzer options]
  name=$1
  shift
  bin="$fuzzdir/fuzz_$name"
  if [ ! -x "$bin" ]; then
    skip "fuzz_$name: not built (configure found no clang with libFuzzer: Debian's clang and libclang-rt-14-dev)"
    return
  fi
  rm -f "$fuzzdir/artifacts/$name"-*
  n=$(ls "$corpus/$name" | wc -l)
  # 1. every committed input, once each
  if ! "$bin" -timeout="$timeout" -rss_limit_mb=2048 -artifact_prefix="$fuzzdir/artifacts/$name-" \
    "$corpus/$name"/* >"$work/$name.replay" 2>&1; then
    tail -40 "$work/$name.replay" | while IFS= read -r l; do diag "$l"; done
    show_artifacts "$name"
    notok "fuzz_$name: the $n corpus inputs replay without a finding"
    return
  fi
  # 2. fuzzing from the corpus; new inputs go to a scratch directory, the committed corpus is read only
  mkdir -p "$work/$name"
  "$bin" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$fuzzdir/artifacts/$name-" "$@" "$work/$name" "$corpus/$name" >"$work/$name.fuzz" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.fuzz")
  if [ "$rc" -ne 0 ]; then
    grep -v '^#[0-9]' "$work/$name.fuzz" | tail -60 | while IFS= read -r l; do diag "$l"; done
    show_artifacts "$name"
    notok "fuzz_$name: $n corpus inputs replayed; a finding after ${runs:-?} runs of fuzzing"
    return
  fi
  ok "fuzz_$name: $n corpus inputs replayed, ${seconds} s of fuzzing (${runs:-?} runs), no finding"
}

run_target profile_json -dict="$top_srcdir/tests/fuzz/profile_json.dict"
run_target mm_read
run_target config
tap_done
