#!/bin/sh
# Set up (Debian packages), then configure and build popmeter in ./build. Idempotent and incremental.
#   tools/build.sh               ./build, installed into build/install
#   tools/build.sh --sanitizers  ./build-san: the sanitizer build (the same, plus configure
#                                --enable-sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer at
#                                -O1 -g, every finding fatal, and the fuzz targets), not installed
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=build
[ "${1:-}" = --sanitizers ] && tree=build-san
"$top/tools/setup-deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh
mkdir -p "$tree"
set -- "--prefix=$top/$tree/install"
# StarPU 1.4 (headers and static libraries, unpacked privately) for the tool-interface adapter and its tests
if "$top/tools/setup-starpu14.sh" "$top/build/deps/starpu-1.4"; then set -- "$@" "--with-starpu14=$top/build/deps/starpu-1.4/usr"; fi
[ "$tree" = build-san ] && set -- "$@" --enable-sanitizers "CFLAGS=-O1 -g"
flags="$* ${POPMETER_CONFIGURE_FLAGS:-}"
cd "$tree"
if [ ! -f Makefile ] || [ ../configure -nt config.status ] || [ "$(cat configure.flags 2>/dev/null)" != "$flags" ]; then
  # shellcheck disable=SC2086
  ../configure "$@" ${POPMETER_CONFIGURE_FLAGS:-} > configure.log || { cat configure.log; exit 1; }
  echo "$flags" > configure.flags
  sed -n '/^popmeter .* configuration/,$p' configure.log
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -50 make.log; exit 1; }
[ "$tree" = build-san ] || make install >>make.log 2>&1 || { tail -50 make.log; exit 1; }
