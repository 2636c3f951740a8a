// SPDX-License-Identifier: BSD-3-Clause
//
// Shared by the two-lcore benchmarks (bench_pmd.cc, bench_engine.cc): the
// p50/p99 counters of round-trip samples, and the shm PMD ping-pong that
// bench-engine runs as its same-run baseline.

#ifndef BENCH_LATENCY_H
#define BENCH_LATENCY_H

#include <algorithm>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_pmd_shim.h"

// Round trips kept per benchmark run, for the percentiles.
constexpr size_t kMaxSamples = 1 << 22;

// The pct-th percentile in ns of round trips in TSC cycles, sorted ascending.
inline double percentile_ns(const std::vector<uint64_t> &sorted, unsigned int pct)
{
	return static_cast<double>(sorted[sorted.size() * pct / 100]) * bench_pmd_ns_per_cycle();
}

// p50_ns and p99_ns of round trips measured in TSC cycles.
inline void set_percentiles(benchmark::State &state, std::vector<uint64_t> &cycles)
{
	if (cycles.empty())
		return;
	std::sort(cycles.begin(), cycles.end());
	state.counters["p50_ns"] = percentile_ns(cycles, 50);
	state.counters["p99_ns"] = percentile_ns(cycles, 99);
}

// One shm PMD ping-pong (bench_pmd_shim.h) per iteration, with percentiles.
inline void pmd_pingpong(benchmark::State &state, bench_pmd_mode mode)
{
	bench_pmd *b = bench_pmd_start(mode);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	std::vector<uint64_t> cycles;
	cycles.reserve(kMaxSamples);
	for (auto _ : state) {
		uint64_t c = bench_pmd_pingpong(b);
		if (c == 0) {
			state.SkipWithError("round trip failed");
			break;
		}
		if (cycles.size() < kMaxSamples)
			cycles.push_back(c);
	}
	if (bench_pmd_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	set_percentiles(state, cycles);
}

#endif // BENCH_LATENCY_H
