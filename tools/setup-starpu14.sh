#!/bin/sh
# StarPU 1.4 for popmeter's tool-interface adapter and its tests. Debian 12 ships StarPU 1.3 only, and
# the shared StarPU 1.4 of Debian 13 needs a newer C library, but its development package holds the
# headers and static libraries, which work here. This fetches that package with apt (from Debian's
# archive, signature-checked by apt, package lists kept in DIR) and unpacks it into DIR; nothing is
# installed into the system. Usage: setup-starpu14.sh DIR   (then configure --with-starpu14=DIR/usr)
# Idempotent. Exit 1, with the reason, when it cannot be had (no network): the build goes on without it.
set -eu
dir=${1:?usage: setup-starpu14.sh DIR}
if [ -f "$dir/usr/include/starpu/1.4/starpu_profiling_tool.h" ] && ls "$dir"/usr/lib/*/libstarpu-1.4.a >/dev/null 2>&1; then
  exit 0
fi
suite=${POPMETER_STARPU14_SUITE:-trixie}
apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
echo "deb http://deb.debian.org/debian $suite main" > "$apt_dir/sources.list"
apt_opts="-o Dir::Etc::SourceList=$apt_dir/sources.list -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache -o Debug::NoLocking=1
  -o APT::Sandbox::User=root -qq"
# shellcheck disable=SC2086
if ! apt-get $apt_opts update >"$apt_dir/log" 2>&1; then
  echo "setup-starpu14: cannot read Debian $suite's package list (see $apt_dir/log); StarPU 1.4 not set up" >&2
  exit 1
fi
# shellcheck disable=SC2086
if ! (cd "$apt_dir/debs" && apt-get $apt_opts download libstarpu-dev >>"$apt_dir/log" 2>&1); then
  echo "setup-starpu14: cannot download $suite's libstarpu-dev (see $apt_dir/log); StarPU 1.4 not set up" >&2
  exit 1
fi
deb=$(ls "$apt_dir"/debs/libstarpu-dev_1.4*.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
  echo "setup-starpu14: $suite's libstarpu-dev is not StarPU 1.4; not set up" >&2
  exit 1
fi
dpkg-deb -x "$deb" "$dir"
rm -f "$apt_dir"/debs/*.deb
echo "setup-starpu14: $(basename "$deb") unpacked into $dir"
