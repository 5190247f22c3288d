#!/bin/sh
# End to end: popmeter scale runs an MPI program with a known imbalance (rank r works r+1 units,
# then a barrier) at 1, 2 and 4 ranks through mpirun and writes the report. Checked: each run's
# directory, the report files, one column per rank count, the load balance near its analytic value
# (N+1)/(2N) (tolerance 0.1: start-up and barrier costs), a valid self-contained HTML page, quiet
# progress when not on a terminal, a failed run reported and left out, and a study directory never
# reused silently. The launcher environment (OMPI_* for root and oversubscription) is the test
# harness's, as it would be the user's.
. "$top_srcdir/tests/tap.sh"
pm="$top_builddir/tools/popmeter"
prog="$top_builddir/tests/integration/progs/mpi_imbalance"
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/pmscale.XXXXXX")
trap 'rm -rf "$work"' EXIT
# check_html DESCRIPTION FILE [MIN_IMAGES]: valid HTML5 and self-contained (python3-html5lib)
check_html() {
  if $py -c "import html5lib" 2>/dev/null; then
    check "$1" $py "$top_srcdir/tests/integration/check_html.py" "$2" ${3:-0}
  else
    skip "$1 (python3-html5lib not installed)"
  fi
}
csv() { awk -F, -v s="$2" -v r="$3" -v c="$4" -v m="$5" -v k="${6:-9}" \
  '$1 == s && $2 == r && $3 == c && $7 == m { print $k }' "$1"; }

out="$work/study"
# units of 0.1 s: the start-up before MPI_Init counts as useful time on every rank, up to ~0.1 s in
# the sanitizer build on a loaded machine, which with 0.02 s units put 2 ranks' balance at 0.90
"$pm" scale --ranks 1,2,4 --out "$out" --mpirun "$MPIRUN" -- "$prog" 0.1 2 >"$work/stdout" 2>"$work/stderr"
rc=$?
check "scale 1,2,4: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || { diag "stderr:"; sed 's/^/# /' "$work/stderr" | head -20; }
for n in 1 2 4; do
  check "run ${n}x1: popmeter.json kept" test -s "$out/runs/${n}x1/popmeter.json"
  check "run ${n}x1: application output kept" grep -q "mpi_imbalance: $n ranks" "$out/runs/${n}x1/stdout.txt"
  check "run ${n}x1: end-of-run table kept" grep -q "Parallel efficiency" "$out/runs/${n}x1/stderr.txt"
  check "report column ${n}x1 with $n processes" test "$(csv "$out/scaling.csv" scaling "" "${n}x1" ge 4)" = "$n"
done
for f in report.txt scaling.csv scaling.md scaling.json report.html; do
  check "report file $f" test -s "$out/$f"
done
# rank r works r+1 units: the work per location grows with the ranks ((N+1)/2 units), a weak-
# scaling study by docs/metrics.md §8.2 (2.5 units at 4 ranks >= 0.75 x 1 unit at 1 rank)
check "table printed, weak scaling detected" grep -q "^Scalability (weak) *1x1 *2x1 *4x1$" "$work/stdout"
check "no progress lines without a terminal" test ! -s "$work/stderr"
for n in 2 4; do
  lb=$(csv "$out/scaling.csv" scaling "" "${n}x1" ge/pe/lb)
  expect=$($py -c "print(($n+1)/(2*$n))")
  diag "${n}x1: LB=$lb (expected $expect)"
  check "${n}x1: load balance near $expect" near "$lb" "$expect" 0.1
done
check "speedup of 4x1 over 1x1 is a number" near "$(csv "$out/scaling.csv" scaling "" 4x1 speedup)" 1 10
if command -v gnuplot >/dev/null 2>&1; then
  check_html "HTML valid, self-contained, plots inlined" "$out/report.html" 3
else
  check_html "HTML valid and self-contained" "$out/report.html"
fi

# the same directory again: refused without --force
"$pm" scale --ranks 1 --out "$out" --mpirun "$MPIRUN" -- "$prog" 0.02 1 >/dev/null 2>"$work/err"
check "existing study: refused (exit 1)" test $? -eq 1
check "existing study: said" grep -q "is not empty: it may hold a study (use --force" "$work/err"

# a launcher failing at 2 ranks: the failure is reported, the 1-rank run still makes a report
cat >"$work/flaky-mpirun" <<EOS
#!/bin/sh
[ "\$2" = 2 ] && { echo "flaky launcher: refusing 2 ranks" >&2; exit 7; }
exec "$MPIRUN" "\$@"
EOS
chmod +x "$work/flaky-mpirun"
"$pm" scale --ranks 1,2 --no-plots --out "$work/partial" --mpirun "$work/flaky-mpirun" -- "$prog" 0.02 1 \
  >/dev/null 2>"$work/err"
check "failed run: exit 3 (partial report)" test $? -eq 3
check "failed run: named with its status" grep -q "runs/2x1: the run failed with exit status 7" "$work/err"
check "failed run: its stderr kept" grep -q "refusing 2 ranks" "$work/partial/runs/2x1/stderr.txt"
check "failed run: report of the rest" test "$(grep -c '^scaling,,.*,ge,' "$work/partial/scaling.csv")" -eq 1

"$pm" scale --ranks 1,x -- "$prog" >/dev/null 2>&1
check "bad --ranks: exit 2" test $? -eq 2
"$pm" scale --ranks 2 --mpirun none -- "$prog" >/dev/null 2>&1
check "--mpirun none with 2 ranks: exit 2" test $? -eq 2
tap_done
