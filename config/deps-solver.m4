dnl Dependencies of mfsolve (solver/): OpenBLAS (required for mfsolve), METIS and SuiteSparse's
dnl AMD (optional orderings); CHOLMOD for the solver benchmark.
PM_OPTIONAL_PKG([openblas], [openblas], [OpenBLAS (needed by mfsolve)])
dnl METIS
AC_ARG_WITH([metis], [AS_HELP_STRING([--without-metis], [build mfsolve without METIS ordering])], [], [with_metis=check])
have_metis=no
AS_IF([test "x$with_metis" != xno], [
  AC_CHECK_HEADER([metis.h], [AC_CHECK_LIB([metis], [METIS_NodeND], [have_metis=yes; METIS_LIBS=-lmetis])])
  AS_IF([test "x$with_metis" = xyes -a "x$have_metis" = xno], [AC_MSG_ERROR([METIS requested but not found])])])
AC_SUBST([METIS_LIBS])
AM_CONDITIONAL([HAVE_METIS], [test "x$have_metis" = xyes])
AS_IF([test "x$have_metis" = xyes], [AC_DEFINE([PM_HAVE_METIS], [1], [METIS available])])

dnl SuiteSparse (AMD ordering for mfsolve, CHOLMOD for the benchmark)
AC_ARG_WITH([suitesparse], [AS_HELP_STRING([--without-suitesparse], [no AMD ordering / CHOLMOD comparison])], [], [with_suitesparse=check])
have_suitesparse=no
AS_IF([test "x$with_suitesparse" != xno], [
  SUITESPARSE_CFLAGS="-I/usr/include/suitesparse"
  save_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $SUITESPARSE_CFLAGS"
  AC_CHECK_HEADER([amd.h], [AC_CHECK_LIB([amd], [amd_order], [have_suitesparse=yes; SUITESPARSE_LIBS="-lcholmod -lamd"])])
  CPPFLAGS=$save_CPPFLAGS
  AS_IF([test "x$with_suitesparse" = xyes -a "x$have_suitesparse" = xno], [AC_MSG_ERROR([SuiteSparse requested but not found])])])
AC_SUBST([SUITESPARSE_CFLAGS]) AC_SUBST([SUITESPARSE_LIBS])
AM_CONDITIONAL([HAVE_SUITESPARSE], [test "x$have_suitesparse" = xyes])
AS_IF([test "x$have_suitesparse" = xyes], [AC_DEFINE([PM_HAVE_SUITESPARSE], [1], [SuiteSparse AMD/CHOLMOD available])])

