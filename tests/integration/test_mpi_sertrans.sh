#!/bin/sh
# Serialization and transfer efficiency per region (docs/metrics.md §1.4) on a program whose answer
# is known by construction (progs/mpi_sertrans.c, 2 ranks, T = 0.2 s):
#  - "chain": each rank computes T and waits T for the other: SerE = 0.5, and the waits are
#    explained by the critical path, not by transfers: TE ~ 1;
#  - "exchange": both compute T, then swap large buffers at the same moment: SerE ~ 1, and the
#    swaps are transfer: the region's time on an ideal network is T, so TE = T / its time.
# The values are popmeter-report's per-region CSV rows; the wait / transfer split itself is checked
# at the MPI call paths of popmeter.json. Without the critical path the split is not measured: the
# regions' SerE and TE are n/a and popmeter.json has no "mpi_transfer".
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/mpi_common.sh"
rep="$top_builddir/reports/popmeter-report"
T=0.2
# csv FILE REGION METRIC [COLUMN]: a field (default: value) of a region row of the run
csv() { awk -F, -v r="$2" -v m="$3" -v k="${4:-9}" '$1 == "region" && $2 == r && $7 == m { print $k }' "$1"; }
# within VALUE LOW HIGH
within() { $py -c "import sys; v, a, b = map(float, sys.argv[1:]); sys.exit(0 if a <= v <= b else 1)" "$@"; }

out="$work/st"
run_pm 2 "$out" "$progs/mpi_sertrans" $T
check "exit 0, data ok" sh -c "test \$(grep -c 'data ok' '$out.out') -eq 2"
"$rep" --no-plots -o "$work/rep" "$out/r0" >/dev/null 2>"$work/rep.err"
check "popmeter-report on the run: exit 0" test $? -eq 0
f="$work/rep/scaling.csv"
s=$(csv "$f" chain ge/pe/comme/sere); t=$(csv "$f" chain ge/pe/comme/te)
diag "chain: SerE $s, TE $t"
check "chain: SerE = T / 2T = 0.5 (+-0.03)" within "$s" 0.47 0.53
# (a loaded machine or the sanitizer build delays a message's arrival by milliseconds: that is
# transfer as measured, hence the margins)
check "chain: TE ~ 1 (the waits are not transfer)" within "$t" 0.9 1.0
s=$(csv "$f" exchange ge/pe/comme/sere); t=$(csv "$f" exchange ge/pe/comme/te)
time=$(csv "$f" exchange time)
diag "exchange: SerE $s, TE $t, time $time s"
check "exchange: SerE ~ 1 (no rank waits for the other)" within "$s" 0.97 1.0
check "exchange: TE < 1 (the swaps are transfer)" within "$t" 0 0.97
ideal=$($py -c "import sys; print(float(sys.argv[1]) * float(sys.argv[2]))" "$t" "$time")
check "exchange: time on an ideal network = TE x time = T ($ideal s)" within "$ideal" 0.19 0.22
# the split at the MPI call paths: the chain's receives are waiting, the swaps transfer
split=$($py - "$out/r0/popmeter.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st, regs, cps = d["states"], d["regions"], d["callpaths"]
mpi = [k for k, s in enumerate(st) if s.startswith("mpi_") and s != "mpi_io"]
tr = {i: x for i, x in d["mpi_transfer"]}
agg = {}
for i, v in enumerate(d["values"]):
    name = regs[cps[v[0]][1]]["name"]
    m = sum(v[10 + k] for k in mpi)
    a = agg.setdefault(name, [0.0, 0.0])
    a[0] += m
    a[1] += tr.get(i, 0.0)
for name in ("MPI_Recv", "MPI_Sendrecv"):
    print(name, "%.6f %.6f" % tuple(agg[name]))
PY
)
diag "MPI time / transfer: $(echo $split)"
recv=$(echo "$split" | awk '$1 == "MPI_Recv" { print $3 / $2 }')
swap=$(echo "$split" | awk '$1 == "MPI_Sendrecv" { print $3 / $2 }')
check "MPI_Recv in the chain: at most 10 % of its time is transfer ($recv)" within "$recv" 0 0.1
check "MPI_Sendrecv: at least 80 % of its time is transfer ($swap)" within "$swap" 0.8 1.0

out="$work/nocp"
PM_MPIRUN_OPTS="-x POPMETER_CRITICAL_PATH=0" run_pm 2 "$out" "$progs/mpi_sertrans" $T
check "POPMETER_CRITICAL_PATH=0: exit 0" test $? -eq 0
check "POPMETER_CRITICAL_PATH=0: no mpi_transfer in popmeter.json" sh -c "! grep -q mpi_transfer '$out/r0/popmeter.json'"
"$rep" --no-plots -o "$work/rep0" "$out/r0" >/dev/null 2>&1
check "POPMETER_CRITICAL_PATH=0: the region's SerE is n/a, with the reason" \
  test "$(csv "$work/rep0/scaling.csv" chain ge/pe/comme/sere 12)" = "no critical path measured"
tap_done
