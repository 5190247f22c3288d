# Shared by the MPI integration tests (sourced after tests/tap.sh).
lib="$top_builddir/lib/.libs/libpopmeter.so"
progs="$top_builddir/tests/integration/progs"
py=/usr/bin/python3
mpiprof="$py $top_srcdir/tests/integration/mpi_profile.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmmpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
: "${MPIRUN:=mpirun}"

# run_pm NP OUTDIR PROG ARGS...: runs PROG on NP ranks with popmeter preloaded, stdout in OUTDIR.out,
# stderr in OUTDIR.err. Each rank gets POPMETER_OUTPUT=OUTDIR/r<rank>: rank 0 writes the run
# profile there (or, if the profiles were not reduced, every rank writes its own; mpi_profile.py
# merges whatever it finds). Extra mpirun options can be given in PM_MPIRUN_OPTS; PM_PRELOAD
# replaces the preloaded library (empty: none, for programs linked with -lpopmeter).
run_pm() {
  np=$1; out=$2; shift 2
  mkdir -p "$out"
  timeout 120 $MPIRUN -np "$np" -x LD_PRELOAD="${PM_PRELOAD-$lib}" -x POPMETER_REPORT=0 -x POPMETER_CUBE=0 $PM_MPIRUN_OPTS \
    /bin/sh -c 'POPMETER_OUTPUT="$0/r$OMPI_COMM_WORLD_RANK" exec "$@"' "$out" "$@" >"$out.out" 2>"$out.err"
}

# the popmeter warnings of a run (stderr), without the launcher noise
pm_warnings() { grep 'popmeter' "$1" | grep -v 'already holds a popmeter.json'; }
