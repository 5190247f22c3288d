#!/bin/sh
# The whole task-efficiency decomposition from reference runs (docs/metrics.md §6.3): mfsolve
# lap3d:30 run under popmeter with its sequential kernels (--executor seq: every kernel in a user
# region named like its codelet), on one worker and on two (--no-subtrees: the same tasks in every
# run). popmeter show --ref-one --ref-seq gives granularity, locality, runtime and pipeline
# efficiency. Granularity and locality are recomputed here from the three runs' own files (the
# sequential kernels' region time, the one- and two-worker runs' task time per codelet): no range is
# asserted on them, since a kernel that runs faster than in its reference run gives a factor above 1
# by timing noise alone (up to 3.6 seen on a loaded machine). Their product with runtime and pipeline
# is the task efficiency e, and e x W x makespan the sequential kernels' time. A one-worker run with
# subtree tasks does not match: the unmatched codelet is named and the share of the task time still
# covered is given.
. "$top_srcdir/tests/integration/solver_common.sh"
launcher="$top_builddir/tools/popmeter"
py=/usr/bin/python3
POPMETER_REPORT=0; export POPMETER_REPORT
POPMETER_CUBE=0; export POPMETER_CUBE
run() { # NAME ARGS...: mfsolve lap3d:30 under popmeter into $work/NAME
  n=$1; shift
  timeout 300 "$launcher" run --output "$work/$n" -- "$mfsolve" -q --gen lap3d:30 "$@" >"$work/$n.out" 2>"$work/$n.err"
  check "$n: mfsolve exits 0 with its residual" sh -c "test $? -eq 0 && grep -q '^residual ' '$work/$n.out'"
}
run seq --executor seq --no-subtrees
run one --executor starpu --workers 1 --no-subtrees
run two --executor starpu --workers 2 --no-subtrees
run one_sub --executor starpu --workers 1

"$launcher" show --json --ref-one "$work/one" --ref-seq "$work/seq" "$work/two" >"$work/models.json" 2>"$work/show.err"
check "popmeter show --json with both references: exit 0" test $? -eq 0
$py - "$work/models.json" "$work/two/popmeter.json" "$work/seq/popmeter.json" "$work/one/popmeter.json" \
  >"$work/check" 2>&1 <<'PY'
import json, sys
models, two, seq, one = (json.load(open(f)) for f in sys.argv[1:5])

def find(node, path):
    for part in path.split("/"):
        node = next(c for c in node.get("children", []) if c["id"] == part)
    return node

def value(path):
    return find(models["task"], path).get("value")

factors = {k: value("e/" + k) for k in ("e_granularity", "e_locality", "e_runtime", "e_pipeline")}
e = value("e")
for k in ("e_runtime", "e_pipeline"):
    v = factors[k]
    print(("PASS" if v is not None and 0 < v <= 1 else "FAIL") + " %s = %s in (0, 1]" % (k, v))
prod = 1.0
for v in factors.values():
    prod *= v if v is not None else float("nan")
print(("PASS" if e is not None and abs(prod - e) <= 1e-12 * e else "FAIL") +
      " the product of the four factors (%r) is the task efficiency (%r)" % (prod, e))
W = sum(1 for l in two["locations"] if l["role"] in ("worker", "accel_worker"))
R = two["runtime"]
names = [r["name"] for r in seq["regions"]]
codelets = {c["name"] for c in two["tasks"]["codelets"]}  # mfsolve's phases (mfs_analysis...) are regions too
kernels = sum(sum(v[10:]) for v in seq["values"] if names[seq["callpaths"][v[0]][1]] in codelets)
print(("PASS" if e is not None and abs(e * W * R - kernels) <= 1e-9 * kernels else "FAIL") +
      " e x W x makespan = %r x %d x %r = %r, the sequential kernels' time %r" % (e, W, R, e * W * R if e else 0, kernels))
# every codelet is matched (next check), so granularity and locality are ratios of whole sums
task_one = sum(c["time"]["total"] for c in one["tasks"]["codelets"])
task_two = sum(c["time"]["total"] for c in two["tasks"]["codelets"])
for k, want in (("e_granularity", kernels / task_one), ("e_locality", task_one / task_two)):
    v = factors[k]
    print(("PASS" if v is not None and abs(v - want) <= 1e-9 * want else "FAIL") +
          " %s = %r, recomputed from the runs' files %r" % (k, v, want))
print(("PASS" if value("reference/coverage") == 100.0 else "FAIL") +
      " every codelet matched (coverage %s %%)" % value("reference/coverage"))
PY
tap_lines "$work/check"

# a one-worker run with subtree tasks (mfsolve prunes subtrees by the worker count): its task set
# differs from the two-worker run's, codelet by codelet; each is named with its counts, and the share
# of the task time covered (none) is given
POPMETER_TABLE_WIDTH=400 "$launcher" show --full --ref-one "$work/one_sub" --ref-seq "$work/seq" "$work/two" \
  >"$work/sub.out" 2>&1
