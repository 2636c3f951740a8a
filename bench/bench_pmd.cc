// SPDX-License-Identifier: BSD-3-Clause
//
// PMD benchmarks (shm, two lcores of one process). Names are stable: the
// JSON is compared across commits.
//
//   pingpong/raw_cacheline  two lcores bounce one cache line: the floor
//   pingpong/shm_send       64-byte SEND, 64-byte SEND back
//   pingpong/shm_echo       the same, each end reading what it received (the
//                           reply carries the request's sequence number back)
//   pingpong/shm_write      64-byte RDMA WRITE, the peer polls its last word
//                           and writes back
//   rate/shm_send_batch32   one-way 64-byte SENDs, 32 per doorbell
//   copy/memcpy_1MiB        memcpy between the two endpoints' 1 MiB buffers
//   copy/shm_write_1MiB     RDMA WRITE between the same buffers
//   capture/shm_write_1MiB_icrc_bytewise
//                           the same WRITE with both QPs captured to a pcapng
//                           file (rpcrdma_capture.h), each frame's ICRC by
//                           the frame codec's byte-at-a-time CRC-32: before
//   capture/shm_write_1MiB_icrc_zlib
//                           the same, by zlib's crc32_z (the capture's
//                           default): after. Bytes/s of 1 MiB writes; every
//                           256 MiB the file is started again, untimed.
//
// Ping-pongs report p50_ns and p99_ns of the round trip as counters.

#include <algorithm>
#include <cstdio>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench_latency.h"
#include "bench_pmd_shim.h"

namespace
{

void send_rate(benchmark::State &state)
{
	bench_pmd *b = bench_pmd_start(BENCH_PMD_RATE);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	for (auto _ : state) {
		if (bench_pmd_send_batch(b) != 0) {
			state.SkipWithError("batch failed");
			break;
		}
	}
	if (bench_pmd_send_drain(b) != 0 || bench_pmd_stop(b) != 0)
		state.SkipWithError("drain or tear-down failed");
	state.SetItemsProcessed(state.iterations() * 32);
	state.counters["msgs_per_s"] = benchmark::Counter(
		static_cast<double>(state.iterations() * 32), benchmark::Counter::kIsRate);
}

void copy(benchmark::State &state, bool write)
{
	bench_pmd *b = bench_pmd_start(BENCH_PMD_COPY);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	for (auto _ : state) {
		if (!write) {
			bench_pmd_memcpy_1mib(b);
			benchmark::ClobberMemory();
		} else if (bench_pmd_write_1mib(b) != 0) {
			state.SkipWithError("write failed");
			break;
		}
	}
	if (bench_pmd_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	state.SetBytesProcessed(state.iterations() * (1 << 20));
}

void capture(benchmark::State &state, bool bytewise)
{
	constexpr int64_t restart = 256; // 1 MiB writes per capture file
	uint64_t frames = 0, drops = 0, f, d;
	int64_t n = 0;

	bench_pmd *b = bench_pmd_start(BENCH_PMD_COPY);
	if (b == nullptr) {
		state.SkipWithError("set-up failed");
		return;
	}
	if (bench_pmd_capture_start(b, bytewise) != 0) {
		state.SkipWithError("capture start failed");
		bench_pmd_stop(b);
		return;
	}
	for (auto _ : state) {
		if (bench_pmd_write_1mib(b) != 0) {
			state.SkipWithError("write failed");
			break;
		}
		if (++n % restart == 0) {
			state.PauseTiming();
			int bad = bench_pmd_capture_stop(b, &f, &d);
			frames += f;
			drops += d;
			if (bad != 0 || bench_pmd_capture_start(b, bytewise) != 0)
				state.SkipWithError("capture restart failed");
			state.ResumeTiming();
		}
	}
	if (bench_pmd_capture_stop(b, &f, &d) != 0)
		state.SkipWithError("capture close failed");
	frames += f;
	drops += d;
	if (bench_pmd_stop(b) != 0)
		state.SkipWithError("tear-down found an error");
	// a WRITE longer than one frame's payload is several frames; none lost
	if (drops != 0 || frames < static_cast<uint64_t>(state.iterations()) * 2)
		state.SkipWithError("frames lost or missing in the capture");
	state.SetBytesProcessed(state.iterations() * (1 << 20));
	state.counters["frames"] = static_cast<double>(frames);
}

} // namespace

int main(int argc, char **argv)
{
	if (bench_pmd_eal_init(argv[0]) != 0) {
		std::fprintf(stderr, "bench_pmd: EAL init failed\n");
		return 1;
	}
	benchmark::RegisterBenchmark("pingpong/raw_cacheline", pmd_pingpong, BENCH_PMD_RAW)
		->UseRealTime();
	benchmark::RegisterBenchmark("pingpong/shm_send", pmd_pingpong, BENCH_PMD_SEND)
		->UseRealTime();
	benchmark::RegisterBenchmark("pingpong/shm_echo", pmd_pingpong, BENCH_PMD_ECHO)
		->UseRealTime();
	benchmark::RegisterBenchmark("pingpong/shm_write", pmd_pingpong, BENCH_PMD_WRITE)
		->UseRealTime();
	benchmark::RegisterBenchmark("rate/shm_send_batch32", send_rate)->UseRealTime();
	benchmark::RegisterBenchmark("copy/memcpy_1MiB", copy, false)->UseRealTime();
	benchmark::RegisterBenchmark("copy/shm_write_1MiB", copy, true)->UseRealTime();
	benchmark::RegisterBenchmark("capture/shm_write_1MiB_icrc_bytewise", capture, true)
		->UseRealTime();
	benchmark::RegisterBenchmark("capture/shm_write_1MiB_icrc_zlib", capture, false)
		->UseRealTime();
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
