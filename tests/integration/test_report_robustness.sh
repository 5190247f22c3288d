#!/bin/sh
# Bad input never crashes anything and never loses measured data: a program without MPI_Finalize,
# an unusable output directory, bad POPMETER_* values, malformed JSON for `popmeter show`, and the
# preload's inertness in processes that are not the application.
. "$top_srcdir/tests/tap.sh"
prog="$top_builddir/tests/integration/progs/mpi_imbalance"
lib="$top_builddir/lib/.libs/libpopmeter.so"
pm="$top_builddir/tools/popmeter"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# 1. inert preload: nothing printed, exit status kept, even with immediate binding
LD_BIND_NOW=1 LD_PRELOAD="$lib" /bin/true
check "LD_BIND_NOW=1 LD_PRELOAD=libpopmeter.so /bin/true succeeds" test $? -eq 0
out=$(LD_PRELOAD="$lib" sh -c 'echo hi; ls / >/dev/null' 2>&1)
check "preloaded shell prints nothing of popmeter" test "$out" = "hi"
LD_PRELOAD="$lib" sh -c 'exit 3'
check "preloaded shell keeps its exit status" test $? -eq 3
check "no output directory created by inert processes" sh -c "! ls -d popmeter-* 2>/dev/null"

# 2. no MPI_Finalize: each process reports itself, with the reason
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$work/nofin" "$prog" 0.02 2 --no-finalize >/dev/null 2>"$work/err_nofin"
# counted with -o: the two processes write at the same moment, their tables may share a line
check "no MPI_Finalize: a table per process" test "$(grep -o '=== popmeter ' "$work/err_nofin" | wc -l)" -eq 2
check "no MPI_Finalize: the reason is stated" grep -q "MPI_Finalize was not called" "$work/err_nofin"
check "no MPI_Finalize: both processes' JSON kept, one directory per rank" test -s "$work/nofin.rank0/popmeter.json" -a -s "$work/nofin.rank1/popmeter.json"

# 3. output directory that cannot be created: the table still appears, the fallback is named
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT=/proc/popmeter/cannot -x TMPDIR="$work" "$prog" 0.01 1 >/dev/null 2>"$work/err_dir"
check "unwritable output: run succeeds" test $? -eq 0
check "unwritable output: table printed" grep -q 'Parallel efficiency' "$work/err_dir"
check "unwritable output: message names the directory" grep -q "cannot use output directory /proc/popmeter/cannot" "$work/err_dir"

# 4. bad configuration values: one warning each, naming the variable; the run goes on
$MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$work/cfg" -x POPMETER_TABLE_WIDTH=wide \
  "$prog" 0.01 1 >/dev/null 2>"$work/err_cfg"
check "bad POPMETER_TABLE_WIDTH: run succeeds" test $? -eq 0
check "bad POPMETER_TABLE_WIDTH: warned once per process" test "$(grep -c "POPMETER_TABLE_WIDTH='wide'" "$work/err_cfg")" -eq 2
POPMETER_MODELS=basic,bogus $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_MODELS -x POPMETER_OUTPUT="$work/cfg2" \
  "$prog" 0.01 1 >/dev/null 2>"$work/err_models"
check "unknown model name: warned and the default shown" grep -q "unknown model 'bogus'" "$work/err_models"
POPMETER_ENABLE=0 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_ENABLE "$prog" 0.01 1 >/dev/null 2>"$work/err_off"
check "POPMETER_ENABLE=0: no table" sh -c "! grep -q 'Parallel efficiency' '$work/err_off'"

# 5. popmeter show on bad files: a message naming the file, exit 1, never a crash
printf '{"schema": "popmeter-profile", "version": 1, "processes": [' > "$work/trunc.json"
"$pm" show "$work/trunc.json" 2>"$work/err_show"; rc=$?
check "show truncated JSON: exit 1" test $rc -eq 1
check "show truncated JSON: names the file" grep -q "trunc.json" "$work/err_show"
echo '{"hello": 1}' > "$work/foreign.json"
"$pm" show "$work/foreign.json" 2>"$work/err_foreign"; rc=$?
check "show foreign JSON: exit 1 with reason" sh -c "test $rc -eq 1 && grep -q 'not a popmeter profile' '$work/err_foreign'"
"$pm" show "$work/missing.json" 2>/dev/null; rc=$?
check "show missing file: exit 1" test $rc -eq 1
# a process index past 2^31 (once a crash) or past 2^32 (once wrapped to process 0): refused, in
# show and in popmeter-report, with the field named
for big in 2147483648 4294967296 9223372036854775807; do
  /usr/bin/python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["locations"][0]["process"] = int(sys.argv[2]); json.dump(p, open(sys.argv[3], "w"))' \
    "$work/cfg/popmeter.json" "$big" "$work/big.json"
  "$pm" show "$work/big.json" 2>"$work/err_big"; rc=$?
  check "show process $big: exit 1 naming the field" sh -c "test $rc -eq 1 && grep -q 'locations\[0\]: \"process\" $big out of range' '$work/err_big'"
  "$top_builddir/reports/popmeter-report" "$work/big.json" -o "$work/big_report" 2>"$work/err_big"; rc=$?
  check "popmeter-report process $big: refused naming the field" sh -c "test $rc -ne 0 && test $rc -lt 128 && grep -q '\"process\" $big out of range' '$work/err_big'"
done
"$pm" show "$work/missing.json" 2>"$work/err_missing"
check "show missing file: names the file and the reason, no line number" \
  sh -c "grep -q 'missing.json: unable to open .*No such file' '$work/err_missing' && ! grep -q 'line -1' '$work/err_missing'"
"$pm" show --models bogus "$work/cfg" >/dev/null 2>"$work/err_bogus"
check "show --models bogus: warned, the defaults used" grep -q "unknown model 'bogus'" "$work/err_bogus"
/usr/bin/python3 -c 'import json, sys
p = json.load(open(sys.argv[1])); p["runtime"] = 1e-320
for q in p["processes"]: q["window"] = 1e-320
json.dump(p, open(sys.argv[2], "w"))' "$work/cfg/popmeter.json" "$work/denormal.json"
"$pm" show --full "$work/denormal.json" >"$work/denormal.out" 2>&1
check "show a denormal runtime: no inf or nan printed" sh -c "! grep -qiwE 'inf|nan' '$work/denormal.out'"
"$pm" --help-env | grep -q POPMETER_OUTPUT
check "popmeter --help-env lists the variables" test $? -eq 0
tap_done
