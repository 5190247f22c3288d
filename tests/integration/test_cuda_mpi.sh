#!/bin/sh
# A real CUDA + MPI program (progs/cuda_mpi.c + cuda_mpi_kernels.cu: kernels, copies both ways,
# cudaDeviceSynchronize, MPI_Allreduce; rank r spins (r+1) units of kernels per round) on 2 ranks
# under popmeter. Needs a GPU and its driver: elsewhere it SKIPs with the reason the program gives.
# With a GPU: one device stream or more per rank with kernel and copy time, every process "measured",
# the host blocked in CUDA calls (device time on the main threads), the TALP device metrics present,
# kernel time per rank near ITER*(r+1)*UNIT (tolerance 35 %), and device load balance near
# (1+2)/(2*2) = 0.75 when each rank has its own GPU (one stream each).
. "$top_srcdir/tests/tap.sh"
prog="$top_builddir/tests/integration/progs/cuda_mpi"
lib="$top_builddir/lib/.libs/libpopmeter.so"
py=/usr/bin/python3
pmjson="$py $top_srcdir/tests/integration/pmjson.py"
work=$(mktemp -d "${TMPDIR:-/tmp}/pmcudampi.XXXXXX")
trap 'rm -rf "$work"' EXIT
unit=0.05; iter=4

if [ ! -x "$prog" ]; then
  skip "CUDA + MPI program not built (configure found no nvcc / CUPTI)"; tap_done
fi
if [ ! -f "$top_builddir/lib/.libs/libpopmeter-cuda.so" ]; then
  skip "CUDA plugin not built (configure found no CUPTI)"; tap_done
fi
timeout 120 $MPIRUN -np 2 "$prog" "$unit" "$iter" >"$work/plain.out" 2>"$work/plain.err"
if grep -q '^SKIP: ' "$work/plain.out"; then
  skip "$(sed -n 's/^SKIP: //p' "$work/plain.out" | head -1)"; tap_done
fi
check "without popmeter: checksum ok" grep -q "checksum ok" "$work/plain.out"

out="$work/run"
timeout 300 $MPIRUN -np 2 -x LD_PRELOAD="$lib" -x POPMETER_OUTPUT="$out" "$prog" "$unit" "$iter" \
  >"$work/pm.out" 2>"$work/pm.err"
check "under popmeter: exit 0" test $? -eq 0
check "under popmeter: checksum ok (results unchanged)" grep -q "checksum ok" "$work/pm.out"
j="$out/popmeter.json"
if [ ! -s "$j" ]; then notok "popmeter.json written"; tap_done; fi
cat "$work/pm.err" | sed 's/^/# /'           # the table, for the record
$py - "$j" "$unit" "$iter" > "$work/facts" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); unit = float(sys.argv[2]); it = int(sys.argv[3])
locs = d["locations"]
dev = [l for l in locs if l["role"] == "device"]
print("status", ",".join(sorted(set(p.get("cuda", "-") for p in d["processes"]))))
print("streams", len(dev))
print("ranks_with_streams", len(set(l["process"] for l in dev)))
for r in range(len(d["processes"])):
    k = sum(l["time"]["useful"] + l["time_in_parallel"]["useful"] for l in dev if l["process"] == r)
    c = sum(l["time"]["device"] for l in dev if l["process"] == r)
    want = it * (r + 1) * unit
    print("kernel_ok_%d" % r, int(abs(k - want) <= 0.35 * want), "%.4f" % k, "%.4f" % want)
    print("copy_%d" % r, int(c > 0))
    host = [l for l in locs if l["process"] == r and l["role"] == "main"]
    print("host_device_%d" % r, int(bool(host) and host[0]["time"]["device"] > 0))
print("devices_distinct", len(set((l["process"], l["device"]["device"]) for l in dev)))
EOF
sed 's/^/# /' "$work/facts"
fact() { awk -v k="$1" '$1 == k { print $2 }' "$work/facts"; }
check "every process measured CUDA" test "$(fact status)" = "measured"
check "device streams recorded" test "$(fact streams)" -ge 2
check "both ranks have a device stream" test "$(fact ranks_with_streams)" -eq 2
for r in 0 1; do
  check "rank $r: kernel time near $iter*($r+1)*$unit s" test "$(fact kernel_ok_$r)" = 1
  check "rank $r: copy time recorded" test "$(fact copy_$r)" = 1
  check "rank $r: main thread blocked in CUDA calls (device state)" test "$(fact host_device_$r)" = 1
done
dpe=$($pmjson "$j" talp/device_pe); off=$($pmjson "$j" talp/offload); dlb=$($pmjson "$j" talp/device_pe/dev_lb)
diag "device PE $dpe, offload $off, device LB $dlb"
check "TALP device parallel efficiency computed" $py -c "import sys; v=sys.argv[1]; sys.exit(0 if v!='na' and 0<float(v)<=1 else 1)" "$dpe"
check "TALP offload efficiency computed" $py -c "import sys; v=sys.argv[1]; sys.exit(0 if v!='na' and 0<float(v)<1 else 1)" "$off"
if [ "$(fact streams)" -eq 2 ]; then
  check "device load balance near 0.75" $py -c "import sys; sys.exit(0 if abs(float(sys.argv[1])-0.75)<=0.08 else 1)" "$dlb"
else
  skip "device load balance: $(fact streams) streams (the analytic 0.75 needs one stream per rank)"
fi
check "the table shows the device streams" grep -q "CUDA device streams" "$work/pm.err"
tap_done
