#!/bin/sh
# popmeter-report on the JSON fixtures of golden/reports: the files it writes, values in the CSV
# (hand-derived, see golden/reports/README.md), exit codes, errors naming the file, refusing to
# overwrite, the two-run comparison, plots through gnuplot, and a valid self-contained HTML page.
. "$top_srcdir/tests/tap.sh"
rep="$top_builddir/reports/popmeter-report"
g="$top_srcdir/tests/golden/reports"
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/pmreports.XXXXXX")
trap 'rm -rf "$work"' EXIT
# check_html DESCRIPTION FILE [MIN_IMAGES]: valid HTML5 and self-contained (python3-html5lib)
check_html() {
  if $py -c "import html5lib" 2>/dev/null; then
    check "$1" $py "$top_srcdir/tests/integration/check_html.py" "$2" ${3:-0}
  else
    skip "$1 (python3-html5lib not installed)"
  fi
}

# csv FILE SECTION REGION CONFIG METRIC [COLUMN]: one field (default: value) of the long CSV
csv() { awk -F, -v s="$2" -v r="$3" -v c="$4" -v m="$5" -v k="${6:-9}" \
  '$1 == s && $2 == r && $3 == c && $7 == m { print $k }' "$1"; }

# ---------------------------------------------------------------- a strong-scaling study
out="$work/strong"
"$rep" --no-plots -o "$out" "$g/strong/4x1" "$g/strong/1x1/popmeter.json" "$g/strong/2x1" \
  >"$work/stdout" 2>"$work/stderr"
check "strong: exit 0" test $? -eq 0
for f in report.txt scaling.csv scaling.md scaling.json report.html; do
  check "strong: $f written" test -s "$out/$f"
done
check "strong: the table on stdout is report.txt" cmp -s "$work/stdout" "$out/report.txt"
check "strong: nothing on stderr" test ! -s "$work/stderr"
check "strong: columns sorted by size" grep -q "^Scalability (strong) *1x1 *2x1 *4x1$" "$out/report.txt"
check "strong: GE at 4x1 = 0.625 x 0.8" test "$(csv "$out/scaling.csv" scaling "" 4x1 ge)" = 0.500000
check "strong: LB at 2x1 = 4/4.5" test "$(csv "$out/scaling.csv" scaling "" 2x1 ge/pe/lb)" = 0.888889
check "strong: speedup at 4x1 = 10/4" test "$(csv "$out/scaling.csv" scaling "" 4x1 speedup)" = 2.500000
check "strong: region compute GE at 4x1 = 3/7" \
  test "$(csv "$out/scaling.csv" region compute 4x1 ge)" = 0.428571
check "strong: detected" test "$(csv "$out/scaling.csv" study "" "" mode 12)" = "strong (detected)"
check "strong: the region losing efficiency first is named" grep -q "compute  *from 1x1" "$out/report.txt"
check "strong: JSON parses" $py -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['schema'] != 'popmeter-scaling' or len(d['configurations']) != 3)" "$out/scaling.json"
check_html "strong: HTML valid and self-contained" "$out/report.html"
# the checker itself fails on what it must catch
printf '<!DOCTYPE html><html lang="en"><head><title>x</title></head><body><img alt="" src="http://example.org/a.png"></body></html>' >"$work/ext.html"
printf '<html><body><p>no doctype' >"$work/invalid.html"
if $py -c "import html5lib" 2>/dev/null; then
  check "HTML checker: rejects an external image" sh -c "! $py '$top_srcdir/tests/integration/check_html.py' '$work/ext.html' >/dev/null"
  check "HTML checker: rejects invalid HTML" sh -c "! $py '$top_srcdir/tests/integration/check_html.py' '$work/invalid.html' >/dev/null"
fi

# ---------------------------------------------------------------- weak, declared or detected
"$rep" -q --no-plots -o "$work/weak" "$g/weak/1x1" "$g/weak/2x1" "$g/weak/4x1"
check "weak: exit 0" test $? -eq 0
check "weak: detected" test "$(csv "$work/weak/scaling.csv" study "" "" mode 12)" = "weak (detected)"
check "weak: CompScal at 2x1 = 4/8.4 x 2" test "$(csv "$work/weak/scaling.csv" scaling "" 2x1 ge/compscal)" = 0.952381
"$rep" -q --no-plots --strong -o "$work/weak-as-strong" "$g/weak/1x1" "$g/weak/4x1"
check "--strong: CompScal at 4x1 = 4/20" test "$(csv "$work/weak-as-strong/scaling.csv" scaling "" 4x1 ge/compscal)" = 0.200000
"$rep" -q --no-plots --mode weak --reference 2x1 -o "$work/ref" "$g/strong/1x1" "$g/strong/2x1" "$g/strong/4x1"
check "--reference 2x1: the reference row" test "$(csv "$work/ref/scaling.csv" study "" 2x1 reference 7)" = reference
check "--reference 2x1: speedup at 4x1 = 6/4" test "$(csv "$work/ref/scaling.csv" scaling "" 4x1 speedup)" = 1.500000

