dnl What only the tests and benchmarks need: cmocka, StarPU 1.4's static test bed, an OpenCL
dnl library for the accelerator-worker test, MUMPS as a benchmark peer, OpenMP test programs built
dnl with gcc (libgomp) and clang (libomp), nvcc for the CUDA + MPI test program.
PM_OPTIONAL_PKG([cmocka], [cmocka], [cmocka (unit tests)])
dnl the static test bed: 1.4's archive, and what it needs on Debian 12 (fxt, glpk, hwloc, PAPI, OpenCL)
AS_CASE([$with_starpu14], [no|check|yes], [], [
  sp14a=`ls "$with_starpu14"/lib/*/libstarpu-1.4.a "$with_starpu14"/lib/libstarpu-1.4.a 2>/dev/null | head -1`
  sp14deps=no
  AS_IF([test "x$have_starpu_tool" = xyes -a -n "$sp14a"], [
    AC_CHECK_LIB([fxt], [fut_setup], [AC_CHECK_LIB([glpk], [glp_create_prob], [sp14deps=yes])])])
  AS_IF([test "x$sp14deps" = xyes], [
    have_starpu14_static=yes
    STARPU14_STATIC_LIBS="$sp14a -lfxt -lglpk -lhwloc -lpapi -lOpenCL -lpthread -lm -ldl"])])
AC_SUBST([STARPU14_STATIC_LIBS])
AM_CONDITIONAL([HAVE_STARPU14_STATIC], [test "x$have_starpu14_static" = xyes])
dnl OpenCL development library (the StarPU adapter's accelerator-worker test runs an OpenCL kernel on pocl)
have_opencl_dev=no
AS_IF([test "x$have_starpu" = xyes], [AC_CHECK_LIB([OpenCL], [clSetKernelArg], [have_opencl_dev=yes], [], [])])
AM_CONDITIONAL([HAVE_OPENCL_DEV], [test "x$have_opencl_dev" = xyes])

dnl MUMPS (benchmark peer only)
AC_ARG_WITH([mumps], [AS_HELP_STRING([--without-mumps], [no MUMPS comparison benchmark])], [], [with_mumps=check])
have_mumps=no
AS_IF([test "x$with_mumps" != xno -a "x$have_mpi" = xyes], [
  AC_CHECK_HEADER([dmumps_c.h], [
    AC_CHECK_LIB([dmumps], [dmumps_c], [have_mumps=yes; MUMPS_LIBS=-ldmumps], [], [$MPI_LIBS])])])
AS_IF([test "x$with_mumps" = xyes -a "x$have_mumps" = xno], [AC_MSG_ERROR([MUMPS requested but dmumps_c.h or -ldmumps (MPI build) not found])])
AC_SUBST([MUMPS_LIBS])
AM_CONDITIONAL([HAVE_MUMPS], [test "x$have_mumps" = xyes])

dnl libomp (OMPT)
AC_ARG_WITH([libomp], [AS_HELP_STRING([--without-libomp], [do not build the OMPT adapter tests with clang/libomp])], [], [with_libomp=check])
have_libomp=no
dnl Debian's libomp-dev puts libomp.so in /usr/lib/llvm-N/lib, outside the default linker path:
dnl look there too (newest LLVM first) and remember the directory for -L and -rpath.
LIBOMP_DIR=
AS_IF([test "x$with_libomp" != xno], [
  AC_MSG_CHECKING([for libomp (omp_get_num_threads in -lomp)])
  for pm_d in "" `ls -d /usr/lib/llvm-*/lib 2>/dev/null | sort -r -V`; do
    pm_save_LIBS=$LIBS
    LIBS="${pm_d:+-L$pm_d }-lomp $LIBS"
    AC_LINK_IFELSE([AC_LANG_CALL([], [omp_get_num_threads])], [have_libomp=yes; LIBOMP_DIR=$pm_d])
    LIBS=$pm_save_LIBS
    test "x$have_libomp" = xyes && break
  done
  AC_MSG_RESULT([$have_libomp${LIBOMP_DIR:+ (in $LIBOMP_DIR)}])])
LIBOMP_LIBS=
AS_IF([test "x$have_libomp" = xyes], [LIBOMP_LIBS="${LIBOMP_DIR:+-L$LIBOMP_DIR -Wl,-rpath,$LIBOMP_DIR }-lomp"])
AC_SUBST([LIBOMP_DIR]) AC_SUBST([LIBOMP_LIBS])
AM_CONDITIONAL([HAVE_LIBOMP], [test "x$have_libomp" = xyes])

dnl OpenMP test programs: GCC + libgomp (the GOMP adapter's path), clang + libomp (the OMPT path)
AC_OPENMP
have_gcc_openmp=no
AS_IF([test "x$GCC" = xyes -a -n "$OPENMP_CFLAGS"], [
  AS_IF([$CC --version 2>/dev/null | grep -qi clang], [], [have_gcc_openmp=yes])])
AM_CONDITIONAL([HAVE_GCC_OPENMP], [test "x$have_gcc_openmp" = xyes])
have_clang_openmp=no
AS_IF([test "x$CLANG" != xno -a "x$have_libomp" = xyes], [
  AC_MSG_CHECKING([whether $CLANG -fopenmp=libomp links])
  printf '#include <omp.h>\nint main(void){int n=0;\n#pragma omp parallel\n{n=omp_get_num_threads();}\nreturn n<1;}\n' > conftest_omp.c
  AS_IF([$CLANG -fopenmp=libomp conftest_omp.c -o conftest_omp $LIBOMP_LIBS >&AS_MESSAGE_LOG_FD 2>&1], [have_clang_openmp=yes])
  rm -f conftest_omp conftest_omp.c
  AC_MSG_RESULT([$have_clang_openmp])])
AM_CONDITIONAL([HAVE_CLANG_OPENMP], [test "x$have_clang_openmp" = xyes])

dnl nvcc of the same toolkit, for the CUDA + MPI test program (tests/integration/cuda.am): only when it
dnl compiles a kernel with this host compiler and libcudart is there to link.
have_nvcc=no
NVCC=
CUDART_LIBS=
AS_IF([test "x$have_cupti" = xyes], [
  AC_MSG_CHECKING([whether $cupti_dir/bin/nvcc compiles a kernel])
  printf '__global__ void k(float *x) { x@<:@threadIdx.x@:>@ += 1.0f; }\nvoid run(float *d) { k<<<1, 1>>>(d); }\n' > conftest_nvcc.cu
  for pm_lib in "$CUPTI_LIBDIR" "$cupti_dir/lib64" "$cupti_dir/lib"; do
    ls "$pm_lib"/libcudart.so* >/dev/null 2>&1 || continue
    AS_IF([test -x "$cupti_dir/bin/nvcc" && "$cupti_dir/bin/nvcc" -c conftest_nvcc.cu -o conftest_nvcc.o >&AS_MESSAGE_LOG_FD 2>&1],
          [have_nvcc=yes; NVCC="$cupti_dir/bin/nvcc"; CUDART_LIBS="-L$pm_lib -Wl,-rpath,$pm_lib -lcudart"])
    break
  done
  rm -f conftest_nvcc.cu conftest_nvcc.o
  AC_MSG_RESULT([$have_nvcc])])
AC_SUBST([NVCC]) AC_SUBST([CUDART_LIBS])
AM_CONDITIONAL([HAVE_NVCC], [test "x$have_nvcc" = xyes])

