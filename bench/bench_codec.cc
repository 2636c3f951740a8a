// SPDX-License-Identifier: BSD-3-Clause
//
// bench-codec: the wire codecs against rpcgen and libtirpc.
//
// Benchmarks are named "<shape>/<op>/<impl>", for example
// "v1_msg_nullcall/roundtrip/rpcrdma" and "v1_msg_nullcall/roundtrip/rpcgen";
// bench_shim.h lists the shapes, operations and implementations. The names
// are stable so that JSON from different commits can be compared
// (scripts/bench.sh, scripts/bench_summary.py). Each iteration is one
// operation on one message; the counter msg_bytes is its size on the wire.
//
// The operations are C functions (bench_shim.h); bench_shim_init() has
// checked each of them once against the expected bytes before anything is
// timed, and their results go through DoNotOptimize.

#include <string>

#include <benchmark/benchmark.h>

#include "bench_shim.h"

namespace
{

void run(benchmark::State &state, const bench_case *c, bench_op_fn fn)
{
	void *arg = c->arg;

	for (auto _ : state) {
		int n = fn(arg);

		benchmark::DoNotOptimize(n);
		benchmark::ClobberMemory();
	}
	state.counters["msg_bytes"] = c->msg_len;
	state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * c->msg_len);
}

} // namespace

int main(int argc, char **argv)
{
	const bench_case *cases;
	unsigned int n;

	cases = bench_shim_init(&n);
	for (unsigned int i = 0; i < n; i++) {
		for (int op = 0; op < BENCH_OP_N; op++) {
			const bench_case *c = &cases[i];
			bench_op_fn fn = c->op[op];

			if (!fn)
				continue;
			std::string name = std::string(c->shape) + "/" +
					   bench_op_name(static_cast<bench_op>(op)) + "/" + c->impl;
			benchmark::RegisterBenchmark(
				name.c_str(), [c, fn](benchmark::State &st) { run(st, c, fn); });
		}
	}

	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
