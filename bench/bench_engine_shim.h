/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C side of bench_engine.cc: a client connection of the engine on the
 * calling (main) lcore and a server connection on the next lcore, over the
 * shm PMD in this process. The server answers NULL calls with a raw
 * recv_call (the engine alone) except in BENCH_ENGINE_NULL_SVC, and every
 * other call through the dispatch glue (rpcrdma_xprt_svc.h), with a
 * program of three procedures: NULL, READ (the
 * result is DDP-eligible: it goes back through the client's write chunk)
 * and WRITE (the argument is DDP-eligible: the server pulls it from the
 * client's read chunk). Plain C types only.
 */
#ifndef BENCH_ENGINE_SHIM_H
#define BENCH_ENGINE_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_engine_mode {
	BENCH_ENGINE_NULL,	 /* NULL calls, pools' rkeys */
	BENCH_ENGINE_NULL_CHUNK, /* NULL calls offering an unused 4 KiB write chunk */
	BENCH_ENGINE_NULL_MR,	 /* the same, the chunk registered per call (PER_CALL_MR) */
	BENCH_ENGINE_READ,	 /* READ of size bytes into a write chunk */
	BENCH_ENGINE_WRITE,	 /* WRITE of size bytes from a read chunk */
	BENCH_ENGINE_NULL_SVC,	 /* NULL calls answered through the dispatch glue */
	/*
	 * NULL calls, both connections polled by the calling lcore: the
	 * engine's own work for a round trip, both ends, without the
	 * cross-core transfers (steadier on a shared machine).
	 */
	BENCH_ENGINE_NULL_1LCORE,
};

struct bench_engine;

/** EAL on two lcores. 0 or a negative errno. */
int bench_engine_eal_init(const char *prog);

/**
 * Both connections up, the server's lcore polling. NULL on failure (logged).
 *
 * @param vers
 *   0: version 1 with the pools' 4 KiB inline thresholds (RFC 8797 private
 *   data), as every engine/ benchmark before version 2 measured;
 *   1: version 1 at its default inline threshold, 1024 bytes;
 *   2: version 2 at its default, 4096 bytes (the client's probe is
 *   answered before this returns). The server accepts both versions.
 */
struct bench_engine *bench_engine_start(enum bench_engine_mode mode, uint32_t size, uint32_t vers);

/**
 * Stop the server's lcore, close both connections, check every buffer came
 * back and no call failed. 0 or -1.
 */
int bench_engine_stop(struct bench_engine *b);

/**
 * Park the server's lcore (it returns from its poll loop) or launch it
 * again (bench_pmd_pause()). No call may be in flight when parking.
 * 0, or -1: the lcore is busy.
 */
int bench_engine_pause(struct bench_engine *b);
int bench_engine_resume(struct bench_engine *b);

/** One call, to its reply (checked). @return TSC cycles it took, 0 on error. */
uint64_t bench_engine_call(struct bench_engine *b);

/**
 * Keep @p depth calls in flight (the client resubmits from the callback)
 * until @p n replies have come. 0 or -1.
 */
int bench_engine_pipelined(struct bench_engine *b, uint32_t depth, uint32_t n);

/** memcpy of size bytes between two chunk buffers (the copy baseline). */
void bench_engine_memcpy(struct bench_engine *b);

/** Work requests and doorbells the client and server rang, since start. */
void bench_engine_counts(struct bench_engine *b, uint64_t *cli_wrs, uint64_t *cli_doorbells,
			 uint64_t *srv_wrs, uint64_t *srv_doorbells);

#ifdef __cplusplus
}
#endif

#endif
