/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Counted checks for the C tests. A failed check prints where, the
 * condition and an optional printf-style message, and is counted; the test
 * goes on, and test_summary() prints the totals and gives the exit status.
 *
 *   CHECK(len == 28);
 *   CHECK(ret == 0, "decode: %s", rpcrdma_strerror(ret));
 *   CHECK_EQ(wc.status, RPCRDMA_PMD_WC_SUCCESS);
 *   return test_summary("test_name");
 */
#ifndef RPCRDMA_TEST_CHECK_H
#define RPCRDMA_TEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test_clock.h"

extern unsigned long test_checks;
extern unsigned long test_failures;

/** Report and count one failed check (use CHECK). */
void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The " " keeps the format non-empty when the check has no message. */
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		test_checks++;                                                 \
		if (!(cond))                                                   \
			test_fail(__FILE__, __LINE__, #cond, " " __VA_ARGS__); \
	} while (0)

/** Check that two integers are equal; print both when not. */
#define CHECK_EQ(a, b)                                                                         \
	do {                                                                                   \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                \
		test_checks++;                                                                 \
		if (check_a_ != check_b_)                                                      \
			test_fail(__FILE__, __LINE__, #a " == " #b, " %lld != %lld", check_a_, \
				  check_b_);                                                   \
	} while (0)

/** Print "name: N checks, M failed"; return the exit status (0 or 1). */
int test_summary(const char *name);

/** malloc() of exactly len bytes that aborts when out of memory. */
void *test_malloc(size_t len);

/** A malloc'd copy of exactly len bytes (so ASan sees a read past the end); free() it. */
uint8_t *test_heap_copy(const void *p, size_t len);

/** Print a titled hex dump to stderr, 16 bytes a line. */
void test_hexdump(const char *title, const void *buf, size_t len);

/** Byte i of the payload pattern of a seed (every byte of a buffer checked, none constant). */
uint8_t test_pattern(uint32_t seed, uint32_t i);

/** Fill len bytes with the pattern of a seed. */
void test_pattern_fill(uint8_t *b, uint32_t len, uint32_t seed);

/** Whether len bytes hold the pattern of a seed. */
bool test_pattern_same(const uint8_t *b, uint32_t len, uint32_t seed);

#endif /* RPCRDMA_TEST_CHECK_H */
