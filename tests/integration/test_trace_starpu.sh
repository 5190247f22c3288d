#!/bin/sh
# OTF2 trace of StarPU programs (progs/sp_dag.c, as in test_starpu_dag.sh): tasks are regions on
# their workers' locations, whose Leave carries the task's attributes (the critical path rebuilt
# from them is the DAG's); StarPU-MPI on 2 ranks: the transfers of the progress threads are
# matched messages, and the path crosses the ranks.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/trace_common.sh"
need_readers
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
STARPU_WORKERS_NOBIND=1; STARPU_SILENT=1; STARPU_NOPENCL=0; STARPU_NCUDA=0
export STARPU_WORKERS_NOBIND STARPU_SILENT STARPU_NOPENCL STARPU_NCUDA

# forkjoin: A -> 4 x B -> C on 2 CPU workers (unit 2 ms)
STARPU_NCPU=2 POPMETER_TRACE=1 POPMETER_REPORT=0 POPMETER_OUTPUT="$work/sp" LD_PRELOAD="$lib" \
  timeout 120 "$progs/sp_dag" forkjoin 2 >"$work/sp.out" 2>"$work/sp.err"
check "StarPU: exits 0" test $? -eq 0
a="$work/sp/traces.otf2"
readback "StarPU" "$a"
expect "task A: one region on a worker" 1 "$a" Enter region=dag_A role=CPU
expect "tasks B: four regions on the workers" 4 "$a" Enter region=dag_B role=CPU
expect "task C: one region on a worker" 1 "$a" Enter region=dag_C role=CPU
expect "no task region outside the workers" 0 "$a" Enter region=dag_B location=main
expect_done
# the task attributes of the bodies' Leave: the critical path rebuilt from them is A -> B -> C
$tcheck tasks "$a" "StarPU" >"$work/tasks.out" 2>&1
grep -v '^CHAIN' "$work/tasks.out" >"$work/tasks.tap"
tap_lines "$work/tasks.tap"
check "StarPU: the critical path from the attributes is A -> B -> C ($(sed -n 's/^CHAIN //p' "$work/tasks.out"))" \
  grep -qx "CHAIN dag_A dag_B dag_C" "$work/tasks.out"

if [ -x "$progs/sp_dag_mpi" ]; then
  # chain: the handle moves between the ranks at every step: 8 transfers of 4 bytes (StarPU-MPI
  # sends an envelope first, then the data, from the progress threads)
  timeout 120 $MPIRUN -np 2 -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND -x STARPU_SILENT -x POPMETER_TRACE=1 \
    -x POPMETER_REPORT=0 -x POPMETER_CUBE=0 -x POPMETER_OUTPUT="$work/spmpi" -x LD_PRELOAD="$lib" \
    "$progs/sp_dag_mpi" chain 2 >"$work/spmpi.out" 2>"$work/spmpi.err"
  check "StarPU-MPI 2 ranks: exits 0" test $? -eq 0
  a="$work/spmpi/traces.otf2"
  readback "StarPU-MPI" "$a"
  expect "the 8 data transfers (4 bytes) leave from the progress threads" 8 "$a" MpiIsend bytes=4 role=StarPU-MPI
  expect "... and arrive there" 8 "$a" MpiIrecv bytes=4 role=StarPU-MPI
  expect "the 8 tasks run on the workers of both ranks" 8 "$a" Enter region=dag_A role=CPU
  expect_done
  # the chain's 8 tasks alternate between the ranks: the path goes through all of them
  $tcheck tasks "$a" "StarPU-MPI" >"$work/tasks.out" 2>&1
  grep -v '^CHAIN' "$work/tasks.out" >"$work/tasks.tap"
  tap_lines "$work/tasks.tap"
  # a transfer's clock that came after the receiver's bounded wait (a loaded machine) is counted as
  # lost, and the path then misses that edge (lib/adapters/starpu/sp_mpi_clock.c)
  lost=$($pmjson "$work/spmpi/popmeter.json" --tasks sum clocks.lost)
  if [ "$lost" = 0 ]; then
    check "StarPU-MPI: the critical path from the attributes holds the 8 tasks ($(sed -n 's/^CHAIN //p' "$work/tasks.out"))" \
      grep -qx "CHAIN dag_A dag_A dag_A dag_A dag_A dag_A dag_A dag_A" "$work/tasks.out"
  else
    skip "StarPU-MPI: the critical path from the attributes: $lost transfer clock(s) lost (loaded machine)"
  fi
else
  skip "StarPU-MPI: sp_dag_mpi is not built"
fi
tap_done
