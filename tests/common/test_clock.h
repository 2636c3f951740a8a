/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The tests' clock, on its own so that a suite with its own checks (the PMD
 * conformance suite) shares it without test_check.h.
 */
#ifndef RPCRDMA_TEST_CLOCK_H
#define RPCRDMA_TEST_CLOCK_H

#include <stdint.h>
#include <time.h>

/** CLOCK_MONOTONIC in milliseconds: the deadlines of polling loops (also test_side's). */
static inline uint64_t test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* RPCRDMA_TEST_CLOCK_H */
