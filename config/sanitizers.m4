dnl The sanitizer build (--enable-sanitizers): the library, the tools and the tests are compiled with
dnl AddressSanitizer and UndefinedBehaviorSanitizer, every finding fatal. The flags are added after
dnl every dependency check, so that the checks themselves run uninstrumented. The tests then run with
dnl the sanitizers' options of tests/sanitizers.am.
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined (-fno-sanitize-recover=all); make check then runs instrumented])],
  [], [enable_sanitizers=no])
AS_IF([test "x$enable_sanitizers" = xyes], [
  PM_SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  AC_MSG_CHECKING([whether $CC links with $PM_SAN_FLAGS])
  pm_save_CFLAGS=$CFLAGS; pm_save_LDFLAGS=$LDFLAGS
  CFLAGS="$CFLAGS $PM_SAN_FLAGS"; LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([--enable-sanitizers: $CC cannot build with AddressSanitizer and UndefinedBehaviorSanitizer])])
  CFLAGS=$pm_save_CFLAGS; LDFLAGS=$pm_save_LDFLAGS])
AM_CONDITIONAL([PM_SANITIZERS], [test "x$enable_sanitizers" = xyes])

dnl last: from here on, everything is compiled and linked instrumented
AS_IF([test "x$enable_sanitizers" = xyes], [CFLAGS="$CFLAGS $PM_SAN_FLAGS"; LDFLAGS="$LDFLAGS -fsanitize=address,undefined"])
