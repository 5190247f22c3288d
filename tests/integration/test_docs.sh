#!/bin/sh
# docs/environment.md is generated from the configuration table: it must not drift from it.
. "$top_srcdir/tests/tap.sh"
gen=$("$top_builddir/tools/popmeter" --help-env --markdown)
doc=$(tail -n +5 "$top_srcdir/docs/environment.md")
check "docs/environment.md matches popmeter --help-env --markdown" test "$gen" = "$doc"
tap_done
