#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# How often rpcrdma-perf --compare cries wolf on this machine: N times
# (default 20), run one scenario twice back to back with the same build and
# compare the second run with the first. Every exit 3 is a false alarm (the
# code did not change). Prints a line per comparison (its exit status and
# the figures judged worse), then the count and the time it took; exits 1
# when there was a false alarm. Not part of make test (20 comparisons take
# a minute or more); tests/integration/perf/test_perf.py checks the
# machinery with one identical pair and one real slow-down.
#
#   sh scripts/perf-false-alarm.sh [BUILD] [N]
#   PERF_ARGS="--mode lat --repeat 5 --duration 1" sh scripts/perf-false-alarm.sh
set -eu
BUILD=${1:-build}
N=${2:-20}
ARGS=${PERF_ARGS:---mode iops --depth 16 --count 20000 --repeat 7}
PERF=
for exe in "$BUILD/rpcrdma-perf" "$BUILD/apps/rpcrdma-perf"; do
	if [ -x "$exe" ]; then
		PERF=$exe
		break
	fi
done
if [ -z "$PERF" ]; then
	echo "perf-false-alarm: rpcrdma-perf is not built yet in $BUILD" >&2
	exit 1
fi
DIR=$(mktemp -d /tmp/perf-false-alarm.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

echo "perf-false-alarm: $N comparisons of identical runs: rpcrdma-perf $ARGS"
start=$(date +%s)
alarms=0
i=1
while [ "$i" -le "$N" ]; do
	# shellcheck disable=SC2086 # ARGS is a list of options
	if ! "$PERF" $ARGS --quiet --json "$DIR/old.json" 2>"$DIR/err"; then
		echo "perf-false-alarm: a run failed:" >&2
		cat "$DIR/err" >&2
		exit 2
	fi
	st=0
	# shellcheck disable=SC2086
	"$PERF" $ARGS --quiet --compare "$DIR/old.json" >"$DIR/out" 2>"$DIR/err" || st=$?
	# "p50 +7.2%" for each figure judged worse
	worse=$(awk '/WORSE/ { printf " %s %s", $1, $(NF - 3) }' "$DIR/out")
	stalls=$(sed -n 's/.*stalled (no reply for over 1 ms: a poller off its CPU) for \([0-9.]* %\) (old) and \([0-9.]* %\) (new).*/ (stalled \1 and \2: throughput not judged)/p' "$DIR/err")
	case $st in
	0) echo "  $i/$N: pass$stalls" ;;
	3)
		alarms=$((alarms + 1))
		echo "  $i/$N: FALSE ALARM:$worse$stalls"
		;;
	*)
		echo "perf-false-alarm: --compare exited $st:" >&2
		cat "$DIR/err" >&2
		exit 2
		;;
	esac
	i=$((i + 1))
done
echo "perf-false-alarm: $alarms false alarm(s) in $N comparisons, $(($(date +%s) - start)) s"
[ "$alarms" -eq 0 ]
