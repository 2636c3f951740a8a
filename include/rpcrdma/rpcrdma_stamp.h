/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Latency stamps: the TSC at fixed points of the PMD's fast path, the last
 * one per point and per lcore, to split a round trip into the time each end
 * spends and the time between them (engine/null_vs_shm_send reports the
 * split). Built in with -Dlatency_stamps=true; otherwise RPCRDMA_STAMP() is
 * empty and the fast path is unchanged. Each stamp costs one rdtsc (about
 * 10 ns here), so a stamped build is for finding where time goes, not for
 * the figures themselves.
 *
 * An lcore writes only its own line; another lcore reads it after the round
 * trip it stamped (the benchmark's own synchronisation orders the reads).
 */
#ifndef RPCRDMA_STAMP_H
#define RPCRDMA_STAMP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a stamp is taken. */
enum rpcrdma_stamp_point {
	/** A doorbell's work requests have executed (shm: the SEND is in the peer's slot). */
	RPCRDMA_STAMP_DOORBELL,
	/** A receive completion is seen (shm: the slot's DONE, before the CQ entry). */
	RPCRDMA_STAMP_RECV,
	RPCRDMA_STAMP_MAX
};

/** The stamps of one lcore, on its own cache line. */
struct rpcrdma_stamps {
	uint64_t tsc[RPCRDMA_STAMP_MAX];
} __rte_cache_aligned;

extern struct rpcrdma_stamps rpcrdma_stamps[RTE_MAX_LCORE];

#ifdef RPCRDMA_LATENCY_STAMPS
/** Record the TSC for @p point on this lcore (not on a non-EAL thread). */
#define RPCRDMA_STAMP(point)                                                   \
	do {                                                                   \
		unsigned int stamp_lcore_ = rte_lcore_id();                    \
		if (stamp_lcore_ < RTE_MAX_LCORE)                              \
			rpcrdma_stamps[stamp_lcore_].tsc[point] = rte_rdtsc(); \
	} while (0)
#else
#define RPCRDMA_STAMP(point) \
	do {                 \
	} while (0)
#endif

/** Whether this build takes stamps (-Dlatency_stamps=true). */
bool rpcrdma_stamps_enabled(void);

/** The last TSC @p lcore stamped at @p point; 0 if none (or out of range). */
uint64_t rpcrdma_stamp_get(unsigned int lcore, enum rpcrdma_stamp_point point);

#ifdef __cplusplus
}
#endif

#endif /* RPCRDMA_STAMP_H */
