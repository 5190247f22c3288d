#!/usr/bin/python3
"""The layout of the default end-of-run table (lib/report/pm_report_summary.c), whatever its values.

    summary_check.py FILE KIND [--color]

FILE holds a run's standard error (or `popmeter show`'s output); KIND is one of mpi, hybrid,
starpu, mfsolve. Prints one "PASS text" / "FAIL text" line per check (tests/tap.sh tap_lines).
Values may vary; the lines, their order, their words and the bounds (40 lines, 100 columns) may
not. Without --color no escape code may appear; with it, every flagged value is red.
"""
import re
import sys

VAL = r"(\d+\.\d\d(?: !)?|n/a)"
ESC = re.compile(r"\x1b\[[0-9;]*m")


def row(indent, name, splits=()):
    pat = r"^ {%d}%s +%s" % (3 + 2 * indent, re.escape(name), VAL)
    for label in splits:
        pat += r" +%s %s" % (re.escape(label), VAL)
    return pat + "$"


def hierarchy(kind):
    both = kind in ("hybrid", "mfsolve")
    x = {"hybrid": "OpenMP", "starpu": "task runtime", "mfsolve": "task runtime"}.get(kind)
    rows = [row(0, "Parallel efficiency"),
            row(1, "Load balance", ("across processes", "within") if both else ()),
            row(1, "Communication efficiency"),
            row(2, "Serialization", ("across processes", "within") if both else ()),
            row(2, "Transfer", ("MPI", x) if both else ())]
    if kind in ("starpu", "mfsolve"):
        rows.append(r"^   Task runtime \(StarPU\) +runtime %s +pipeline %s +bounds %s$" % (VAL, VAL, VAL))
    return rows


def losses(kind):
    """The phrasings a loss line may take in a run of this kind (pm_report_summary.c, explain): the
    thread level named as what waits there -- a task run's tasks and threads, not its runtime."""
    tasks = kind in ("starpu", "mfsolve")
    who = "tasks and threads" if tasks else "OpenMP threads" if kind == "hybrid" else "threads"
    return [
        r"workers and threads idle while others compute( \(pipeline [0-9.]+\))?" if tasks else
        r"load imbalance among the %s of a process \(serial code included\)" % who,
        r"load imbalance across processes(: rank \d+ does [0-9.]+x the useful work of rank \d+)?",
        r"serialization within processes: %s wait on each other's results" % who,
        r"serialization across processes: ranks wait on each other even on an ideal network",
        r"waiting for MPI transfers \(on the critical path\)",
        r"file I/O and device waits on the critical path",
        r"(task|OpenMP|threads) runtime on the critical path \(.+\)",
        r"communication and waits \(serialization and transfer together\)",
    ]


def layout(kind):
    what = {"mpi": "MPI", "hybrid": "MPI \\+ OpenMP", "starpu": "StarPU", "mfsolve": "MPI \\+ StarPU"}[kind]
    head = [r"^=== popmeter =+$",
            r"^ \S.*: \d+ process(es)? x \d+ threads?, \d+ nodes?, runtime \S+ \S+ +%s$" % what,
            r"^-+$", r"^ How efficient +\(! below 0\.80\)$"]
    return head + hierarchy(kind) + [r"^-+$"]


