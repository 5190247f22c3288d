#!/usr/bin/python3
"""Reads the hardware-counter part of a popmeter.json for the counter tests.

    counters_json.py FILE status               -> counters.status
    counters_json.py FILE source               -> counters.source ("papi", or "none": not built)
    counters_json.py FILE reason CATEGORY      -> counters.reasons[CATEGORY] ("" when none)
    counters_json.py FILE events               -> "name:counted" per event, space-separated
    counters_json.py FILE why EVENT            -> why the event is not counted ("" when counted)
    counters_json.py FILE sum EVENT            -> sum over locations of its useful-time count ("na"
                                                  when no location counted it)
    counters_json.py FILE counted-locations    -> number of locations with any counted event
    counters_json.py FILE na MODEL/PATH        -> the n/a reason of a model node ("" when it has a value)
    counters_json.py FILE value MODEL/PATH     -> the value of a model node ("na" when n/a)
"""
import json
import sys


def node(models, path):
    parts = path.split("/")
    n = models[parts[0]]
    for p in parts[1:]:
        n = next(c for c in n["children"] if c["id"] == p)
    return n


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    c = doc["counters"]
    what = sys.argv[2]
    if what == "status":
        print(c["status"])
    elif what == "source":
        print(c["source"])
    elif what == "reason":
        print(c["reasons"].get(sys.argv[3], ""))
    elif what == "events":
        print(" ".join("%s:%s" % (e["name"], "yes" if e["counted"] else "no") for e in c["events"]))
    elif what == "why":
        print(next(e.get("why", "") for e in c["events"] if e["name"] == sys.argv[3]))
    elif what == "sum":
        k = [e["name"] for e in c["events"]].index(sys.argv[3])
        vals = [loc["useful"][k] for loc in c["locations"] if loc["useful"][k] is not None]
        print(sum(vals) if vals else "na")
    elif what == "counted-locations":
        print(len(c["locations"]))
    elif what == "na":
        n = node(doc["models"], sys.argv[3])
        print(n.get("na_reason", "") if n["value"] is None else "")
    elif what == "value":
        n = node(doc["models"], sys.argv[3])
        print("na" if n["value"] is None else repr(n["value"]))
    else:
        sys.exit("unknown query " + what)


main()
