#!/bin/bash
# Cost per event of popmeter, next to TALP when one is installed: one table, one command
#   make -C build/tests bench-events            (builds the programs, then runs this script)
#   tests/bench/bench_events.sh [-r REPS] [-s SCALE] [--load] [--instructions | --functions N] [EVENT...]
# For every event (an MPI call on 2 ranks, an OpenMP construct on 2 threads, a StarPU task on 2
# workers) the same program runs REPS times in each configuration, the configurations interleaved
# within a repetition so that a change of the machine's load hits them alike:
#   base: no tool;  popmeter: libpopmeter.so preloaded (critical path on, the default);
#   CP=0: popmeter with POPMETER_CRITICAL_PATH=0 (MPI events only: elsewhere the two are the same);
#   CP msgs: popmeter with POPMETER_CP_SHARED_MEMORY=0 (MPI events only): the critical-path clocks
#         travel in messages, as between ranks on different nodes, not through shared memory;
#   TALP: DLB's TALP (DLB_ARGS=--talp) preloaded, when POPMETER_BENCH_TALP names a DLB installation
#         (lib/libdlb_mpi.so for MPI, lib/libdlb.so for libomp; libgomp and StarPU: no support).
#   OMPT alone (libomp rows): an OMPT tool that registers popmeter's callbacks with empty bodies
#         (bench_ompt_null.so): what libomp's dispatch of the events costs any tool.
#   floor (OpenMP rows): the least a tool that times the events can do: the time stamp counter
#         read around each interval and added to a thread-local total, nothing else (no call path,
#         no states, no critical-path clocks, nothing exchanged between threads): an OMPT tool
#         (bench_ompt_floor.so) for libomp, wrappers of GOMP_* for libgomp (bench_gomp_floor.so).
#   ref: another libpopmeter.so (critical path on) when POPMETER_BENCH_REF names one: an older
#        build, to compare two versions in the same interleaved runs; the column pm-ref is then the
#        median over the repetitions of (popmeter - ref) within one repetition: paired runs, adjacent
#        in time (in alternating order), see differences of 50-300 ns that min / median of the columns
#        miss on a noisy host. Its own noise: the same library as both, 41 repetitions, came out at
#        +101 and -87 ns for the libomp region and +5 and +14 for the libgomp one on the development VM.
# A run is killed after BENCH_RUN_TIMEOUT seconds (default 120) and left out.
# Each cell is the time a configuration adds per event over base: min(config) - min(base) and
# median(config) - median(base), in ns. Runs are started with "chrt -f 20" when allowed (root),
# so other work on a small machine does not preempt them (not StarPU: its workers spin beside the
# submitting thread, more threads than cores). --load keeps a compiler busy on the
# side during the runs (the table then says so). SCALE multiplies the events per run (default 1).
# --instructions counts instead of timing (valgrind's callgrind): the instructions executed per
# event in the tool's own library (libpopmeter.so; libdlb*.so for TALP): the difference between a
# run of INSTR_EVENTS events (default 4000) and one of twice as many, over the difference of their
# events (warm-ups included), so that start-up and the end-of-run output cancel out. Instructions
# are not nanoseconds (cache misses, the clock and the transfers between cores are not in them, and
# the MPI calls a tool makes are the MPI library's), but they do not depend on the machine's load: a
# change to a hot path shows as a number that repeats to a few instructions on a noisy host where
# its time does not. Waits that spin in the tool's code (MPI_Barrier's shared-memory slots) count
# their turns, which vary from run to run, and branches taken on measured durations take those of a
# program run 20-50 times slower (the failing poll's run detection: its count is not the native
# one). MPI rows: per call and rank; OpenMP and StarPU rows: per construct or task, all threads
# together. --functions N (implies --instructions) lists below each row the N functions of
# popmeter's library that execute the most instructions per event (where to look first).
# Paths: BENCH_DIR (the built programs, default: this script's build directory's bench/),
# POPMETER_LIB (default: BENCH_DIR/../../lib/.libs/libpopmeter.so), MPIRUN (default mpirun).
set -u
REPS=5 SCALE=1 LOAD=0 INSTR=0 FUNCS=0 EVENTS=()
INSTR_EVENTS=${INSTR_EVENTS:-4000} # events of the shorter counted run (--instructions)
while [ $# -gt 0 ]; do
  case $1 in
  -r) REPS=$2; shift ;;
  -s) SCALE=$2; shift ;;
  --load) LOAD=1 ;;
  --instructions) INSTR=1 ;;
  --functions) INSTR=1 FUNCS=$2; shift ;;
  -h | --help) sed -n '2,/^set -u$/{/^set -u$/!p}' "$0"; exit 0 ;;
  *) EVENTS+=("$1") ;;
  esac
  shift
