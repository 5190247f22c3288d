#!/bin/sh
# mfsolve on 2 MPI processes under `popmeter run`: popmeter's StarPU adapter sees the solver's
# codelets with their tags (the front, STARPU_TAG_ONLY) and analytic flops (STARPU_FLOPS), with no
# popmeter call in the solver. popmeter.json's task counts per codelet equal the counts mfsolve
# prints, the per-tag counts add up to the same total, and the flops popmeter summed (per codelet and
# per tag) are the flops mfsolve's tasks carried. What mfsolve publishes (its assembly tree and its
# tracked memory over time) reaches popmeter.json.
. "$top_srcdir/tests/integration/solver_common.sh"
launcher="$top_builddir/tools/popmeter"
pmjson="/usr/bin/python3 $top_srcdir/tests/integration/pmjson.py"
POPMETER_CUBE=0; export POPMETER_CUBE

timeout 180 $MPIRUN -np 2 --bind-to none -x STARPU_SILENT -x POPMETER_CUBE "$launcher" run --output "$work/pm" -- \
  "$mfsolve" -q --gen lap3d:14 --nb 24 --workers 1 >"$work/out" 2>"$work/err"
rc=$?
check "mfsolve on 2 processes under popmeter: exit 0 (got $rc)" test $rc -eq 0
j="$work/pm/popmeter.json"
if [ ! -s "$j" ]; then notok "popmeter.json written"; sed 's/^/# /' "$work/err" | tail -5; tap_done; fi
check "the efficiency table was printed" grep -q "Parallel efficiency" "$work/err"
check "mfsolve's summary was printed" grep -q "^residual " "$work/out"
# the BLAS kernels it ran with, under mpirun and popmeter alike (mfsolve may have restarted itself
# with OPENBLAS_CORETYPE: solver/mfs_blas_core.c)
check "mfsolve names its BLAS kernels ($(grep '^blas ' "$work/out" | head -n 1))" grep -q "^blas *OpenBLAS, .* kernels" "$work/out"
line=$(grep '^tasks ' "$work/out")
total=$(echo "$line" | sed -n 's/^tasks *\([0-9]*\):.*/\1/p')
check "mfsolve reports its tasks ($total)" test "${total:-0}" -gt 0
sum=0
for t in init assemble potrf trsm syrk gemm cleanup subtree; do
  want=$(echo "$line" | sed -n "s/.* $t \([0-9]*\)[,;].*/\1/p")
  got=$($pmjson "$j" --tasks codelet "mfs_$t" count)
  check "codelet mfs_$t: popmeter counted $got tasks, mfsolve ran ${want:-?}" test "$got" = "${want:-x}"
  sum=$((sum + ${got:-0}))
done
check "the codelets' counts add up to mfsolve's total ($sum)" test "$sum" = "$total"
tags=$(/usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tasks"]["tags"]; print(len(t), sum(r[2] for r in t), repr(sum(r[6] for r in t)), min(r[1] for r in t))' "$j")
set -- $tags
check "every task carries a tag: per-tag counts add up to $total (got $2 over $1 tags)" test "$2" = "$total"
check "tags are front numbers (smallest $4 >= 0)" test "$4" -ge 0
fl=$(echo "$line" | sed -n 's/.*task flops \([0-9.e+-]*\).*/\1/p')
cf=$(/usr/bin/python3 -c 'import json,sys; print(repr(sum(c["flops"] for c in json.load(open(sys.argv[1]))["tasks"]["codelets"])))' "$j")
check "popmeter's codelet flops ($cf) are the tasks' flops ($fl)" \
  awk -v a="$cf" -v b="$fl" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }'
check "popmeter's per-tag flops ($3) are the tasks' flops" \
  awk -v a="$3" -v b="$fl" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }'
check "StarPU-MPI transfers between the processes were seen" test "$($pmjson "$j" --tasks mpi send count)" -gt 0

