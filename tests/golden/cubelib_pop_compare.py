#!/usr/bin/python3
"""Compares CubeLib's own values of popmeter's POP derived metrics with popmeter.json.

    cubelib_pop_compare.py CUBE_DUMP PROFILE_DIR

runs CubeLib's cube_dump on PROFILE_DIR/profile.cubex and checks, at every call path (inclusive):
  - over the whole system (-t aggr): pop_lb, pop_pe, pop_comme, pop_max_useful, pop_max_time, and
    when the run measured MPI transfer time (popmeter.json "mpi_transfer"): pop_sere, pop_te,
    pop_max_ideal, transfer_time_mpi
  - for every location (-t ID): the same metrics of that single location
and the Advisor's base metrics comp (= useful) and execution (= time - idle, Score-P's meaning),
and with the transfer time its max_total_time_ideal (= execution - transfer),
against the values recomputed from popmeter.json's exclusive `values` (docs/json.md) with the
definitions of docs/cube.md: over the compute locations of the selection (progress threads and
device streams excluded), LB = sum useful / (n * max useful), PE = sum useful / (n * max time),
CommE = max useful / max time, ideal time = time - transfer, SerE = max useful / max ideal time,
TE = max ideal time / max time; 0 where the denominator is 0 (CubeLib's division by zero). A
selection without compute location is skipped (CubeLib shows 0 there).

Prints one line per mismatch and a summary "compared N values, M mismatches"; exit status 1 on a
mismatch, 2 when cube_dump fails.
"""
import json
import os
import re
import subprocess
import sys

BASE_METRICS = ["pop_lb", "pop_pe", "pop_comme", "pop_max_useful", "pop_max_time", "comp", "execution"]
TRANSFER_METRICS = ["pop_sere", "pop_te", "pop_max_ideal", "transfer_time_mpi", "max_total_time_ideal"]
NONCOMPUTE = {"progress", "device"}
# cube_dump prints 6 significant digits
REL_TOL = 5e-6


def inclusive_times(doc):
    """Inclusive useful, measured, idle-state and MPI transfer time per [call path][location]."""
    states = doc["states"]
    useful, off, idle = states.index("useful"), states.index("off"), states.index("idle")
    ncp, nloc = len(doc["callpaths"]), len(doc["locations"])
    u = [[0.0] * nloc for _ in range(ncp)]
    t = [[0.0] * nloc for _ in range(ncp)]
    i = [[0.0] * nloc for _ in range(ncp)]
    x = [[0.0] * nloc for _ in range(ncp)]
    for row in doc["values"]:
        cp, loc, times = row[0], row[1], row[10:]
        u[cp][loc] += times[useful]
        t[cp][loc] += sum(v for k, v in enumerate(times) if k != off)
        i[cp][loc] += times[idle]
    for index, seconds in doc.get("mpi_transfer", []):
        row = doc["values"][index]
        x[row[0]][row[1]] += seconds
    # parents precede their children in `callpaths`: fold bottom-up
    for cp in range(ncp - 1, -1, -1):
        parent = doc["callpaths"][cp][0]
        if parent >= 0:
            for loc in range(nloc):
                u[parent][loc] += u[cp][loc]
                t[parent][loc] += t[cp][loc]
                i[parent][loc] += i[cp][loc]
                x[parent][loc] += x[cp][loc]
    return u, t, i, x


def ratio(a, b):
    return a / b if b else 0.0


def reference(u, t, i, x, cp, locs, all_locs):
    """The metrics at call path cp: the POP ones over the compute locations locs, the Advisor's base
    metrics summed over every selected location all_locs."""
    if not locs:
        return None
    us = [u[cp][l] for l in locs]
    ts = [t[cp][l] for l in locs]
    n, su, mu, mt = len(locs), sum(us), max(us), max(ts)
    mi = max(t[cp][l] - x[cp][l] for l in locs)
    execution = sum(t[cp][l] - i[cp][l] for l in all_locs)
    transfer = sum(x[cp][l] for l in all_locs)
    return {"pop_lb": ratio(su, n * mu), "pop_pe": ratio(su, n * mt), "pop_comme": ratio(mu, mt),
            "pop_max_useful": mu, "pop_max_time": mt, "comp": sum(u[cp][l] for l in all_locs),
            "execution": execution, "pop_sere": ratio(mu, mi), "pop_te": ratio(mi, mt), "pop_max_ideal": mi,
            "transfer_time_mpi": transfer, "max_total_time_ideal": execution - transfer}