done
BENCH_DIR=${BENCH_DIR:-$(pwd)/bench}
LIB=${POPMETER_LIB:-$BENCH_DIR/../../lib/.libs/libpopmeter.so}
MPIRUN=${MPIRUN:-mpirun}
TALP=${POPMETER_BENCH_TALP:-}
REF=${POPMETER_BENCH_REF:-}
[ -z "$REF" ] || [ -r "$REF" ] || { echo "bench_events: $REF not found: no ref column" >&2; REF=; }
[ -r "$LIB" ] || { echo "bench_events: $LIB not found (set POPMETER_LIB)" >&2; exit 1; }
if [ -n "$TALP" ] && [ ! -r "$TALP/lib/libdlb_mpi.so" ]; then
  echo "bench_events: $TALP/lib/libdlb_mpi.so not found (DLB builds it only when configured --with-mpi):" \
    "no TALP column" >&2
  TALP=
fi
PRIO=()
chrt -f 20 true 2>/dev/null && PRIO=(chrt -f 20)
WRAP=() # the command each program runs under (valgrind: --instructions)
RUN_TIMEOUT=${BENCH_RUN_TIMEOUT:-120} # seconds: a run that takes longer is killed and left out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export STARPU_SILENT=1
QUIET=(POPMETER_REPORT=0 POPMETER_JSON=0 POPMETER_CUBE=0 POPMETER_TRACE=0)

# event id | program | argument | events per run | divisor of --instructions' count (the MPI calls
# of one event over both ranks: the count is per call and rank) | label
TABLE="allreduce|bench_ev_mpi|allreduce|200000|2|MPI_Allreduce of one double (2 ranks)
barrier|bench_ev_mpi|barrier|200000|2|MPI_Barrier (2 ranks)
pingpong|bench_ev_mpi|pingpong|100000|6|Isend/Irecv/Waitall ping-pong, per call
testfail|bench_ev_mpi|testfail|2000000|2|failing MPI_Test poll
parallel_omp|bench_ev_omp|parallel|100000|1|empty omp parallel, libomp (OMPT)
parallel_gomp|bench_ev_gomp|parallel|100000|1|empty omp parallel, libgomp
barrier_omp|bench_ev_omp|barrier|200000|1|omp barrier, libomp
barrier_gomp|bench_ev_gomp|barrier|200000|1|omp barrier, libgomp
for16_omp|bench_ev_omp|for16|200000|1|omp for, 16 iterations, libomp
for16_gomp|bench_ev_gomp|for16|200000|1|omp for, 16 iterations, libgomp
task_omp|bench_ev_omp|task|200000|1|explicit task, libomp
task_gomp|bench_ev_gomp|task|200000|1|explicit task, libgomp
starpu|bench_ev_starpu||100000|1|empty StarPU task, chains of 10, 2 workers"

