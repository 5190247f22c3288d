#!/bin/sh
# popmeter view on a traced mfsolve run (2 ranks x 2 workers), rendered by headless Chromium: the
# page is valid, self-contained HTML; it runs without a script error; it draws one element per task
# of the run (popmeter.json's codelet counts) and one per front of the published tree (mfsolve's
# fronts), the critical path's tasks among them; hovering a task, the wheel and a click on a front
# do what they should (the page's #selftest plays them). Then the same run without its trace: a
# page with what popmeter.json holds, and the reason. Skipped without Chromium (Debian's chromium,
# tools/setup-deps.sh) or an OTF2 build.
. "$top_srcdir/tests/integration/solver_common.sh"
pm="$top_builddir/tools/popmeter"
chromium=$(command -v chromium || command -v chromium-browser)
if [ -z "$chromium" ]; then skip "chromium is not installed (tools/setup-deps.sh installs Debian's)"; tap_done; fi
POPMETER_CUBE=0; export POPMETER_CUBE

timeout 180 $MPIRUN -np 2 --bind-to none -x STARPU_SILENT -x POPMETER_CUBE -x POPMETER_TRACE=1 "$pm" run \
  --output "$work/run" -- "$mfsolve" -q --gen lap3d:14 --nb 24 --workers 2 >"$work/out" 2>"$work/err"
check "traced mfsolve on 2 processes x 2 workers: exit 0" test $? -eq 0
if [ ! -s "$work/run/traces.otf2" ]; then skip "no trace written (popmeter built without OTF2?)"; tap_done; fi

"$pm" view "$work/run" >"$work/view.out" 2>"$work/view.err"
check "popmeter view: exit 0" test $? -eq 0
page="$work/run/view.html"
check "popmeter view: the page is written ($(cat "$work/view.out"))" test -s "$page"
if /usr/bin/python3 -c "import html5lib" 2>/dev/null; then
  check "the page is valid HTML5, self-contained" /usr/bin/python3 "$top_srcdir/tests/integration/check_html.py" \
    "$page" 0 --inline-scripts
else
  skip "the page is valid HTML5, self-contained (python3-html5lib not installed)"
fi
"$pm" view "$work/run" >/dev/null 2>"$work/again.err"
check "an existing page is not overwritten without --force (exit 1)" test $? -eq 1
check "... and says so" grep -q "already exists" "$work/again.err"

# what the page must draw, from popmeter.json: every task, every front
set -- $(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sum(c["count"] for c in j["tasks"]["codelets"]), len(j["tag_tree"]["nodes"]))' "$work/run/popmeter.json")
ntasks=$1 nfronts=$2
render() { # render URL DOM: the DOM after the page's scripts ran (a fresh profile each time)
  timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --user-data-dir="$work/chromium" \
    --window-size=1400,1000 --dump-dom "$1" >"$2" 2>"$work/chromium.err"
}
render "file://$page#selftest" "$work/dom"
check "Chromium renders the page" grep -q 'data-ready="1"' "$work/dom"
check "no script error ($(grep -o 'data-errors="[^"]*"' "$work/dom"))" sh -c "! grep -q 'data-errors=' '$work/dom'"
drawn=$(grep -o 'class="task[ "]' "$work/dom" | wc -l)
check "one drawn element per task: $drawn of $ntasks" test "$drawn" -eq "$ntasks"
fronts=$(grep -o 'class="front[ "]' "$work/dom" | wc -l)
check "one drawn element per front: $fronts of $nfronts (mfsolve: $(sed -n 's/^fronts *\([0-9]*\) .*/\1/p' "$work/out"))" \
  test "$fronts" -eq "$nfronts"
check "the critical path's tasks are marked" grep -q 'class="task cp"' "$work/dom"
tip=$(sed -n 's/.*data-selftest-tip="\([^"]*\)".*/\1/p' "$work/dom")
check "hovering a task shows codelet, tag, worker, start, duration, flops ($tip)" \
  sh -c "echo '$tip' | grep -q '^mfs_.* | tag [0-9]* | worker .* (rank [01]) | start .* | duration .* | flops '"
check "a wheel step zooms the window in by 0.8" grep -q 'data-selftest-zoom="0.800"' "$work/dom"
hl=$(sed -n 's/.*data-selftest-hl="\([0-9]*\)".*/\1/p' "$work/dom")
tag=$(sed -n 's/.*data-selftest-tag="\([0-9]*\)".*/\1/p' "$work/dom")
want=$(/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sum(r[2] for r in j["tasks"]["tags"] if r[1] == int(sys.argv[2])))' "$work/run/popmeter.json" "${tag:-0}")
check "clicking front $tag highlights its $want tasks ($hl)" test "${hl:-x}" = "$want"

# without the trace: what popmeter.json gives, and why the rest is missing
mkdir "$work/plain"
cp "$work/run/popmeter.json" "$work/plain/"
"$pm" view "$work/plain" >"$work/plain.out" 2>&1
check "without a trace: exit 0" test $? -eq 0
check "without a trace: said" grep -q "without a trace: the run was not traced" "$work/plain.out"
render "file://$work/plain/view.html#selftest" "$work/dom2"
check "without a trace: rendered, no script error" sh -c "grep -q 'data-ready=\"1\"' '$work/dom2' && ! grep -q 'data-errors=' '$work/dom2'"
check "without a trace: the page says what is not drawn" grep -q "Not drawn: the space-time view" "$work/dom2"
fronts=$(grep -o 'class="front[ "]' "$work/dom2" | wc -l)
check "without a trace: still one element per front ($fronts)" test "$fronts" -eq "$nfronts"

# bad input: a clear message, no page
echo '{"schema": "popmeter-profile", "version": 1}' >"$work/plain/popmeter.json"
"$pm" view -o "$work/bad.html" "$work/plain" >/dev/null 2>"$work/bad.err"
check "a malformed popmeter.json: exit 1" test $? -eq 1
check "... with a message naming the file" grep -q "popmeter view: .*popmeter.json" "$work/bad.err"
check "... and no page" test ! -e "$work/bad.html"
"$pm" view "$work/nonexistent" >/dev/null 2>"$work/bad.err"
check "a missing run: exit 1" test $? -eq 1
mkdir "$work/badtrace"
cp "$work/run/popmeter.json" "$work/badtrace/"
echo "not an archive" >"$work/badtrace/traces.otf2"
"$pm" view "$work/badtrace" >/dev/null 2>"$work/bad.err"
check "an unreadable trace: the page is still written (exit 0)" test $? -eq 0
check "... and the trace's problem is said" grep -q "traces.otf2" "$work/bad.err"
tap_done
