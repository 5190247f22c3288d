"""Task-runtime queries for pmjson.py (the "tasks" part of popmeter.json, StarPU adapter).

    pmjson.py FILE --tasks cp [CLOCK]          -> task-DAG critical path (max over processes of
                                                  dag_g CLOCK: cue (default), com, coo), seconds
    pmjson.py FILE --tasks cp-part NAME         -> time of codelet NAME on that path (s)
    pmjson.py FILE --tasks cp-rank R            -> time of rank R on that path (s)
    pmjson.py FILE --tasks cp-comp-sum          -> sum of the path's composition (s)
    pmjson.py FILE --tasks sum FIELD            -> sum over processes of a field (dotted: clocks.lost)
    pmjson.py FILE --tasks codelet NAME FIELD   -> sum over processes/worker types (dotted: time.total)
    pmjson.py FILE --tasks transfers KIND FIELD -> sum over memory nodes of KIND (count, bytes)
    pmjson.py FILE --tasks mpi DIR FIELD        -> StarPU-MPI sends/receives summed (count, bytes)
    pmjson.py FILE --tasks role-count ROLE      -> locations with ROLE (worker, accel_worker, progress)
    pmjson.py FILE --tasks role-sum ROLE STATE  -> time in STATE summed over the locations with ROLE
"""

APP_HASH = 0xFFFFFFFF


def fnv1a32(name):
    h = 2166136261
    for b in name.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h - 1 if h == APP_HASH else h


def dotted(obj, path):
    for p in path.split("."):
        obj = obj[p]
    return obj


def path_proc(doc):
    procs = [p for p in doc["tasks"]["processes"] if p["tasks"] > 0]
    return max(procs, key=lambda p: p["dag_g"]["cue"])


def query(doc, args):
    t = doc.get("tasks")
    what = args[0]
    if what == "role-count":
        return sum(1 for l in doc["locations"] if l["role"] == args[1])
    if what == "role-sum":
        return sum(l["time"][args[2]] + l["time_in_parallel"][args[2]] for l in doc["locations"] if l["role"] == args[1])
    if t is None:
        return "none"
    if what == "cp":
        return path_proc(doc)["dag_g"][args[1] if len(args) > 1 else "cue"]
    if what == "cp-part":
        h = fnv1a32(args[1])
        return sum(c[2] for c in path_proc(doc)["composition"] if c[1] == h)
    if what == "cp-rank":
        return sum(c[2] for c in path_proc(doc)["composition"] if c[0] == int(args[1]))
    if what == "cp-comp-sum":
        p = path_proc(doc)
        return sum(c[2] for c in p["composition"]) + p["composition_other"]
    if what == "sum":
        return sum(dotted(p, args[1]) for p in t["processes"])
    if what == "codelet":
        return sum(dotted(c, args[2]) for c in t["codelets"] if c["name"] == args[1])
    if what == "transfers":
        return sum(x[args[2]] for x in t["transfers"] if x["kind"] == args[1])
    if what == "mpi":
        return sum(x[args[2]] for x in t["mpi"] if x["dir"] == args[1])
    raise SystemExit("unknown --tasks query " + what)
