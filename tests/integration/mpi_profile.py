#!/usr/bin/python3
"""Checks popmeter's MPI accounting in popmeter.json against expectations printed by a test program.

    mpi_profile.py OUTDIR --dump                 per-rank values (one "rank key value" per line)
    mpi_profile.py OUTDIR --check EXPECTFILE     compares; prints '# ...' diagnostics, exit 1 on mismatch
    mpi_profile.py OUTDIR --get RANK KEY         one value

OUTDIR is the POPMETER_OUTPUT of the run (or a directory of per-rank outputs OUTDIR/<x>/). Normally
rank 0 writes one popmeter.json holding every process; when the profiles could not be reduced each
process writes its own (OUTDIR, OUTDIR.1, ... or OUTDIR/<x>/): all the files found are merged by
rank, so both cases work.

EXPECTFILE holds lines 'EXPECT <rank> <key> <op> <value>' (other lines are ignored), op one of
== >= <= ; keys: the comm/io counters below, visits:<MPI region>, polls:<MPI region>,
<state>:<MPI region> (seconds of that state on the region's call paths, e.g. mpi_sync:MPI_Test),
<state> (seconds over the rank's locations, e.g. useful), cp_global_cue / cp_global_com /
cp_global_coo (seconds), locations.

--check also checks, for every rank, that the bytes per call path add up to the locations' totals
with the same meaning: bytes_sent / bytes_received point-to-point, coll_bytes_out / coll_bytes_in
collective (docs/json.md).
"""
import glob
import json
import os
import sys

# ------------------------------------------------------------------------------------------------
# JSON layout of popmeter.json (lib/profile/pm_profile_json.c). Adjust HERE if the schema changes.
LOCATIONS = "locations"             # list of locations
LOC_PROCESS = "process"             # location -> index into PROCESSES
PROCESSES = "processes"             # list of processes
PROC_RANK = "rank"                  # process -> MPI rank
COUNTER_GROUPS = {                  # location[group][key] -> summed per rank
    "comm": ("msgs_sent", "msgs_received", "bytes_sent", "bytes_received", "coll_calls",
             "coll_bytes_out", "coll_bytes_in", "polls"),
    "io": ("bytes_read", "bytes_written"),
}
IO_PREFIX = "io_"                   # io keys are reported as io_bytes_read / io_bytes_written
CRITICAL_PATH = ("critical_path", "global")   # location[a][b] -> {"cue","com","coo"} in seconds
REGIONS = "regions"                 # list of {"name": ...}
CALLPATHS = "callpaths"             # list of [parent, region]
VALUES = "values"                   # list of [cnode, location, visits, polls, ...]
VAL_CNODE, VAL_LOCATION, VAL_VISITS, VAL_POLLS = 0, 1, 2, 3
VAL_BYTES_SENT, VAL_BYTES_RECEIVED = 4, 5   # point-to-point
COLL_BYTES = "collective_bytes"     # optional list of [value index, bytes out, bytes in]
VAL_TIMES = 10                      # first per-state time column (in the order of "states")
STATES = "states"                   # state names
TIME_KEYS = ("time", "time_in_parallel")   # location -> {state: seconds}
# ------------------------------------------------------------------------------------------------


def load(outdir):
    base = glob.escape(outdir)
    files = sorted(set(glob.glob(os.path.join(base, "popmeter.json")) + glob.glob(base + ".*/popmeter.json") +
                       glob.glob(os.path.join(base, "*", "popmeter.json"))))
    per_rank = {}
    for f in files:
        with open(f) as fh:
            doc = json.load(fh)
        names = [r["name"] for r in doc[REGIONS]]
        ranks = [p[PROC_RANK] for p in doc[PROCESSES]]
        locs = doc[LOCATIONS]
        for loc in locs:
            r = ranks[loc[LOC_PROCESS]]
            d = per_rank.setdefault(r, {})
            d["locations"] = d.get("locations", 0) + 1
            for group, keys in COUNTER_GROUPS.items():
                for k in keys:
                    key = (IO_PREFIX + k) if group == "io" else k
                    d[key] = d.get(key, 0) + loc[group][k]
            for tk in TIME_KEYS:
                for state, t in loc[tk].items():
                    d[state] = d.get(state, 0.0) + t
            cp = loc[CRITICAL_PATH[0]][CRITICAL_PATH[1]]
            for k in ("cue", "com", "coo"):
                key = "cp_global_" + k
                d[key] = max(d.get(key, 0.0), cp[k])
        for v in doc[VALUES]:
            region = names[doc[CALLPATHS][v[VAL_CNODE]][1]]
            r = ranks[locs[v[VAL_LOCATION]][LOC_PROCESS]]
            d = per_rank.setdefault(r, {})
            d["callpaths:bytes_sent"] = d.get("callpaths:bytes_sent", 0) + v[VAL_BYTES_SENT]
            d["callpaths:bytes_received"] = d.get("callpaths:bytes_received", 0) + v[VAL_BYTES_RECEIVED]
            d["visits:" + region] = d.get("visits:" + region, 0) + v[VAL_VISITS]
            d["polls:" + region] = d.get("polls:" + region, 0) + v[VAL_POLLS]
            for i, state in enumerate(doc[STATES]):
                key = state + ":" + region
                d[key] = d.get(key, 0.0) + v[VAL_TIMES + i]
        for index, out, into in doc.get(COLL_BYTES, []):
            d = per_rank.setdefault(ranks[locs[doc[VALUES][index][VAL_LOCATION]][LOC_PROCESS]], {})
            d["callpaths:coll_bytes_out"] = d.get("callpaths:coll_bytes_out", 0) + out
            d["callpaths:coll_bytes_in"] = d.get("callpaths:coll_bytes_in", 0) + into
    return files, per_rank


def main():
    outdir, mode = sys.argv[1], sys.argv[2]
    files, data = load(outdir)
    if not files:
        print("# no popmeter.json under %s" % outdir)
        return 1
    if mode == "--dump":
        for r in sorted(data):
            for k in sorted(data[r]):
                print(r, k, data[r][k])
        return 0
    if mode == "--get":
        print(data.get(int(sys.argv[3]), {}).get(sys.argv[4], 0))
        return 0
    bad = n = 0
    with open(sys.argv[3]) as fh:
        for line in fh:
            w = line.split()
            if len(w) != 5 or w[0] != "EXPECT":
                continue
            r, key, op, want = int(w[1]), w[2], w[3], float(w[4])
            got = data.get(r, {}).get(key, 0)
            good = {"==": got == want, ">=": got >= want, "<=": got <= want}[op]
            n += 1
            if not good:
                bad += 1
                print("# rank %d %s: got %s, expected %s %s" % (r, key, got, op, w[4]))
    for r in sorted(data):
        for key in ("bytes_sent", "bytes_received", "coll_bytes_out", "coll_bytes_in"):
            got, want = data[r].get("callpaths:" + key, 0), data[r].get(key, 0)
            n += 1
            if got != want:
                bad += 1
                print("# rank %d %s: %s over the call paths, %s over the locations" % (r, key, got, want))
    print("# %d expectations checked, %d failed (%d profile file(s))" % (n, bad, len(files)))
    return 1 if bad or n == 0 else 0


sys.exit(main())