# what mfsolve publishes (popmeter.h): its assembly tree, one node per front, each tagged task's tag a
# node; the memory its allocator tracks, whose largest value is the peak mfsolve reports
nfronts=$(sed -n 's/^fronts *\([0-9]*\) .*/\1/p' "$work/out")
tree=$(/usr/bin/python3 - "$j" <<'EOP'
import json, sys
j = json.load(open(sys.argv[1]))
nodes = j["tag_tree"]["nodes"]
tags = {n[0] for n in nodes}
parents_ok = all(n[1] == -1 or n[1] in tags for n in nodes)
roots = sum(1 for n in nodes if n[1] == -1)
tasks_ok = all(r[1] in tags for r in j["tasks"]["tags"])
ranks = sorted({n[4] for n in nodes})
mem = [s for s in j["series"] if s["name"] == "memory in use (bytes)"]
peak = max(v[1] for s in mem for v in s["values"] if v)
print(len(nodes), int(parents_ok), roots, int(tasks_ok), ",".join(map(str, ranks)), len(mem), "%.1f" % (peak / 1e6))
EOP
)
set -- $tree
check "tag tree: one node per front ($1 nodes, $nfronts fronts)" test "$1" = "$nfronts"
check "tag tree: every parent is a node" test "$2" = 1
check "tag tree: roots ($3) are the fronts without a parent" test "$3" -ge 1
check "tag tree: every task's tag is a node" test "$4" = 1
check "tag tree: fronts owned by both processes ($5)" test "$5" = "0,1"
check "memory series: one per process ($6)" test "$6" = 2
peak=$(sed -n 's/^process *tracked allocation peak \([0-9.]*\) MB.*/\1/p' "$work/out")
check "memory series: its largest value ($7 MB) is mfsolve's peak ($peak MB)" test "$7" = "$peak"

# the submitting thread's own waits (pm_wait_begin/end, weak in mfsolve): synchronisation wait in
# their regions, never useful time (the task graph's critical path must not run through them)
waits=$(/usr/bin/python3 - "$j" <<'EOP'
import json, sys
j = json.load(open(sys.argv[1]))
st = j["states"]; u = 10 + st.index("useful"); w = 10 + st.index("sync_wait")
rid = {r["name"]: i for i, r in enumerate(j["regions"])}
def times(name):
    nodes = {k for k, c in enumerate(j["callpaths"]) if c[1] == rid.get(name)}
    vals = [v for v in j["values"] if v[0] in nodes]
    return sum(v[2] for v in vals), sum(v[w] for v in vals), sum(v[u] for v in vals)
n, wt, ut = times("mfs_wait_tasks")
phases = [times(ph)[0] for ph in ("mfs_read", "mfs_analysis", "mfs_factorization", "mfs_solve")]
print(n, int(wt > 0), repr(ut), ",".join(str(v) for v in phases))
EOP
)
set -- $waits
check "the submitter's waits are a region (mfs_wait_tasks: $1 visits)" test "${1:-0}" -gt 0
check "mfs_wait_tasks is synchronisation wait" test "$2" = 1
check "mfs_wait_tasks holds no useful time ($3 s)" test "$3" = 0
# mfsolve's phases are user regions too (visits of mfs_read, _analysis, _factorization, _solve)
check "each process entered each of mfsolve's phases once ($4)" test "$4" = "2,2,2,2"
# Workers: mfsolve pins them with starpu_execute_on_each_worker, whose tasks StarPU 1.3 runs without
# a post-exec hook; a worker's useful time is its task bodies' time all the same. The task path:
# what it counts as application threads' time on a process is some of their useful time, not the
# workers' bodies (mfsolve unregisters its tiles with starpu_data_unregister_submit, whose
# acquisition StarPU completes in callbacks on the workers)
times=$(/usr/bin/python3 - "$j" <<'EOP'
import json, sys
j = json.load(open(sys.argv[1]))
procs = sorted({l["process"] for l in j["locations"]})
useful = lambda p, roles, keep: sum(l["time"]["useful"] + l["time_in_parallel"]["useful"] for l in j["locations"]
                                    if l["process"] == p and (l["role"] in roles) == keep)
bodies = lambda p: sum(c["time"]["total"] for c in j["tasks"]["codelets"] if c["process"] == p)
app = lambda p: max((sum(c[2] for c in q["composition"] if c[0] == p and c[1] == 0xFFFFFFFF)
                     for q in j["tasks"]["processes"]), default=0)
out = []
for p in procs:
    w = useful(p, ("worker", "accel_worker"), True)
    a = useful(p, ("worker", "accel_worker", "progress"), False)
    out.append("%d:%.6f:%.6f:%.6f:%.6f" % (p, w, bodies(p), app(p), a))
print(" ".join(out))
EOP
)
for t in $times; do
  IFS=: read -r p w b a u <<EOT
$t
EOT
  check "process $p: workers useful $w s = their task bodies $b s" awk -v w="$w" -v b="$b" 'BEGIN { exit !(w >= b - 0.001 && w <= b + 0.005) }'
  check "process $p: application time on the task path $a s <= application threads' useful time $u s" \
    awk -v a="$a" -v u="$u" 'BEGIN { exit !(a <= u + 0.001) }'
done
tap_done
