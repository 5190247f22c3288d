#!/bin/sh
# libpopmeter.so exports only its API and the names it interposes, and needs no MPI/StarPU library
# (so the preload stays inert in processes that do not use them).
. "$top_srcdir/tests/tap.sh"
lib="$top_builddir/lib/.libs/libpopmeter.so"
syms=$(nm -D --defined-only "$lib" | awk '{print $3}')
api="pm_region_begin pm_region_end pm_wait_begin pm_wait_end pm_pause pm_resume pm_is_active pm_query_thread pm_tag_publish pm_quantity_set popmeter_version"
for s in $api; do
  check "exports $s" sh -c "echo '$syms' | grep -qx '$s'"
done
# Everything else must be an interposed entry point of a foreign API (the I/O adapter's libc names;
# the StarPU adapter also interposes a few _starpu_ internals that StarPU calls through its PLT/GOT).
# In the sanitizer build, AddressSanitizer adds an ODR indicator (__odr_asan.NAME) per exported variable.
io_names='open|open64|openat|openat64|__open_2|__open64_2|read|__read_chk|write|pread|pread64|__pread_chk|__pread64_chk|pwrite|pwrite64|readv|writev|fsync|fdatasync|close|socket|socketpair|pipe|pipe2|dup|dup2|dup3|accept|accept4|fopen|fopen64|fclose|fread|__fread_chk|fwrite|fgets|__fgets_chk|fputs|fflush|vfprintf|fprintf|__vfprintf_chk|__fprintf_chk'
# The OpenMP adapters' names: GCC's GOMP entry points (lib/adapters/gomp) and the OMPT tool entry.
omp_names='GOMP_parallel|GOMP_parallel_reductions|GOMP_parallel_sections|GOMP_parallel_loop_static|GOMP_parallel_loop_dynamic|GOMP_parallel_loop_guided|GOMP_parallel_loop_nonmonotonic_dynamic|GOMP_parallel_loop_nonmonotonic_guided|GOMP_parallel_loop_runtime|GOMP_parallel_loop_nonmonotonic_runtime|GOMP_parallel_loop_maybe_nonmonotonic_runtime|GOMP_parallel_start|GOMP_parallel_sections_start|GOMP_parallel_loop_static_start|GOMP_parallel_loop_dynamic_start|GOMP_parallel_loop_guided_start|GOMP_parallel_loop_runtime_start|GOMP_parallel_end|GOMP_barrier|GOMP_barrier_cancel|GOMP_loop_end|GOMP_loop_end_cancel|GOMP_loop_end_nowait|GOMP_sections_end|GOMP_sections_end_cancel|GOMP_sections_end_nowait|GOMP_sections_start|GOMP_sections2_start|GOMP_sections_next|GOMP_single_start|GOMP_critical_start|GOMP_critical_end|GOMP_critical_name_start|GOMP_critical_name_end|GOMP_task|GOMP_taskwait|GOMP_taskgroup_end|GOMP_loop_start|GOMP_loop_static_start|GOMP_loop_dynamic_start|GOMP_loop_guided_start|GOMP_loop_nonmonotonic_dynamic_start|GOMP_loop_nonmonotonic_guided_start|GOMP_loop_runtime_start|GOMP_loop_nonmonotonic_runtime_start|GOMP_loop_maybe_nonmonotonic_runtime_start|GOMP_loop_static_next|GOMP_loop_dynamic_next|GOMP_loop_guided_next|GOMP_loop_runtime_next|GOMP_loop_nonmonotonic_dynamic_next|GOMP_loop_nonmonotonic_guided_next|GOMP_loop_nonmonotonic_runtime_next|GOMP_loop_maybe_nonmonotonic_runtime_next|GOMP_loop_ull_start|GOMP_loop_ull_static_start|GOMP_loop_ull_dynamic_start|GOMP_loop_ull_guided_start|GOMP_loop_ull_nonmonotonic_dynamic_start|GOMP_loop_ull_nonmonotonic_guided_start|GOMP_loop_ull_runtime_start|GOMP_loop_ull_nonmonotonic_runtime_start|GOMP_loop_ull_maybe_nonmonotonic_runtime_start|GOMP_loop_ull_static_next|GOMP_loop_ull_dynamic_next|GOMP_loop_ull_guided_next|GOMP_loop_ull_runtime_next|GOMP_loop_ull_nonmonotonic_dynamic_next|GOMP_loop_ull_nonmonotonic_guided_next|GOMP_loop_ull_nonmonotonic_runtime_next|GOMP_loop_ull_maybe_nonmonotonic_runtime_next|ompt_start_tool'
stray=$(echo "$syms" | grep -v -E '^(pm_region_begin|pm_region_end|pm_wait_begin|pm_wait_end|pm_pause|pm_resume|pm_is_active|pm_query_thread|pm_tag_publish|pm_quantity_set|popmeter_version)$' \
  | grep -v -E '^(MPI_|mpi_|_?starpu_|_init$|_fini$|__odr_asan\.)' \
  | grep -v -x -E "$io_names|$omp_names" | head -5)
check "no internal symbol exported${stray:+ (found: $stray)}" test -z "$stray"
check "internal pm_state_set hidden" sh -c "! echo '$syms' | grep -qx pm_state_set"
check "metrics library hidden (pm_metric_new)" sh -c "! echo '$syms' | grep -qx pm_metric_new"
needed=$(readelf -d "$lib" | grep NEEDED)
check "no DT_NEEDED on libmpi" sh -c "! echo '$needed' | grep -q libmpi"
check "no DT_NEEDED on libstarpu" sh -c "! echo '$needed' | grep -q libstarpu"
check "no DT_NEEDED on libgomp" sh -c "! echo '$needed' | grep -q libgomp"
check "no DT_NEEDED on libomp" sh -c "! echo '$needed' | grep -q 'libi\{0,1\}omp'"
# OpenMP: the GOMP wrappers are exported, each of them a real libgomp entry point (a misspelt
# wrapper would never be called, and its lookup of the real function would fail)
for s in GOMP_parallel GOMP_barrier GOMP_task GOMP_loop_end; do
  check "exports $s" sh -c "echo '$syms' | grep -qx '$s'"
done
if grep -q 'define PM_HAVE_OMPT 1' "$top_builddir/config.h"; then
  check "exports ompt_start_tool" sh -c "echo '$syms' | grep -qx ompt_start_tool"
fi
gomp=$(${CC:-cc} -print-file-name=libgomp.so.1 2>/dev/null)
if [ -f "$gomp" ]; then
  real=$(nm -D --defined-only "$gomp" | awk '{sub(/@.*/, "", $3); print $3}')
  unknown=$(echo "$syms" | grep '^GOMP_' | while read -r s; do echo "$real" | grep -qx "$s" || echo "$s"; done | head -3)
  check "every exported GOMP_ name is a libgomp entry point${unknown:+ (not in libgomp: $unknown)}" test -z "$unknown"
else
  skip "libgomp.so.1 not found: GOMP_ names not checked against it"
fi
tap_done
