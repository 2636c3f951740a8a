/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C side of bench_rt.cc: the ring handoff of the lcore runtime (rpcrdma_rt.h)
 * next to plain rte_ring bursts, one round = 32 items poller -> worker ->
 * poller. Plain C types only.
 */
#ifndef BENCH_RT_SHIM_H
#define BENCH_RT_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** EAL with lcores 0-2 on the first two CPUs, no hugepages. 0 or a negative errno. */
int bench_rt_eal_init(const char *prog);

/** Set up: a runtime (1 poller, 1 worker) and two plain SP/SC rings. 0 or -1. */
int bench_rt_setup(void);

/** One thread plays both sides: plain rte_ring round of 32 (enqueue+dequeue, twice). */
void bench_rt_plain_round(void);

/** The same with each item's run and done called (what any handoff does with an item). */
void bench_rt_plain_cb_round(void);

/** The plain round with one run and one done burst handler call per burst (indirect). */
void bench_rt_plain_burst_cb_round(void);

/** One thread plays both sides: rpcrdma_rt_queue_burst of 32, flush, worker and poller iterations. */
void bench_rt_rt_round(void);

/** The same on a runtime with burst handlers (params.run_burst, done_burst). */
void bench_rt_rt_burst_round(void);

/**
 * Two lcores: n rounds of 32, the poller lcore waiting for each round to
 * come back before the next; plain rings (rt = 0) or the runtime (rt = 1).
 * @return TSC cycles the poller measured for the n rounds, 0 on error.
 */
uint64_t bench_rt_lcores_rounds(int rt, uint64_t n);

/**
 * Null RPC run to completion: a runtime with one poller and no workers
 * whose poll function takes 32 NULL calls (AUTH_NONE) from a fake transport
 * per iteration; each is decoded and dispatched, its 24-byte reply checked.
 * Setup: 0 or -1. Iterate: one poller iteration on this thread, the calls
 * handled (32). Replies: good replies so far, *bad the others.
 */
int bench_rt_null_setup(void);
int bench_rt_null_iterate(void);
uint64_t bench_rt_null_replies(uint64_t *bad);

/** Nanoseconds per TSC cycle. */
double bench_rt_ns_per_cycle(void);

#ifdef __cplusplus
}
#endif

#endif
