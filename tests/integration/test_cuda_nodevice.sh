#!/bin/sh
# The CUDA module on a machine without a usable GPU: an MPI program (2 ranks, preloaded) that does
# not use CUDA runs with POPMETER_CUDA=0 (CUDA not looked for), with POPMETER_CUDA unset (the
# default: a program without CUDA is left alone, the driver is never initialised, no note), and
# with POPMETER_CUDA=1 (look for CUDA in any program), against
#  - no driver at all (skipped where a driver is installed): note "no CUDA device (libcuda.so.1 not found)";
#  - the toolkit's stub driver as libcuda.so.1: "no CUDA device (cuInit failed: ...)";
#  - a fake driver reporting one device (tests/integration/progs/fake_libcuda.c): the plugin is
#    loaded and CUPTI refuses to attach: "CUDA activity not measured: ..." (or, without CUPTI at
#    build time, "... popmeter was built without CUPTI").
# Each time: exit 0, the application's output unchanged, the note in the table (once, rank 0) and
# in popmeter.json (every process), no device location, and the same models, metric for metric, as
# the POPMETER_CUDA=0 run (load balance near its analytic 0.75 in every run).
. "$top_srcdir/tests/tap.sh"
prog="$top_builddir/tests/integration/progs/mpi_imbalance"
lib="$top_builddir/lib/.libs/libpopmeter.so"
fake="$top_builddir/tests/integration/.libs/libfakecuda.so"
stub=
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64/stubs" "${CUDA_HOME:-/usr/local/cuda}/lib/stubs"; do   # the toolkit's stub driver
  [ -f "$d/libcuda.so" ] && { stub="$d/libcuda.so"; break; }
done
py=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/pmcuda.XXXXXX")
trap 'rm -rf "$work"' EXIT

# run LABEL [mpirun -x options...]: output in $work/LABEL (json), LABEL.out, LABEL.err
run() {
  label=$1; shift
  timeout 120 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$work/$label" -x POPMETER_CUBE=0 -x POPMETER_REPORT=full "$@" \
    "$prog" 0.05 4 >"$work/$label.out" 2>"$work/$label.err"
  check "$label: exit 0" test $? -eq 0
  check "$label: application output unchanged" grep -q "checksum 1.000" "$work/$label.out"
}

# cuda_status LABEL: the "cuda" entry of every process, one per line ("-" when absent)
cuda_status() {
  $py -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(p.get("cuda","-")) for p in d["processes"]]' \
    "$work/$1/popmeter.json"
}
# models LABEL: every model and metric id path, with "na" or "value" (not the values: timing noise)
models() {
  $py - "$work/$1/popmeter.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(n, pre):
    print(pre + n["id"], "na" if n.get("value") is None else "value")
    for c in n.get("children", []):
        walk(c, pre + n["id"] + "/")
for m in sorted(d["models"]):
    walk(d["models"][m], "")
EOF
}
devices() { $py -c 'import json,sys; print(sum(l["role"]=="device" for l in json.load(open(sys.argv[1]))["locations"]))' "$work/$1/popmeter.json"; }
lb() { $py "$top_srcdir/tests/integration/pmjson.py" "$work/$1/popmeter.json" basic/pe/lb; }

# compare LABEL EXPECTED_NOTE_PREFIX: the checks every module-on run must pass
compare() {
  label=$1; want=$2
  if [ ! -s "$work/$label/popmeter.json" ]; then notok "$label: popmeter.json written"; return; fi
  st=$(cuda_status "$label")
  diag "$label: cuda = $(echo "$st" | head -1)"
  check "$label: both processes carry the note" test "$(echo "$st" | grep -c "^$want")" -eq 2
  check "$label: the table shows the note once" test "$(grep -c "^   - $want" "$work/$label.err")" -eq 1
  check "$label: no device location" test "$(devices "$label")" -eq 0
  models "$label" > "$work/$label.models"
  check "$label: same models and metrics as with POPMETER_CUDA=0" cmp -s "$work/off.models" "$work/$label.models"
  check "$label: no TALP (device) model" sh -c "! grep -q '^talp' '$work/$label.models'"
  v=$(lb "$label"); diag "$label: load balance $v (expected 0.75)"
  check "$label: load balance near 0.75" near "$v" 0.75 0.06
}

run off -x POPMETER_CUDA=0
if [ -s "$work/off/popmeter.json" ]; then
  check "POPMETER_CUDA=0: no note in popmeter.json" test "$(cuda_status off | sort -u)" = "-"
  check "POPMETER_CUDA=0: no CUDA note in the table" sh -c "! grep -q 'CUDA' '$work/off.err'"
  models off > "$work/off.models"
  check "POPMETER_CUDA=0: load balance near 0.75" near "$(lb off)" 0.75 0.06
else
  notok "POPMETER_CUDA=0: popmeter.json written"
fi

if $py -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
  skip "no driver: a CUDA driver is installed here (the no-driver path is tested on machines without one)"
else
  run nodriver -x POPMETER_CUDA=1
  compare nodriver "no CUDA device (libcuda.so.1 not found)"
fi

if [ -n "$stub" ]; then
  mkdir -p "$work/stubdir" && ln -s "$stub" "$work/stubdir/libcuda.so.1"
  run stub -x POPMETER_CUDA=1 -x LD_LIBRARY_PATH="$work/stubdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  compare stub "no CUDA device (cuInit failed: "
else
  skip "stub driver: no CUDA toolkit with stubs/libcuda.so (CUDA_HOME or /usr/local/cuda)"
fi

if [ -f "$fake" ]; then
  mkdir -p "$work/fakedir" && ln -s "$fake" "$work/fakedir/libcuda.so.1"
  # default (POPMETER_CUDA unset): a program without CUDA never initialises the driver
  run auto -x LD_LIBRARY_PATH="$work/fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" -x FAKE_CUDA_INIT_MARK="$work/auto.cuinit"
  check "auto: the driver was not initialised (no cuInit)" test ! -e "$work/auto.cuinit"
  check "auto: no note in popmeter.json" test "$(cuda_status auto | sort -u)" = "-"
  check "auto: no CUDA note in the table" sh -c "! grep -q 'CUDA' '$work/auto.err'"
  run fake -x POPMETER_CUDA=1 -x LD_LIBRARY_PATH="$work/fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    -x FAKE_CUDA_INIT_MARK="$work/fake.cuinit"
  check "POPMETER_CUDA=1: the driver was initialised" test -e "$work/fake.cuinit"
  if [ -f "$top_builddir/lib/.libs/libpopmeter-cuda.so" ]; then
    compare fake "CUDA activity not measured: cupti"
  else
    compare fake "CUDA activity not measured: popmeter was built without CUPTI"
  fi
else
  notok "fake driver: $fake was not built"
fi

# A program with device code (built by nvcc when configure found it) is a CUDA program: by default
# CUDA is looked for, and on this machine the reason it is not measured is noted.
cudaprog="$top_builddir/tests/integration/progs/cuda_mpi"
if [ -x "$cudaprog" ] && ! $py -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null; then
  POPMETER_OUTPUT="$work/cudaprog" POPMETER_CUBE=0 LD_PRELOAD="$lib" POPMETER_TARGET=cuda_mpi \
    timeout 60 "$cudaprog" >"$work/cudaprog.out" 2>"$work/cudaprog.err"
  check "CUDA program, default settings: the note says why CUDA is not measured" \
    test "$(cuda_status cudaprog)" = "no CUDA device (libcuda.so.1 not found)"
else
  skip "CUDA program: not built (no nvcc) or a driver is installed here"
fi
tap_done
