// SPDX-License-Identifier: BSD-3-Clause
//
// Scale benchmarks: N connections on one server lcore (rpcrdma_xprt.h
// "Poll groups"), a server group on the next lcore answering NULL calls
// raw, N client connections in a client group on the main lcore, over the
// shm PMD in this process. Names are stable: the JSON is compared across
// commits, and the targets are ratios within one run.
//
//   scale/null_pipelined/conns:N      64 NULL calls in flight in all, spread
//                                     over the N connections in turn:
//                                     calls_per_s (the target: N = 1024 keeps
//                                     90% of N = 1); srv_busy_ns_per_call
//                                     and cli_busy_ns_per_call, each
//                                     lcore's time in polls that found
//                                     work per call: its cost of a call,
//                                     whichever lcore limits the rate;
//                                     cli_wcs_per_busy_poll and
//                                     srv_wcs_per_busy_poll, the
//                                     completions each such poll reaped
//   scale/null_one_each/conns:N       one call in flight per connection
//                                     (N in flight): calls_per_s
//   scale/null_pipelined_paired/conns:N
//                                     the first target measured in turns:
//                                     a set-up of 1 connection and one of
//                                     N, both up, take turns of 32,768
//                                     calls (64 in flight; each
//                                     iteration one turn of each, their
//                                     order alternating), so that the two
//                                     rates of a pair see the same state
//                                     of the machine. calls_per_s_1 and
//                                     calls_per_s_n: the median turn of
//                                     each; ratio: the median of the
//                                     pairs' ratios (ratio_lo, ratio_hi:
//                                     the quartiles)
//   scale/pmd_echo_paired/qps:N      the same turns with the PMD alone
//                                     (bench_scale_pmd.c): N QPs on one CQ
//                                     and one SRQ each end, 64 SENDs of 64
//                                     bytes in flight, each echoed on its
//                                     QP: what the shm PMD loses from 1 QP
//                                     to N, without the engine
//   scale/idle_poll/conns:N           one poll of the server group with N
//                                     idle connections, from the main lcore
//                                     (the server lcore parked): ns per poll
//                                     (the target: N = 1024 within 10% of
//                                     N = 1)
//
// Every run reports the memory of a connection: engine_bytes_per_conn
// (what the engine holds for each server connection beyond the shared
// pools: rpcrdma_xprt_info() mem_bytes), and rss_bytes_per_conn, the
// process's resident memory grown by connecting them, divided by N; it
// counts both ends (client and server connections live in this process)
// and the shm PMD's queue pairs, and a later set-up in the process reuses
// memory an earlier one touched (rpcrdma-perf --server measures a server
// alone).

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_scale_shim.h"

