/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C side of bench_pmd.cc: two shm endpoints in one process, the responder
 * on a second lcore, and one call per measured operation. Plain C types only,
 * so the C++ file needs no DPDK header.
 */
#ifndef BENCH_PMD_SHIM_H
#define BENCH_PMD_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_pmd_mode {
	BENCH_PMD_RAW,	/* two lcores bounce one cache line */
	BENCH_PMD_SEND, /* 64-byte SEND/RECV round trip */
	/*
	 * The same, but each end reads what it received: the responder's
	 * message carries the request's sequence number back, the client
	 * checks it (the floor of any request and reply that reads the request)
	 */
	BENCH_PMD_ECHO,
	BENCH_PMD_WRITE, /* 64-byte RDMA WRITE, the responder polls the last word, writes back */
	BENCH_PMD_RATE,	 /* one-way SENDs, 32 per doorbell; the responder reposts */
	BENCH_PMD_COPY,	 /* 1 MiB: memcpy, or RDMA WRITE; no responder */
};

struct bench_pmd;

/** EAL on two lcores (rpcrdma_mempool_eal_init). 0 or a negative errno. */
int bench_pmd_eal_init(const char *prog);

/** Set up both endpoints, connect, start the responder. NULL on failure (logged). */
struct bench_pmd *bench_pmd_start(enum bench_pmd_mode mode);

/** Stop the responder, check that every buffer came back, free everything. 0 or -1. */
int bench_pmd_stop(struct bench_pmd *b);

/**
 * Park the responder's lcore (it returns from its loop) or launch it again,
 * so that another benchmark's responder can take the lcore in between.
 * Nothing may be in flight when parking. 0, or -1: the lcore is busy.
 */
int bench_pmd_pause(struct bench_pmd *b);
int bench_pmd_resume(struct bench_pmd *b);

/** One round trip (RAW, SEND, ECHO, WRITE). @return TSC cycles it took, 0 on error. */
uint64_t bench_pmd_pingpong(struct bench_pmd *b);

/** RATE: queue 32 SENDs and ring one doorbell (waits while 4 batches are out). 0 or -1. */
int bench_pmd_send_batch(struct bench_pmd *b);

/** RATE: wait for every batch sent. 0 or -1. */
int bench_pmd_send_drain(struct bench_pmd *b);

/** COPY: one 1 MiB memcpy between the two endpoints' buffers. */
void bench_pmd_memcpy_1mib(struct bench_pmd *b);

/** COPY: one 1 MiB RDMA WRITE between the same buffers, to its completion. 0 or -1. */
int bench_pmd_write_1mib(struct bench_pmd *b);

/**
 * COPY: capture both endpoints' QPs (rpcrdma_capture.h) into a new pcapng
 * file under $TMPDIR (or /tmp), each frame's ICRC computed with the frame
 * codec's byte-at-a-time CRC-32 (@p bytewise) or zlib's (the capture's
 * default). A capture already open is closed first, its file removed.
 * 0 or -1 (logged).
 */
int bench_pmd_capture_start(struct bench_pmd *b, int bytewise);

/**
 * Close the capture and remove its file. @p frames and @p drops: its
 * counters (frames written, frames lost). 0, or -1: a write failed.
 */
int bench_pmd_capture_stop(struct bench_pmd *b, uint64_t *frames, uint64_t *drops);

/*
 * Seconds without progress after which a round trip counts as hung and
 * fails: a guard against a hang, never a speed limit (a loaded 2-core
 * machine deschedules a peer lcore for a second or more).
 */
#define BENCH_HANG_S 10

/** Nanoseconds per TSC cycle. */
double bench_pmd_ns_per_cycle(void);

/*
 * The TSC at the start and end of the last round trip, on the main lcore:
 * bench_pmd_pingpong() and bench_engine_call() set it.
 */
struct bench_rtt_tsc {
	uint64_t t0, t1;
};
extern struct bench_rtt_tsc bench_last_rtt;

/* Where a round trip's time goes (a -Dlatency_stamps=true build: rpcrdma_stamp.h). */
enum bench_phase {
	BENCH_PH_CLIENT_SEND, /* start to the client's doorbell done (its SEND in the peer's slot) */
	BENCH_PH_TO_SERVER,   /* the client's doorbell done to the server seeing the receive */
	BENCH_PH_SERVER,      /* the server seeing the receive to its reply's doorbell done */
	BENCH_PH_TO_CLIENT,   /* the server's doorbell done to the client seeing the reply */
	BENCH_PH_CLIENT_RECV, /* the client seeing the reply to the end */
	BENCH_PH_MAX
};

/** The phase names, for counters. */
extern const char *const bench_phase_names[BENCH_PH_MAX];

/**
 * Add the last round trip's phases, in TSC cycles, to @p ph. The responder
 * is bench_responder_lcore(), as in both shims; the two lcores' TSCs
 * are taken to agree (an invariant TSC). @return 1 when added, 0 when the
 * build takes no stamps or the stamps do not fall inside the round trip.
 */
int bench_rtt_phases(double ph[BENCH_PH_MAX]);

/** 1 in a -Dlatency_stamps=true build, else 0. */
int bench_stamps_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
