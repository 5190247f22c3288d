#!/bin/sh
# Regenerates the build system (configure, Makefile.in) from configure.ac / Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf -fi >/dev/null
# Automake does not install the TAP driver by itself.
for d in /usr/share/automake-*; do
  [ -f "$d/tap-driver.sh" ] && cp -f "$d/tap-driver.sh" build-aux/tap-driver.sh && break
done
[ -f build-aux/tap-driver.sh ] || { echo "autogen: automake's tap-driver.sh not found" >&2; exit 1; }
