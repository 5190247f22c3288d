# Sourced by the mfsolve integration tests: the TAP helpers, mfsolve with StarPU-MPI (or a skip
# of the whole script), mpirun, and a work directory removed at exit.
. "$top_srcdir/tests/tap.sh"
mfsolve="$top_builddir/solver/mfsolve"
if [ ! -x "$mfsolve" ]; then skip "mfsolve not built"; tap_done; fi
if ! "$mfsolve" --help | grep -q "StarPU + StarPU-MPI"; then skip "mfsolve built without StarPU-MPI"; tap_done; fi
: "${MPIRUN:=mpirun}"
if ! command -v "$MPIRUN" >/dev/null 2>&1; then skip "no mpirun"; tap_done; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pmsolver.XXXXXX")
trap 'rm -rf "$work"' EXIT
STARPU_SILENT=1; export STARPU_SILENT