# One run: prints ns per event, or nothing when the run failed.
run() { # config program argument n
  local cfg=$1 prog=$BENCH_DIR/$2 arg=$3 n=$4
  case $2 in
  bench_ev_mpi)
    local pre=()
    case $cfg in
    popmeter) pre=(-x LD_PRELOAD="$LIB") ;;
    cp0) pre=(-x LD_PRELOAD="$LIB" -x POPMETER_CRITICAL_PATH=0) ;;
    cpmsg) pre=(-x LD_PRELOAD="$LIB" -x POPMETER_CP_SHARED_MEMORY=0) ;;
    ref) pre=(-x LD_PRELOAD="$REF") ;;
    talp) pre=(-x LD_PRELOAD="$TALP/lib/libdlb_mpi.so" -x DLB_ARGS=--talp) ;;
    esac
    local q=()
    for v in "${QUIET[@]}"; do q+=(-x "$v"); done
    "${PRIO[@]}" timeout -s KILL "$RUN_TIMEOUT" "$MPIRUN" -np 2 --bind-to core "${q[@]}" "${pre[@]}" "${WRAP[@]}" "$prog" "$arg" "$n" </dev/null 2>/dev/null | tail -n 1
    ;;
  *)
    local env=(OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=spread STARPU_NCPU=2 "${QUIET[@]}")
    case $cfg in
    popmeter) env+=(LD_PRELOAD="$LIB") ;;
    ref) env+=(LD_PRELOAD="$REF") ;;
    talp) env+=(LD_PRELOAD="$TALP/lib/libdlb.so" DLB_ARGS=--talp) ;;
    ompt) env+=(LD_PRELOAD="$BENCH_DIR/bench_ompt_null.so") ;;
    floor) env+=(LD_PRELOAD="$BENCH_DIR/$(floor_tool "$2")") ;;
    esac
    # StarPU's workers spin beside the submitting thread: more threads than the 2 cores they are
    # given, which under a real-time policy can starve the thread they wait for (no "chrt" there)
    local prio=("${PRIO[@]}")
    [ "$2" = bench_ev_starpu ] && prio=()
    "${prio[@]}" timeout -s KILL "$RUN_TIMEOUT" env "${env[@]}" "${WRAP[@]}" "$prog" $arg "$n" </dev/null 2>/dev/null | tail -n 1
    ;;
  esac
}

# The "floor" tool of an OpenMP program, by its runtime.
floor_tool() { case $1 in bench_ev_omp) echo bench_ompt_floor.so ;; bench_ev_gomp) echo bench_gomp_floor.so ;; esac; }

# Whether TALP measures this program (DLB has no libgomp and no StarPU support).
talp_supports() { [ "$1" != bench_ev_gomp ] && [ "$1" != bench_ev_starpu ]; }

# Whether the event is to be measured: named on the command line (or none named), program built.
selected() { # id program label
  if [ ${#EVENTS[@]} -gt 0 ] && ! printf '%s\n' "${EVENTS[@]}" | grep -qx "$1"; then return 1; fi
  [ -x "$BENCH_DIR/$2" ] || { echo "bench_events: $2 not built: $3 skipped" >&2; return 1; }
}

# Events a program runs for argument n: n, after a warm-up of max(n / 10, 1000) (the bench_ev_*
# programs' rule).
events_of() { echo $(($1 + ($1 / 10 > 1000 ? $1 / 10 : 1000))); }

# Instructions executed per function in the object files whose path starts with $2, summed over
# the callgrind outputs in directory $1 (every process and thread of one run): lines "COUNT
# FILE:FUNCTION".
tool_functions() {
  local f
  for f in "$1"/cg.*; do
    [ -e "$f" ] && callgrind_annotate --threshold=100 --auto=no "$f" 2>/dev/null
  done | awk -v obj="[$2" 'index($0, obj) { gsub(",", "", $1); k = $(NF - 1); sub(/.*\//, "", k); s[k] += $1 }
    END { for (k in s) printf "%.0f %s\n", s[k], k }'
}

# The tool's own instructions per MPI call / construct / task: prints a number, or "-" when a run
# failed. With FUNCS > 0, also the FUNCS functions that execute the most of them per event, into
# the file FUNCS_OUT.
instructions_per_event() { # config program argument calls-per-event
  local obj dir n1=$INSTR_EVENTS n2=$((2 * INSTR_EVENTS)) ok=1
  case $1 in
  ref) obj=$(readlink -f "$REF") ;;
  talp) obj=$(readlink -f "$TALP")/lib/libdlb ;;
  *) obj=$(readlink -f "$LIB") ;;
  esac
  dir=$(mktemp -d)
  # threads that spin waiting for another get turns in order (valgrind runs one thread at a time)
  WRAP=(valgrind -q --tool=callgrind --fair-sched=yes "--callgrind-out-file=$dir/cg.%p")
  [ -n "$(run "$1" "$2" "$3" "$n1")" ] && tool_functions "$dir" "$obj" >"$dir/f1" || ok=0
  rm -f "$dir"/cg.*
  [ "$ok" = 1 ] && [ -n "$(run "$1" "$2" "$3" "$n2")" ] && tool_functions "$dir" "$obj" >"$dir/f2" || ok=0
  WRAP=()
  if [ "$ok" = 0 ]; then
    echo "-"
    rm -rf "$dir"
    return
  fi
  # per function: (count in the longer run - count in the shorter) / (their difference of events)
  awk -v d="$(($(events_of "$n2") - $(events_of "$n1")))" -v c="$4" -v funcs="$FUNCS" -v out="${FUNCS_OUT:-/dev/null}" '
    FNR == NR { a[$2] = $1; next }
    { v[$2] = ($1 - a[$2]) / d / c; delete a[$2] }
    END { for (k in a) v[k] = -a[k] / d / c
      for (k in v) t += v[k]; printf "%.0f\n", t
      if (funcs > 0) { cmd = "sort -rn | head -n " funcs " >" out
        for (k in v) if (v[k] >= 0.5) printf "%9.0f  %s\n", v[k], k | cmd
        close(cmd) } }' "$dir/f1" "$dir/f2"
  rm -rf "$dir"
}

