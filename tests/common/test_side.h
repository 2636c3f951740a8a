/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One end of an engine test or benchmark over the shm PMD: a device, its
 * protection domain and a registered pool set, opened and closed in the
 * one order that works (a device refuses to close while a PD, CQ or
 * listener of it is open: close those of your own first).
 */
#ifndef RPCRDMA_TEST_SIDE_H
#define RPCRDMA_TEST_SIDE_H

#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/rpcrdma_mempool.h>
#include <rpcrdma/rpcrdma_pmd.h>

/** The pool set of a side (rpcrdma_mempool_set_params). */
struct test_side_pools {
	const char *name;      /**< unique among the pool sets alive in the process */
	uint32_t inline_count; /**< inline buffers */
	uint32_t chunks_64k;   /**< 64 KiB chunk buffers */
	uint32_t chunks_1m;    /**< 1 MiB chunk buffers */
	uint32_t cache_size;   /**< per-lcore cache; 0 keeps the counters exact at every check */
	bool no_hugepages;
};

/**
 * Open a shm device with @p devargs (may be NULL), a PD and the pool set.
 * @return 0, or a negative errno; test_side_close() frees what was made in
 *   both cases.
 */
int test_side_open(const char *devargs, const struct test_side_pools *p,
		   struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
		   struct rpcrdma_mempool_set **pools);

/**
 * Free the pool set, the PD and the device (each skipped when NULL) and
 * clear the pointers.
 * @return how many things were wrong: buffers not back in the pools, a
 *   device that refused to close.
 */
unsigned int test_side_close(struct rpcrdma_pmd_dev **dev, struct rpcrdma_pmd_pd **pd,
			     struct rpcrdma_mempool_set **pools);

#endif /* RPCRDMA_TEST_SIDE_H */
