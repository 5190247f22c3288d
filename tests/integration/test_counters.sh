#!/bin/sh
# Hardware counters on real runs (docs/counters.md). On a machine without a PMU (these VMs) every
# counter metric is n/a with PAPI's own reason, once, in the table and in popmeter.json, and the
# time-based metrics are complete. On a machine with counters the known loop of progs/ctr_work.c
# (N iterations of a dependent scalar-double multiply-add) is checked: at least N instructions,
# IPC and frequency in plausible ranges, at least N scalar-double FP instructions when the FP
# classes are counted. Also: POPMETER_COUNTERS=off (no PAPI at all), =papi, a bad value, a bad
# POPMETER_PAPI_EVENTS entry, the offline table (popmeter show), and the CUBE file.
. "$top_srcdir/tests/tap.sh"
pm="$top_builddir/tools/popmeter"
progs="$top_builddir/tests/integration/progs"
cubex_check="$top_builddir/tests/golden/cubex_check"
py=/usr/bin/python3
cj="$py $top_srcdir/tests/integration/counters_json.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmctr.XXXXXX")
trap 'rm -rf "$work"' EXIT
# footnotes on one line each, so that a reason can be looked for whole
POPMETER_TABLE_WIDTH=400; export POPMETER_TABLE_WIDTH
# the sections of the full table (the summary collapses counters into one line)
POPMETER_REPORT=full; export POPMETER_REPORT
unset POPMETER_COUNTERS POPMETER_PAPI_EVENTS
N=50000000
in_range() { $py -c "import sys; v,a,b=sys.argv[1:]; sys.exit(0 if v!='na' and float(a)<=float(v)<=float(b) else 1)" "$1" "$2" "$3"; }
at_least() { $py -c "import sys; v,a=sys.argv[1:]; sys.exit(0 if v!='na' and float(v)>=float(a) else 1)" "$1" "$2"; }
# the table section from the vectorization model to the time breakdown
section() { sed -n '/^Vectorization  /,/^ Time per location/p' "$1" | grep -v '^ Time per location'; }

# ------------------------------------------------------------------------------- default (auto)
"$pm" run --output "$work/auto" -- "$progs/ctr_work" $N >"$work/auto.out" 2>"$work/auto.err"
check "ctr_work exits 0 under popmeter" test $? -eq 0
check "application output intact" grep -q "ctr_work: $N iterations" "$work/auto.out"
j="$work/auto/popmeter.json"
status=$($cj "$j" status)
diag "counters: $status; events: $($cj "$j" events)"
check "time-based metrics complete: parallel efficiency has a value" test "$($cj "$j" value basic/pe)" != na
check "time-based metrics complete: critical-path model has values" test "$($cj "$j" value critical_path/pe)" != na
check "the vectorization model is in the table" grep -q "^Vectorization efficiency" "$work/auto.err"
check "the counter summary is in the table" grep -q "^Hardware counters (useful time)" "$work/auto.err"
check "no generic 'no hardware counters' reason left" sh -c "! grep -q 'no hardware counters' '$work/auto.err'"
source=$($cj "$j" source)   # "none": popmeter was built without PAPI
if [ "$status" = unavailable ]; then
  ins=$($cj "$j" reason instructions)
  fp=$($cj "$j" reason fp)
  diag "instructions: $ins"
  diag "fp: $fp"
  if [ "$source" = none ]; then
    check "built without PAPI: the reason says so" test "$ins" = "popmeter was built without PAPI (configure found no libpapi)"
  else
    case "$ins" in "PAPI: PAPI_TOT_INS not available: "?*) ok "the reason is PAPI's, naming the event";;
                   *) notok "the reason is PAPI's, naming the event";; esac
    check "popmeter.json: PAPI_TOT_INS listed as not counted, with why" test -n "$($cj "$j" why PAPI_TOT_INS)"
  fi
  check "popmeter.json: IPC n/a with that reason" test "$($cj "$j" na vectorization/opc/ipc)" = "$ins"
  check "popmeter.json: instructions n/a with that reason" test "$($cj "$j" na counters/instructions)" = "$ins"
  check "popmeter.json: frequency n/a with the cycles reason" test "$($cj "$j" na counters/frequency)" = "$($cj "$j" reason cycles)"
  check "popmeter.json: vectorization efficiency n/a with the FP reason" test "$($cj "$j" na vectorization/vec_eff)" = "$fp"
  check "the table shows the instructions reason" grep -qF "$ins" "$work/auto.err"
  check "the table shows the FP reason" grep -qF "$fp" "$work/auto.err"
  check "no counter metric in profile.cubex" sh -c "! '$cubex_check' --dump PAPI_TOT_INS '$work/auto/profile.cubex' >/dev/null 2>&1"
else
  ins=$($cj "$j" sum PAPI_TOT_INS)
  diag "PAPI_TOT_INS $ins, IPC $($cj "$j" value counters/ipc), $($cj "$j" value counters/frequency) GHz"
  check "at least $N instructions in useful time" at_least "$ins" $N
  check "IPC plausible (0.05 .. 10)" in_range "$($cj "$j" value counters/ipc)" 0.05 10
  check "frequency plausible (0.2 .. 8 GHz)" in_range "$($cj "$j" value counters/frequency)" 0.2 8
  sd=$($cj "$j" sum FP_ARITH_INST_RETIRED:SCALAR_DOUBLE 2>/dev/null || $cj "$j" sum FP_ARITH:SCALAR_DOUBLE 2>/dev/null)
  if [ -n "$sd" ] && [ "$sd" != na ]; then
    check "at least $N scalar-double FP instructions" at_least "$sd" $N
  else
    skip "FP classes not counted here: $($cj "$j" reason fp)"
  fi
  check "profile.cubex holds PAPI_TOT_INS" "$cubex_check" --dump PAPI_TOT_INS "$work/auto/profile.cubex"
