#!/bin/sh
# Faults that must lose nothing already measured, each asserting exactly which files exist and that
# each one parses (popmeter.json: strict JSON; profile.cubex: the checker; a trace: otf2-print):
#   - a full disk (a small tmpfs): no file at all, no temporary left, one message per file;
#   - an output directory the user cannot write (run as nobody): the private fallback directory;
#   - a rank killed by SIGKILL: mpirun terminates the others, which report alone before dying;
#   - a program that exits without MPI_Finalize: each rank reports alone.
. "$top_srcdir/tests/tap.sh"
launcher="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
cubex_check="$top_builddir/tests/golden/cubex_check"
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/pmfault.XXXXXX")
chmod 755 "$work"
mounted=""
trap '[ -n "$mounted" ] && umount "$mounted"; rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"
POPMETER_REPORT=summary; export POPMETER_REPORT
parses() {   # DIR FILE...: each file exists and parses; nothing else is in DIR
  d=$1; shift
  for f in "$@"; do
    case $f in
      popmeter.json) $py -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$d/$f" || return 1 ;;
      profile.cubex) "$cubex_check" "$d/$f" >/dev/null || return 1 ;;
      traces.otf2) otf2-print "$d/$f" >/dev/null 2>&1 || return 1 ;;
    esac
  done
  test "$(ls -A "$d" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')"
}

# 1. a full disk
if mount -t tmpfs -o size=64k tmpfs "$work/full" 2>/dev/null || { mkdir -p "$work/full" && mount -t tmpfs -o size=64k tmpfs "$work/full" 2>/dev/null; }; then
  mounted="$work/full"
  dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null
  for mode in plain overwrite traced; do
    env=""
    case $mode in overwrite) env="POPMETER_OVERWRITE=1" ;; traced) env="POPMETER_TRACE=1" ;; esac
    env $env POPMETER_OUTPUT="$work/full/$mode" "$launcher" run -- "$progs/names" region >"$work/full_$mode.out" 2>"$work/full_$mode.err"
    check "full disk ($mode): the program's result and exit status intact" grep -q "result 1" "$work/full_$mode.out"
    check "full disk ($mode): no file, no temporary left" \
      test -z "$(ls -A "$work/full/$mode" 2>/dev/null; ls -A "$work/full" | grep -E '\.tmp$|^\.popmeter-trace')"
    check "full disk ($mode): one message for popmeter.json, naming the reason" \
      test "$(grep -c "popmeter.json failed: No space left on device" "$work/full_$mode.err")" -eq 1
    check "full disk ($mode): one message for profile.cubex" test "$(grep -c "profile.cubex failed" "$work/full_$mode.err")" -eq 1
    check "full disk ($mode): the table does not point at a missing file" sh -c "! grep -q 'show --full $work/full' '$work/full_$mode.err'"
  done
  check "full disk (traced): the trace is dropped, said once" test "$(grep -c "no trace is kept" "$work/full_traced.err")" -eq 1
  umount "$mounted"; mounted=""
else
  for i in $(seq 1 16); do skip "cannot mount a tmpfs (not root?)"; done
fi

# 2. an output directory the user cannot write: the private fallback, everything in it
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  fbroot="$work/fallback" # TMPDIR of the run: where popmeter puts its private fallback
  mkdir -p "$work/ro" "$fbroot"; chmod 755 "$work/ro"; chmod 1777 "$fbroot"
  TMPDIR="$fbroot" POPMETER_OUTPUT="$work/ro/out" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$launcher" run -- "$progs/names" region >"$work/ro.out" 2>"$work/ro.err"
  check "unwritable output: the program's result intact" grep -q "result 1" "$work/ro.out"
  check "unwritable output: the message names the directory and the reason" \
    grep -q "cannot use output directory $work/ro/out (Permission denied); writing into $fbroot/popmeter-names-" "$work/ro.err"
  fb=$(ls -d "$fbroot"/popmeter-names-* 2>/dev/null | head -1)
  check "unwritable output: the fallback holds exactly popmeter.json and profile.cubex, both parse" \
    parses "$fb" popmeter.json profile.cubex
  check "unwritable output: the fallback is private (0700, the user's)" test "$(stat -c '%a %u' "$fb")" = "700 65534"
else
  for i in 1 2 3 4; do skip "needs root and setpriv to run as another user"; done
fi

# 3. a rank killed, 4. no MPI_Finalize: the other ranks keep what they measured
if [ -n "$MPIRUN" ] && [ -x "$progs/names_mpi" ]; then
  mkdir -p "$work/k"
  timeout 120 $MPIRUN -np 2 -x NAMES_KILL_RANK=1 "$launcher" run --output "$work/k/run" -- "$progs/names_mpi" region \
    >"$work/killed.out" 2>"$work/killed.err"
  check "SIGKILL of rank 1: the job fails (its status passes through)" test $? -ne 0
  check "SIGKILL of rank 1: rank 0 reported, saying why" grep -q "terminated by SIGTERM" "$work/killed.err"
  check "SIGKILL of rank 1: rank 0's directory holds popmeter.json and profile.cubex, both parse" \
    parses "$work/k/run.rank0" popmeter.json profile.cubex
  check "SIGKILL of rank 1: nothing else was written" test "$(ls -A "$work/k")" = "run.rank0"
  timeout 120 $MPIRUN -np 2 "$launcher" run --output "$work/nofin" -- "$progs/mpi_imbalance" 0.01 1 --no-finalize \
    >/dev/null 2>"$work/nofin.err"
  for r in 0 1; do
    check "no MPI_Finalize: rank $r's directory holds popmeter.json and profile.cubex, both parse" \
      parses "$work/nofin.rank$r" popmeter.json profile.cubex
  done
else
  for i in 1 2 3 4 5 6; do skip "no MPI"; done
fi
tap_done
