dnl The sanitizer build (--enable-sanitizers): the library, the tools and the tests are compiled with
dnl AddressSanitizer and UndefinedBehaviorSanitizer, every finding fatal. The flags are added after
dnl every dependency check, so that the checks themselves run uninstrumented. The tests then run with
dnl the sanitizers' options of tests/sanitizers.am, and the fuzz targets of tests/fuzz/ (libFuzzer, from
dnl clang) are built and run by tests/fuzz/test_fuzz.sh.
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined (-fno-sanitize-recover=all) and run the fuzz targets in make check])],
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

dnl libFuzzer: clang's -fsanitize=fuzzer (Debian: libclang-rt-N-dev). Only looked for in a sanitizer build.
have_libfuzzer=no
FUZZ_CC=
AS_IF([test "x$enable_sanitizers" = xyes -a "x$CLANG" != xno], [
  AC_MSG_CHECKING([whether $CLANG builds a libFuzzer target])
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return n > 0 && *d == 1; }\n' > conftest_fuzz.c
  AS_IF([$CLANG -fsanitize=fuzzer,address,undefined conftest_fuzz.c -o conftest_fuzz >&AS_MESSAGE_LOG_FD 2>&1],
        [have_libfuzzer=yes; FUZZ_CC=$CLANG])
  rm -f conftest_fuzz conftest_fuzz.c
  AC_MSG_RESULT([$have_libfuzzer])])
AC_SUBST([FUZZ_CC])
AM_CONDITIONAL([HAVE_LIBFUZZER], [test "x$have_libfuzzer" = xyes])

dnl last: from here on, everything is compiled and linked instrumented
AS_IF([test "x$enable_sanitizers" = xyes], [CFLAGS="$CFLAGS $PM_SAN_FLAGS"; LDFLAGS="$LDFLAGS -fsanitize=address,undefined"])
