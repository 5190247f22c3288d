#!/bin/sh
# Set up, build, and run the main job: an MPI program with a known load imbalance on 2 ranks under
# popmeter, printing popmeter's efficiency table.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
out=$(mktemp -d "${TMPDIR:-/tmp}/popmeter-demo.XXXXXX")
cd "$out"
mpirun -np 2 "$top/build/install/bin/popmeter" run --output "$out/run" -- \
  "$top/build/tests/integration/progs/mpi_imbalance" 0.1 5
