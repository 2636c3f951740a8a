// SPDX-License-Identifier: BSD-3-Clause
//
// Engine benchmarks: a client connection on the main lcore, a server
// connection on the next lcore, over the shm PMD. NULL calls are answered
// by a raw recv_call (the engine's own cost: its latency target); READ and
// WRITE, and null_rtt_svc, through the dispatch glue (rpcrdma_xprt_svc.h).
// Names are stable: the JSON is compared across commits.
//
//   engine/shm_send_rtt             the shm PMD's 64-byte SEND/RECV round trip
//                                   (bench_pmd_shim.h, same lcores): the floor
//   engine/null_rtt                 a NULL call, one at a time, to its reply
//                                   (submitted, then rpcrdma_xprt_flush(): on
//                                   the wire at once, as the PMD ping-pong)
//   engine/null_rtt_1lcore          the same, both ends polled by one lcore: the
//                                   engine's own work per round trip, without
//                                   the cross-core transfers (steadier)
//   engine/null_rtt_svc             the same, answered by the dispatch glue
//                                   (rpcrdma_svc_dispatch()): the glue's cost
//   engine/null_rtt_chunk           the same, offering an unused 4 KiB write
//                                   chunk (pool rkeys)
//   engine/null_rtt_percall_mr      the same, the chunk registered and
//                                   invalidated per call (PER_CALL_MR)
//   engine/null_pipelined_depth32   32 NULL calls in flight: calls_per_s
//   engine/null_vs_shm_send         shm_send_rtt, the same with both ends
//                                   reading what they receive (echo), and
//                                   null_rtt, in alternating blocks of 2,000
//                                   on the same lcores: ratio_mean, ratio_p50,
//                                   ratio_block_median (null over send),
//                                   ratio_echo_mean (steady where the
//                                   machine's speed drifts); raw_line_mean_ns,
//                                   one cache line bounced between the two
//                                   lcores in blocks of its own: how far
//                                   apart the machine placed them
//   engine/read_<size>              READ-like: the result comes back through
//                                   the client's write chunk (RDMA Write)
//   engine/write_<size>             WRITE-like: the argument goes out through
//                                   a read chunk (RDMA Read)
//   copy/memcpy_<size>              memcpy of the same size between two
//                                   chunk buffers
//   vers/v<N>_null_rtt              a NULL call in version N at the version's
//                                   default inline threshold (v1 1024 bytes,
//                                   v2 4096)
//   vers/v<N>_write_<2KiB|3KiB>     a WRITE-like call of that size: version 2
//                                   sends it inline, version 1 through a read
//                                   chunk (the difference of the two versions)
//
// Round trips report p50_ns and p99_ns as counters; per-call work requests
// and doorbells of both ends are counters too.

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_engine_shim.h"
#include "bench_latency.h"
#include "bench_pmd_shim.h"

