#!/bin/sh
# StarPU-MPI on 2 ranks (progs/sp_dag.c built with -DSP_DAG_MPI, one CPU worker per rank): the
# task-DAG critical path crosses ranks through the transfers' clocks (side channel, see
# lib/adapters/starpu/sp_mpi_clock.c) and matches the DAG's recomputed critical path as in the
# one-process test; per-handle transfers are counted exactly; the "MPI" progress threads are
# locations of their own, never workers.
. "$top_srcdir/tests/tap.sh"
STARPU_NCPU=1; export STARPU_NCPU
. "$top_srcdir/tests/integration/starpu_common.sh"
run() {   # run DAG
  out="$work/$1"
  res=$(timeout 120 $MPIRUN -np 2 ${SCHED:+-x STARPU_SCHED=$SCHED} -x STARPU_NCPU -x STARPU_WORKERS_NOBIND -x STARPU_SILENT -x POPMETER_REPORT \
        -x POPMETER_OUTPUT="$out" -x LD_PRELOAD="$lib" "$progs/sp_dag_mpi" "$1" 10 2>"$work/err")
  rc=$?
  check "2 ranks $1: runs (exit 0)" test $rc -eq 0
  if [ $rc -ne 0 ]; then # what the run said, as TAP comments (tools/test.sh prints them): it has failed intermittently
    echo "# 2 ranks $1: exit status $rc$([ $rc -eq 124 ] && echo ' (killed after 120 s)')"
    tail -30 "$work/err" | sed 's/^/# /'
  fi
  cpa=$(echo "$res" | sed -n 's/.*cp_actual_ms=\([0-9.]*\).*/\1/p')
  worka=$(echo "$res" | sed -n 's/.*work_actual_ms=\([0-9.]*\).*/\1/p')
  if [ ! -s "$out/popmeter.json" ] || [ -z "$cpa" ]; then notok "2 ranks $1: profile and durations written"; cat "$work/err" >&2; return; fi
  $check_py dag "$out/popmeter.json" "2 ranks $1" "$cpa" "$worka" >"$work/check"
  tap_lines "$work/check"
  check "2 ranks $1: no clock lost" test "$($pmjson "$out/popmeter.json" --tasks sum clocks.lost)" = 0
}
for dag in chain forkjoin diamond independent; do run $dag; done
# the path of tasks that follow independent work on the same worker: not the worker's busy time
SCHED=eager run offpath
j="$work/chain/popmeter.json"
check "two processes in the profile" test "$(/usr/bin/python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['processes']))" "$j")" = 2
check "two progress threads (role progress)" test "$($pmjson "$j" --tasks role-count progress)" = 2
check "progress threads are not workers (2 workers)" test "$($pmjson "$j" --tasks role-count worker)" = 2
check "progress threads have no useful time" awk -v u="$($pmjson "$j" --tasks role-sum progress useful)" 'BEGIN { exit !(u < 0.001) }'
# chain: the handle moves at every step: 7 transfers, plus the way back to its owner at the end
check "chain: 8 sends of 4 bytes" test "$($pmjson "$j" --tasks mpi send count)/$($pmjson "$j" --tasks mpi send bytes)" = 8/32
check "chain: 8 receives of 4 bytes" test "$($pmjson "$j" --tasks mpi recv count)/$($pmjson "$j" --tasks mpi recv bytes)" = 8/32
check "chain: 8 clocks sent, 8 received" test "$($pmjson "$j" --tasks sum clocks.sent)/$($pmjson "$j" --tasks sum clocks.received)" = 8/8
r0=$($pmjson "$j" --tasks cp-rank 0); r1=$($pmjson "$j" --tasks cp-rank 1)
check "chain: the path spends about half its time on each rank ($r0 s, $r1 s)" \
  awk -v a="$r0" -v b="$r1" 'BEGIN { exit !(a > 0.3 * (a + b) && b > 0.3 * (a + b)) }'
j="$work/independent/popmeter.json"
check "independent: no transfer, no clock" test "$($pmjson "$j" --tasks sum clocks.sent)" = 0
tap_done