if [ "$INSTR" = 1 ]; then
  for t in valgrind callgrind_annotate; do
    command -v "$t" >/dev/null || { echo "bench_events: --instructions needs $t (Debian package valgrind)" >&2; exit 1; }
  done
  PRIO=() # valgrind runs the threads one at a time: no preemption to guard against
  # OpenMP threads that wait sleep instead of spinning through their turns: the runtime's own
  # waiting, not the tool's instructions (which are the same either way)
  export OMP_WAIT_POLICY=passive
  echo "popmeter: instructions per event executed in the tool's own library (callgrind; runs of $INSTR_EVENTS and $((2 * INSTR_EVENTS)) events)"
  line=$(printf "%-46s %9s %9s" "event" "popmeter" "CP=0")
  [ -n "$REF" ] && line+=$(printf " %9s %9s" "ref" "pm-ref")
  [ -n "$TALP" ] && line+=$(printf " %9s" "TALP")
  echo "$line"
  while IFS='|' read -r id prog arg n calls label; do
    selected "$id" "$prog" "$label" || continue
    funcs_file=$(mktemp)
    pm=$(FUNCS_OUT=$funcs_file instructions_per_event popmeter "$prog" "$arg" "$calls")
    cp0=
    [ "$prog" = bench_ev_mpi ] && cp0=$(instructions_per_event cp0 "$prog" "$arg" "$calls")
    line=$(printf "%-46s %9s %9s" "$label" "$pm" "$cp0")
    if [ -n "$REF" ]; then
      ref=$(instructions_per_event ref "$prog" "$arg" "$calls")
      diff=-
      [ "$pm" != - ] && [ "$ref" != - ] && diff=$(printf "%+d" $((pm - ref)))
      line+=$(printf " %9s %9s" "$ref" "$diff")
    fi
    if [ -n "$TALP" ]; then
      talp=-
      talp_supports "$prog" && talp=$(instructions_per_event talp "$prog" "$arg" "$calls")
      line+=$(printf " %9s" "$talp")
    fi
    echo "${line%"${line##*[! ]}"}"
    sed 's/^/    /' "$funcs_file"
    rm -f "$funcs_file"
  done <<<"$TABLE"
  exit 0
fi

LOADPID=
stop_load() { [ -n "$LOADPID" ] && kill "$LOADPID" 2>/dev/null; wait 2>/dev/null; }
trap stop_load EXIT
if [ "$LOAD" = 1 ]; then
  SRC=$(dirname "$(readlink -f "$0")")/../../lib/core/pm_location.c
  INC="-I$(dirname "$SRC") -I$(dirname "$SRC")/../base"
  (while :; do gcc -O2 $INC -c "$SRC" -o /dev/null 2>/dev/null; done) &
  LOADPID=$!
fi

LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
RESULTS=$(mktemp)
trap 'stop_load; rm -f "$RESULTS"' EXIT
while IFS='|' read -r id prog arg n _calls label; do
  selected "$id" "$prog" "$label" || continue
  n=$(awk -v n="$n" -v s="$SCALE" 'BEGIN{printf "%d", n * s}')
  cfgs=(base popmeter)
  [ "$prog" = bench_ev_mpi ] && cfgs+=(cp0 cpmsg)
  [ -n "$REF" ] && cfgs+=(ref)
  [ -n "$TALP" ] && talp_supports "$prog" && cfgs+=(talp)
  [ "$prog" = bench_ev_omp ] && [ -r "$BENCH_DIR/bench_ompt_null.so" ] && cfgs+=(ompt)
  f=$(floor_tool "$prog")
  [ -n "$f" ] && [ -r "$BENCH_DIR/$f" ] && cfgs+=(floor)
  for r in $(seq "$REPS"); do
    order=("${cfgs[@]}")
    # popmeter and ref swap places every other repetition: still adjacent, and neither always runs
    # second, so that what a run's place after another does to it (caches, the clock's ramp) cannot
    # favour one of the two in pm-ref
    if [ -n "$REF" ] && [ $((r % 2)) = 0 ]; then
      for i in "${!order[@]}"; do
        case ${order[$i]} in popmeter) order[$i]=ref ;; ref) order[$i]=popmeter ;; esac
      done
    fi
    for c in "${order[@]}"; do
      v=$(run "$c" "$prog" "$arg" "$n")
      [ -n "$v" ] && echo "$id|$c|$v|$r" >>"$RESULTS"
    done
  done
  echo "$id|label|$label" >>"$RESULTS"
