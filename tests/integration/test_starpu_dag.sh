#!/bin/sh
# Online critical path through StarPU task DAGs of known shape (progs/sp_dag.c), one process, two
# CPU workers, under several schedulers: popmeter's task-DAG critical path equals the DAG's
# critical path recomputed from the bodies' own durations, within the band explained in
# starpu_check.py. Nominal paths: chain 80 ms, fork-join 40 ms, diamond 50 ms, independent 10 ms,
# end dependencies 50 ms (40 ms if the end dependency were missed), asynchronous partitioning
# 40 ms (30 ms if the partition / unpartition were missed), explicit dependencies 50 ms (30 ms if
# the edges of the task with an application prologue were missed).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/starpu_common.sh"
run() {   # run SCHED DAG
  out="$work/$1-$2"
  res=$(STARPU_SCHED=$1 POPMETER_OUTPUT="$out" LD_PRELOAD="$lib" "$progs/sp_dag" "$2" 10 2>"$work/err")
  rc=$?
  if [ $rc -eq 77 ]; then skip "$1 $2: StarPU could not start"; return; fi
  check "$1 $2: runs (exit 0)" test $rc -eq 0
  cpa=$(echo "$res" | sed -n 's/.*cp_actual_ms=\([0-9.]*\).*/\1/p')
  worka=$(echo "$res" | sed -n 's/.*work_actual_ms=\([0-9.]*\).*/\1/p')
  if [ ! -s "$out/popmeter.json" ] || [ -z "$cpa" ]; then notok "$1 $2: profile and durations written"; cat "$work/err" >&2; return; fi
  echo "$worka" >"$out/work_actual_ms"
  $check_py dag "$out/popmeter.json" "$1 $2" "$cpa" "$worka" >"$work/check"
  tap_lines "$work/check"
}
for dag in chain forkjoin diamond independent enddeps partition explicit; do run eager $dag; run dmda $dag; done
# a handle unregistered while its writer is pending: StarPU acquires it in callbacks on the writer's
# worker, which submit a task there; its path is the writer's, not the worker's earlier bodies
run eager unreg
for s in prio lws ws dmdas heteroprio modular-eager modular-heft; do run $s forkjoin; done
# the timeline of one run: two workers, never counted as progress threads; efficiencies in [0, 1]
j="$work/eager-forkjoin/popmeter.json"
check "two CPU workers" test "$($pmjson "$j" --tasks role-count worker)" = 2
check "no progress thread without StarPU-MPI" test "$($pmjson "$j" --tasks role-count progress)" = 0
for m in task/e/e_runtime task/e/e_pipeline task/bound; do
  v=$($pmjson "$j" $m)
  check "$m = $v in [0, 1]" awk -v v="$v" 'BEGIN { exit !(v >= 0 && v <= 1) }'
done
# the chain's path is its tasks (dag_A) but for what the submissions and hooks add (a load-free
# run: ~1 ms of 80; a loaded one has shown 4.6 ms of 98)
$check_py part "$work/eager-chain/popmeter.json" "chain: the whole path is dag_A" dag_A \
  "$(cat "$work/eager-chain/work_actual_ms" 2>/dev/null || echo 0)" >"$work/check"
tap_lines "$work/check"
# end dependencies: B's body (10 ms) ends on its worker, not when its end dependency D ends (30 ms
# after B's start: StarPU runs B's post-exec hook then, on D's worker). On a loaded machine B can be
# stretched by preemption, by at most what the program measured for all its bodies beyond their
# nominal 70 ms (A, B, C 10 ms each, D 40 ms)
bt=$($pmjson "$work/eager-enddeps/popmeter.json" --tasks codelet dag_B time.total)
bw=$(cat "$work/eager-enddeps/work_actual_ms" 2>/dev/null || echo 70)
check "end dependencies: B's body measured as itself ($bt s < 0.025 s + the stretch of $bw ms of bodies)" \
  awk -v t="$bt" -v w="$bw" 'BEGIN { s = w / 1000 - 0.070; if (s < 0) s = 0; exit !(t > 0.009 && t < 0.025 + s) }'
# StarPU 1.3 runs the pre-exec hook of its internal tasks (starpu_execute_on_each_worker's,
# starpu_execute_on_specific_workers') but not their post-exec hook: such a body ends where the
# driver ended it, and the 200 ms that worker 0 then waits paused (worker 1: without work) are
# idle, not useful inside the wrapper's region (they were before)
STARPU_SCHED=eager POPMETER_OUTPUT="$work/oneach" LD_PRELOAD="$lib" "$progs/sp_dag" oneach 10 >/dev/null 2>"$work/err"
rc=$?
if [ $rc -eq 77 ]; then
  skip "oneach: StarPU could not start"
else
  check "oneach: runs (exit 0)" test $rc -eq 0
  j1="$work/oneach/popmeter.json"
  wu=$($pmjson "$j1" --tasks role-sum worker useful)
  bodies=$($pmjson "$j1" --tasks codelet dag_A time.total)
  check "oneach: workers useful $wu s = their task bodies $bodies s (+ < 20 ms)" \
    awk -v u="$wu" -v b="$bodies" 'BEGIN { exit !(u >= b - 0.001 && u < b + 0.02) }'
  check "oneach: workers idle >= 0.3 s of their 2 x 200 ms without work" \
    awk -v i="$($pmjson "$j1" --tasks role-sum worker idle)" 'BEGIN { exit !(i >= 0.3) }'
fi
check "fork-join: 4 tasks dag_B counted" test "$($pmjson "$j" --tasks codelet dag_B count)" = 4
# submit -> ready -> body: the B tasks are submitted right after A and become ready when A's body
# (10 ms) ended; C when the Bs (20 ms more) ended
check "fork-join: submission and ready times known for every B" test "$($pmjson "$j" --tasks codelet dag_B waits.count)" = 4
check "fork-join: each B waited at least A's 10 ms for its dependencies" awk \
  -v d="$($pmjson "$j" --tasks codelet dag_B waits.dependencies)" 'BEGIN { exit !(d / 4 >= 0.0095 && d / 4 < 1) }'
check "fork-join: C waited at least 30 ms for its dependencies" awk \
  -v d="$($pmjson "$j" --tasks codelet dag_C waits.dependencies)" 'BEGIN { exit !(d >= 0.0295 && d < 1) }'
check "fork-join: waits to start are not negative" awk \
  -v d="$($pmjson "$j" --tasks codelet dag_B waits.scheduling)" 'BEGIN { exit !(d >= 0 && d < 1) }'
"$top_builddir/tools/popmeter" show --full "$j" >"$work/table" 2>&1
check "table: mean waits for dependencies and to start" grep -q "mean wait per task: for dependencies" "$work/table"
tap_done
