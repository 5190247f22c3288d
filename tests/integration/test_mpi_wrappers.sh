#!/bin/sh
# The MPI wrappers as generated and as exported: the table matches mpi.h, every table entry has its
# C and Fortran wrappers with the state of its class, libpopmeter.so exports them, defines no PMPI
# name, has no hard reference to any MPI symbol and no DT_NEEDED on libmpi, and every profiling
# symbol it calls exists in Open MPI. The generator rejects malformed tables.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"
gen="$top_srcdir/lib/adapters/mpi/gen_wrappers.py"
def="$top_srcdir/lib/adapters/mpi/mpi_calls.def"
built="$top_builddir/lib/adapters/mpi"

check "generator lists the table" sh -c "$py '$gen' --table '$def' --list >'$work/list'"
ncalls=$(wc -l <"$work/list")
diag "$ncalls calls in the table"
check "table covers at least 170 calls" test "$ncalls" -ge 170
check "generator writes header, C and Fortran wrappers" \
  $py "$gen" --table "$def" --header "$work/pm_mpi_calls.h" --c "$work/c.c" --fortran "$work/f.c"
check "generated C wrappers are the built ones (deterministic)" cmp -s "$work/c.c" "$built/pm_mpi_wrap_c.c"
check "generated Fortran wrappers are the built ones" cmp -s "$work/f.c" "$built/pm_mpi_wrap_f.c"

# Every entry: C wrapper with the state of its class (or pm_poll: timed, no transition), Fortran wrappers.
cat >"$work/entries.py" <<'EOF'
import re, sys
lst, c, f = sys.argv[1:4]
csrc, fsrc = open(c).read(), open(f).read()
bad = 0
def fail(msg):
    global bad
    bad += 1
    print("# " + msg)
for line in open(lst):
    name, cls, state, role, kind, fort, f08, actions = line.rstrip("\n").split("\t")
    low = name.lower()
    if kind == "custom":
        continue
    m = re.search(r"^PM_EXPORT int %s\((.*?)^}" % name, csrc, re.S | re.M)
    if not m:
        fail("%s: no C wrapper" % name); continue
    body = m.group(1)
    if "return P%s(" % name not in body or ("P%s(" % name) not in body:
        fail("%s: does not call P%s" % (name, name))
    if state == "poll":
        if "pm_poll(L, pm_mpi_region[PM_MPI_%s], pm_t0, pm_t1)" % name not in body or "pm_call_enter" in body:
            fail("%s: polling call not timed with pm_poll" % name)
    elif "pm_call_enter(L, pm_mpi_region[PM_MPI_%s], %s," % (name, state) not in body:
        fail("%s: no pm_call_enter with %s" % (name, state))
    for a in actions.split(";"):
        if a == "none":
            continue
        act = a.split("(")[0]
        if act in ("cpcoll", "cpbarrier"):  # the clock exchange: posted before, completed after
            if "pm_mpi_pre_cpcoll(" not in body or "pm_mpi_cp_coll_post(" not in body:
                fail("%s: clock exchange not posted and completed" % name)
            continue
        if act not in ("send", "start", "startall", "mrecv", "imrecv", "request_free", "wait", "test",
                       "waitall", "testall", "waitany", "testany", "waitsome", "testsome") \
                and "pm_mpi_b_%s(" % act not in body and "pm_mpi_b_%s_f(" % act not in body:
            fail("%s: action %s not called" % (name, act))
    if fort == "fortran":
        if not re.search(r"^PM_EXPORT void %s_\(.*?\) \{.*?p%s_\(" % (low, low), fsrc, re.S | re.M):
            fail("%s: no Fortran wrapper %s_ calling p%s_" % (name, low, low))
        for alias in (low + "__", low, name.upper()):
            if not re.search(r"^PM_EXPORT void %s\(.*alias\(\"%s_\"\)" % (alias, low), fsrc, re.M):
                fail("%s: no Fortran alias %s" % (name, alias))
    if f08 == "f08" and not re.search(r"^PM_EXPORT void %s_f08_\(.*?\) \{.*?p%s_f08_\(" % (low, low), fsrc, re.S | re.M):
        fail("%s: no mpi_f08 wrapper" % name)
print("# %d problems" % bad)
sys.exit(1 if bad else 0)
EOF
check "every table entry has its C and Fortran wrappers with its class's state" \
  $py "$work/entries.py" "$work/list" "$work/c.c" "$work/f.c"

# The table's C signatures are exactly mpi.h's (const-correctness included).
mpih=$(echo '#include <mpi.h>' | $MPICC -E -H -x c - 2>&1 >/dev/null | grep -m1 '/mpi\.h$' | sed 's/^\.* *//')
cat >"$work/sig.py" <<'EOF'
import re, sys
src = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
proto = {}
for m in re.finditer(r"OMPI_DECLSPEC\s+[\w\s\*]+?\b(MPI_\w+)\s*\(([^;]*?)\)\s*(?:__mpi_interface\w*\([^)]*\))?\s*;", src):
    proto[m.group(1)] = m.group(2)
norm = lambda s: re.sub(r"\s*([*,\[\]])\s*", r"\1", " ".join(s.split()))
bad = 0
for line in open(sys.argv[2]):
    line = line.split("#", 1)[0]
    f = line.split("|")
    if len(f) < 5:
        continue
    name, params = f[0].strip(), f[2].strip()
    if name not in proto:
        print("# %s: not declared in mpi.h" % name); bad += 1
    elif norm(proto[name]) != norm(params):
        print("# %s: table '%s' != mpi.h '%s'" % (name, params, " ".join(proto[name].split()))); bad += 1
