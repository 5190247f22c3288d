#!/usr/bin/python3
"""Semantic read-back of a popmeter OTF2 archive with python3-otf2 (Debian's bindings import only
with /usr/bin/python3).

  trace_check.py check ARCHIVE [LABEL]
      prints one "PASS text" / "FAIL text" line per property (tests/integration/starpu_common.sh
      tap_lines turns them into TAP):
      - on every location: timestamps never decrease; every Leave closes the innermost open
        region and nothing is left open at the end; the events read are as many as the
        location's definition says
      - point-to-point: per (communicator, sender process, receiver process, tag) as many sends as
        receives, of the same lengths (as multisets: order across a process's threads is not
        MPI's matching order); every MpiIsend / MpiIrecvRequest completed once,
        on its location (MpiIsendComplete / MpiIrecv or MpiRequestCancelled)
      - collectives: MpiCollectiveBegin / MpiCollectiveEnd alternate on every location, and the
        members of a communicator run the same sequence of operations on it
      - OpenMP: ThreadFork / ThreadJoin and ThreadTeamBegin / ThreadTeamEnd alternate per location
  trace_check.py count ARCHIVE TYPE [key=value ...]
      prints how many events of class TYPE (python3-otf2 class name: Enter, MpiSend,
      MpiCollectiveEnd, ThreadFork...) match every key: rank=<process>, location=<substring of
      the location name>, region=<region name>, tag=, comm=<communicator name>, op=<collective
      operation name>, role=<location name prefix>, bytes=<message length>, sent= / received=
      <collective bytes>, depth=<nesting depth of an Enter, 1: outermost>.
  trace_check.py expect ARCHIVE QUERIES
      the same counts for every line of the file QUERIES (EXPECTED, DESCRIPTION, TYPE, key=value...
      separated by tabs), printed as PASS / FAIL lines; the archive is read once
  trace_check.py tasks ARCHIVE [LABEL]
      the task attributes of task bodies' Leave events (Leaves carrying "task critical path in"),
      as PASS / FAIL lines: every body on a worker carries them; the body's duration is
      cp_out - cp_in; submitted <= ready <= popped <= the body's Enter; then prints
      "CHAIN region region ..." -- the critical path rebuilt from the attributes: from the body
      with the largest cp_out, each step back to the body whose cp_out is its cp_in
  trace_check.py list ARCHIVE
      prints "rank location-name event-class region" per event (diagnostics)
"""
import sys
from collections import defaultdict, Counter

try:
    import otf2
    from otf2.events import (Enter, Leave, MpiSend, MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiRecv,
                             MpiIrecv, MpiRequestCancelled, MpiCollectiveBegin, MpiCollectiveEnd, ThreadFork,
                             ThreadJoin, ThreadTeamBegin, ThreadTeamEnd)
except ImportError as e:   # the shell tests skip when the bindings are missing
    print("SKIP python3-otf2 is not available (%s)" % e)
    sys.exit(0)


def process_of(loc):
    """The process (location group id) of a location: MPI rank, or 0."""
    return loc.group._ref


def read(path):
    with otf2.reader.open(path) as tr:
        defs = tr.definitions
        per_loc = defaultdict(list)
        for loc, ev in tr.events:
            per_loc[loc].append(ev)
        return defs, per_loc, [l for l in defs.locations]


def peer_process(comm, rank, here):
    """Process of rank 'rank' of comm (MPI_COMM_SELF: this process)."""
    try:
        return process_of(comm.location(rank))
    except Exception:
        return process_of(here)


