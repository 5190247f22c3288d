#!/bin/sh
# The preload is inert where there is no MPI application (shells, /bin/true, compilers, mpirun and
# orted, even with LD_BIND_NOW=1 which resolves every symbol at load time) and harmless in an MPI
# application (same output, exit status 0), whether popmeter is enabled or not.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"
hello="$progs/mpi_hello"

LD_BIND_NOW=1 LD_PRELOAD="$lib" /bin/true
check "LD_BIND_NOW=1 LD_PRELOAD=libpopmeter.so /bin/true exits 0" test $? -eq 0
out=$(LD_BIND_NOW=1 LD_PRELOAD="$lib" /bin/sh -c 'echo inert' 2>"$work/sh.err")
check "a shell runs and prints as usual" test "$out" = inert
check "nothing printed by popmeter in a non-MPI process" test ! -s "$work/sh.err"
if [ -n "${PM_TEST_SANITIZERS:-}" ]; then
  # The instrumented library brings the ASan runtime in after libc, as its dependency; in the gcc
  # driver that mpicc runs, that runtime then crashes in its own start-up (InitTlsSize), before
  # any popmeter code runs. A program started with libasan.so first in LD_PRELOAD runs.
  skip "the MPI compiler wrapper runs under the preload: not with the sanitizer build's library (gcc's driver cannot start the ASan runtime loaded after libc)"
else
  LD_BIND_NOW=1 LD_PRELOAD="$lib" $MPICC --version >/dev/null 2>&1
  check "the MPI compiler wrapper runs under the preload" test $? -eq 0
fi

# mpirun and orted themselves preloaded (LD_PRELOAD in mpirun's own environment) plus the ranks
out=$(LD_BIND_NOW=1 LD_PRELOAD="$lib" timeout 120 $MPIRUN -np 2 -x LD_PRELOAD -x LD_BIND_NOW \
      -x POPMETER_REPORT=0 -x POPMETER_JSON=0 -x POPMETER_CUBE=0 "$hello" 2>"$work/all.err")
check "mpirun, orted and 2 ranks preloaded with LD_BIND_NOW=1: exit 0" test $? -eq 0
check "... application output unchanged" test "$out" = "hello from 2 ranks, sum 2"

run_pm 2 "$work/hello" "$hello"
check "mpirun -np 2 -x LD_PRELOAD: exit 0" test $? -eq 0
check "... application output unchanged" test "$(cat "$work/hello.out")" = "hello from 2 ranks, sum 2"
check "... a profile was written" sh -c "ls '$work'/hello/*/popmeter.json >/dev/null 2>&1"
check "... the MPI_Init call was measured on both ranks" \
  sh -c "$mpiprof '$work/hello' --dump | grep -c 'visits:MPI_Init 1' | grep -qx 2"

out=$(timeout 120 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_ENABLE=0 -x POPMETER_OUTPUT="$work/off" "$hello" 2>"$work/off.err")
check "POPMETER_ENABLE=0: exit 0, output unchanged" test $? -eq 0 -a "$out" = "hello from 2 ranks, sum 2"
check "POPMETER_ENABLE=0: no profile" sh -c "! ls '$work'/off*/popmeter.json >/dev/null 2>&1"

out=$(timeout 120 $MPIRUN -np 3 -x LD_PRELOAD="$lib" -x POPMETER_CRITICAL_PATH=0 -x POPMETER_REPORT=0 \
      -x POPMETER_JSON=0 -x POPMETER_CUBE=0 "$hello" 2>/dev/null)
check "POPMETER_CRITICAL_PATH=0, 3 ranks: output unchanged" test "$out" = "hello from 3 ranks, sum 3"
tap_done
