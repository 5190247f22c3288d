#!/bin/sh
# The StarPU adapter leaves applications alone and works preloaded or linked:
#  - an application's callbacks, prologues, priorities, task fields and results are the same with
#    and without popmeter (progs/sp_invariance.c: deterministic output, compared line by line);
#  - a program linked with -lpopmeter before -lstarpu is measured without LD_PRELOAD;
#  - libpopmeter.so references no StarPU symbol, and every StarPU name it exports exists in
#    Debian's StarPU (a misspelt wrapper would never be called);
#  - the end-of-run table shows the task sections.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/starpu_common.sh"
STARPU_SCHED=prio STARPU_NCPU=1 "$progs/sp_invariance" >"$work/plain.txt" 2>"$work/err"
rc1=$?
STARPU_SCHED=prio STARPU_NCPU=1 POPMETER_OUTPUT="$work/inv" LD_PRELOAD="$lib" "$progs/sp_invariance" >"$work/pm.txt" 2>>"$work/err"
rc2=$?
check "invariance program exits 0 with and without popmeter" test "$rc1/$rc2" = 0/0
check "same output with and without popmeter" cmp -s "$work/plain.txt" "$work/pm.txt"
check "priorities respected (order 1 4 3 5 0 2 99)" grep -qx "order: 1 4 3 5 0 2 99" "$work/pm.txt"
check "each callback and prologue ran once" grep -qx "callbacks: 1/1/1 1/1/1 1/1/1 1/1/1 1/1/1 1/1/1" "$work/pm.txt"
check "task fields are the application's after execution" grep -qx "fields after execution: unchanged" "$work/pm.txt"
check "body-less join point kept its callback" grep -qx "join callback: 1" "$work/pm.txt"
check "tasks measured in that run" test "$($pmjson "$work/inv/popmeter.json" --tasks codelet inv count)" = 7
# linked: no LD_PRELOAD
POPMETER_REPORT=full POPMETER_OUTPUT="$work/linked" "$progs/sp_dag_linked" diamond 5 >"$work/linked.txt" 2>"$work/linked.err"
check "linked program exits 0" test $? -eq 0
check "linked program measured (task critical path > 0)" \
  awk -v c="$($pmjson "$work/linked/popmeter.json" --tasks cp)" 'BEGIN { exit !(c > 0.02) }'
check "table: Critical path section" grep -q "Critical path (task DAG" "$work/linked.err"
check "table: Top codelets section" grep -q "Top codelets" "$work/linked.err"
check "table: the diamond's codelets on the path" grep -q "dag_B" "$work/linked.err"
# preload hygiene
und=$(nm -D --undefined-only "$lib" | awk '$1 == "U" {print $2}' | grep -E '^_?starpu' | head -3)
check "no hard reference to a StarPU symbol${und:+ ($und)}" test -z "$und"
check "preload inert in /bin/true under LD_BIND_NOW" env LD_BIND_NOW=1 LD_PRELOAD="$lib" /bin/true
sp=$(pkg-config --variable=libdir starpu-1.3 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
real=$(nm -D --defined-only "$sp"/libstarpu-1.3.so "$sp"/libstarpumpi-1.3.so 2>/dev/null | awk '{print $3}')
# (starpu_prof_tool_library_register: the entry point StarPU 1.4 looks up in a tool, not a 1.3 function)
unknown=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^_?starpu' | grep -vx starpu_prof_tool_library_register | while read -r s; do
  echo "$real" | grep -qx "$s" || echo "$s"; done | head -3)
check "every exported StarPU name is a StarPU function${unknown:+ (not in StarPU: $unknown)}" test -z "$unknown"
tap_done