# ---------------------------------------------------------------- repeats
"$rep" -q --no-plots -o "$work/rep" "$g"/repeat/*
check "repeats: exit 0" test $? -eq 0
check "repeats: median GE" test "$(csv "$work/rep/scaling.csv" scaling "" 2x2 ge)" = 0.800000
check "repeats: min GE" test "$(csv "$work/rep/scaling.csv" scaling "" 2x2 ge 10)" = 0.625000
check "repeats: max GE" test "$(csv "$work/rep/scaling.csv" scaling "" 2x2 ge 11)" = 1.000000
check "repeats: Markdown shows the range" grep -q "0.80 (0.75–0.90)" "$work/rep/scaling.md"

# ---------------------------------------------------------------- existing files
"$rep" -q --no-plots -o "$out" "$g/strong/1x1" 2>"$work/err"
check "existing report: refused (exit 1)" test $? -eq 1
check "existing report: the message names the file" grep -q "report.txt already exists (use --force" "$work/err"
check "existing report: left as it was" test "$(csv "$out/scaling.csv" scaling "" 4x1 ge)" = 0.500000
"$rep" -q --no-plots --force -o "$out" "$g/strong/1x1"
check "--force: replaced" sh -c "test \$(grep -c '^scaling,' '$out/scaling.csv') -eq 12"
"$rep" --no-plots --force -o "$out" "$g/strong/1x1" >/dev/null 2>"$work/err"
check "one run: popmeter view suggested" grep -q "one run: a scaling study compares several; 'popmeter view .*strong/1x1' draws this one" "$work/err"

# ---------------------------------------------------------------- bad inputs
mkdir "$work/not-a-run"
"$rep" -q --no-plots -o "$work/partial" "$g/strong/1x1" "$g/strong/2x1" "$g/bad/version2" \
  "$g/bad/notjson" "$g/bad/foreign" "$work/not-a-run" "$work/missing" 2>"$work/err"
check "partial study: exit 3" test $? -eq 3
check "partial study: report written" test -s "$work/partial/report.html"
check "partial study: two configurations" test "$(grep -c '^scaling,,[0-9]x1,.*,ge,' "$work/partial/scaling.csv")" -eq 2
check "error names the file: version" grep -q "bad/version2/popmeter.json: unsupported profile version" "$work/err"
check "error names the file: not JSON" grep -q "bad/notjson/popmeter.json: .*line 1" "$work/err"
check "error names the file: other application" grep -q "bad/foreign/popmeter.json: application 'otherapp' differs" "$work/err"
check "error names the directory without a run" grep -q "not-a-run: no popmeter.json" "$work/err"
check "error names the missing path" grep -q "missing: No such file or directory" "$work/err"
check "the report lists what was skipped" grep -q "skipped: .*bad/version2" "$work/partial/report.txt"
check_html "partial HTML is valid" "$work/partial/report.html"
"$rep" -q -o "$work/none" "$g/bad/notjson" "$g/bad/schema" 2>"$work/err"
check "nothing readable: exit 1" test $? -eq 1
check "nothing readable: said" grep -q "no readable run" "$work/err"
check "nothing readable: no report" test ! -e "$work/none/report.txt"

# ---------------------------------------------------------------- usage
"$rep" >/dev/null 2>&1
check "no run: exit 2" test $? -eq 2
"$rep" --diff "$g/diff/A" >/dev/null 2>&1
check "--diff with one run: exit 2" test $? -eq 2
"$rep" --width wide "$g/strong/1x1" >/dev/null 2>&1
check "bad option value: exit 2" test $? -eq 2
"$rep" --help | grep -q "^Usage: popmeter-report"
check "--help" test $? -eq 0

# ---------------------------------------------------------------- two-run comparison
"$rep" --no-plots --diff -o "$work/diff" "$g/diff/A" "$g/diff/B" >"$work/stdout"
check "diff: exit 0" test $? -eq 0
check "diff: assemble slowed down 2 s -> 3.5 s" grep -q "slowed down  assemble .* 2.000 s ->  *3.500 s  speedup 0.57" "$work/stdout"
check "diff: solve sped up" grep -q "sped up      solve .*speedup 1.67" "$work/stdout"
check "diff: new_phase is new" grep -q "new          new_phase" "$work/stdout"
check "diff: old_phase is gone" grep -q "gone         old_phase" "$work/stdout"
check "diff: JSON lists the changes" $py -c "import json,sys; d=json.load(open(sys.argv[1]))['changes']; sys.exit([e['region'] for e in d['slowed_down']] != ['assemble'])" "$work/diff/scaling.json"

# ---------------------------------------------------------------- plots
"$rep" -q --gnuplot /nonexistent/gnuplot -o "$work/nognuplot" "$g/strong/1x1" "$g/strong/2x1"
check "no gnuplot: still exit 0" test $? -eq 0
check "no gnuplot: said in the report" grep -q "gnuplot not found" "$work/nognuplot/report.txt"
check "no gnuplot: the scripts are written" test -s "$work/nognuplot/plots/speedup.gp"
if command -v gnuplot >/dev/null 2>&1; then
  "$rep" -q -o "$work/plots" "$g/strong/1x1" "$g/strong/2x1" "$g/strong/4x1"
  for p in efficiency speedup load critical_path; do
    check "plot $p: SVG is XML" $py -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$work/plots/plots/$p.svg"
    check "plot $p: PNG" sh -c "head -c 8 '$work/plots/plots/$p.png' | od -An -c | grep -q 'P   N   G'"
  done
  check_html "plots: HTML valid, self-contained, 4 inlined images" "$work/plots/report.html" 4
  "$rep" -q -o "$work/plots-weak" "$g/weak/1x1" "$g/weak/2x1"
  check "no critical path: the plot is left out and said" grep -q "no critical-path plot" "$work/plots-weak/report.txt"
else
  skip "gnuplot not installed (tools/setup-deps.sh installs gnuplot-nox)"
fi
tap_done
