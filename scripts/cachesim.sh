#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Cache misses per NULL call at N connections, simulated: what the poll
# groups' layout work is measured with, since this VM's rates move by more
# than a layout change does.
#
#   sh scripts/cachesim.sh [CONNS ...]        (1, 16, 256 or 1024; default: 1024)
#
# Builds bench-scale in build-cachesim (-Dmachine=x86-64-v3: valgrind does
# not take AVX-512) and runs its scale/null_pipelined/conns:N pass once
# under callgrind with the cache simulator (D1 48 KiB 12-way, L2 2 MiB
# 16-way, as this VM's cores), counting only the calls themselves (the
# client's pipelined loop and the server lcore's poll loop; not set-up or
# tear-down). Prints D1 and L2 misses per call, both ends together, and
# the instructions per call (idle polls included, so they vary with the
# interleaving; the misses do not, much). Deterministic to within a few
# percent; compare commits, not machines. CACHESIM_BUILD overrides the
# build directory; CACHESIM_L2_KIB the simulated L2 (default 2048, a power
# of two from 256 to 65536): the misses at 2, 4 and 8 MiB tell how far the
# lines a round of calls touches are from fitting.
#
# valgrind runs the two lcores one at a time (--fair-sched), so a cache
# shared by both ends is simulated, not two cores: a line one end writes
# and the other reads counts as a hit here. It counts the lines a call
# touches, not the cross-core transfers.
set -eu
cd "$(dirname "$0")/.."
BUILD=${CACHESIM_BUILD:-build-cachesim}
L2_KIB=${CACHESIM_L2_KIB:-2048}
[ $# -gt 0 ] || set -- 1024

case $L2_KIB in
256 | 512 | 1024 | 2048 | 4096 | 8192 | 16384 | 32768 | 65536) ;;
*)
	echo "cachesim: CACHESIM_L2_KIB '$L2_KIB': a power of two from 256 to 65536" >&2
	exit 2
	;;
esac
for n in "$@"; do
	case $n in
	1 | 16 | 256 | 1024) ;;
	*)
		echo "cachesim: '$n': bench-scale runs 1, 16, 256 or 1024 connections" >&2
		exit 2
		;;
	esac
done
command -v valgrind >/dev/null 2>&1 || {
	echo "cachesim: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
}
if [ ! -d "$BUILD" ]; then
	meson setup "$BUILD" -Dmachine=x86-64-v3 >/dev/null
fi
ninja -C "$BUILD" bench/bench-scale >/dev/null

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "simulated: D1 48 KiB 12-way, L2 $L2_KIB KiB 16-way, shared by both ends"
printf '%-6s %12s %12s %12s %8s\n' conns D1_per_call L2_per_call instr_per_call calls
for n in "$@"; do
	RPCRDMA_NO_HUGE=1 RPCRDMA_TELEMETRY=0 valgrind --tool=callgrind --fair-sched=yes \
		--cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 --LL=$((L2_KIB * 1024)),16,64 \
		--toggle-collect=bench_scale_pipelined --toggle-collect=serve \
		--callgrind-out-file="$out/cg.$n" "$BUILD/bench/bench-scale" \
		--benchmark_filter="^scale/null_pipelined/conns:$n/" \
		--benchmark_min_time=0.01 >"$out/log.$n" 2>&1 || true
	if grep -q 'ERROR OCCURRED\|bad replies' "$out/log.$n" || [ ! -s "$out/cg.$n" ]; then
		echo "cachesim: the run at $n connections failed:" >&2
		grep -v '^==' "$out/log.$n" | tail -n 5 >&2
		exit 1
	fi
	# the calls: how often the server's handler ran
	callgrind_annotate --auto=yes --show-percs=no "$out/cg.$n" >"$out/ann.$n" 2>/dev/null
	calls=$(grep '=> .*:scale_recv_call (' "$out/ann.$n" | head -n 1 |
		sed 's/.*(\([0-9,]*\)x).*/\1/; s/,//g')
	[ -n "$calls" ] && [ "$calls" -gt 0 ] || {
		echo "cachesim: no call counted at $n connections" >&2
		exit 1
	}
	awk -v n="$n" -v calls="$calls" '/PROGRAM TOTALS/ {
		gsub(",", "")
		# Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
		printf "%-6s %12.1f %12.1f %12.0f %8d\n", n, ($5 + $6) / calls, ($8 + $9) / calls,
			$1 / calls, calls
	}' "$out/ann.$n"
done
