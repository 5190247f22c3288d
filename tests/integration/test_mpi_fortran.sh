#!/bin/sh
# Fortran programs are measured: Open MPI's Fortran bindings call PMPI_* directly, so only the
# Fortran wrappers (mpi_x_ for mpif.h / 'use mpi', mpi_x_f08_ for 'use mpi_f08') can see them.
# Counts in popmeter.json must match what the programs print (including receives whose status is
# MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, which the wrappers replace by a local status).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"

for p in mpi_counts_f mpi_counts_f08; do
  if [ ! -x "$progs/$p" ]; then
    skip "$p not built (no MPI Fortran compiler)"
    continue
  fi
  for np in 2 3; do
    out="$work/$p.$np"
    run_pm $np "$out" "$progs/$p"
    check "$p, $np ranks: exit 0" test $? -eq 0
    check "$p, $np ranks: the program's data checks pass" grep -q "data ok" "$out.out"
    check "$p, $np ranks: counts in popmeter.json match" sh -c "$mpiprof '$out' --check '$out.out' >'$out.chk' 2>&1"
    head -20 "$out.chk"
  done
done
tap_done
