/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder lcore of a two-lcore benchmark: launched with the shim's
 * loop, parked (the loop sees @stop and returns) so that another shim's
 * responder can take the lcore, launched again. Shared by the PMD and
 * engine shims (bench_pmd_pause(), bench_engine_pause()).
 */
#ifndef BENCH_RESPONDER_H
#define BENCH_RESPONDER_H

#include <stdbool.h>

#include <rte_launch.h>
#include <rte_lcore.h>

/* The responder's lcore: the one after the main lcore, which is timed. */
static inline unsigned int bench_responder_lcore(void)
{
	return rte_get_next_lcore(-1, 1, 0);
}

/* Launch @fn on @lcore unless it runs already. 0, or -1: the lcore is busy. */
static inline int bench_responder_launch(lcore_function_t *fn, void *arg, unsigned int lcore,
					 bool *launched)
{
	if (*launched)
		return 0;
	if (rte_eal_remote_launch(fn, arg, lcore) != 0)
		return -1;
	*launched = true;
	return 0;
}

/* Stop the loop on @lcore and wait for it; @stop is clear again after. */
static inline void bench_responder_park(unsigned int lcore, bool *launched, volatile int *stop)
{
	if (!*launched)
		return;
	*stop = 1;
	rte_eal_wait_lcore(lcore);
	*launched = false;
	*stop = 0;
}

#endif /* BENCH_RESPONDER_H */
