dnl Dependencies of libpopmeter: the MPI adapter, StarPU 1.3 and 1.4, PAPI, OTF2, OMPT, CUPTI. Each
dnl is optional (configure --help lists a --with/--without switch for each); what is missing is not
dnl built and the table says why at run time.
dnl ---------------------------------------------------------------- MPI (needed for the MPI adapter)
AC_ARG_WITH([mpi], [AS_HELP_STRING([--without-mpi], [build without the MPI adapter])], [], [with_mpi=check])
AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper])
have_mpi=no
AS_IF([test "x$with_mpi" != xno], [
  AC_PATH_PROGS([MPICC], [mpicc], [no])
  AC_PATH_PROGS([MPIFC], [mpifort mpif90], [no])
  AC_PATH_PROGS([MPIRUN], [mpirun mpiexec], [no])
  AS_IF([test "x$MPICC" != xno], [
    MPI_CFLAGS=`$MPICC --showme:compile 2>/dev/null`
    MPI_LIBS=`$MPICC --showme:link 2>/dev/null`
    save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $MPI_CFLAGS"
    AC_CHECK_HEADER([mpi.h], [have_mpi=yes])
    CPPFLAGS=$save_CPPFLAGS])
  AS_IF([test "x$with_mpi" = xyes -a "x$have_mpi" = xno], [AC_MSG_ERROR([MPI requested but not found])])])
AC_SUBST([MPI_CFLAGS]) AC_SUBST([MPI_LIBS])
have_mpif=no
AS_IF([test "x$have_mpi" = xyes -a "x$MPIFC" != xno], [have_mpif=yes])
AM_CONDITIONAL([HAVE_MPI], [test "x$have_mpi" = xyes])
AM_CONDITIONAL([HAVE_MPI_FORTRAN], [test "x$have_mpif" = xyes])
AS_IF([test "x$have_mpi" = xyes], [AC_DEFINE([PM_HAVE_MPI], [1], [MPI adapter built])])

dnl ---------------------------------------------------------------- optional dependencies
dnl PM_OPTIONAL_PKG(name, pkg-config module, description)
AC_DEFUN([PM_OPTIONAL_PKG], [
  AC_ARG_WITH([$1], [AS_HELP_STRING([--without-$1], [do not use $3])], [], [with_$1=check])
  have_$1=no
  AS_IF([test "x$with_$1" != xno], [
    PKG_CHECK_MODULES(m4_toupper($1), [$2], [have_$1=yes], [have_$1=no])
    AS_IF([test "x$with_$1" = xyes -a "x$have_$1" = xno], [AC_MSG_ERROR([$3 requested but not found])])])
  AM_CONDITIONAL(m4_toupper(HAVE_$1), [test "x$have_$1" = xyes])
  AS_IF([test "x$have_$1" = xyes], [AC_DEFINE(m4_toupper(PM_HAVE_$1), [1], [$3 available])])
])
PM_OPTIONAL_PKG([starpu], [starpu-1.3 starpumpi-1.3], [StarPU 1.3 and StarPU-MPI])
PM_OPTIONAL_PKG([papi], [papi], [PAPI hardware counters])
dnl elfutils' libdw: function names and source lines of OpenMP regions from the program's symbols and
dnl DWARF (lib/omp/pm_symbol.c); without it, names come from the ELF symbol tables only
PM_OPTIONAL_PKG([libdw], [libdw], [elfutils libdw (source locations of OpenMP regions)])

dnl PAPI software-defined events (libsde, from the PAPI packages): popmeter exports its live metrics
have_sde=no
AS_IF([test "x$have_papi" = xyes], [
  AC_CHECK_HEADER([sde_lib.h], [AC_CHECK_LIB([sde], [papi_sde_init], [have_sde=yes; SDE_LIBS=-lsde])])])
