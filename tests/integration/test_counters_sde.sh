#!/bin/sh
# popmeter's live metrics as PAPI software-defined events (sde:::popmeter::<name>), read through
# PAPI by the application while it runs under popmeter (progs/sde_reader.c, progs/sde_mpi.c):
# exact deltas for bytes written and sent and for messages, one more location after a thread did
# I/O, useful and MPI time within 10 % of the wall time they cover. Without popmeter the events
# do not exist.
. "$top_srcdir/tests/tap.sh"
pm="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmsde.XXXXXX")
trap 'rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"
val() { sed -n "s/^$1 //p" "$2"; }
# near_rel VALUE EXPECTED REL ABS: |VALUE - EXPECTED| <= REL * EXPECTED + ABS
near_rel() { near "$1" "$2" "$(awk -v e="$2" -v r="$3" -v a="$4" 'BEGIN { printf "%.17g", r * e + a }')"; }

if [ ! -x "$progs/sde_reader" ]; then
  skip "popmeter built without PAPI SDE (libsde): nothing to test"
  tap_done
fi
"$pm" run --output "$work/run" -- "$progs/sde_reader" "$work" >"$work/out" 2>"$work/err"
rc=$?
check "sde_reader exits 0 under popmeter" test $rc -eq 0
[ $rc -eq 0 ] || diag "$(cat "$work/out" "$work/err")"
check "io_bytes_written: +4096 exactly after writing 4096 bytes" test "$(val io_bytes_written_4096 "$work/out")" = 4096
check "io_bytes_written: +100 exactly after a thread wrote 100 bytes" test "$(val io_bytes_written_100 "$work/out")" = 100
before=$(val locations_before "$work/out"); after=$(val locations_after "$work/out")
check "locations: one more after the thread did I/O ($before -> $after)" test "$after" = "$((before + 1))"
check "io_ns grew while writing" test "$(val io_ns "$work/out")" -gt 0
u=$(val useful_ns "$work/out"); w=$(val wall_ns "$work/out")
diag "useful_ns $u over $w ns of computing"
check "useful_ns follows the computing thread (within 10 % + 2 ms)" near_rel "$u" "$w" 0.1 2000000
"$progs/sde_reader" "$work" >"$work/plain" 2>&1
check "without popmeter the events do not exist" test $? -eq 3

if [ -x "$progs/sde_mpi" ]; then
  timeout 120 $MPIRUN -np 2 "$pm" run --output "$work/mpi" -- "$progs/sde_mpi" >"$work/mout" 2>"$work/merr"
  check "sde_mpi on 2 ranks exits 0" test $? -eq 0
  check "bytes_sent: +3000 exactly after 3 x 1000 bytes" test "$(val bytes_sent "$work/mout")" = 3000
  check "messages_sent: +3 exactly" test "$(val messages_sent "$work/mout")" = 3
  m=$(val mpi_ns "$work/mout")
  diag "mpi_ns $m while waiting 300 ms for the peer"
  check "mpi_ns covers the 300 ms wait in MPI_Recv" near_rel "$m" 300000000 0.1 30000000
else
  skip "MPI not built: no MPI SDE test"
fi
tap_done