check "mismatched task sets: the codelets are named with their counts" \
  grep -q "no codelet matched the reference runs by name and task count: mfs_.* ([0-9]* tasks, [0-9]* on one worker, [0-9]* sequential)" "$work/sub.out"
check "mismatched task sets: the share covered is given (0 %)" \
  grep -qE "Task time matched by the reference runs \[%\] +0\.00" "$work/sub.out"
# popmeter-report with the same references: the run's column holds the same task efficiency and
# factors as popmeter show (both come from metrics/model_task.c), in every output (here the CSV,
# to its six decimals)
"$top_builddir/reports/popmeter-report" -q --no-plots -o "$work/report" --ref-one "$work/one" --ref-seq "$work/seq" \
  "$work/two" >"$work/report.out" 2>&1
check "popmeter-report --ref-one --ref-seq: exit 0" test $? -eq 0
# same_factors MODELS CSV CONFIG LABEL: the CSV's column CONFIG holds the task efficiency and its four
# factors of popmeter show --json's MODELS (to the CSV's six decimals)
same_factors() {
  $py - "$@" >"$work/check_$4" 2>&1 <<'PY'
import csv, json, sys
models, table, config, label = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
rows = {r["metric"]: r["value"] for r in csv.DictReader(open(table))
        if r["section"] == "scaling" and (not config or r["config"] == config)}
def find(node, path):
    for part in path.split("/"):
        node = next(c for c in node.get("children", []) if c["id"] == part)
    return node
for path in ("e", "e/e_granularity", "e/e_locality", "e/e_runtime", "e/e_pipeline"):
    want = find(models["task"], path)["value"]
    got = rows.get(path)
    ok = bool(got) and abs(float(got) - want) <= 5e-7
    print(("PASS" if ok else "FAIL") + " %s %s = show's %r (%s)" % (label, path, want, got))
PY
  tap_lines "$work/check_$4"
}
same_factors "$work/models.json" "$work/report/scaling.csv" "" report
"$top_builddir/reports/popmeter-report" -q --no-plots -o "$work/report1" --ref-one "$work/one" "$work/two" \
  >"$work/report1.out" 2>&1
check "popmeter-report with --ref-one alone: a usage error naming both options" \
  sh -c "test $? -eq 2 && grep -q 'needs both --ref-one and --ref-seq' '$work/report1.out'"

# without references the summary says nothing of granularity; the full table says how to get them
"$launcher" show --full "$work/two" >"$work/noref.out" 2>&1
check "no references: the table says how to give them or to calibrate" \
  grep -qE "STARPU_CALIBRATE|--ref-one DIR --ref-seq DIR" "$work/noref.out"
# popmeter scale finds the references by itself: the study's 1 x 1 run (the task-based executor on one
# worker) and one more run with the words of --sequential (the kernels without the runtime). Its
# report's 1 x 2 column holds the decomposition popmeter show computes from the same runs.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 "$launcher" scale --ranks 1 --threads 1,2 \
  --mpirun none --sequential "--executor seq" --no-plots -q --out "$work/scale" -- \
  "$mfsolve" -q --gen lap3d:30 --no-subtrees --executor starpu >"$work/scale.out" 2>&1
check "popmeter scale --sequential: exit 0, the references run in runs/1x1 and runs/sequential" \
  sh -c "test $? -eq 0 && test -s '$work/scale/runs/1x1/popmeter.json' && test -s '$work/scale/runs/sequential/popmeter.json'"
"$launcher" show --json --ref-one "$work/scale/runs/1x1" --ref-seq "$work/scale/runs/sequential" \
  "$work/scale/runs/1x2" >"$work/scale_models.json" 2>/dev/null
configs=$(awk -F, '$1 == "scaling" { print $3 }' "$work/scale/scaling.csv" | sort -u | tr '\n' ' ')
# the sequential run is a reference, not a configuration of the study (it would be a second 1x1)
check "the study's columns are its two runs, main thread + workers (${configs})" test "$configs" = "1x2 1x3 "
same_factors "$work/scale_models.json" "$work/scale/scaling.csv" 1x3 scale
# a 1 x 1 run that is not task-based (mfsolve alone on one thread runs its sequential executor): the
# references are refused with the reason, the study is still reported
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 "$launcher" scale --ranks 1 --threads 1,2 \
  --mpirun none --sequential "--executor seq" --no-plots -q --out "$work/scale_seq1" -- \
  "$mfsolve" -q --gen lap3d:30 --no-subtrees >"$work/scale_seq1.out" 2>&1
check "popmeter scale: a sequential 1 x 1 run is refused as the one-worker reference, the report still written" \
  sh -c "test $? -eq 0 && grep -q 'one-worker reference ran no task on 0 task workers' '$work/scale_seq1.out' && test -s '$work/scale_seq1/scaling.csv'"
"$launcher" show --ref-one "$work/seq" --ref-seq "$work/seq" "$work/two" >"$work/swap.out" 2>&1
check "popmeter show: a sequential run given as --ref-one is an error naming the problem" \
  sh -c "test $? -eq 1 && grep -q 'must be the task-based run on exactly one worker' '$work/swap.out'"
tap_done