def check(path, label):
    res = []

    def out(ok, text):
        res.append(("PASS " if ok else "FAIL ") + (label + ": " if label else "") + text)

    try:
        defs, per_loc, locations = read(path)
    except Exception as e:   # noqa: BLE001 -- any reader error is a failure of the archive
        print("FAIL %s%sthe archive reads (%s)" % (label, ": " if label else "", e))
        return 1
    out(True, "the archive reads (%d locations)" % len(locations))
    clock = defs.clock_properties
    t_lo, t_hi = clock.global_offset, clock.global_offset + clock.trace_length
    mono, nesting, counts, bounds = [], [], [], []
    for loc in locations:
        evs = per_loc.get(loc, [])
        last, stack = None, []
        for ev in evs:
            if last is not None and ev.time < last:
                mono.append("%s at %d" % (loc.name, ev.time))
            last = ev.time
            if not (t_lo <= ev.time <= t_hi):
                bounds.append("%s at %d" % (loc.name, ev.time))
            if isinstance(ev, Enter):
                stack.append(ev.region)
            elif isinstance(ev, Leave):
                if not stack or stack[-1] != ev.region:
                    nesting.append("%s: Leave %s with %s open" % (loc.name, ev.region.name,
                                                                    stack[-1].name if stack else "nothing"))
                else:
                    stack.pop()
        if stack:
            nesting.append("%s: %s left open" % (loc.name, ", ".join(r.name for r in stack)))
        if len(evs) != loc.number_of_events:
            counts.append("%s: %d read, %d defined" % (loc.name, len(evs), loc.number_of_events))
    out(not mono, "timestamps never decrease on a location" + (" (%s)" % mono[:3] if mono else ""))
    out(not bounds, "timestamps inside the clock properties' span" + (" (%s)" % bounds[:3] if bounds else ""))
    out(not nesting, "every Leave closes the innermost Enter, none left open" + (" (%s)" % nesting[:3] if nesting else ""))
    out(not counts, "event counts equal the locations' definitions" + (" (%s)" % counts[:3] if counts else ""))

    # ---- point-to-point
    sends, recvs = defaultdict(list), defaultdict(list)
    req_bad = []
    for loc in locations:
        me = process_of(loc)
        open_isend, open_irecv = Counter(), Counter()
        for ev in per_loc.get(loc, []):
            if isinstance(ev, (MpiSend, MpiIsend)):
                key = (ev.communicator._ref, me, peer_process(ev.communicator, ev.receiver, loc), ev.msg_tag)
                sends[key].append(ev.msg_length)
                if isinstance(ev, MpiIsend):
                    open_isend[ev.request_id] += 1
            elif isinstance(ev, (MpiRecv, MpiIrecv)):
                key = (ev.communicator._ref, peer_process(ev.communicator, ev.sender, loc), me, ev.msg_tag)
                recvs[key].append(ev.msg_length)
                if isinstance(ev, MpiIrecv):
                    if open_irecv[ev.request_id] <= 0:
                        req_bad.append("%s: Irecv of unknown request %d" % (loc.name, ev.request_id))
                    open_irecv[ev.request_id] -= 1
            elif isinstance(ev, MpiIsendComplete):
                if open_isend[ev.request_id] <= 0:
                    req_bad.append("%s: IsendComplete of unknown request %d" % (loc.name, ev.request_id))
                open_isend[ev.request_id] -= 1
            elif isinstance(ev, MpiIrecvRequest):
                open_irecv[ev.request_id] += 1
            elif isinstance(ev, MpiRequestCancelled):
                open_irecv[ev.request_id] -= 1
        left = [r for r, n in list(open_isend.items()) + list(open_irecv.items()) if n != 0]
        if left:
            req_bad.append("%s: %d requests not completed once" % (loc.name, len(left)))
    # The lengths are compared as multisets: a process's sends (receives) of one key are gathered
    # location by location, and on several threads of a process (StarPU-MPI's progress thread and
    # a worker driving progression) their order across threads is not the order MPI matched them in.
    unmatched = []
    for key in set(sends) | set(recvs):
        if sorted(sends.get(key, [])) != sorted(recvs.get(key, [])):
            unmatched.append("comm %d %d->%d tag %d: %d sends, %d receives" %
                             (key + (len(sends.get(key, [])), len(recvs.get(key, [])))))
    nmsg = sum(len(v) for v in sends.values())
    out(not unmatched, "%d messages matched per (comm, src, dst, tag), of equal lengths%s" %
        (nmsg, " (%s)" % unmatched[:3] if unmatched else ""))
    out(not req_bad, "requests completed once on their location" + (" (%s)" % req_bad[:3] if req_bad else ""))

    # ---- collectives
    coll_bad, seqs = [], defaultdict(dict)
    for loc in locations:
        inside = False
        for ev in per_loc.get(loc, []):
            if isinstance(ev, MpiCollectiveBegin):
                if inside:
                    coll_bad.append("%s: nested CollectiveBegin" % loc.name)
                inside = True
            elif isinstance(ev, MpiCollectiveEnd):
                if not inside:
                    coll_bad.append("%s: CollectiveEnd without Begin" % loc.name)
                inside = False
                seqs[ev.communicator._ref].setdefault(process_of(loc), []).append(str(ev.collective_op))
        if inside:
            coll_bad.append("%s: CollectiveBegin without End" % loc.name)
    for comm, per in seqs.items():
        c = defs.comms[comm]
        members = {process_of(l) for l in getattr(c.group, "members", ())} or set(per)
        ref = None
        for p in sorted(members):
            s = per.get(p, [])
            if ref is None:
                ref = s
            elif s != ref:
                coll_bad.append("%s: process %d ran %d operations, another %d" % (c.name, p, len(s), len(ref)))
    ncoll = sum(len(s) for per in seqs.values() for s in per.values())
    out(not coll_bad, "%d collective operations: Begin/End paired, same sequence on every member%s" %
        (ncoll, " (%s)" % coll_bad[:3] if coll_bad else ""))

    # ---- OpenMP
    omp_bad = []
    for loc in locations:
        forks = teams = 0
        for ev in per_loc.get(loc, []):
            if isinstance(ev, ThreadFork):
                forks += 1
            elif isinstance(ev, ThreadJoin):
                forks -= 1
            elif isinstance(ev, ThreadTeamBegin):
                teams += 1
            elif isinstance(ev, ThreadTeamEnd):
                teams -= 1
            if forks < 0 or forks > 1 or teams < 0 or teams > 1:
                omp_bad.append("%s at %d" % (loc.name, ev.time))
                break
        else:
            if forks or teams:
                omp_bad.append("%s: unclosed fork or team" % loc.name)
    out(not omp_bad, "thread fork/join and team begin/end alternate" + (" (%s)" % omp_bad[:3] if omp_bad else ""))
    for r in res:
        print(r)
    return 0