AC_SUBST([SDE_LIBS])
AM_CONDITIONAL([HAVE_SDE], [test "x$have_sde" = xyes])
AS_IF([test "x$have_sde" = xyes], [AC_DEFINE([PM_HAVE_SDE], [1], [PAPI SDE export of popmeter's metrics])])

dnl StarPU 1.4 tool interface: its adapter is compiled against 1.4's headers (struct layouts differ from
dnl 1.3's), found with pkg-config starpu-1.4 or in --with-starpu14=DIR (DIR/include/starpu/1.4). When DIR
dnl also holds 1.4's static libraries (tools/setup-starpu14.sh), the tests link programs against them.
AC_ARG_WITH([starpu14], [AS_HELP_STRING([--with-starpu14=DIR], [StarPU 1.4 installed under DIR (include/starpu/1.4) for its tool interface; default: pkg-config starpu-1.4])],
  [], [with_starpu14=check])
have_starpu_tool=no
have_starpu14_static=no
STARPU14_CFLAGS=
STARPU14_STATIC_LIBS=
AS_CASE([$with_starpu14],
  [no], [],
  [check|yes], [PKG_CHECK_MODULES([STARPU14], [starpu-1.4], [], [:])],
  [STARPU14_CFLAGS="-I$with_starpu14/include/starpu/1.4"])
AS_IF([test "x$with_starpu14" != xno], [
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $STARPU14_CFLAGS"
  AC_MSG_CHECKING([for StarPU 1.4's starpu_profiling_tool.h])
  AC_PREPROC_IFELSE([AC_LANG_SOURCE([[#include <starpu.h>
#include <starpu_profiling_tool.h>
#if STARPU_MAJOR_VERSION != 1 || STARPU_MINOR_VERSION != 4
#error not StarPU 1.4
#endif]])], [have_starpu_tool=yes])
  AC_MSG_RESULT([$have_starpu_tool])
  CPPFLAGS=$save_CPPFLAGS])
AS_IF([test "x$with_starpu14" = xyes -a "x$have_starpu_tool" = xno], [AC_MSG_ERROR([StarPU 1.4 requested but not found])])
AS_IF([test "x$have_starpu_tool" = xyes], [AC_DEFINE([PM_HAVE_STARPU_TOOL], [1], [StarPU 1.4 tool interface])])
AC_SUBST([STARPU14_CFLAGS])
AM_CONDITIONAL([HAVE_STARPU_TOOL], [test "x$have_starpu_tool" = xyes])
dnl OTF2
AC_ARG_WITH([otf2], [AS_HELP_STRING([--without-otf2], [do not build the OTF2 trace writer])], [], [with_otf2=check])
have_otf2=no
AS_IF([test "x$with_otf2" != xno], [
  AC_PATH_PROG([OTF2_CONFIG], [otf2-config], [no])
  AS_IF([test "x$OTF2_CONFIG" != xno], [
    OTF2_CFLAGS=`$OTF2_CONFIG --cflags`; OTF2_LIBS="`$OTF2_CONFIG --ldflags` `$OTF2_CONFIG --libs`"
    save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $OTF2_CFLAGS"
    AC_CHECK_HEADER([otf2/otf2.h], [have_otf2=yes])
    CPPFLAGS=$save_CPPFLAGS])
  AS_IF([test "x$with_otf2" = xyes -a "x$have_otf2" = xno], [AC_MSG_ERROR([OTF2 requested but not found])])])
AC_SUBST([OTF2_CFLAGS]) AC_SUBST([OTF2_LIBS])
AM_CONDITIONAL([HAVE_OTF2], [test "x$have_otf2" = xyes])
AS_IF([test "x$have_otf2" = xyes], [AC_DEFINE([PM_HAVE_OTF2], [1], [OTF2 writer built])])

dnl OMPT adapter: needs omp-tools.h, which Debian ships in clang's resource directory (not on the
dnl default include path, and that directory must not be put on it: its stddef.h etc. would shadow
dnl the compiler's). So the header is included by its full path (PM_OMP_TOOLS_H in config.h).
AC_ARG_WITH([ompt], [AS_HELP_STRING([--without-ompt], [do not build the OMPT adapter (LLVM libomp)])], [], [with_ompt=check])
AC_PATH_PROGS([CLANG], [clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14], [no])
have_ompt=no
AS_IF([test "x$with_ompt" != xno], [
  AC_MSG_CHECKING([for omp-tools.h])
  pm_cands="/usr/include/omp-tools.h /usr/local/include/omp-tools.h"
  AS_IF([test "x$CLANG" != xno], [pm_cands="$pm_cands `$CLANG -print-resource-dir 2>/dev/null`/include/omp-tools.h"])
  pm_cands="$pm_cands `ls /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h /usr/lib/llvm-*/include/openmp/omp-tools.h 2>/dev/null | sort -r -V`"
  for pm_f in $pm_cands; do
    test -f "$pm_f" || continue
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "$pm_f"]], [[ompt_start_tool_result_t r; (void)r; return ompt_callback_sync_region_wait;]])],
                      [have_ompt=yes; PM_OMP_TOOLS_PATH=$pm_f])
    test "x$have_ompt" = xyes && break
  done
  AC_MSG_RESULT([${PM_OMP_TOOLS_PATH:-no}])
  AS_IF([test "x$with_ompt" = xyes -a "x$have_ompt" = xno], [AC_MSG_ERROR([OMPT requested but omp-tools.h not found])])])
AM_CONDITIONAL([HAVE_OMPT], [test "x$have_ompt" = xyes])
AS_IF([test "x$have_ompt" = xyes], [
  AC_DEFINE([PM_HAVE_OMPT], [1], [OMPT adapter built])
  AC_DEFINE_UNQUOTED([PM_OMP_TOOLS_H], ["$PM_OMP_TOOLS_PATH"], [omp-tools.h, by its full path])])

dnl CUPTI (CUDA activity plugin, lib/adapters/cuda; docs/cuda.md). A toolkit keeps CUPTI in its own
dnl include/ and lib64/ (or lib/), or under extras/CUPTI/. The plugin's record decoding must compile
dnl against the headers found (lib/adapters/cuda/cupti_records.h: CUDA 11.6 or newer) and libcupti
dnl must link; the plugin finds it at run time through an rpath to CUPTI_LIBDIR.
AC_ARG_WITH([cupti], [AS_HELP_STRING([--with-cupti=DIR], [CUDA toolkit with CUPTI (default: check /usr/local/cuda)])], [], [with_cupti=check])
have_cupti=no
CUPTI_LIBDIR=
AS_IF([test "x$with_cupti" != xno], [
  cupti_dir=/usr/local/cuda
  AS_IF([test "x$with_cupti" != xyes -a "x$with_cupti" != xcheck], [cupti_dir=$with_cupti])
  pm_abs_srcdir=`cd "$srcdir" && pwd`
  AC_MSG_CHECKING([for CUPTI in $cupti_dir])
  for pm_inc in "$cupti_dir/include" "$cupti_dir/extras/CUPTI/include"; do
    test -f "$pm_inc/cupti.h" || continue
    for pm_lib in "$cupti_dir/lib64" "$cupti_dir/lib" "$cupti_dir/extras/CUPTI/lib64" "$cupti_dir/extras/CUPTI/lib"; do
      ls "$pm_lib"/libcupti.so* >/dev/null 2>&1 || continue
      pm_save_CPPFLAGS=$CPPFLAGS; pm_save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS -I$pm_inc -I$cupti_dir/include"; LIBS="-L$pm_lib -lcupti $LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include "$pm_abs_srcdir/lib/adapters/cuda/cupti_records.h"]],
                                      [[uint32_t v; return (int)cuptiGetVersion(&v);]])],
                     [have_cupti=yes; CUPTI_CFLAGS="-I$pm_inc -I$cupti_dir/include"; CUPTI_LIBDIR=$pm_lib])
      CPPFLAGS=$pm_save_CPPFLAGS; LIBS=$pm_save_LIBS
      test "x$have_cupti" = xyes && break 2
    done
  done
  AC_MSG_RESULT([$have_cupti${CUPTI_LIBDIR:+ (library in $CUPTI_LIBDIR)}])
  AS_IF([test "x$with_cupti" = xyes -a "x$have_cupti" = xno], [AC_MSG_ERROR([CUPTI requested but not found (or older than CUDA 11.6)])])])
CUPTI_LIBS=
AS_IF([test "x$have_cupti" = xyes], [CUPTI_LIBS="-L$CUPTI_LIBDIR -lcupti"
  AC_DEFINE([PM_HAVE_CUPTI], [1], [CUDA plugin (CUPTI) built])])
AC_SUBST([CUPTI_CFLAGS]) AC_SUBST([CUPTI_LIBS]) AC_SUBST([CUPTI_LIBDIR])
AM_CONDITIONAL([HAVE_CUPTI], [test "x$have_cupti" = xyes])