namespace
{

void set_counts(benchmark::State &state, bench_engine *b, double calls)
{
	uint64_t cw, cd, sw, sd;

	if (calls <= 0)
		return;
	bench_engine_counts(b, &cw, &cd, &sw, &sd);
	state.counters["cli_wrs_per_call"] = static_cast<double>(cw) / calls;
	state.counters["cli_doorbells_per_call"] = static_cast<double>(cd) / calls;
	state.counters["srv_wrs_per_call"] = static_cast<double>(sw) / calls;
	state.counters["srv_doorbells_per_call"] = static_cast<double>(sd) / calls;
}

void shm_send_rtt(benchmark::State &state)
{
	pmd_pingpong(state, BENCH_PMD_SEND);
}

void rtt_vers(benchmark::State &state, bench_engine_mode mode, uint32_t size, uint32_t vers)
{
	bench_engine *b = bench_engine_start(mode, size, vers);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	std::vector<uint64_t> cycles;
	cycles.reserve(kMaxSamples);
	for (auto _ : state) {
		uint64_t c = bench_engine_call(b);
		if (c == 0) {
			state.SkipWithError("call failed");
			break;
		}
		if (cycles.size() < kMaxSamples)
			cycles.push_back(c);
	}
	set_counts(state, b, static_cast<double>(state.iterations()));
	if (bench_engine_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	set_percentiles(state, cycles);
	if (size != 0)
		state.SetBytesProcessed(state.iterations() * size);
}

void rtt(benchmark::State &state, bench_engine_mode mode, uint32_t size)
{
	rtt_vers(state, mode, size, 0);
}

void pipelined(benchmark::State &state, uint32_t depth)
{
	constexpr uint32_t kCalls = 4096;
	bench_engine *b = bench_engine_start(BENCH_ENGINE_NULL, 0, 0);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	for (auto _ : state) {
		if (bench_engine_pipelined(b, depth, kCalls) != 0) {
			state.SkipWithError("calls failed");
			break;
		}
	}
	set_counts(state, b, static_cast<double>(state.iterations() * kCalls));
	if (bench_engine_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	state.SetItemsProcessed(state.iterations() * kCalls);
	state.counters["calls_per_s"] = benchmark::Counter(
		static_cast<double>(state.iterations() * kCalls), benchmark::Counter::kIsRate);
}

/*
 * The engine's latency target (a NULL call at most 1.5 times the PMD's
 * SEND/RECV round trip), measured in alternating blocks on the same two
 * lcores: the PMD's SEND/RECV round trip, the same with both ends reading
 * what they receive (ECHO: the floor of any request and reply), and the
 * NULL call; and, to say which cores they ran on, one cache line bounced
 * between the two lcores (RAW: the physical limit, bench-pmd's
 * pingpong/raw_cacheline). On a VM the two lcores may sit on cores that
 * share a cache or on distant ones, and move between the two during a run:
 * the ratios differ between the placements, raw_line_mean_ns tells them
 * apart.
 * The responder's lcore is handed from one responder to the next between
 * blocks (the shims park and relaunch them). A machine whose speed drifts
 * from one second to the next (a shared VM) moves all three alike, so the
 * ratios hold where separate benchmarks a second apart disagree. Each
 * iteration is one block of each; the counters are over all blocks, and
 * ratio_block_median is the median of the per-block ratios of means. A
 * -Dlatency_stamps=true build adds each kind's mean per phase
 * (bench_pmd_shim.h: client_send, to_server, server, to_client,
 * client_recv), each stamp adding its rdtsc to the round trip.
 */
struct rtt_block {
	std::vector<uint64_t> cycles;
	uint64_t sum = 0;
	double ph[BENCH_PH_MAX] = {}; // a stamped build: cycles per phase (bench_rtt_phases())
	uint64_t nph = 0;	      // round trips in ph

	double p50_ns()
	{
		std::sort(cycles.begin(), cycles.end());
		return percentile_ns(cycles, 50);
	}
};

/*
 * kWarm round trips first, not counted: the responder's lcore has just
 * come from another responder's working set, and the first round trips
 * after the switch are slower (caches, TLB) for every kind alike.
 */
template <typename F> bool run_block(rtt_block &r, uint32_t n, uint64_t &block, F rtt)
{
	constexpr uint32_t kWarm = 500;

	for (uint32_t i = 0; i < kWarm; i++)
		if (rtt() == 0)
			return false;
	block = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t c = rtt();

		if (c == 0)
			return false;
		block += c;
		r.nph += static_cast<uint64_t>(bench_rtt_phases(r.ph));
		if (r.cycles.size() < kMaxSamples)
			r.cycles.push_back(c);
	}
	r.sum += block;
	return true;
}

void null_vs_send(benchmark::State &state)
{
	constexpr uint32_t kBlock = 2000;
	bench_pmd *p = bench_pmd_start(BENCH_PMD_SEND);
	bench_pmd *q = nullptr, *l = nullptr;
	bench_engine *e = nullptr;
	rtt_block send, echo, null, raw;
	std::vector<double> ratios;
	bool ok = p != nullptr && bench_pmd_pause(p) == 0;

	if (ok) {
		q = bench_pmd_start(BENCH_PMD_ECHO);
		ok = q != nullptr && bench_pmd_pause(q) == 0;
	}
	if (ok) {
		l = bench_pmd_start(BENCH_PMD_RAW);
		ok = l != nullptr && bench_pmd_pause(l) == 0;
	}
	if (ok) {
		e = bench_engine_start(BENCH_ENGINE_NULL, 0, 0);
		ok = e != nullptr && bench_engine_pause(e) == 0;
	}
	if (!ok) {
		state.SkipWithError("set-up failed");
		bench_engine_stop(e);
		bench_pmd_stop(l);
		bench_pmd_stop(q);
		bench_pmd_stop(p);
		return;
	}
	for (auto _ : state) {
		uint64_t bs, be, bn, bl;

		ok = bench_pmd_resume(l) == 0 &&
		     run_block(raw, kBlock, bl, [l] { return bench_pmd_pingpong(l); }) &&
		     bench_pmd_pause(l) == 0 && bench_pmd_resume(p) == 0 &&
		     run_block(send, kBlock, bs, [p] { return bench_pmd_pingpong(p); }) &&
		     bench_pmd_pause(p) == 0 && bench_pmd_resume(q) == 0 &&
		     run_block(echo, kBlock, be, [q] { return bench_pmd_pingpong(q); }) &&
		     bench_pmd_pause(q) == 0 && bench_engine_resume(e) == 0 &&
		     run_block(null, kBlock, bn, [e] { return bench_engine_call(e); }) &&
		     bench_engine_pause(e) == 0;
		if (!ok) {
			state.SkipWithError("a round trip failed");
			break;
		}
		ratios.push_back(static_cast<double>(bn) / static_cast<double>(bs));
	}
	if (bench_engine_stop(e) != 0 || bench_pmd_stop(l) != 0 || bench_pmd_stop(q) != 0 ||
	    bench_pmd_stop(p) != 0)
		state.SkipWithError("tear-down found an error");
	if (ratios.empty())
		return;
	double ns = bench_pmd_ns_per_cycle(), n = static_cast<double>(ratios.size()) * kBlock;
	double sp50 = send.p50_ns(), ep50 = echo.p50_ns(), np50 = null.p50_ns();
	std::sort(ratios.begin(), ratios.end());
	state.counters["shm_send_mean_ns"] = static_cast<double>(send.sum) * ns / n;
	state.counters["shm_echo_mean_ns"] = static_cast<double>(echo.sum) * ns / n;
	state.counters["null_mean_ns"] = static_cast<double>(null.sum) * ns / n;
	state.counters["shm_send_p50_ns"] = sp50;
	state.counters["shm_echo_p50_ns"] = ep50;
	state.counters["null_p50_ns"] = np50;
	state.counters["raw_line_mean_ns"] = static_cast<double>(raw.sum) * ns / n;
	state.counters["raw_line_p50_ns"] = raw.p50_ns();
	state.counters["ratio_mean"] =
		static_cast<double>(null.sum) / static_cast<double>(send.sum);
	state.counters["ratio_p50"] = np50 / sp50;
	state.counters["ratio_block_median"] = ratios[ratios.size() / 2];
	state.counters["ratio_echo_mean"] =
		static_cast<double>(null.sum) / static_cast<double>(echo.sum);
	// a -Dlatency_stamps=true build: <kind>_<phase>_ns, the mean of each phase
	state.counters["latency_stamps"] = bench_stamps_enabled();
	const std::pair<const char *, const rtt_block *> kinds[] = { { "shm_send", &send },
								     { "shm_echo", &echo },
								     { "null", &null } };
	for (const auto &k : kinds) {
		if (k.second->nph == 0)
			continue;
		for (int i = 0; i < BENCH_PH_MAX; i++)
			state.counters[std::string(k.first) + "_" + bench_phase_names[i] + "_ns"] =
				k.second->ph[i] * ns / static_cast<double>(k.second->nph);
		// the round trips whose stamps came in order (the phases average them)
		state.counters[std::string(k.first) + "_stamped_share"] =
			static_cast<double>(k.second->nph) / n;
	}
}

void copy(benchmark::State &state, uint32_t size)
{
	bench_engine *b = bench_engine_start(BENCH_ENGINE_READ, size, 0);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	for (auto _ : state) {
		bench_engine_memcpy(b);
		benchmark::ClobberMemory();
	}
	if (bench_engine_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	state.SetBytesProcessed(state.iterations() * size);
}

} // namespace

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint32_t size;
	} sizes[] = { { "4KiB", 4096 }, { "64KiB", 65536 }, { "1MiB", 1 << 20 } };

