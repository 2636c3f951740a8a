#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# What every guest run needs on the host: the guest provisioned (setup.sh)
# and BUILD built for a CPU the guest has (-Dmachine=x86-64-v3: QEMU's
# -cpu max has no AVX-512, so a -march=native build dies with SIGILL),
# without bench/ (-Dbench=false: the hw suite runs no benchmark), and of it
# only what the guest runs: the programs (installed) and the executables of the
# hw suite's tests, as `meson introspect` lists them (the unit tests of the
# fast suite, a minute of the build, never run there).
# guest-suite.sh and two-nodes.sh start with it.
#
#   sh scripts/vm/guest-build.sh BUILD
#
# Exit 0 ready, 1 failed (one line says why), 77 the guest cannot be
# provisioned here (setup.sh's line says why).
set -u
cd "$(dirname "$0")/../.."
BUILD=$1
sh scripts/vm/setup.sh
case $? in
0) ;;
77) exit 77 ;;
*) echo "guest: provisioning failed" >&2 && exit 1 ;;
esac
if [ ! -f "$BUILD/build.ninja" ]; then
	rm -rf "$BUILD"
	# no benchmark runs in the guest (-Dbench=false: a minute less to build)
	meson setup "$BUILD" -Dmachine=x86-64-v3 -Dbench=false >/dev/null || exit 1
fi
# the hw suite's executables (each test's depends) and the programs
targets=$(meson introspect "$BUILD" --targets --tests | python3 -c '
import json, os, sys
doc = json.load(sys.stdin)
ids = {d for t in doc["tests"] if "rpcrdma:hw" in t["suite"] for d in t["depends"]}
root = os.path.realpath(sys.argv[1])
for t in doc["targets"]:
    if t["type"] == "executable" and (t["id"] in ids or t["installed"]):
        print(os.path.relpath(t["filename"][0], root))
' "$BUILD") || exit 1
[ -n "$targets" ] || {
	echo "guest: no hw test or program in $BUILD" >&2
	exit 1
}
# shellcheck disable=SC2086 # a list of targets
if ! ninja -C "$BUILD" $targets >"$BUILD/guest-build.log" 2>&1; then
	tail -n 30 "$BUILD/guest-build.log" >&2
	echo "guest: building $BUILD failed" >&2
	exit 1
fi
