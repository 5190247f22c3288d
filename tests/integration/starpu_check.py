#!/usr/bin/python3
"""Checks of a StarPU run's popmeter.json for the shell tests; prints PASS/FAIL/SKIP lines.

    starpu_check.py dag JSON LABEL CP_ACTUAL_MS WORK_ACTUAL_MS
        The task-DAG critical path C measured by popmeter against cp_actual, the DAG's critical
        path recomputed from the task bodies' own measured durations:
          cp_actual <= C                      (each body lies inside its hooks' interval)
          C <= cp_actual + S + U + 0.5 ms     S: the hooks' time around the bodies, summed over all
                                              tasks (popmeter's codelet totals - the bodies' own);
                                              U: useful time of the application threads (the
                                              submissions' clock); 0.5 ms: timestamp rounding.
        The band S + U depends on the machine's load (preemption around the bodies); when it is
        wider than a quarter of the critical path the test still holds but says so (SKIP line).
        Also: the path's composition sums to C; the task model's CPB is C.

    starpu_check.py part JSON LABEL CODELET WORK_ACTUAL_MS [tool]
        The task-DAG critical path is codelet CODELET's tasks but for what the band above explains:
        C - (CODELET's time on the path) <= S + U + 0.5 ms (U = 0 with "tool", as for dag).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmjson_tasks  # noqa: E402


def metric(doc, path):
    node = doc["models"][path[0]]
    for p in path[1:]:
        node = next(c for c in node["children"] if c["id"] == p)
    return node["value"]


def band(doc, work_a, interface="interposition"):
    """(S, U) of the module's docstring: the hooks' time around the bodies and the application
    threads' useful time (none with StarPU 1.4's tool interface, which sees no submission)."""
    exec_total = sum(x["time"]["total"] for x in doc["tasks"]["codelets"])
    s = max(0.0, exec_total - work_a)
    u = 0.0 if interface == "tool" else \
        sum(l["time"]["useful"] + l["time_in_parallel"]["useful"] for l in doc["locations"] if l["role"] == "main")
    return s, u


def dag(path, label, cp_actual_ms, work_actual_ms, interface="interposition"):
    """interface "tool" (StarPU 1.4's tool interface): no submission is seen, so the application
    thread's time cannot enter the task path and is left out of the band."""
    doc = json.load(open(path))
    cp_a = float(cp_actual_ms) * 1e-3
    work_a = float(work_actual_ms) * 1e-3
    if doc.get("tasks") is None:
        print("FAIL %s: no task part in the profile" % label)
        return
    c = pmjson_tasks.query(doc, ["cp"])
    s, u = band(doc, work_a, interface)
    hi = cp_a + s + u + 0.5e-3
    print("# %s: measured %.3f ms, actual %.3f ms, band +%.3f ms (hooks %.3f, application %.3f), work %.3f ms"
          % (label, c * 1e3, cp_a * 1e3, (s + u) * 1e3, s * 1e3, u * 1e3, work_a * 1e3))
    print("%s %s: critical path >= recomputed from the bodies" % ("PASS" if c >= cp_a - 5e-5 else "FAIL", label))
    print("%s %s: critical path <= recomputed + hooks + application time" % ("PASS" if c <= hi else "FAIL", label))
    comp = pmjson_tasks.query(doc, ["cp-comp-sum"])
    print("%s %s: composition of the path sums to its length" % ("PASS" if abs(comp - c) < 1e-6 else "FAIL", label))
    cpb = metric(doc, ["task", "bound", "cpb"])
    print("%s %s: task model CPB is the task critical path" % ("PASS" if cpb is not None and abs(cpb - c) < 1e-9 else "FAIL", label))
    if s + u > 0.25 * cp_a:
        print("SKIP %s: band %.1f ms wider than 25%% of the path (loaded machine): bound loose" % (label, (s + u) * 1e3))
    else:
        print("PASS %s: bound tight (band within 25%% of the path)" % label)


def part(path, label, codelet, work_actual_ms, interface="interposition"):
    doc = json.load(open(path))
    if doc.get("tasks") is None:
        print("FAIL %s: no task part in the profile" % label)
        return
    c = pmjson_tasks.query(doc, ["cp"])
    a = pmjson_tasks.query(doc, ["cp-part", codelet])
    s, u = band(doc, float(work_actual_ms) * 1e-3, interface)
    print("%s %s (%s: %.3f of %.3f ms, the rest within hooks %.3f + application %.3f + 0.5 ms)"
          % ("PASS" if c - a <= s + u + 0.5e-3 else "FAIL", label, codelet, a * 1e3, c * 1e3, s * 1e3, u * 1e3))


if __name__ == "__main__":
    if sys.argv[1] == "dag":
        dag(*sys.argv[2:7])
    elif sys.argv[1] == "part":
        part(*sys.argv[2:7])
    else:
        raise SystemExit("unknown check " + sys.argv[1])