done <<<"$TABLE"

echo "popmeter: ns added per event over the uninstrumented run, min / median of $REPS interleaved runs"
# the CPU model: base times and what an event adds differ by up to 2x between hosts of one VM type
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
echo "(${CPU_MODEL:-unknown CPU}, $(nproc) CPUs, ${PRIO[*]:-normal priority}$([ "$LOAD" = 1 ] && echo ', a compiler busy on the side'); load average at the start: $LOADAVG)"
awk -F'|' -v talp="$TALP" -v ref="$REF" -v reps="$REPS" '
  function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
  function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function stat(id, c,   r, n, v) { n = 0; for (r = 1; r <= reps; r++) if ((id, c, r) in val) v[++n] = val[id, c, r]
    if (!n) return 0; md[id, c] = median(v, n); mn[id, c] = v[1]; return 1 }
  function cell(id, c) { if (!stat(id, c) || !stat(id, "base")) return "-";
    return sprintf("%+.0f / %+.0f", mn[id, c] - mn[id, "base"], md[id, c] - md[id, "base"]) }
  # popmeter - ref, paired: the median over the repetitions of the difference between the two runs
  # of one repetition (adjacent in time, so a drift of the machine cancels out)
  function paired(id,   r, n, d) { n = 0
    for (r = 1; r <= reps; r++) if ((id, "popmeter", r) in val && (id, "ref", r) in val) d[++n] = val[id, "popmeter", r] - val[id, "ref", r]
    return n ? sprintf("%+.0f", median(d, n)) : "-" }
  $2 == "label" { order[++nid] = $1; label[$1] = $3; next }
  { cnt[$1, $2]++; val[$1, $2, $4] = $3; if ($2 == "ompt") ompt = 1; if ($2 == "floor") floor = 1 }
  END {
    line = sprintf("%-46s %9s %15s %15s %15s", "event", "base ns", "popmeter", "CP=0", "CP msgs")
    if (ref != "") line = line sprintf(" %15s %8s", "ref", "pm-ref")
    if (talp != "") line = line sprintf(" %15s", "TALP")
    if (ompt) line = line sprintf(" %15s", "OMPT alone")
    if (floor) line = line sprintf(" %15s", "floor")
    print line
    for (i = 1; i <= nid; i++) { id = order[i]
      b = stat(id, "base") ? sprintf("%.0f", md[id, "base"]) : "-"
      line = sprintf("%-46s %9s %15s %15s %15s", label[id], b, cell(id, "popmeter"), cnt[id, "cp0"] ? cell(id, "cp0") : "",
                     cnt[id, "cpmsg"] ? cell(id, "cpmsg") : "")
      if (ref != "") line = line sprintf(" %15s %8s", cell(id, "ref"), paired(id))
      if (talp != "") line = line sprintf(" %15s", cnt[id, "talp"] ? cell(id, "talp") : "-")
      if (ompt) line = line sprintf(" %15s", cnt[id, "ompt"] ? cell(id, "ompt") : "")
      if (floor) line = line sprintf(" %15s", cnt[id, "floor"] ? cell(id, "floor") : "")
      sub(/ +$/, "", line)
      print line }
  }' "$RESULTS"
