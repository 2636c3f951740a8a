#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job of `make run`: rpcrdma-perf's default scenario over the shm
# PMD, server and client in one process on two lcores: null-call latency,
# IOPS at depth 32, and 4 KiB / 64 KiB / 1 MiB read and write bandwidth.
# Each run lasts PERF_SECONDS (default 2) and writes its JSON result to
# $BUILD/perf/; the summary table of all of them is printed at the end.
# The top-level meson.build builds the apps at the top of the build directory.
#
#   sh scripts/run.sh [BUILD]    (PERF_SECONDS=N to change the duration)
set -eu
BUILD=${1:-build}
SECS=${PERF_SECONDS:-2}
PERF=
for exe in "$BUILD/rpcrdma-perf" "$BUILD/apps/rpcrdma-perf"; do
	if [ -x "$exe" ]; then
		PERF=$exe
		break
	fi
done
if [ -z "$PERF" ]; then
	echo "run: rpcrdma-perf is not built yet in $BUILD" >&2
	exit 1
fi
OUT=$BUILD/perf
mkdir -p "$OUT"
rm -f "$OUT"/*.json

# name: options
set -- \
	"1-lat-null:--mode lat" \
	"2-iops-null:--mode iops --depth 32" \
	"3-bw-read-4k:--mode bw --op read --size 4k" \
	"4-bw-write-4k:--mode bw --op write --size 4k" \
	"5-bw-read-64k:--mode bw --op read --size 64k" \
	"6-bw-write-64k:--mode bw --op write --size 64k" \
	"7-bw-read-1m:--mode bw --op read --size 1m" \
	"8-bw-write-1m:--mode bw --op write --size 1m"
echo "rpcrdma-perf: $# runs of $SECS s over the shm PMD (results in $OUT/)"
status=0
for run in "$@"; do
	name=${run%%:*}
	opts=${run#*:}
	printf '  %-16s %s\n' "${name#*-}" "$opts"
	# shellcheck disable=SC2086 # opts is a list of options
	if ! "$PERF" $opts --duration "$SECS" --quiet --json "$OUT/$name.json"; then
		echo "run: rpcrdma-perf $opts failed" >&2
		status=1
	fi
done
echo
set -- "$OUT"/*.json
if [ -f "$1" ]; then
	"$PERF" --summary "$@"
fi
exit $status
