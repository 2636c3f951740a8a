#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Bounded libFuzzer run over the codec decoders.
#
#   sh scripts/fuzz.sh [SECONDS]     SECONDS in total, shared by the targets (default 60)
#
# 1. Configures build-fuzz/ (CC=clang, -Dfuzz=true) if it is not, and builds it.
# 2. Runs every file under tests/fuzz/regressions/<target>/ through its target.
# 3. Fuzzes each target for its share of SECONDS from a temporary copy of
#    tests/fuzz/corpus/<target>/ (the committed corpus is not modified;
#    marshal, whose inputs are whole messages, takes hdr's as well).
# Prints one line per target; exits 1 on any crash, leak, timeout or
# out-of-memory, naming the input saved under build-fuzz/artifacts/. Make
# a crash a regression: fix it, then copy the artifact to
# tests/fuzz/regressions/<target>/<short-description>.
set -eu
cd "$(dirname "$0")/.."

total=${1:-60}
case $total in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS]" >&2
	exit 2
	;;
esac
build=build-fuzz
targets="hdr rpc xchar roce marshal reply nfs3"
artifacts=$build/artifacts

if [ ! -f $build/build.ninja ]; then
	rm -rf $build
	if ! CC=clang CXX=clang++ meson setup $build -Dfuzz=true >$build.setup.log 2>&1; then
		cat $build.setup.log >&2
		exit 1
	fi
	rm -f $build.setup.log
fi
if ! ninja -C $build -j2 >$build/ninja.log 2>&1; then
	cat $build/ninja.log >&2
	exit 1
fi
mkdir -p $artifacts

ntargets=$(echo $targets | wc -w)
share=$((total / ntargets))
[ "$share" -ge 1 ] || share=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# The input libFuzzer saved for a failure, from its log.
artifact_of() {
	sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$1" | tail -n 1
}

for t in $targets; do
	bin=$build/tests/fuzz/fuzz_$t
	log=$artifacts/fuzz_$t.log

	# Past crashes first: each file once.
	regdir=tests/fuzz/regressions/$t
	if [ -d "$regdir" ] && [ -n "$(ls -A "$regdir")" ]; then
		nreg=$(ls -A "$regdir" | wc -l)
		if ! "$bin" "$regdir"/* >"$artifacts/regress_$t.log" 2>&1; then
			echo "fuzz_$t: REGRESSION FAILED ($nreg files); see $artifacts/regress_$t.log" >&2
			tail -n 30 "$artifacts/regress_$t.log" >&2
			status=1
			continue
		fi
		echo "fuzz_$t: $nreg regression inputs pass"
	fi

	mkdir -p "$tmp/$t"
	if [ -d tests/fuzz/corpus/$t ]; then
		cp tests/fuzz/corpus/$t/* "$tmp/$t/"
	fi
	# marshal's inputs are whole messages: the header corpus seeds it too
	if [ $t = marshal ]; then
		cp tests/fuzz/corpus/hdr/* "$tmp/$t/"
	fi
	start=$(date +%s)
	if "$bin" "$tmp/$t" -max_total_time="$share" -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix="$artifacts/${t}-" -print_final_stats=1 >"$log" 2>&1; then
		result=ok
	else
		result=FAILED
		status=1
	fi
	secs=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
	corp=$(ls "$tmp/$t" | wc -l)
	echo "fuzz_$t: ${execs:-?} executions in ${secs} s, cov ${cov:-?}, corpus $corp inputs: $result"
	if [ $result != ok ]; then
		art=$(artifact_of "$log")
		echo "fuzz_$t: crash input: ${art:-none saved}; log: $log" >&2
		grep -m 5 -E 'ERROR|runtime error|fuzz_[a-z]*: ' "$log" >&2 || tail -n 20 "$log" >&2
	fi
done
exit $status