namespace
{

constexpr uint32_t kCalls = 8192;

void memory_counters(benchmark::State &state, bench_scale *b, uint32_t conns)
{
	double engine;
	uint64_t before, after;

	bench_scale_memory(b, &engine, &before, &after);
	state.counters["engine_bytes_per_conn"] = engine;
	state.counters["rss_bytes_per_conn"] =
		after > before ? static_cast<double>(after - before) / conns : 0;
}

void pipelined(benchmark::State &state, uint32_t conns, uint32_t inflight)
{
	bench_scale *b = bench_scale_start(conns, inflight);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	// a first pass to warm every connection (each has had a call)
	if (bench_scale_pipelined(b, conns > kCalls ? conns : kCalls) != 0)
		state.SkipWithError("warm-up calls failed");
	for (auto _ : state) {
		if (bench_scale_pipelined(b, kCalls) != 0) {
			state.SkipWithError("calls failed");
			break;
		}
	}
	uint64_t lo, hi, cv, cp, sv, sp;
	double cli_busy, srv_busy;
	bench_scale_pause(b);
	bench_scale_busy(b, &cli_busy, &srv_busy);
	bench_scale_visits(b, &cv, &cp, &sv, &sp);
	double cli_burst, srv_burst;
	bench_scale_bursts(b, &cli_burst, &srv_burst);
	state.counters["cli_wcs_per_busy_poll"] = cli_burst;
	state.counters["srv_wcs_per_busy_poll"] = srv_burst;
	double calls = static_cast<double>(state.iterations() * kCalls +
					   (conns > kCalls ? conns : kCalls));
	state.counters["cli_busy_ns_per_call"] = cli_busy / calls;
	state.counters["srv_busy_ns_per_call"] = srv_busy / calls;
	state.counters["cli_visits_per_call"] = static_cast<double>(cv) / calls;
	state.counters["srv_visits_per_call"] = static_cast<double>(sv) / calls;
	state.counters["cli_polls_per_call"] = static_cast<double>(cp) / calls;
	state.counters["srv_polls_per_call"] = static_cast<double>(sp) / calls;
	bench_scale_spread(b, &lo, &hi);
	state.counters["conn_calls_min"] = static_cast<double>(lo);
	state.counters["conn_calls_max"] = static_cast<double>(hi);
	memory_counters(state, b, conns);
	if (bench_scale_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	state.SetItemsProcessed(state.iterations() * kCalls);
	state.counters["calls_per_s"] = benchmark::Counter(
		static_cast<double>(state.iterations() * kCalls), benchmark::Counter::kIsRate);
}

// What a paired run does with one set-up: launch its server lcore, make
// calls (0 or -1), park the lcore.
struct Turns {
	std::function<int()> resume;
	std::function<int(uint32_t)> run;
	std::function<void()> pause;
};

// One turn of a paired run: the server lcore launched, calls, parked. Calls/s, or -1.
double turn(const Turns &t, uint32_t calls)
{
	if (t.resume() != 0)
		return -1;
	auto t0 = std::chrono::steady_clock::now();
	int ret = t.run(calls);
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	t.pause();
	return ret == 0 && s > 0 ? calls / s : -1;
}

// The value at fraction q of the sorted values (nearest rank).
double quantile(std::vector<double> v, double q)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// The turns of two set-ups, one and many, up at once: a pair each iteration.
void paired_run(benchmark::State &state, const Turns &one, const Turns &many, uint32_t warm)
{
	constexpr uint32_t kTurn = 4 * kCalls;
	// a first turn each to warm every connection
	if (turn(one, kCalls) < 0 || turn(many, warm) < 0) {
		state.SkipWithError("warm-up calls failed");
		return;
	}
	std::vector<double> r1, rn, ratio;
	bool first_one = true;
	for (auto _ : state) {
		double a, b;
		if (first_one) {
			a = turn(one, kTurn);
			b = turn(many, kTurn);
		} else {
			b = turn(many, kTurn);
			a = turn(one, kTurn);
		}
		first_one = !first_one;
		if (a <= 0 || b <= 0) {
			state.SkipWithError("calls failed");
			break;
		}
		r1.push_back(a);
		rn.push_back(b);
		ratio.push_back(b / a);
	}
	state.SetItemsProcessed(state.iterations() * 2 * kTurn);
	state.counters["calls_per_s_1"] = quantile(r1, 0.5);
	state.counters["calls_per_s_n"] = quantile(rn, 0.5);
	state.counters["ratio"] = quantile(ratio, 0.5);
	state.counters["ratio_lo"] = quantile(ratio, 0.25);
	state.counters["ratio_hi"] = quantile(ratio, 0.75);
	state.counters["pairs"] = static_cast<double>(ratio.size());
}

Turns engine_turns(bench_scale *b)
{
	return { [b] { return bench_scale_resume(b); },
		 [b](uint32_t n) { return bench_scale_pipelined(b, n); },
		 [b] { bench_scale_pause(b); } };
}

void paired(benchmark::State &state, uint32_t conns)
{
	bench_scale *one = bench_scale_start(1, 64);
	if (one != nullptr)
		bench_scale_pause(one);
	bench_scale *many = one != nullptr ? bench_scale_start(conns, 64) : nullptr;
	if (many == nullptr) {
		bench_scale_stop(one);
		state.SkipWithError("set-up failed");
		return;
	}
	bench_scale_pause(many);
	paired_run(state, engine_turns(one), engine_turns(many), conns > kCalls ? conns : kCalls);
	if (bench_scale_stop(many) != 0 || bench_scale_stop(one) != 0)
		state.SkipWithError("tear-down found an error");
}

Turns pmd_turns(bench_scale_pmd *b)
{
	return { [b] { return bench_scale_pmd_resume(b); },
		 [b](uint32_t n) { return bench_scale_pmd_run(b, n); },
		 [b] { bench_scale_pmd_pause(b); } };
}

void pmd_paired(benchmark::State &state, uint32_t qps)
{
	bench_scale_pmd *one = bench_scale_pmd_start(1, 64);
	bench_scale_pmd *many = one != nullptr ? bench_scale_pmd_start(qps, 64) : nullptr;
	if (many == nullptr) {
		bench_scale_pmd_stop(one);
		state.SkipWithError("set-up failed");
		return;
	}
	paired_run(state, pmd_turns(one), pmd_turns(many), qps > kCalls ? qps : kCalls);
	if (bench_scale_pmd_stop(many) != 0 || bench_scale_pmd_stop(one) != 0)
		state.SkipWithError("tear-down found an error");
}

void idle_poll(benchmark::State &state, uint32_t conns)
{
	constexpr int kPolls = 1000;
	bench_scale *b = bench_scale_start(conns, 64);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	// every connection has had a call, its receives and sends settled
	if (bench_scale_pipelined(b, conns > kCalls ? conns : kCalls) != 0)
		state.SkipWithError("warm-up calls failed");
	bench_scale_pause(b);
	for (int i = 0; i < 100000; i++)
		bench_scale_server_poll(b);
	int work = 0;
	auto t0 = std::chrono::steady_clock::now();
	for (auto _ : state) {
		for (int i = 0; i < kPolls; i++)
			work += bench_scale_server_poll(b);
	}
	double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0)
			    .count();
	if (work != 0)
		state.SkipWithError("the group was not idle");
	memory_counters(state, b, conns);
	if (bench_scale_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	state.SetItemsProcessed(state.iterations() * kPolls);
	state.counters["ns_per_poll"] = ns / static_cast<double>(state.iterations() * kPolls);
}

} // namespace

int main(int argc, char **argv)
{
	static const uint32_t conns[] = { 1, 16, 256, 1024 };

	if (bench_scale_eal_init(argv[0]) != 0) {
		std::fprintf(stderr, "bench_scale: EAL init failed\n");
		return 1;
	}
	for (uint32_t n : conns)
		benchmark::RegisterBenchmark(
			("scale/null_pipelined/conns:" + std::to_string(n)).c_str(), pipelined, n,
			64)
			->UseRealTime();
	for (uint32_t n : conns)
		benchmark::RegisterBenchmark(
			("scale/null_one_each/conns:" + std::to_string(n)).c_str(), pipelined, n, n)
			->UseRealTime();
	for (uint32_t n : conns)
		if (n > 1)
			benchmark::RegisterBenchmark(
				("scale/null_pipelined_paired/conns:" + std::to_string(n)).c_str(),
				paired, n)
				->UseRealTime();
	for (uint32_t n : conns)
		if (n > 1)
			benchmark::RegisterBenchmark(
				("scale/pmd_echo_paired/qps:" + std::to_string(n)).c_str(),
				pmd_paired, n)
				->UseRealTime();
	for (uint32_t n : conns)
		benchmark::RegisterBenchmark(("scale/idle_poll/conns:" + std::to_string(n)).c_str(),
					     idle_poll, n)
			->UseRealTime();
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
