/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Assertions for the capture tests: each failed check prints where and
 * what, counts, and the test exits 1 at the end.
 */
#ifndef RPCRDMA_TEST_CHECK_H
#define RPCRDMA_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                                        \
		}                                                                                \
	} while (0)

/* Compare two integers and print both on failure. */
#define CHECK_EQ(a, b)                                                                    \
	do {                                                                              \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);           \
		if (check_a_ != check_b_) {                                               \
			fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
				__FILE__, __LINE__, #a, #b, check_a_, check_b_);          \
			check_failures++;                                                 \
		}                                                                         \
	} while (0)

#define CHECK_DONE()                                                             \
	do {                                                                     \
		if (check_failures) {                                            \
			fprintf(stderr, "%d check(s) failed\n", check_failures); \
			return 1;                                                \
		}                                                                \
		printf("all checks passed\n");                                   \
		return 0;                                                        \
	} while (0)

#endif /* RPCRDMA_TEST_CHECK_H */
