#!/bin/sh
# Installs every Debian package popmeter needs to build, test and run its benchmarks, and nothing else.
# Idempotent: packages already present are skipped, apt is not touched when nothing is missing.
# Must run as root (or with sudo available) on Debian 12.
set -eu

PACKAGES="
  build-essential autoconf automake libtool pkg-config gfortran clang libclang-rt-14-dev
  openmpi-bin libopenmpi-dev
  libstarpu-dev starpu-tools libfxt-dev libglpk-dev
  libotf2-trace-dev otf2-tools python3-otf2
  libpapi-dev papi-tools
  libomp-dev
  pocl-opencl-icd ocl-icd-opencl-dev
  libopenblas-dev libmetis-dev libsuitesparse-dev libmumps-dev
  libjansson-dev libcmocka-dev libdw-dev
  vite xvfb
  gcovr gnuplot-nox python3 python3-html5lib
  valgrind
  chromium
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "setup-deps: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "setup-deps: missing packages:$missing — run this script as root" >&2; exit 1
  fi
fi
echo "setup-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup-deps: done"
