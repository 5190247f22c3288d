#!/bin/sh
# StarPU 1.4's tool interface (lib/adapters/starpu/sp_tool.c). The DAG programs of test_starpu_dag.sh
# linked against Debian 13's static StarPU 1.4 (tools/setup-starpu14.sh) and started by `popmeter
# run`, which names libpopmeter in STARPU_PROF_TOOL: the task-DAG critical path equals the one
# recomputed from the bodies' own durations (nominal: chain 80 ms, fork-join 40 ms, diamond 50 ms,
# independent 10 ms), under several schedulers, with the same band as for StarPU 1.3 less the
# application thread's time (no submission is seen through this interface). Also: the runtime
# overhead the interface hides is reported as such; StarPU's dlclose of the tool does not unload
# popmeter; a static StarPU without -rdynamic is named as the reason no task is seen; and
# popmeter's StarPU 1.3 adapter leaves a StarPU of another version alone.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/starpu_common.sh"
launcher="$top_builddir/tools/popmeter"

# The 1.3 adapter in a process whose StarPU says it is 1.5: no struct is touched, and the run says why
out=$(POPMETER_OUTPUT="$work/fake" "$launcher" run -- "$progs/sp_fake_app" 2>"$work/fake.err")
check "another StarPU version: the application's result is unchanged" test "$out" = "initialize=0"
check "another StarPU version: named as not measured" grep -q "StarPU 1.5 is not 1.3 and popmeter has no tool interface for it" "$work/fake.err"
check "another StarPU version: no 1.3 function looked up" sh -c "! grep -q 'lacks functions' '$work/fake.err'"

if [ ! -x "$progs/sp_dag14" ]; then
  skip "StarPU 1.4 test bed not set up (tools/setup-starpu14.sh could not fetch Debian 13's libstarpu-dev)"
  tap_done
  exit 0
fi

run() {   # run SCHED DAG [PROGRAM]: nominal DAG under popmeter run
  out="$work/$1-$2"
  res=$(STARPU_SCHED=$1 STARPU_SILENT=1 POPMETER_OUTPUT="$out" "$launcher" run -- "$progs/${3:-sp_dag14}" "$2" 10 2>"$work/err")
  rc=$?
  if [ $rc -eq 77 ]; then skip "1.4 $1 $2: StarPU could not start"; return 1; fi
  check "1.4 $1 $2: runs (exit 0)" test $rc -eq 0
  cpa=$(echo "$res" | sed -n 's/.*cp_actual_ms=\([0-9.]*\).*/\1/p')
  worka=$(echo "$res" | sed -n 's/.*work_actual_ms=\([0-9.]*\).*/\1/p')
  if [ ! -s "$out/popmeter.json" ] || [ -z "$cpa" ]; then notok "1.4 $1 $2: profile and durations written"; cat "$work/err" >&2; return 1; fi
  return 0
}
for s in eager dmda lws; do
  for dag in chain forkjoin diamond independent; do
    [ $s != eager ] && [ $dag != forkjoin ] && continue
    run $s $dag || continue
    $check_py dag "$out/popmeter.json" "1.4 $s $dag" "$cpa" "$worka" tool >"$work/check"
    tap_lines "$work/check"
    [ $s = eager ] && [ $dag = forkjoin ] && fj_work=$worka
    [ $s = eager ] && [ $dag = chain ] && chain_work=$worka
  done
done

j="$work/eager-forkjoin/popmeter.json"
check "1.4: two CPU workers" test "$($pmjson "$j" --tasks role-count worker)" = 2
check "1.4: fork-join: 4 tasks dag_B counted" test "$($pmjson "$j" --tasks codelet dag_B count)" = 4
# Each B busy-waits 20 ms; on a loaded machine a body is also stretched by preemption. The stretch
# of B's bodies cannot exceed what the program itself measured for all its bodies (work beyond the
# nominal 10 + 4 x 20 + 10 ms), plus 10 ms for the hooks and the clock reads.
check "1.4: fork-join: dag_B bodies total 4 x 20 ms (+ the stretch the program measured)" \
  awk -v t="$($pmjson "$j" --tasks codelet dag_B time.total)" -v w="${fj_work:-100}" \
  'BEGIN { s = w / 1000 - 0.100; if (s < 0) s = 0; exit !(t >= 0.080 && t < 0.090 + s) }'
# the chain's path is its tasks but for the hooks around them (no submission is seen here)
$check_py part "$work/eager-chain/popmeter.json" "1.4 chain: the whole path is dag_A" dag_A "${chain_work:-0}" tool \
  >"$work/check"
