#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Install the Debian packages that the build, the tests and the benchmarks
# need, when they are missing. Idempotent; prints nothing when everything is
# already present. Uses sudo when not run as root.
set -eu

PKGS="build-essential pkg-config meson ninja-build clang clang-format libclang-rt-14-dev
dpdk-dev libibverbs-dev librdmacm-dev ibverbs-providers libbenchmark-dev
libtirpc-dev rpcsvc-proto tshark python3 zlib1g-dev libjansson-dev libpcap-dev gnuplot-nox"

missing=""
for p in $PKGS; do
	# dpkg-query prints "install ok installed" for a package that is present.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps: not root and no sudo; install as root:$missing" >&2
		exit 1
	}
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing or stale on a fresh machine.
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