sys.exit(1 if bad else 0)
EOF
if [ -n "$mpih" ] && [ -f "$mpih" ]; then
  check "table signatures are mpi.h's ($mpih)" $py "$work/sig.py" "$mpih" "$def"
else
  skip "mpi.h not found through \$MPICC"
fi

# Exports of libpopmeter.so
nm -D --defined-only "$lib" | awk '{print $3}' | sort >"$work/defined"
nm -D --undefined-only "$lib" >"$work/undef"
cat >"$work/exports.py" <<'EOF'
import sys
lst, defined = sys.argv[1], set(open(sys.argv[2]).read().split())
bad = 0
for line in open(lst):
    name, cls, state, role, kind, fort, f08, actions = line.rstrip("\n").split("\t")
    low = name.lower()
    want = [name] + ([low + "_", low + "__", low, name.upper()] if fort == "fortran" else []) + \
           ([low + "_f08_"] if f08 == "f08" else [])
    for s in want:
        if s not in defined:
            print("# %s not exported" % s); bad += 1
sys.exit(1 if bad else 0)
EOF
check "exports MPI_X, mpi_x_, mpi_x__, mpi_x, MPI_X, mpi_x_f08_ for every table entry" \
  $py "$work/exports.py" "$work/list" "$work/defined"
for s in MPI_Send mpi_send_ MPI_Isend MPI_SEND mpi_isend_f08_ MPI_Init_thread mpi_finalize_ MPI_Waitall MPI_File_open mpi_file_open_; do
  check "exports $s" grep -qx "$s" "$work/defined"
done
check "defines no PMPI_ / pmpi_ symbol" sh -c "! grep -qiE '^pmpi_' '$work/defined'"
for s in MPI_Comm_rank MPI_Comm_size MPI_Wtime MPI_Type_size MPI_Get_count; do
  check "does not wrap the cheap query $s" sh -c "! grep -qx '$s' '$work/defined'"
done
# (OTF2's MPI event writers, OTF2_EvtWriter_Mpi*, are libotf2's, not MPI's)
strong=$(awk '$1 == "U" {print $2}' "$work/undef" | grep -v '^OTF2_' | grep -iE '(^|_)(mpi|pmpi|ompi|opal|orte)' | head -5)
check "no strong undefined MPI symbol${strong:+ (found: $strong)}" test -z "$strong"
nweak=$(grep -ciE ' [wv] .*(pmpi|ompi_)' "$work/undef")
diag "$nweak weak references to PMPI / Open MPI symbols"
check "PMPI symbols are weak references" test "$nweak" -gt 300
check "no DT_NEEDED on libmpi" sh -c "! readelf -d '$lib' | grep NEEDED | grep -qi mpi"

# Every profiling symbol called exists in Open MPI's libraries.
libdir=$($MPICC --showme:libdirs 2>/dev/null | awk '{print $1}')
if [ -n "$libdir" ] && [ -f "$libdir/libmpi.so" ]; then
  nm -D --defined-only "$libdir/libmpi.so" | awk '{print $3}' >"$work/libmpi"
  missing=$(grep -o 'P\(MPI_[A-Za-z0-9_]*\)(' "$work/c.c" | tr -d '(' | sort -u | grep -vxF -f "$work/libmpi" | head -5)
  check "every PMPI_X called exists in libmpi.so${missing:+ (missing: $missing)}" test -z "$missing"
  for fl in libmpi_mpifh libmpi_usempif08; do
    if [ -f "$libdir/$fl.so" ]; then
      nm -D --defined-only "$libdir/$fl.so" | awk '{print $3}' >"$work/$fl"
      case $fl in libmpi_mpifh) pat='pmpi_[a-z0-9_]*[a-z0-9]_(' ;; *) pat='pmpi_[a-z0-9_]*_f08_(' ;; esac
      missing=$(grep -o "$pat" "$work/f.c" | tr -d '(' | sort -u | { [ $fl = libmpi_mpifh ] && grep -v '_f08_$' || cat; } \
        | grep -vxF -f "$work/$fl" | head -5)
      check "every Fortran profiling symbol called exists in $fl.so${missing:+ (missing: $missing)}" test -z "$missing"
    else
      skip "$fl.so not found"
    fi
  done
else
  skip "libmpi.so not found through \$MPICC --showme:libdirs"
fi

# The generator refuses malformed tables with a message naming the line.
printf 'MPI_Send | int | const void *buf, int count | p2p_sometimes | none\n' >"$work/bad1.def"
$py "$gen" --table "$work/bad1.def" --list >/dev/null 2>"$work/bad1.err"
check "generator rejects an unknown class" sh -c "test $? -ne 0 && grep -q 'line 1: unknown class' '$work/bad1.err'"
printf 'MPI_Send | int | const void *buf, int count | p2p_blocking | send(count,datatype,dest,tag,comm)\n' >"$work/bad2.def"
$py "$gen" --table "$work/bad2.def" --list >/dev/null 2>"$work/bad2.err"
check "generator rejects an action argument that is not a parameter" sh -c "test $? -ne 0 && grep -q 'not a parameter' '$work/bad2.err'"
printf 'MPI_Barrier | int | MPI_Comm comm | collective | none\nMPI_Barrier | int | MPI_Comm comm | collective | none\n' >"$work/bad3.def"
$py "$gen" --table "$work/bad3.def" --list >/dev/null 2>"$work/bad3.err"
check "generator rejects a call listed twice" sh -c "test $? -ne 0 && grep -q 'listed twice' '$work/bad3.err'"
tap_done
