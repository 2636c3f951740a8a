// SPDX-License-Identifier: BSD-3-Clause
// bench-rt: the lcore runtime's ring handoff (poller -> worker -> poller,
// 32 items per round) next to plain rte_ring bursts of the same 32, in the
// same run. items_per_second counts items; divide into 1 s for the cost per
// call. Two ways to use the runtime, each next to the plain rings doing the
// same useful work: per-item callbacks (rt_round32 vs
// plain_rte_ring_callbacks: 64 indirect calls per round either way) and
// burst handlers (rt_burst_handlers vs plain_rte_ring_burst_callbacks: one
// run and one done call per burst); plain_rte_ring_round32 is the bare
// rings (the runtime's target: at most 1.5x, met by the burst handlers). "st" runs both sides on one thread (the code's cost); "lcores"
// uses two lcores, the poller waiting for each round (this machine has two
// CPUs shared with other users: cross-lcore figures here are for
// correctness and trend, not for a larger machine's rate).
#include <benchmark/benchmark.h>

#include "bench_rt_shim.h"

static void st_plain(benchmark::State &state)
{
	for (auto _ : state)
		bench_rt_plain_round();
	state.SetItemsProcessed(state.iterations() * 32);
}

static void st_plain_cb(benchmark::State &state)
{
	for (auto _ : state)
		bench_rt_plain_cb_round();
	state.SetItemsProcessed(state.iterations() * 32);
}

static void st_plain_bcb(benchmark::State &state)
{
	for (auto _ : state)
		bench_rt_plain_burst_cb_round();
	state.SetItemsProcessed(state.iterations() * 32);
}

static void st_rt_burst(benchmark::State &state)
{
	for (auto _ : state)
		bench_rt_rt_burst_round();
	state.SetItemsProcessed(state.iterations() * 32);
}

static void st_rt(benchmark::State &state)
{
	for (auto _ : state)
		bench_rt_rt_round();
	state.SetItemsProcessed(state.iterations() * 32);
}

static void lcores(benchmark::State &state, int rt)
{
	const uint64_t n = 20000;

	for (auto _ : state) {
		uint64_t c = bench_rt_lcores_rounds(rt, n);

		if (c == 0) {
			state.SkipWithError("rounds failed");
			break;
		}
		state.SetIterationTime((double)c * bench_rt_ns_per_cycle() * 1e-9);
	}
	state.SetItemsProcessed(state.iterations() * n * 32);
}

// Null RPC rate, run to completion: calls/s (items_per_second) of one
// poller iteration loop on this thread. Worker mode (pollers handing the
// calls to worker lcores) is checked for correctness only here (test_rt:
// same replies as run to completion): this machine has two CPUs shared by
// several users; on a larger machine with a CPU per role lcore, measure it
// with rpcrdma-perf and roles "pollers=N,workers=M".
static void null_rpc_rtc(benchmark::State &state)
{
	uint64_t calls = 0, bad = 0, before = bench_rt_null_replies(&bad);

	for (auto _ : state)
		calls += (uint64_t)bench_rt_null_iterate();
	if (bench_rt_null_replies(&bad) - before != calls || bad != 0)
		state.SkipWithError("a NULL call was not answered with a 24-byte reply");
	state.SetItemsProcessed((int64_t)calls);
}

int main(int argc, char **argv)
{
	if (bench_rt_eal_init(argv[0]) != 0 || bench_rt_setup() != 0 ||
	    bench_rt_null_setup() != 0) {
		fprintf(stderr, "bench-rt: EAL or setup failed\n");
		return 1;
	}
	benchmark::RegisterBenchmark("handoff/st_plain_rte_ring_round32", st_plain);
	benchmark::RegisterBenchmark("handoff/st_plain_rte_ring_callbacks_round32", st_plain_cb);
	benchmark::RegisterBenchmark("handoff/st_rt_round32", st_rt);
	benchmark::RegisterBenchmark("handoff/st_plain_rte_ring_burst_callbacks_round32",
				     st_plain_bcb);
	benchmark::RegisterBenchmark("handoff/st_rt_burst_handlers_round32", st_rt_burst);
	benchmark::RegisterBenchmark("handoff/lcores_plain_rte_ring_round32", lcores, 0)
		->UseManualTime()
		->Iterations(5);
	benchmark::RegisterBenchmark("handoff/lcores_rt_round32", lcores, 1)
		->UseManualTime()
		->Iterations(5);
	benchmark::RegisterBenchmark("rt/null_rpc_rtc", null_rpc_rtc);
	benchmark::Initialize(&argc, argv);
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