def matches(loc, ev, keys):
    for k, v in keys.items():
        if k == "rank" and process_of(loc) != int(v):
            return False
        if k == "location" and v not in loc.name:
            return False
        if k == "role" and not loc.name.startswith(v):
            return False
        if k == "region" and (not hasattr(ev, "region") or ev.region.name != v):
            return False
        if k == "tag" and getattr(ev, "msg_tag", None) != int(v):
            return False
        if k == "comm" and (not hasattr(ev, "communicator") or ev.communicator.name != v):
            return False
        if k == "op" and str(getattr(ev, "collective_op", "")).split(".")[-1] != v:
            return False
        if k == "bytes" and getattr(ev, "msg_length", None) != int(v):
            return False
        if k == "sent" and getattr(ev, "size_sent", None) != int(v):
            return False
        if k == "received" and getattr(ev, "size_received", None) != int(v):
            return False
        if k == "depth" and getattr(ev, "_depth", None) != int(v):
            return False
    return True


def tally(per_loc, locations, cls, keys):
    """Events of class cls matching keys, over every location; each event gets its nesting depth
    (_depth: 1 for an outermost Enter) first, for the depth key."""
    n = 0
    for loc in locations:
        depth = 0
        for ev in per_loc.get(loc, []):
            if isinstance(ev, Enter):
                depth += 1
            ev._depth = depth
            if isinstance(ev, Leave):
                depth -= 1
            if type(ev).__name__ == cls and matches(loc, ev, keys):
                n += 1
    return n