def check(lines, kind, color):
    res = []

    def ok(cond, text):
        res.append(("PASS " if cond else "FAIL ") + text)
        return cond

    start = [i for i, l in enumerate(lines) if ESC.sub("", l).startswith("=== popmeter")]
    if not ok(len(start) == 1, "%s: one table (got %d)" % (kind, len(start))):
        return res
    table = lines[start[0]:]
    end = next((i for i, l in enumerate(table) if i > 0 and re.match(r"^=+$", ESC.sub("", l))), None)
    if not ok(end is not None, "%s: the table is closed by a rule" % kind):
        return res
    table = table[:end + 1]
    plain = [ESC.sub("", l) for l in table]
    ok(len(table) <= 40, "%s: at most 40 lines (got %d)" % (kind, len(table)))
    ok(max(len(l) for l in plain) <= 100, "%s: at most 100 columns (got %d)" % (kind, max(len(l) for l in plain)))
    codes = sum(len(ESC.findall(l)) for l in table)
    if color:
        flagged = sum(l.count(" !") for l in plain)
        red = sum(len(re.findall(r"\x1b\[31m\d+\.\d\d !\x1b\[0m", l)) for l in table)
        ok(flagged > 0 and red == flagged, "%s: every flagged value is red (%d of %d)" % (kind, red, flagged))
    else:
        ok(codes == 0, "%s: no escape code (got %d)" % (kind, codes))
    # the fixed part: header and hierarchy
    want = layout(kind)
    bad = [(i, p) for i, p in enumerate(want) if i >= len(plain) or not re.match(p, plain[i])]
    ok(not bad, "%s: header and efficiency hierarchy%s" % (
        kind, "" if not bad else ": line %d %r does not match %s" % (bad[0][0] + 1, plain[bad[0][0]] if bad[0][0] < len(plain) else "", bad[0][1])))
    i = len(want)
    # where the time went: 1 to 3 losses of two lines each, or none above 1 %
    ok(i < len(plain) and re.match(r"^ Where the time went \(seconds of the \S+ \S+ runtime, average over threads\)$", plain[i]),
       "%s: 'Where the time went' heading" % kind)
    i += 1
    n = 0
    unknown = []
    while i + 1 < len(plain) and re.match(r"^   %d\. +\d+(\.\d+)? (s|ms|us)  \S.*$" % (n + 1), plain[i]) \
            and re.match(r"^ {17}-> \S.*$", plain[i + 1]):
        what = re.sub(r"^   \d\. +\S+ \S+  ", "", plain[i])
        if not any(re.fullmatch(w, what) for w in losses(kind)):
            unknown.append(what)
        n += 1
        i += 2
    ok(not unknown, "%s: each loss in this run's terms%s" % (kind, "" if not unknown else ": %r" % unknown[0]))
    if n == 0 and i < len(plain) and plain[i] == "   no loss above 1 % of the runtime":
        i += 1
        n = -1
    ok(n != 0 and n <= 3, "%s: 1 to 3 losses, each with its hint (got %d)" % (kind, n))
    ok(i < len(plain) and re.match(r"^-+$", plain[i]), "%s: rule after the losses" % kind)
    i += 1
    ok(i < len(plain) and plain[i] == " What next", "%s: 'What next' heading" % kind)
    i += 1
    items, texts = [], []
    while i < len(plain) - 1:
        m = re.match(r"^   (Critical path|Outliers|File I/O|Hardware counters|CUDA|Trace|Note|Everything)\b", plain[i])
        if not ok(m is not None, "%s: known line under 'What next' (%r)" % (kind, plain[i])):
            break
        items.append(m.group(1))
        texts.append(plain[i])
        i += 1
        # an item too long for one line goes on under its text, indented by 5, never cut
        while i < len(plain) - 1 and re.match(r"^     \S", plain[i]):
            texts[-1] += " " + plain[i].strip()
            i += 1
    need = ["Critical path", "Hardware counters", "Everything"] + (["Outliers"] if kind in ("starpu", "mfsolve") else [])
    ok(all(x in items for x in need), "%s: 'What next' has %s (got %s)" % (kind, ", ".join(need), ", ".join(items)))
    ok(items and items[-1] == "Everything" and re.match(r"^   Everything: popmeter show --full \S+$", texts[-1]),
       "%s: the last item names the files and the command that shows everything" % kind)
    cp = [t for t in texts if t.startswith("   Critical path")]
    ok(cp and not re.search(r"(on|on rank|in)$", cp[0]),
       "%s: the critical path's line is whole (%r)" % (kind, cp[0] if cp else None))
    return res


def main():
    path, kind = sys.argv[1], sys.argv[2]
    color = "--color" in sys.argv[3:]
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    for r in check(lines, kind, color):
        print(r)


main()
