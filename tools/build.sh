#!/bin/sh
# Set up (Debian packages), then configure and build popmeter in ./build. Idempotent and incremental.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tools/setup-deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh
mkdir -p build
# StarPU 1.4 (headers and static libraries, unpacked privately) for the tool-interface adapter and its tests
flags="--prefix=$top/build/install"
if "$top/tools/setup-starpu14.sh" "$top/build/deps/starpu-1.4"; then flags="$flags --with-starpu14=$top/build/deps/starpu-1.4/usr"; fi
flags="$flags ${POPMETER_CONFIGURE_FLAGS:-}"
cd build
if [ ! -f Makefile ] || [ ../configure -nt config.status ] || [ "$(cat configure.flags 2>/dev/null)" != "$flags" ]; then
  # shellcheck disable=SC2086
  ../configure $flags > configure.log || { cat configure.log; exit 1; }
  echo "$flags" > configure.flags
  sed -n '/^popmeter .* configuration/,$p' configure.log
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -50 make.log; exit 1; }
make install >>make.log 2>&1 || { tail -50 make.log; exit 1; }