	if (bench_engine_eal_init(argv[0]) != 0) {
		std::fprintf(stderr, "bench_engine: EAL init failed\n");
		return 1;
	}
	benchmark::RegisterBenchmark("engine/shm_send_rtt", shm_send_rtt)->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_rtt", rtt, BENCH_ENGINE_NULL, 0)->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_rtt_1lcore", rtt, BENCH_ENGINE_NULL_1LCORE, 0)
		->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_rtt_svc", rtt, BENCH_ENGINE_NULL_SVC, 0)
		->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_rtt_chunk", rtt, BENCH_ENGINE_NULL_CHUNK, 0)
		->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_rtt_percall_mr", rtt, BENCH_ENGINE_NULL_MR, 0)
		->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_pipelined_depth32", pipelined, 32)->UseRealTime();
	benchmark::RegisterBenchmark("engine/null_vs_shm_send", null_vs_send)->UseRealTime();
	for (const auto &s : sizes) {
		benchmark::RegisterBenchmark((std::string("engine/read_") + s.name).c_str(), rtt,
					     BENCH_ENGINE_READ, s.size)
			->UseRealTime();
		benchmark::RegisterBenchmark((std::string("engine/write_") + s.name).c_str(), rtt,
					     BENCH_ENGINE_WRITE, s.size)
			->UseRealTime();
		benchmark::RegisterBenchmark((std::string("copy/memcpy_") + s.name).c_str(), copy,
					     s.size)
			->UseRealTime();
	}
	for (uint32_t v = 1; v <= 2; v++) {
		std::string p = "vers/v" + std::to_string(v) + "_";

		benchmark::RegisterBenchmark((p + "null_rtt").c_str(), rtt_vers, BENCH_ENGINE_NULL,
					     0, v)
			->UseRealTime();
		benchmark::RegisterBenchmark((p + "write_2KiB").c_str(), rtt_vers,
					     BENCH_ENGINE_WRITE, 2048, v)
			->UseRealTime();
		benchmark::RegisterBenchmark((p + "write_3KiB").c_str(), rtt_vers,
					     BENCH_ENGINE_WRITE, 3072, v)
			->UseRealTime();
	}
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
