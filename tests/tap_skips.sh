#!/bin/sh
# LOG_COMPILER of every test (tests/Makefile.am): runs the test and passes its TAP on unchanged but
# for one form of line. cmocka (1.1.7, Debian 12) reports a test that called skip() as
# "not ok N # SKIP ...", which Automake's TAP driver counts as a failure; TAP's form of a skip is
# "ok N # SKIP ...". The exit status is the test's.
status_file=$(mktemp) || exit 99
{
  "$@"
  echo $? >"$status_file"
} | sed -u 's/^not ok \([0-9][0-9]*\) # SKIP/ok \1 # SKIP/'
status=$(cat "$status_file")
rm -f "$status_file"
exit "${status:-99}"
