#!/bin/sh
# Set up (Debian packages), then configure and build popmeter in ./build. Idempotent and incremental.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup-deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh
mkdir -p build
cd build
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
  ../configure --prefix="$top/build/install" ${POPMETER_CONFIGURE_FLAGS:-} > configure.log || { cat configure.log; exit 1; }
  sed -n '/^popmeter .* configuration/,$p' configure.log
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -50 make.log; exit 1; }
make install >>make.log 2>&1 || { tail -50 make.log; exit 1; }
