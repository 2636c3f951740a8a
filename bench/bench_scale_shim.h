/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C side of bench_scale.cc: many connections on one server lcore. A server
 * poll group (rpcrdma_xprt.h "Poll groups") on the next lcore answers NULL
 * calls raw; N client connections in a client group on the calling (main)
 * lcore keep calls in flight spread over them, over the shm PMD in this
 * process. Plain C types only.
 */
#ifndef BENCH_SCALE_SHIM_H
#define BENCH_SCALE_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_scale;

/** EAL on two lcores. 0 or a negative errno. */
int bench_scale_eal_init(const char *prog);

/**
 * @p conns connections up between the client group and the server group,
 * sized for @p inflight calls at once; the server lcore polling. NULL on
 * failure (logged).
 */
struct bench_scale *bench_scale_start(uint32_t conns, uint32_t inflight);

/**
 * Park the server lcore, close every connection, check every buffer came
 * back and no call failed. 0 or -1.
 */
int bench_scale_stop(struct bench_scale *b);

/**
 * Keep the start's @p inflight NULL calls in flight, each reply's callback
 * sending the next call on the next connection in turn, until @p n replies
 * have come. 0 or -1.
 */
int bench_scale_pipelined(struct bench_scale *b, uint32_t n);

/** Park the server lcore (for the idle poll: the main lcore polls its group). */
void bench_scale_pause(struct bench_scale *b);

/**
 * Launch the server lcore again after bench_scale_pause(): two set-ups
 * may be up at once and take turns on the two lcores. 0 or -1.
 */
int bench_scale_resume(struct bench_scale *b);

/** One poll of the server group from the calling lcore; its work (0: idle). */
int bench_scale_server_poll(struct bench_scale *b);

/**
 * Memory: the engine's bytes per server connection (rpcrdma_xprt_info()
 * mem_bytes, averaged), and the process's resident bytes before the
 * connections were made and after.
 */
void bench_scale_memory(struct bench_scale *b, double *engine_per_conn, uint64_t *rss_before,
			uint64_t *rss_after);

/**
 * Connections each group's polls advanced (completions or pending work),
 * and polls, since start: client group first, then the server's.
 */
void bench_scale_visits(struct bench_scale *b, uint64_t *cli_visits, uint64_t *cli_polls,
			uint64_t *srv_visits, uint64_t *srv_polls);

/**
 * Completions per poll that found any, since start: client group, then
 * the server's. How much each poll's burst can overlap (its prefetches).
 */
void bench_scale_bursts(struct bench_scale *b, double *cli_wcs, double *srv_wcs);

/** The connections' calls: fewest, most (to check the spread). */
/*
 * Time each lcore spent in polls that found work, in ns, since the start
 * (the server's: up to its last pause or stop, so read it after
 * bench_scale_pause()).
 */
void bench_scale_busy(struct bench_scale *b, double *cli_ns, double *srv_ns);

void bench_scale_spread(struct bench_scale *b, uint64_t *min_calls, uint64_t *max_calls);

/*
 * The PMD alone (bench_scale_pmd.c): the same shape without the engine.
 * Each end has one CQ and one SRQ for its @p qps QPs; the client keeps
 * @p inflight SENDs of 64 bytes out, each on the next QP in turn, the
 * server lcore echoing each on the QP it came in on. The functions are
 * those of the engine's set-up above: start (the server lcore not yet
 * launched), resume, run @p n echoes, pause, stop.
 */
struct bench_scale_pmd;

struct bench_scale_pmd *bench_scale_pmd_start(uint32_t qps, uint32_t inflight);

int bench_scale_pmd_resume(struct bench_scale_pmd *b);

int bench_scale_pmd_run(struct bench_scale_pmd *b, uint32_t n);

void bench_scale_pmd_pause(struct bench_scale_pmd *b);

int bench_scale_pmd_stop(struct bench_scale_pmd *b);

#ifdef __cplusplus
}
#endif

#endif
