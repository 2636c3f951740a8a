#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Run every benchmark program of a build and summarise the results.
#
#   sh scripts/bench.sh [BUILD]        (default BUILD: build)
#
# Each BUILD/bench/bench-* executable writes Google Benchmark JSON to
# BUILD/bench/<name>.json, so runs can be compared across commits. The
# default arguments are 5 repetitions with aggregates only and 0.2 s per
# run; BENCH_ARGS is appended (later flags win), e.g.
#   BENCH_ARGS='--benchmark_filter=nullcall --benchmark_repetitions=10'
# Single-threaded programs run pinned to one CPU with taskset when it is
# there: BENCH_CPU, default the last CPU. bench-pmd, bench-engine and
# bench-rt pin their two lcores through the EAL. scripts/bench_summary.py
# then prints, for each shape and operation of bench-codec, the rpcrdma and
# rpcgen medians and their ratio.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DEFAULT_ARGS="--benchmark_repetitions=5 --benchmark_report_aggregates_only=true"
DEFAULT_ARGS="$DEFAULT_ARGS --benchmark_min_time=0.2"

if [ ! -d "$BUILD/bench" ]; then
	echo "bench: $BUILD/bench does not exist; build first (make build)" >&2
	exit 1
fi

pin=""
if command -v taskset >/dev/null 2>&1; then
	cpu=${BENCH_CPU:-$(($(nproc) - 1))}
	pin="taskset -c $cpu"
	echo "bench: pinned to CPU $cpu"
else
	echo "bench: taskset not found; not pinned"
fi

found=0
jsons=""
for exe in "$BUILD"/bench/bench-*; do
	# bench-engine-stamped: bench-engine with the latency stamps, for their
	# phase split only (docs/benchmarks.md); its figures are not the ones.
	case "$exe" in *.json | *-stamped) continue ;; esac
	if [ ! -f "$exe" ] || [ ! -x "$exe" ]; then
		continue
	fi
	found=1
	name=$(basename "$exe")
	out="$BUILD/bench/$name.json"
	echo "bench: $name -> $out"
	# Programs that run two lcores pin them through the EAL themselves.
	run_pin=$pin
	case "$name" in
	bench-pmd | bench-engine | bench-rt | bench-scale) run_pin="" ;;
	esac
	# shellcheck disable=SC2086
	$run_pin "$exe" $DEFAULT_ARGS ${BENCH_ARGS:-} \
		--benchmark_out="$out" --benchmark_out_format=json
	jsons="$jsons $out"
done
if [ "$found" = 0 ]; then
	echo "bench: no bench-* program in $BUILD/bench" >&2
	exit 1
fi

# shellcheck disable=SC2086
python3 scripts/bench_summary.py $jsons
