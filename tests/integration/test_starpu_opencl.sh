#!/bin/sh
# An accelerator worker without a GPU: pocl's OpenCL device on the CPU (docs/runtime-facts.md §2.5), as a StarPU
# OpenCL worker with its own memory node. 8 OpenCL tasks each fetch a fresh 256 kB vector into
# the OpenCL node, 8 CPU tasks fetch them back: the worker is an accelerator worker, its tasks
# are counted on the accelerator worker type, and the bus transfers are exact.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/starpu_common.sh"
if [ ! -e /etc/OpenCL/vendors/pocl.icd ]; then skip "pocl OpenCL ICD not installed"; tap_done; fi
STARPU_NCPU=1 STARPU_NOPENCL=1 STARPU_OPENCL_ON_CPUS=1 STARPU_SCHED=eager POCL_MAX_PTHREAD_COUNT=1
export STARPU_NCPU STARPU_NOPENCL STARPU_OPENCL_ON_CPUS STARPU_SCHED POCL_MAX_PTHREAD_COUNT
res=$(POPMETER_REPORT=full POPMETER_OUTPUT="$work/o" LD_PRELOAD="$lib" "$progs/sp_ocl" 8 65536 2>"$work/err")
rc=$?
if [ $rc -eq 77 ]; then skip "no StarPU OpenCL worker on pocl"; tap_done; fi
check "OpenCL run exits 0 with the right result" sh -c "test $rc -eq 0 && echo '$res' | grep -q correct"
j="$work/o/popmeter.json"
check "one accelerator worker, one CPU worker" test "$($pmjson "$j" --tasks role-count accel_worker)/$($pmjson "$j" --tasks role-count worker)" = 1/1
check "8 OpenCL tasks" test "$($pmjson "$j" --tasks codelet ocl_scale count)" = 8
check "ocl_scale counted on the accelerator worker type" test "$($pmjson "$j" --tasks codelet ocl_scale worker_type)" = 1
check "8 transfers (2 MB) into the OpenCL node" test "$($pmjson "$j" --tasks transfers OpenCL count)/$($pmjson "$j" --tasks transfers OpenCL bytes)" = 8/2097152
check "8 transfers (2 MB) back into main memory" test "$($pmjson "$j" --tasks transfers RAM count)/$($pmjson "$j" --tasks transfers RAM bytes)" = 8/2097152
u=$($pmjson "$j" --tasks role-sum accel_worker useful); e=$($pmjson "$j" --tasks codelet ocl_scale time.total)
check "accelerator useful time = its task bodies ($u s, $e s)" awk -v u="$u" -v e="$e" 'BEGIN { d = u - e; exit !(e > 0 && d < 1e-6 && d > -1e-6) }'
check "table: the accelerator worker's busy share (device efficiency)" grep -Eq "accelerator workers +1: executing" "$work/err"
for m in task/e/e_runtime task/e/e_pipeline task/bound; do
  v=$($pmjson "$j" $m)
  check "$m = $v in [0, 1]" awk -v v="$v" 'BEGIN { exit !(v >= 0 && v <= 1) }'
done
tap_done
