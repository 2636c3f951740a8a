#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The guest suite, as `make test` runs it after the fast suite: provision
# the test guest (setup.sh), build the project for a CPU the guest has
# (BUILD, default build-guest: -Dmachine=x86-64-v3, since -cpu max has no
# AVX-512), boot the guest with rxe0 and siw0 and run the meson suite 'hw'
# on each (guest-tests.sh). Extra arguments go to `meson test` (test names,
# --repeat, ...).
#
#   sh scripts/vm/guest-suite.sh [BUILD] [MESON_TEST_ARGS...]
#
# Exit 0 passed, 1 failed, 77 skipped: the guest cannot run on this machine
# (one line says why). RPCRDMA_VM_SKIP=1 skips it on purpose.
set -u
cd "$(dirname "$0")/../.."
BUILD=${1:-build-guest}
[ $# -gt 0 ] && shift

# logs of an earlier run must not count for this one
rm -f "$BUILD"/meson-logs/guest-*.json "$BUILD"/meson-logs/guest-*.txt
skip() {
	echo "guest: skipped: $*"
	exit 77
}
[ "${RPCRDMA_VM_SKIP:-0}" = 1 ] && skip "RPCRDMA_VM_SKIP=1"
[ "$(uname -m)" = x86_64 ] || skip "the guest is x86_64 and this machine is $(uname -m)"
sh scripts/vm/guest-build.sh "$BUILD"
case $? in
0) ;;
77) skip "the guest cannot be provisioned here (see the line above)" ;;
*) exit 1 ;;
esac

start=$(date +%s)
scripts/vm/run.sh --siw --mem 3072 --timeout 1800 \
	sh scripts/vm/guest-tests.sh "$BUILD" "$@"
status=$?
echo "guest: $(($(date +%s) - start)) s in the guest"
case $status in
0 | 1) exit $status ;;
*) echo "guest: the guest failed (status $status)" >&2 && exit 1 ;;
esac