def cube_dump(exe, cube, args, metrics):
    r = subprocess.run([exe, "-m", ",".join(metrics), "-c", "all", "-z", "incl", "-s", "csv2"] + args + [cube],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("cube_dump %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.strip()[:2000]), file=sys.stderr)
        sys.exit(2)
    lines = [l for l in r.stdout.splitlines() if l.strip()]
    header = [h.strip() for h in lines[0].split(",")]
    return [dict(zip(header, l.split(","))) for l in lines[1:]]


def cube_locations(exe, cube, doc):
    """CUBE location id -> popmeter.json location index, matched by (process rank, thread)."""
    r = subprocess.run([exe, "-w", "systemtree", cube], capture_output=True, text=True)
    by_key = {(doc["processes"][l["process"]]["rank"], l["thread"]): i for i, l in enumerate(doc["locations"])}
    mapping, rank = {}, None
    for line in r.stdout.splitlines():
        m = re.search(r"\(id=(\d+), type=(\w+), rank=(\d+)", line)
        if not m:
            continue
        if m.group(2) == "process":
            rank = int(m.group(3))
        else:
            mapping[int(m.group(1))] = by_key[(rank, int(m.group(3)))]
    return mapping


def main():
    exe, directory = sys.argv[1], sys.argv[2]
    cube = os.path.join(directory, "profile.cubex")
    with open(os.path.join(directory, "popmeter.json")) as f:
        doc = json.load(f)
    u, t, idle, transfer = inclusive_times(doc)
    # the transfer metrics exist when the run measured the transfer time (the critical path on)
    metrics = BASE_METRICS + (TRANSFER_METRICS if "mpi_transfer" in doc else [])
    compute = [i for i, l in enumerate(doc["locations"]) if l["role"] not in NONCOMPUTE]
    names = [r["name"] for r in doc["regions"]]
    compared = bad = 0

    def compare(rows, locs_of, all_of, what):
        nonlocal compared, bad
        for row in rows:
            cp = int(row["Cnode ID"])
            ref = reference(u, t, idle, transfer, cp, locs_of(row), all_of(row))
            if ref is None:
                continue
            for m in metrics:
                got, want = float(row[m]), ref[m]
                compared += 1
                if abs(got - want) > REL_TOL * max(abs(want), 1e-9) + 1e-9:
                    bad += 1
                    print("MISMATCH %s %s at call path %d (%s): CubeLib %.9g, popmeter.json %.9g" %
                          (m, what(row), cp, names[doc["callpaths"][cp][1]], got, want))

    everyone = list(range(len(doc["locations"])))
    compare(cube_dump(exe, cube, ["-t", "aggr"], metrics), lambda row: compute, lambda row: everyone,
            lambda row: "whole system")
    loc_of = cube_locations(exe, cube, doc)
    if len(loc_of) != len(doc["locations"]):
        print("MISMATCH the system tree has %d locations, popmeter.json %d" % (len(loc_of), len(doc["locations"])))
        bad += 1
    rows = []
    for cid in sorted(loc_of):
        rows += [dict(r, loc=loc_of[cid]) for r in cube_dump(exe, cube, ["-t", str(cid)], metrics)]
    compare(rows, lambda row: [row["loc"]] if row["loc"] in compute else [], lambda row: [row["loc"]],
            lambda row: "location %s" % doc["locations"][row["loc"]]["name"])
    print("compared %d values, %d mismatches" % (compared, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
