#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The fast suite under AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer, as `make test` runs it (`make sanitize` alone).
#
#   sh scripts/sanitize.sh [BUILD] [MESON_TEST_ARGS...]   BUILD default build-asan
#
# 1. Configures BUILD if it is not: gcc, -Db_sanitize=address,undefined,
#    -fno-sanitize-recover=all (every UBSan report ends the program, as
#    ASan's do), -Db_lundef=false (the sanitizer runtimes are shared
#    libraries), -O1 (as ASan advises; the engine tests compile in a third of
#    the time of -O3), -Dbench=false (no benchmark runs under a sanitizer:
#    bench/ and its bench_smoke_* tests are left out). Builds it.
# 2. Runs the fast suite there: the library with the engine, the PMDs, the
#    runtime and the apps, their unit and integration tests, nothing left
#    out. Every report aborts the process (halt_on_error, abort_on_error),
#    so its test fails; leaks are checked at exit. Pool buffers, which are
#    DPDK memory and not malloc's, are poisoned while in their pool
#    (rpcrdma_mempool.h). DPDK's EAL runs as the tests run it (--no-huge
#    without 64 free hugepages) and reports nothing: the suppression file,
#    scripts/sanitize/lsan.supp, is empty, and would hold DPDK's own
#    allocations only, each with its reason.
# Extra arguments go to `meson test` (test names, --repeat, ...).
# Exits 0 passed, 1 failed (the build or a test; the log under
# BUILD/meson-logs/ has each report).
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build-asan}
[ $# -gt 0 ] && shift

if [ ! -f "$BUILD/build.ninja" ]; then
	rm -rf "$BUILD"
	if ! meson setup "$BUILD" -Db_sanitize=address,undefined -Db_lundef=false \
		-Doptimization=1 -Dbench=false -Dc_args=-fno-sanitize-recover=all \
		-Dcpp_args=-fno-sanitize-recover=all >"$BUILD.setup.log" 2>&1; then
		cat "$BUILD.setup.log" >&2
		echo "sanitize: configuring $BUILD failed" >&2
		exit 1
	fi
	rm -f "$BUILD.setup.log"
fi
start=$(date +%s)
if ! ninja -C "$BUILD" >"$BUILD/sanitize-build.log" 2>&1; then
	tail -n 30 "$BUILD/sanitize-build.log" >&2
	echo "sanitize: building $BUILD failed" >&2
	exit 1
fi
built=$(date +%s)

supp=$(pwd)/scripts/sanitize/lsan.supp
ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:print_summary=1
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1
LSAN_OPTIONS=suppressions=$supp:print_suppressions=0
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
meson test -C "$BUILD" --suite fast --print-errorlogs "$@"
status=$?
echo "sanitize: $((built - start)) s to build, $(($(date +%s) - built)) s to test"
exit $status