def count(path, cls, keys):
    defs, per_loc, locations = read(path)
    print(tally(per_loc, locations, cls, keys))
    return 0


def expect(path, queries):
    """Each line of the file queries: EXPECTED<TAB>DESCRIPTION<TAB>TYPE[<TAB>key=value...]; prints
    PASS / FAIL per line. The archive is read once for all of them."""
    defs, per_loc, locations = read(path)
    for line in open(queries, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3:
            continue
        expected, desc, cls = int(f[0]), f[1], f[2]
        keys = dict(a.split("=", 1) for a in f[3:] if a)
        n = tally(per_loc, locations, cls, keys)
        print("%s %s: %d%s" % ("PASS" if n == expected else "FAIL", desc, n,
                               "" if n == expected else " (expected %d)" % expected))
    return 0


def tasks(path, label):
    """Task attributes (docs/trace.md): see the module's documentation."""
    defs, per_loc, locations = read(path)
    pre = label + ": " if label else ""
    bodies, missing, bad_dur, bad_order = [], 0, [], []
    for loc in locations:
        stack = []
        for ev in per_loc.get(loc, []):
            if isinstance(ev, Enter):
                stack.append(ev)
            elif isinstance(ev, Leave) and stack:
                enter = stack.pop()
                a = {k.name: v for k, v in (ev.attributes or {}).items()}
                if "task critical path in" not in a:
                    if loc.name.startswith("CPU") and enter.region.name.startswith("dag_"):
                        missing += 1
                    continue
                cp_in, cp_out = a["task critical path in"], a["task critical path out"]
                if cp_out - cp_in != ev.time - enter.time:
                    bad_dur.append("%s: %d != %d" % (enter.region.name, cp_out - cp_in, ev.time - enter.time))
                times = [a.get("task submitted"), a.get("task ready"), a.get("task popped"), enter.time]
                times = [t for t in times if t is not None]
                if times != sorted(times):
                    bad_order.append("%s: %s" % (enter.region.name, times))
                bodies.append((enter.region.name, cp_in, cp_out))
    print("%s %s%d task bodies carry their attributes, none missing%s" %
          ("PASS" if bodies and not missing else "FAIL", pre, len(bodies), " (%d missing)" % missing if missing else ""))
    print("%s %sdurations are cp_out - cp_in%s" % ("FAIL" if bad_dur else "PASS", pre, " (%s)" % bad_dur[:3] if bad_dur else ""))
    print("%s %ssubmitted <= ready <= popped <= start%s" %
          ("FAIL" if bad_order else "PASS", pre, " (%s)" % bad_order[:3] if bad_order else ""))
    by_out = {}
    for b in bodies:
        by_out.setdefault(b[2], b)
    chain, cur = [], max(bodies, key=lambda b: b[2]) if bodies else None
    while cur is not None and len(chain) <= len(bodies):
        chain.append(cur[0])
        cur = by_out.get(cur[1])
    print("CHAIN " + " ".join(reversed(chain)))
    return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    if cmd == "check":
        return check(path, argv[3] if len(argv) > 3 else "")
    if cmd == "count":
        keys = dict(a.split("=", 1) for a in argv[4:])
        return count(path, argv[3], keys)
    if cmd == "expect":
        return expect(path, argv[3])
    if cmd == "tasks":
        return tasks(path, argv[3] if len(argv) > 3 else "")
    if cmd == "list":
        defs, per_loc, locations = read(path)
        for loc in locations:
            for ev in per_loc.get(loc, []):
                print(process_of(loc), loc.name, type(ev).__name__, getattr(getattr(ev, "region", None), "name", ""))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
