#!/bin/sh
# Set up, build, and run the main job: mfsolve (the multifrontal solver, solver/) on 2 MPI processes
# with one StarPU worker each, under popmeter, on a 3D Laplacian. Prints mfsolve's summary (times,
# flops, memory, tasks per type, residual) and then popmeter's efficiency table.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export STARPU_SILENT=1
out=$(mktemp -d "${TMPDIR:-/tmp}/popmeter-demo.XXXXXX")
cd "$out"
# --bind-to none: each process runs a submission thread and a worker (which also runs StarPU-MPI's
# progression when the machine has no CPU to spare for a thread of its own: mfsolve --mpi-progress)
mpirun -np 2 --bind-to none "$top/build/install/bin/popmeter" run --output "$out/run" -- \
  "$top/build/install/bin/mfsolve" --gen lap3d:30 --workers 1
