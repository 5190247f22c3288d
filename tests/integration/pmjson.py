#!/usr/bin/python3
"""Reads values out of a popmeter.json for shell tests.

    pmjson.py FILE model/path/to/metric      -> prints the value (or "na")
    pmjson.py FILE --sum KEY                 -> sum over locations of comm/io KEY or time state KEY
    pmjson.py FILE --count-locations         -> number of locations
    pmjson.py FILE --region-visits NAME      -> visits of region NAME summed over call paths/locations
  OpenMP (regions matched by the first name that starts with NAME, e.g. "imbalanced_region" for
  "imbalanced_region @omp_imbalance.c:27" (with libdw), "imbalanced_region._omp_fn.0" (GCC) or
  "imbalanced_region+0x23" (OMPT)):
    pmjson.py FILE --omp-region NAME KEY [J] -> omp_regions entry: name, span, instances, nthreads, or
                                                element J of thread_useful / thread_idle
    pmjson.py FILE --omp-region-sum NAME KEY -> sum over the threads of thread_useful / thread_idle
    pmjson.py FILE --count-omp-regions       -> number of omp_regions entries
    pmjson.py FILE --top KEY                 -> a top-level value (runtime, nnodes, ...)
    pmjson.py FILE --loc-time I CTX STATE    -> time of location I in a state, CTX serial or parallel
    pmjson.py FILE --loc-name I              -> name of location I
    pmjson.py FILE --loc-gap I               -> runtime - (registered + all its times): time lost
    pmjson.py FILE --region-time NAME STATE  -> exclusive time in a state of region NAME (all call paths)
    pmjson.py FILE --tasks QUERY...          -> task runtime (StarPU): see pmjson_tasks.py
    pmjson.py FILE --io-class MOUNT KEY      -> io_classes: KEY (calls, bytes_read, bytes_written, time,
                                                fstype, locations) of the file system mounted at MOUNT
    pmjson.py FILE --io-class-count          -> number of file classes
    pmjson.py FILE --cp LEVEL CLOCK          -> max over locations of critical_path LEVEL (process,
                                                global) CLOCK (cue, com, coo)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmjson_tasks  # noqa: E402


def metric(models, path):
    parts = path.split("/")
    node = models[parts[0]]
    for p in parts[1:]:
        node = next(c for c in node["children"] if c["id"] == p)
    return "na" if node["value"] is None else repr(node["value"])


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    arg = sys.argv[2]
    if arg == "--sum":
        key = sys.argv[3]
        total = 0
        for loc in doc["locations"]:
            for group in ("comm", "io", "time"):
                if key in loc[group]:
                    total += loc[group][key]
        print(total)
    elif arg == "--count-locations":
        print(len(doc["locations"]))
    elif arg == "--region-visits":
        names = [r["name"] for r in doc["regions"]]
        total = 0
        for v in doc["values"]:
            if names[doc["callpaths"][v[0]][1]] == sys.argv[3]:
                total += v[2]
        print(total)
    elif arg in ("--omp-region", "--omp-region-sum"):
        r = next(r for r in doc["omp_regions"] if r["name"].startswith(sys.argv[3]))
        v = r[sys.argv[4]]
        if arg == "--omp-region-sum":
            v = sum(v)
        elif len(sys.argv) > 5:
            v = v[int(sys.argv[5])]
        print(v)
    elif arg == "--top":
        print(doc[sys.argv[3]])
    elif arg == "--count-omp-regions":
        print(len(doc.get("omp_regions", [])))
    elif arg == "--loc-time":
        loc = doc["locations"][int(sys.argv[3])]
        print(loc["time" if sys.argv[4] == "serial" else "time_in_parallel"][sys.argv[5]])
    elif arg == "--loc-gap":
        loc = doc["locations"][int(sys.argv[3])]
        total = sum(loc["time"].values()) + sum(loc["time_in_parallel"].values())
        print(doc["runtime"] - loc["registered"] - total)
    elif arg == "--loc-name":
        print(doc["locations"][int(sys.argv[3])]["name"])
    elif arg == "--region-time":
        names = [r["name"] for r in doc["regions"]]
        col = 10 + doc["states"].index(sys.argv[4])
        print(sum(v[col] for v in doc["values"] if names[doc["callpaths"][v[0]][1]] == sys.argv[3]))
    elif arg == "--tasks":
        print(pmjson_tasks.query(doc, sys.argv[3:]))
    elif arg == "--io-class":
        io = doc.get("io_classes", {"classes": [], "values": []})
        k = next((i for i, c in enumerate(io["classes"]) if c["mount"] == sys.argv[3]), None)
        key = sys.argv[4]
        if k is None:
            print("absent")
        elif key == "fstype":
            print(io["classes"][k]["fstype"])
        elif key == "locations":
            print(len({v["location"] for v in io["values"] if v["class"] == k}))
        else:
            print(sum(v[key] for v in io["values"] if v["class"] == k))
    elif arg == "--io-class-count":
        print(len(doc.get("io_classes", {"classes": []})["classes"]))
    elif arg == "--cp":
        print(max(loc["critical_path"][sys.argv[3]][sys.argv[4]] for loc in doc["locations"]))
    else:
        print(metric(doc["models"], arg))


main()