fi
check "profile.cubex is valid" "$cubex_check" "$work/auto/profile.cubex"
# popmeter show follows POPMETER_TABLE_WIDTH too: the same width gives the same sections
POPMETER_TABLE_WIDTH=100 "$pm" run --output "$work/w100" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/w100.err"
POPMETER_TABLE_WIDTH=100 "$pm" show "$work/w100/popmeter.json" >"$work/show" 2>&1
check "popmeter show: exit 0" test $? -eq 0
section "$work/w100.err" >"$work/live.sec"
section "$work/show" >"$work/show.sec"
check "popmeter show prints the same counter sections as the run" sh -c "test -s '$work/live.sec' && cmp -s '$work/live.sec' '$work/show.sec'"

# ------------------------------------------------- threads: one reason per run, not per thread
omp="$progs/omp_imbalance_gcc"
if [ "$status" = unavailable ] && [ -x "$omp" ]; then
  OMP_NUM_THREADS=3 "$pm" run --output "$work/omp" -- "$omp" 0.02 >/dev/null 2>"$work/omp.err"
  check "OpenMP run exits 0" test $? -eq 0
  nloc=$($py "$top_srcdir/tests/integration/pmjson.py" "$work/omp/popmeter.json" --count-locations)
  ins=$($cj "$work/omp/popmeter.json" reason instructions)
  # one footnote in the vectorization model and one in the counter summary, whatever the threads
  check "$nloc threads: the reason appears twice in the table (once per section)" test "$(grep -cF "$ins" "$work/omp.err")" -eq 2
else
  skip "threads check: needs a run without counters and the GCC OpenMP test program"
fi

# ------------------------------------------------------------------------ POPMETER_COUNTERS=off
POPMETER_COUNTERS=off LD_DEBUG=bindings "$pm" run --output "$work/off" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/off.err"
check "off: exit 0" test $? -eq 0
j="$work/off/popmeter.json"
check "off: status disabled" test "$($cj "$j" status)" = disabled
check "off: n/a reason in popmeter.json" test "$($cj "$j" na vectorization/opc/ipc)" = "counters disabled (POPMETER_COUNTERS=off)"
check "off: n/a reason in the table" grep -qF "counters disabled (POPMETER_COUNTERS=off)" "$work/off.err"
check "off: no event listed" test -z "$($cj "$j" events)"
check "off: time-based metrics complete" test "$($cj "$j" value basic/pe)" != na
# lazy binding: popmeter's first call of PAPI_library_init shows up as a binding in LD_DEBUG output
LD_DEBUG=bindings "$pm" run --output "$work/on" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/on.err"
if grep -q "libpopmeter.so.*PAPI_library_init" "$work/on.err"; then
  check "off: PAPI is not initialised at all" sh -c "! grep -q 'libpopmeter.so.*PAPI_library_init' '$work/off.err'"
else
  skip "off: cannot see PAPI_library_init calls here (symbols bound at load time, or PAPI not built)"
fi

# ------------------------------------------------------------- bad event, papi mode, bad value
if [ "$source" = none ]; then
  skip "bad POPMETER_PAPI_EVENTS entry: popmeter was built without PAPI"
  POPMETER_COUNTERS=papi "$pm" run --output "$work/papi" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/papi.err"
  check "papi mode without PAPI: a warning saying so" \
    grep -q "POPMETER_COUNTERS=papi, but no hardware counter can be counted: popmeter was built without PAPI" "$work/papi.err"
else
POPMETER_PAPI_EVENTS="PAPI_TOT_INS,NOT_AN_EVENT_XYZ" "$pm" run --output "$work/bad" -- "$progs/ctr_work" $N \
  >/dev/null 2>"$work/bad.err"
check "bad event: exit 0" test $? -eq 0
check "bad event: a warning names it" grep -q "POPMETER_PAPI_EVENTS: event 'NOT_AN_EVENT_XYZ' is not counted (" "$work/bad.err"
check "bad event: one warning for it" test "$(grep -c "NOT_AN_EVENT_XYZ' is not counted" "$work/bad.err")" -eq 1
j="$work/bad/popmeter.json"
check "bad event: listed as not counted, with PAPI's reason" test -n "$($cj "$j" why NOT_AN_EVENT_XYZ)"
if [ "$status" = unavailable ]; then
  check "bad event: PAPI_TOT_INS still listed" sh -c "$cj '$j' events | grep -q 'PAPI_TOT_INS:no'"
else
  check "bad event: PAPI_TOT_INS still counted (>= $N)" at_least "$($cj "$j" sum PAPI_TOT_INS)" $N
fi
POPMETER_COUNTERS=papi "$pm" run --output "$work/papi" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/papi.err"
if [ "$status" = unavailable ]; then
  check "papi mode without counters: a warning with the reason" \
    grep -q "POPMETER_COUNTERS=papi, but no hardware counter can be counted: PAPI: PAPI_TOT_INS not available: " "$work/papi.err"
else
  check "papi mode with counters: no warning" sh -c "! grep -q 'POPMETER_COUNTERS=papi, but' '$work/papi.err'"
fi
fi
check "auto mode never warns about counters" sh -c "! grep -q 'POPMETER_COUNTERS\|POPMETER_PAPI' '$work/auto.err'"
POPMETER_COUNTERS=sometimes "$pm" run --output "$work/bogus" -- "$progs/ctr_work" 1000 >/dev/null 2>"$work/bogus.err"
check "bad POPMETER_COUNTERS: one warning, default used" \
  grep -q "POPMETER_COUNTERS='sometimes' is not auto, papi or off; using the default auto" "$work/bogus.err"
tap_done
