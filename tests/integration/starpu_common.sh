# Shared by the StarPU integration tests (source after tap.sh).
# Workers are not bound to cores (the machine may be shared and loaded); two CPU workers.
lib="$top_builddir/lib/.libs/libpopmeter.so"
progs="$top_builddir/tests/integration/progs"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
check_py="/usr/bin/python3 $top_srcdir/tests/integration/starpu_check.py"
STARPU_WORKERS_NOBIND=1; export STARPU_WORKERS_NOBIND
STARPU_NCPU=${STARPU_NCPU:-2}; export STARPU_NCPU
STARPU_NOPENCL=0; export STARPU_NOPENCL
STARPU_NCUDA=0; export STARPU_NCUDA
POPMETER_REPORT=0; export POPMETER_REPORT
work=$(mktemp -d "${TMPDIR:-/tmp}/pmsp.XXXXXX")
trap 'rm -rf "$work"' EXIT

