#!/bin/sh
# popmeter scale drives mfsolve's worker count: without --workers mfsolve takes STARPU_NCPU, which
# scale sets per configuration, and a program that takes its counts as arguments gets them through
# the {ranks} / {threads} placeholders. Checked: each run's mfsolve reports the configuration's
# workers, and the report has one column per configuration rather than repeats of one (the report
# counts a process's compute locations: mfsolve's main thread with its workers, 1 and 1 + 2 on one
# process with 1 and 2 workers: one worker alone runs the sequential executor).
. "$top_srcdir/tests/integration/solver_common.sh"
pm="$top_builddir/tools/popmeter"
POPMETER_CUBE=0; export POPMETER_CUBE
# the configurations of a study's report, in order
configs() { awk -F, '$1 == "scaling" && $7 == "ge" { printf "%s%s", n++ ? " " : "", $3 }' "$1/scaling.csv"; }

# the environment (STARPU_NCPU), one process, no launcher
"$pm" scale --threads 1,2 --mpirun none --no-plots -q --out "$work/env" -- "$mfsolve" -q --gen lap3d:10 --nb 16 \
  >"$work/out" 2>"$work/err"
rc=$?
check "scale --threads 1,2 over mfsolve (STARPU_NCPU): exit 0 (got $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$work/err" | tail -5
check "STARPU_NCPU=1: mfsolve ran its sequential executor" grep -q "^executor *sequential" "$work/env/runs/1x1/stdout.txt"
check "STARPU_NCPU=2: mfsolve ran 2 workers" grep -q "starpu: 1 process(es) x 2 worker(s)" "$work/env/runs/1x2/stdout.txt"
check "STARPU_NCPU: report columns 1x1 and 1x3" test "$(configs "$work/env")" = "1x1 1x3"

# the placeholder, on two processes through the launcher
"$pm" scale --ranks 2 --threads 1,2 --no-plots -q --out "$work/arg" --mpirun "$MPIRUN" -- \
  "$mfsolve" -q --gen lap3d:10 --nb 16 --workers '{threads}' >"$work/out" 2>"$work/err"
rc=$?
check "scale --ranks 2 --threads 1,2 with --workers {threads}: exit 0 (got $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# /' "$work/err" | tail -5
for t in 1 2; do
  check "--workers {threads}=$t: 2 processes x $t worker(s)" \
    grep -q "starpu: 2 process(es) x $t worker(s)" "$work/arg/runs/2x$t/stdout.txt"
done
check "--workers {threads}: report columns 2x2 and 2x3" test "$(configs "$work/arg")" = "2x2 2x3"
tap_done