tap_lines "$work/check"
check "1.4: the profile says runtime overhead was not observed" /usr/bin/python3 -c "
import json, sys
d = json.load(open('$j'))
sys.exit(0 if [p['runtime_observed'] for p in d['tasks']['processes']] == [False] else 1)"
check "1.4: no submission or ready time claimed (no waits in the profile)" /usr/bin/python3 -c "
import json, sys
d = json.load(open('$j'))
sys.exit(1 if any('waits' in c for c in d['tasks']['codelets']) else 0)"
check "1.4: e_runtime is n/a" test "$($pmjson "$j" task/e/e_runtime)" = na
check "1.4: e_pipeline is measured, in (0, 1]" awk -v v="$($pmjson "$j" task/e/e_pipeline)" 'BEGIN { exit !(v > 0 && v <= 1) }'
# the table (popmeter show) says what the interface cannot tell
"$top_builddir/tools/popmeter" show --full "$j" >"$work/table" 2>&1
check "1.4: the table merges the workers' runtime into idle, and says why" \
  grep -q "runtime and idle .* of their time" "$work/table"
check "1.4: the table names the tool interface's limit" grep -q "tool interface reports task bodies only" "$work/table"

# StarPU dlcloses the tool at shutdown: with STARPU_PROF_TOOL alone (no preload), popmeter stays
# loaded for its report at exit, and the program's own output is unchanged
res=$(STARPU_SILENT=1 POPMETER_OUTPUT="$work/dlopen" STARPU_PROF_TOOL="$lib" "$progs/sp_dag14" diamond 10 2>"$work/err")
rc=$?
check "1.4 loaded by StarPU only: exit 0 (not unloaded under popmeter)" test $rc -eq 0
check "1.4 loaded by StarPU only: the program's output" sh -c "echo '$res' | grep -q '^cp_ms=50 work_ms=60 '"
check "1.4 loaded by StarPU only: profile with dag_A once" test "$($pmjson "$work/dlopen/popmeter.json" --tasks codelet dag_A count)" = 1

# An accelerator worker without a GPU (pocl, as test_starpu_opencl.sh): StarPU 1.4 reports its bodies as
# GPU execution events; the tasks, their worker type and the bus transfers are those of the 1.3 test
if [ -e /etc/OpenCL/vendors/pocl.icd ]; then
  res=$(STARPU_NCPU=1 STARPU_NOPENCL=1 STARPU_OPENCL_ON_CPUS=1 STARPU_SCHED=eager POCL_MAX_PTHREAD_COUNT=1 STARPU_SILENT=1 \
        POPMETER_OUTPUT="$work/ocl" "$launcher" run -- "$progs/sp_ocl14" 8 65536 2>"$work/err")
  rc=$?
  if [ $rc -eq 77 ]; then skip "1.4: no StarPU OpenCL worker on pocl"; else
    j="$work/ocl/popmeter.json"
    check "1.4 OpenCL: exits 0 with the right result" sh -c "test $rc -eq 0 && echo '$res' | grep -q correct"
    check "1.4 OpenCL: one accelerator worker, one CPU worker" \
      test "$($pmjson "$j" --tasks role-count accel_worker)/$($pmjson "$j" --tasks role-count worker)" = 1/1
    check "1.4 OpenCL: 8 ocl_scale tasks on the accelerator worker type" \
      test "$($pmjson "$j" --tasks codelet ocl_scale count)/$($pmjson "$j" --tasks codelet ocl_scale worker_type)" = 8/1
    check "1.4 OpenCL: 8 transfers (2 MB) into the OpenCL node" \
      test "$($pmjson "$j" --tasks transfers OpenCL count)/$($pmjson "$j" --tasks transfers OpenCL bytes)" = 8/2097152
    check "1.4 OpenCL: 8 transfers (2 MB) back into main memory" \
      test "$($pmjson "$j" --tasks transfers RAM count)/$($pmjson "$j" --tasks transfers RAM bytes)" = 8/2097152
  fi
else
  skip "1.4 OpenCL: pocl OpenCL ICD not installed"
fi

# A static StarPU linked without -rdynamic hides starpu_task_get_current & co.: popmeter says so
if run eager forkjoin sp_dag14_hidden; then
  check "1.4 without -rdynamic: named as the reason no task is measured" grep -q "must be linked with -rdynamic" "$work/err"
fi
tap_done
