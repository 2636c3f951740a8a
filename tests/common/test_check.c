/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counted checks for the C tests (test_check.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"

unsigned long test_checks;
unsigned long test_failures;

void test_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	test_failures++;
	fprintf(stderr, "%s:%d: FAIL (%s):", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int test_summary(const char *name)
{
	printf("%s: %lu checks, %lu failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

void *test_malloc(size_t len)
{
	/* malloc(0) under ASan returns a chunk with no valid byte: fine here. */
	void *p = malloc(len);

	if (!p && len) {
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		abort();
	}
	return p;
}

uint8_t *test_heap_copy(const void *p, size_t len)
{
	uint8_t *q = test_malloc(len);

	if (len)
		memcpy(q, p, len);
	return q;
}

void test_hexdump(const char *title, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	fprintf(stderr, "%s (%zu bytes):", title, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 16 ? (i % 4 ? "" : " ") : "\n  ", p[i]);
	fputc('\n', stderr);
}

uint8_t test_pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 8) + 1u);
}

void test_pattern_fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = test_pattern(seed, i);
}

bool test_pattern_same(const uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != test_pattern(seed, i))
			return false;
	return true;
}
